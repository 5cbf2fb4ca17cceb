"""The first screen: per mode, what to use and what it costs; then what silently fails.

Per mode, the candidates are the strategies that work at every timed batch size (in the shape
the screen chose). The *fastest* has the lowest geometric-mean overhead over its no-update twin;
the *tie set* is every candidate not significantly slower than it at any batch size (95 %
hierarchical-bootstrap interval of the difference, Bonferroni over batch sizes). The tie is broken
by simplicity, never by noise: a documented MindSpore API first, then a scalar Parameter, then the
shorter write, then the name. A subject significantly faster than its own no-update twin is marked
"control invalid" and is never a candidate.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pandas as pd

from bench.core import stats
from bench.report import fmt
from bench.report.load import RunData


def simplicity(run: RunData, strategy: str) -> tuple:
    facts = run.manifest.strategies.get(strategy, {})
    return (
        bool(facts.get("custom")),
        not facts.get("api"),
        facts.get("layout", "scalar") != "scalar",
        facts.get("write_size", 0),
        strategy,
    )


def candidates(run: RunData, mode: str) -> pd.DataFrame:
    """Timed update cells of the strategies that work at every batch size in ``mode``."""
    cells = run.cells
    if cells.empty:
        return cells
    rows = cells[(cells["mode"] == mode) & (cells.role == "update")]
    sizes = set(run.plan.get("batch_sizes", rows.batch_size.unique()))
    good = rows.groupby("strategy").filter(
        lambda g: (
            (g.status == "works").all()
            and not g.control_invalid.any()
            and set(g.batch_size) >= sizes
            and (g.processes > 0).all()
        )
    )
    return good


def ranking(run: RunData, mode: str, n_boot: int = stats.N_BOOTSTRAP) -> list[dict]:
    """Candidates, fastest first: geometric-mean overhead, tie with the fastest, simplicity."""
    rows = candidates(run, mode)
    if rows.empty:
        return []
    geo = rows.groupby("strategy").ratio.apply(lambda r: float(np.exp(np.log(r).mean())))
    order = list(geo.sort_values().index)
    best = rows[rows.strategy == order[0]].set_index("batch_size")
    sizes = sorted(best.index)
    confidence = 1 - (1 - stats.CONFIDENCE) / max(len(sizes), 1)
    out = []
    for name in order:
        mine = rows[rows.strategy == name].set_index("batch_size")
        slower_at = []
        for n in sizes:
            if name == order[0]:
                break
            _, low, _ = stats.bootstrap_difference(
                mine.loc[n].ratio_groups,
                best.loc[n].ratio_groups,
                n_boot=n_boot,
                confidence=confidence,
            )
            if low > 0:
                slower_at.append(n)
        out.append(
            {
                "strategy": name,
                "geomean": float(geo[name]),
                "tied": not slower_at,
                "slower_at": slower_at,
                "cells": mine.sort_index(),
                "simplicity": simplicity(run, name),
            }
        )
    return out


def recommendation(ranked: list[dict]) -> dict | None:
    tied = [r for r in ranked if r["tied"]]
    return min(tied, key=lambda r: r["simplicity"]) if tied else None


def _adds(cells: pd.DataFrame, symbol: str = "N") -> str:
    first, last = cells.iloc[0], cells.iloc[-1]
    return (
        f"{symbol}={first.name}: {fmt.signed(first.added_s, first.added_low_s, first.added_high_s)}"
        f"; {symbol}={last.name}: {fmt.signed(last.added_s, last.added_low_s, last.added_high_s)}"
    )


def answer_table(run: RunData, n_boot: int) -> tuple[list[str], dict]:
    modes = run.plan.get("modes", [])
    rows, chosen = [], {}
    for mode in modes:
        ranked = ranking(run, mode, n_boot)
        pick = recommendation(ranked)
        if pick is None:
            rows.append([fmt.mode_label(mode), "nothing works at every batch size", "", "", "", ""])
            continue
        chosen[mode] = pick
        cells = pick["cells"]
        facts = run.manifest.strategies.get(pick["strategy"], {})
        tied = [r["strategy"] for r in ranked if r["tied"] and r is not pick]
        shape = cells.iloc[0]["shape"]
        overhead = ", ".join(
            fmt.ratio(r.ratio, r.ratio_low, r.ratio_high) for r in cells.iloc[[0, -1]].itertuples()
        )
        rows.append(
            [
                fmt.mode_label(mode),
                f"`{pick['strategy']}`: {facts.get('description', '')}",
                f"`{shape}`",
                _adds(cells, run.symbol),
                overhead,
                ", ".join(f"`{t}`" for t in tied) or "none",
            ]
        )
    head = [
        "mode",
        "use (strategy: what it does)",
        "in this shape",
        "adds per step vs no update",
        "overhead (smallest, largest N)",
        "not significantly slower (ties)",
    ]
    return fmt.table(head, rows), chosen


def grouped_failures(run: RunData, status: str) -> list[dict]:
    """One entry per strategy × failure class, with the modes and shapes it holds in."""
    v = run.verdicts
    rows = v[(v.status == status) & (v.strategy != "control")]
    groups: dict[tuple, dict] = {}
    totals = v[~v.status.isin(["inexpressible", "broken"])].groupby(["strategy", "mode"]).size()
    for r in rows.itertuples():
        g = groups.setdefault((r.strategy, r.failure), {"modes": defaultdict(list), "example": r})
        g["modes"][r.mode].append(r.shape)
    out = []
    for (strategy, failure), g in groups.items():
        parts = []
        for mode, shapes in g["modes"].items():
            total = int(totals.get((strategy, mode), len(shapes)))
            every = len(shapes) == total
            parts.append((mode, shapes, total, every))
        out.append(
            {"strategy": strategy, "failure": failure, "parts": parts, "example": g["example"]}
        )
    return sorted(out, key=lambda g: (-sum(len(p[1]) for p in g["parts"]), g["strategy"]))


def failure_lines(run: RunData, status: str, repro_links: dict) -> list[str]:
    lines = []
    for g in grouped_failures(run, status):
        what = g["failure"].split(": ", 1)[-1]
        where = []
        for mode, shapes, total, every in g["parts"]:
            count = "in every shape tried" if every else f"in {len(shapes)} of {total} shapes"
            link = repro_links.get((g["strategy"], mode, g["failure"]))
            where.append(
                f"{fmt.mode_label(mode)} {count}" + (f" ([repro]({link}))" if link else "")
            )
        lines.append(f"- `{g['strategy']}`: {what} — " + "; ".join(where))
    return lines

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
from dataclasses import replace

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
    """Failures grouped by finding: one entry per failure class and set of shapes per mode,
    listing every strategy that fails exactly that way (so a fact about a code shape that holds
    for every API reads once, not once per API)."""
    v = run.verdicts
    gated = v[~v.status.isin(["inexpressible", "broken"]) & (v.strategy != "control")]
    shapes_of = {k: set(g["shape"]) for k, g in gated.groupby(["strategy", "mode"])}
    rows = gated[gated.status == status]
    per_strategy: dict[tuple, dict] = {}
    for (strategy, failure, mode), g in rows.groupby(["strategy", "failure", "mode"]):
        per_strategy.setdefault((strategy, failure), {})[mode] = frozenset(g["shape"])
    groups: dict[tuple, list] = {}
    for (strategy, failure), modes in per_strategy.items():
        key = (failure, tuple(sorted(modes.items())))
        groups.setdefault(key, []).append(strategy)
    out = []
    for (failure, modes), strategies in groups.items():
        parts = []
        for mode, failing in modes:
            every = set().union(*(shapes_of.get((s, mode), set()) for s in strategies))
            parts.append((mode, failing, every))
        out.append({"failure": failure, "strategies": sorted(strategies), "parts": parts})
    return sorted(out, key=lambda g: -len(g["strategies"]) * sum(len(p[1]) for p in g["parts"]))


def shape_rules(run: RunData) -> tuple[list[str], set]:
    """Findings about a code shape that hold for several strategies: a one-dimension change
    that flips the verdict in every pair that has it (minimal pairs), and the failures it
    explains, which the per-strategy lines then leave out."""
    from bench.report.pairs import minimal_pairs

    pairs = minimal_pairs(run.verdicts)
    pairs = pairs[(pairs.pairs == pairs["of"]) & (pairs.works_outcome == "works")]
    keys = ["mode", "dim", "works_value", "fails_value", "fails_outcome"]
    merged: dict[tuple, list] = {}
    for key, g in pairs.groupby(keys):
        if g.strategy.nunique() >= 2:
            mode, *rest = key
            merged.setdefault((*rest, tuple(sorted(set(g.strategy)))), []).append(mode)
    lines, explained = [], set()
    v = run.verdicts
    for (dim, good, bad, outcome, strategies), modes in merged.items():
        for m in modes:
            hit = v[(v["mode"] == m) & v.strategy.isin(strategies) & (v.failure == outcome)]
            explained |= {
                (r.strategy, r.mode, r.shape) for r in hit.itertuples() if r.dims.get(dim) == bad
            }
        names = ", ".join(f"`{s}`" for s in strategies)
        lines.append(
            f"- **{outcome.split(': ', 1)[-1]}** whenever `{dim}={bad}` instead of `{dim}={good}` "
            f"(every minimal pair flips): {names} in {', '.join(map(fmt.mode_label, modes))}"
        )
    return lines, explained


def failure_lines(
    run: RunData, status: str, repro_links: dict, explained: set | None = None
) -> list[str]:
    """One line per finding: what fails, which strategies, in which modes and shapes, a repro
    (failures ``explained`` by a shape rule are left out)."""
    from bench.report.findings import cover

    if explained:
        keep = [(r.strategy, r.mode, r.shape) not in explained for r in run.verdicts.itertuples()]
        run = replace(run, verdicts=run.verdicts[keep])
    lines = []
    for g in grouped_failures(run, status):
        what = g["failure"].split(": ", 1)[-1]
        names = ", ".join(f"`{s}`" for s in g["strategies"])
        by_shapes: dict[frozenset, list[str]] = defaultdict(list)
        for mode, failing, _ in g["parts"]:
            by_shapes[failing].append(mode)
        where = []
        for failing, modes in by_shapes.items():
            every = set().union(*(e for m, f, e in g["parts"] if m in modes))
            globs = cover(set(failing), every)
            shapes = (
                "every shape tried"
                if globs == ["*"]
                else f"{len(failing)} of {len(every)} shapes: "
                + ", ".join(f"`{x}`" for x in globs[:4])
                + (", …" if len(globs) > 4 else "")
            )
            link = repro_links.get((g["strategies"][0], modes[0], g["failure"]))
            label = ", ".join(fmt.mode_label(m) for m in modes)
            where.append(f"{label} in {shapes}" + (f" ([repro]({link}))" if link else ""))
        lines.append(f"- **{what}**: {names} — " + "; ".join(where))
    return lines

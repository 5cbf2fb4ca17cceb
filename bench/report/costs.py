"""What it costs: per mode, each strategy (in its chosen shape) against its no-update twin; the
layout cells; the shape screen; the first call (compilation).

Absolute step times move between processes and runs on a shared machine (a process can keep a
different speed for its whole life); the overhead ratio is paired round by round and is the
stable number. Every absolute time is printed with its spread over processes (min–max of the
per-process medians), so the reader sees how far it can be trusted.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bench.report import fmt
from bench.report.load import RunData


def _sizes(rows: pd.DataFrame) -> list[int]:
    return sorted(rows.batch_size.unique())


def _grid(rows: pd.DataFrame, show, label: str = "strategy (shape)") -> list[str]:
    sizes = _sizes(rows)
    table = []
    for (strategy, shape), group in rows.groupby(["strategy", "shape"], sort=True):
        by_n = group.set_index("batch_size")
        cells = [show(by_n.loc[n]) if n in by_n.index else "–" for n in sizes]
        table.append([f"`{strategy}` (`{shape}`)", *cells])
    return fmt.table([label, *(f"N={n}" for n in sizes)], table)


def _overhead(r) -> str:
    if r.status != "works" or not r.processes:
        return str(r.status)
    text = fmt.ratio(r.ratio, r.ratio_low, r.ratio_high)
    return text + (" (control invalid)" if r.control_invalid else "")


def _step(r) -> str:
    if not r.processes:
        return str(r.status)
    spread = ""
    if r.processes > 1:
        spread = f" ({fmt.duration(r.process_min_s)}–{fmt.duration(r.process_max_s)})"
    return fmt.duration(r.step_s) + spread


def per_mode(run: RunData) -> list[str]:
    cells = run.cells
    out = []
    for mode in run.plan.get("modes", []):
        rows = cells[(cells["mode"] == mode) & (cells.role == "update")] if len(cells) else cells
        if rows.empty:
            continue
        label = fmt.mode_label(mode)
        out += [
            f"### {label}",
            "",
            "Overhead = strategy step / paired no-update step [95 % CI]:",
            "",
        ]
        out += _grid(rows, _overhead)
        out += ["Added time per step [95 % CI]:", ""]
        out += _grid(
            rows,
            lambda r: (
                fmt.signed(r.added_s, r.added_low_s, r.added_high_s)
                if r.processes
                else str(r.status)
            ),
        )
        out += ["Time per step, median (min–max over processes):", ""]
        out += _grid(rows, _step)
    return out


def layout(run: RunData) -> list[str]:
    cells = run.cells
    rows = cells[cells.role == "layout"] if len(cells) else cells
    if rows.empty:
        return []
    out = [
        "Each generated control (no update at all) against the base control (a 0-d Parameter "
        "read directly): what the state's layout and the way the forward reads it cost, with no "
        "update involved. Ratio [95 % CI]:",
        "",
    ]
    for mode in run.plan.get("modes", []):
        mine = rows[rows["mode"] == mode]
        if len(mine):
            out += [
                f"**{fmt.mode_label(mode)}**",
                "",
                *_grid(mine, _overhead, "control (layout-read)"),
            ]
    return out


def layout_finding(run: RunData) -> str | None:
    """One sentence: the largest penalty of a (1,) Parameter read raw, and what the view gives."""
    cells = run.cells
    if cells.empty:
        return None
    rows = cells[(cells.role == "layout") & (cells.status == "works")]
    raw = rows[rows["shape"].isin(["vector-param", "vector-alias"])]
    view = rows[rows["shape"] == "vector-view"]
    if raw.empty:
        return None
    text = (
        f"A 1-element vector Parameter read directly as the clip's bound costs "
        f"×{raw.ratio.min():.2f}–×{raw.ratio.max():.2f} the base control's step (no update at all; "
        f"{', '.join(fmt.mode_label(m) for m in sorted(set(raw['mode'])))}, N="
        f"{raw.batch_size.min()}–{raw.batch_size.max()})"
    )
    if len(view):
        text += (
            f"; read through a 0-d view (`lim = self.limit.reshape(())`) it costs "
            f"×{view.ratio.min():.2f}–×{view.ratio.max():.2f}"
        )
    return text + (
        ". This is the layout's cost, not any update's: each strategy is timed in its fastest "
        "working shape, against a control of the same layout and read."
    )


def screen(run: RunData) -> list[str]:
    if run.screen.empty and not run.selection:
        return []
    out = [
        "Every working shape of a strategy timed once against the base control at one batch "
        "size (cost = median ratio; a shape within 3 % of the fastest is a tie, broken by "
        "simplicity). The chosen shape is timed in full.",
        "",
    ]
    rows = []
    for choice in run.selection:
        mode, strategy = choice["mode"], choice["strategy"]
        screened = run.screen[(run.screen["mode"] == mode) & (run.screen.strategy == strategy)]
        costs = ""
        if len(screened):
            lo, hi = screened.cost.min(), screened.cost.max()
            costs = f"×{lo:.2f}–×{hi:.2f} over {len(screened)} shapes"
        rows.append(
            [fmt.mode_label(mode), f"`{strategy}`", f"`{choice['shape']}`", choice["why"], costs]
        )
    return out + fmt.table(["mode", "strategy", "timed shape", "why", "screened cost"], rows)


def first_call(run: RunData) -> list[str]:
    cells = run.cells
    rows = cells[(cells.role == "update") & (cells.processes > 0)] if len(cells) else cells
    if rows.empty:
        return []
    modes = [m for m in run.plan.get("modes", []) if m in set(rows["mode"])]
    table = []
    for strategy, group in rows.groupby("strategy"):
        line = [f"`{strategy}`"]
        for mode in modes:
            values = group[group["mode"] == mode].first_call_s.dropna()
            line.append(
                f"{fmt.duration(float(np.median(values)))} ({fmt.duration(values.min())}–"
                f"{fmt.duration(values.max())})"
                if len(values)
                else "–"
            )
        table.append(line)
    return [
        "The first call of a fresh cell (in compiled modes it compiles the graph), median over "
        "batch sizes and processes (min–max); every process first runs one untimed step, so "
        "process start-up is not included.",
        "",
        *fmt.table(["strategy", *map(fmt.mode_label, modes)], table),
    ]

"""What it costs: per mode, each strategy (in its chosen shape) against its no-update twin; the
layout cells; the shape screen; the first call (compilation).

Absolute step times move between processes and runs on a shared machine (a process can keep a
different speed for its whole life); the overhead ratio is paired round by round and is the
stable number. Every absolute time is printed with its spread over processes (min–max of the
per-process medians), so the reader sees how far it can be trusted.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bench.report import fmt
from bench.report.load import RunData


def _sizes(rows: pd.DataFrame) -> list[int]:
    return sorted(rows.batch_size.unique())


def _grid(
    rows: pd.DataFrame, show, label: str = "strategy (shape)", symbol: str = "N"
) -> list[str]:
    sizes = _sizes(rows)
    table = []
    for (strategy, shape), group in rows.groupby(["strategy", "shape"], sort=True):
        by_n = group.set_index("batch_size")
        cells = [show(by_n.loc[n]) if n in by_n.index else "–" for n in sizes]
        table.append([f"`{strategy}` (`{shape}`)", *cells])
    return fmt.table([label, *(f"{symbol}={n}" for n in sizes)], table)


def _overhead(r) -> str:
    if r.status != "works" or not r.processes:
        return str(r.status)
    text = fmt.ratio(r.ratio, r.ratio_low, r.ratio_high)
    return text + (" (control invalid)" if r.control_invalid else "")


def _step(r) -> str:
    if not r.processes or r.status != "works":
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
        out += _grid(rows, _overhead, symbol=run.symbol)
        out += ["Added time per step [95 % CI]:", ""]
        out += _grid(
            rows,
            lambda r: (
                fmt.signed(r.added_s, r.added_low_s, r.added_high_s)
                if r.processes and r.status == "works"
                else str(r.status)
            ),
            symbol=run.symbol,
        )
        out += ["Time per step, median (min–max over processes):", ""]
        out += _grid(rows, _step, symbol=run.symbol)
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
                *_grid(mine, _overhead, "control (layout-read)", run.symbol),
            ]
    return out


def _floor_cell(row) -> str:
    """``1.2 ms (×8)``; no ratio when the update's bytes are unknown (host-side strategies)."""
    time = fmt.duration(row.step_s)
    x = row.x_floor
    return f"{time} (×{x:,.0f})" if x is not None and math.isfinite(x) else time


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
        f"State kept in 1-element vector Parameters and read directly by the forward costs "
        f"×{raw.ratio.min():.2f}–×{raw.ratio.max():.2f} the base control's step (no update at all; "
        f"{', '.join(fmt.mode_label(m) for m in sorted(set(raw['mode'])))}, N="
        f"{raw.batch_size.min()}–{raw.batch_size.max()})"
    )
    if len(view):
        text += (
            f"; read through a 0-d view (`.reshape(())`) it costs "
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


# -- big state: the physical floor and how the cost grows --------------------------------------
def floors(run: RunData) -> pd.DataFrame:
    """Per timed update cell: the bytes its write must move and the floor time at the bandwidth
    this run measured for that working set (empty for workloads without a floor)."""
    from bench.measured import workloads
    from bench.run.bandwidth import floor_seconds

    name = run.workload
    work = workloads.get(name) if name in workloads.WORKLOADS else None
    cells = run.cells
    if work is None or not work.floor_kernel or cells.empty or not run.bandwidth:
        return pd.DataFrame()
    dims = {(r.strategy, r.shape): r.dims for r in run.verdicts.itertuples()}
    rows = cells[(cells.role == "update") & (cells.processes > 0)].copy()
    rows["bytes"] = [
        work.bytes_moved(dims.get((r.strategy, r.shape), {}), r.batch_size)
        for r in rows.itertuples()
    ]
    rows["floor_s"] = [floor_seconds(run.bandwidth, b or 0, work.floor_kernel) for b in rows.bytes]
    rows["x_floor"] = rows.step_s / rows.floor_s
    return rows


def slope(sizes, times) -> float:
    """The log-log slope of time against state size (1 = linear, 0 = flat)."""
    x, y = np.log(np.asarray(sizes, float)), np.log(np.asarray(times, float))
    ok = np.isfinite(x) & np.isfinite(y)
    return float(np.polyfit(x[ok], y[ok], 1)[0]) if ok.sum() >= 2 else float("nan")


def big_state(run: RunData) -> list[str]:
    rows = floors(run)
    if rows.empty:
        return []
    points = ", ".join(
        f"{p['array_bytes'] / 2**20:g} MiB: copy {p['copy_GBs']} / triad {p['triad_GBs']} GB/s"
        for p in run.bandwidth.get("points", [])
    )
    bw = run.bandwidth
    out = [
        f"Memory bandwidth measured in this run (one thread, best of {bw.get('repeats')}; "
        f"last-level cache {bw.get('llc_bytes', 0) / 2**20:g} MiB): {points}. The floor of a "
        "cell is the bytes its update must move divided by the bandwidth measured at the "
        "nearest working-set size above; × floor = time per step / floor (1 = as fast as "
        "memory allows).",
        "",
    ]
    for mode in run.plan.get("modes", []):
        mine = rows[rows["mode"] == mode]
        if mine.empty:
            continue
        out += [
            f"**{fmt.mode_label(mode)}**: time per step (× floor), and the log-log slope of "
            "time against the state size",
            "",
        ]
        sizes = sorted(mine.batch_size.unique())
        table = []
        for (strategy, shape), group in mine.groupby(["strategy", "shape"]):
            by = group.set_index("batch_size")
            cells = [_floor_cell(by.loc[n]) if n in by.index else "–" for n in sizes]
            g = group.sort_values("batch_size")
            added = g.added_s.clip(lower=1e-9)
            slopes = [slope(g.batch_size, g.step_s), slope(g.batch_size, added)]
            table.append([f"`{strategy}` (`{shape}`)", *cells, *(f"{x:.2f}" for x in slopes)])
        head = [
            "strategy (shape)",
            *(f"{run.symbol}={n}" for n in sizes),
            "slope",
            "slope of added",
        ]
        out += fmt.table(head, table)
    return out

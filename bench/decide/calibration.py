"""What a run's own controls say about its precision, as data: the A/A cells (a twin against a
copy of itself: how many of their intervals contain 1, the sizes a bias makes undetermined), the
twins found invalid, the layout twins, the screen's choices, the first calls and, for big-state
workloads, each timed cell against the memory-bandwidth floor. Pure functions of ``RunData``;
``bench.report.costs`` puts them into words (``templates/costs.md.j2``)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from bench.core.bandwidth import floor_seconds
from bench.core.schema import Status
from bench.decide.load import RunData

AA_TARGET = 0.90  # issue 27: at least 90 % of the A/A intervals should contain 1


def contains_one(intervals) -> tuple[int, int]:
    """(how many of the ratio ``intervals`` contain 1, how many there are): an A/A cell's true
    ratio is 1, so about 95 % of their 95 % intervals should contain it. An interval that is
    not finite counts as not containing it."""
    intervals = list(intervals)
    inside = sum(
        bool(math.isfinite(lo) and math.isfinite(hi) and lo <= 1.0 <= hi) for lo, hi in intervals
    )
    return inside, len(intervals)


def aa_coverage(run: RunData) -> dict[str, tuple[int, int]]:
    """{mode: (A/A 95 % intervals containing 1, A/A cells)} of the modes with A/A cells."""
    out = {}
    for mode in run.modes:
        m = run.analysis.get(mode)
        cells = [c for c in m.of_role("aa") if c.status == Status.WORKS.value] if m else []
        if cells:
            out[mode] = contains_one(c.estimate.ratio_interval for c in cells)
    return out


def undetermined_sizes(run: RunData, mode: str) -> list[int]:
    """The sizes whose A/A interval lies wholly outside ±margin: every decision of the mode at
    them is undetermined (``analysis.ModeAnalysis.aa_flagged``)."""
    m = run.analysis.get(mode)
    return m.aa_flagged() if m else []


def invalid_twins(run: RunData) -> list[tuple[str, str, str]]:
    """(mode, twin, why) of every twin ``analysis.check_twins`` found invalid, sorted, once."""
    return sorted(
        {
            (mode, c.control, c.twin_invalid)
            for mode in run.modes
            for c in (run.analysis[mode].of_role("update") if mode in run.analysis else [])
            if c.twin_invalid
        }
    )


@dataclass(frozen=True)
class AARow:
    """One mode's A/A cells: the estimate per size (None where none ran), the coverage, the
    sizes a bias makes undetermined."""

    mode: str
    by_size: dict
    inside: int
    total: int
    flagged: list


def aa_rows(run: RunData) -> tuple[list[int], list[AARow]]:
    """(the A/A sizes, one ``AARow`` per mode with A/A cells)."""
    sizes = sorted({n for m in run.analysis.values() for n in m.aa})
    coverage = aa_coverage(run)
    rows = []
    for mode in run.modes:
        m = run.analysis.get(mode)
        if m and m.aa:
            inside, total = coverage.get(mode, (0, 0))
            by = {n: m.aa.get(n) for n in sizes}
            rows.append(AARow(mode, by, inside, total, undetermined_sizes(run, mode)))
    return sizes, rows


def by_shape_and_size(cells) -> tuple[list[int], dict]:
    """(the sizes, {(strategy, shape): {size: cell}}) of some cells."""
    sizes = sorted({c.id.size for c in cells})
    by: dict[tuple, dict] = {}
    for c in cells:
        by.setdefault((c.id.strategy, c.id.shape), {})[c.id.size] = c
    return sizes, by


def first_calls(run: RunData) -> tuple[list[str], dict[str, dict[str, float]]]:
    """(the modes, {strategy: {mode: median first call over sizes and processes}})."""
    table: dict[str, dict[str, list]] = {}
    for mode in run.modes:
        m = run.analysis.get(mode)
        for c in m.of_role("update") if m else []:
            table.setdefault(c.id.strategy, {}).setdefault(mode, []).append(c.first_call_s)
    modes = [m for m in run.modes if any(m in v for v in table.values())]
    return modes, {
        s: {m: float(np.nanmedian(v[m])) for m in modes if m in v} for s, v in sorted(table.items())
    }


def screened(run: RunData, mode: str, strategy: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(the screen's rows of a strategy in a mode with a cost, those without one)."""
    s = run.screen
    mine = s[(s["mode"] == mode) & (s.strategy == strategy)] if len(s) else s
    if not len(mine):
        return mine, mine
    return mine[mine.cost.notna()], mine[mine.cost.isna()]


def floors(run: RunData) -> pd.DataFrame:
    """Per timed update cell: the bytes its write must move and the floor time at the bandwidth
    this run measured for that working set (empty for workloads without a floor)."""
    work, cells = run.work, run.cells
    if not work.floor_kernel or cells.empty or not run.bandwidth:
        return pd.DataFrame()
    rows = cells[(cells.role == "update") & (cells.status == Status.WORKS.value)].copy()
    dims = {(r.strategy, r.shape): r.dims for r in run.verdicts.itertuples()}
    rows["bytes"] = [
        work.bytes_moved(dims.get((r.strategy, r.shape), {}), r.size) for r in rows.itertuples()
    ]
    rows["floor_s"] = [floor_seconds(run.bandwidth, b or 0, work.floor_kernel) for b in rows.bytes]
    rows["x_floor"] = rows.step_s / rows.floor_s
    return rows


def slope(sizes, times) -> float:
    """The log-log slope of time against state size (1 = linear, 0 = flat)."""
    x, y = np.log(np.asarray(sizes, float)), np.log(np.asarray(times, float))
    ok = np.isfinite(x) & np.isfinite(y)
    return float(np.polyfit(x[ok], y[ok], 1)[0]) if ok.sum() >= 2 else float("nan")

"""What it costs: per mode, each strategy's added time per step against its no-update twin (the
ranking number, with its interval and its standing against the fastest), the ratio as a second
column, the A/A calibration, the layout cells, the shape screen, the first call (compilation)
and, for big-state workloads, the memory-bandwidth floor. Pure functions: RunData -> lines."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bench.core import fmt
from bench.core.bandwidth import floor_seconds
from bench.core.schema import Status
from bench.decide import answer, decisions
from bench.decide.answer import NOT_TIMED
from bench.decide.load import RunData
from bench.measured.modes import MODES, label
from bench.report import phrases
from bench.report.phrases import QUEUE_DRAIN
from bench.run.select import ALPHA, TIE


def per_mode(run: RunData) -> list[str]:
    """Per mode: added time [95 % interval] per size, standing against the fastest, ratio."""
    out = []
    for mode in run.modes:
        m = run.analysis.get(mode)
        rows = m.of_role("update") if m else []
        if not rows:
            continue
        dist = MODES[mode].distribution if mode in MODES else False
        sizes = sorted({c.id.size for c in rows})
        by: dict[tuple, dict] = {}
        for c in rows:
            by.setdefault((c.id.strategy, c.id.shape), {})[c.id.size] = c
        table = []
        said = answer.outcomes(run, mode)  # the one source every page reads
        for (strategy, shape), cells in sorted(by.items(), key=lambda kv: _rank(said, kv[0][0])):
            what = said.get(strategy, answer.CANNOT)
            wrong = what not in (*answer.TIMED, NOT_TIMED)
            line = [f"`{strategy}` (`{shape}`)", what]
            for n in sizes:
                c = cells.get(n)
                if c is None:
                    line.append("–")
                elif c.status != Status.WORKS.value or wrong:
                    line.append("not a cost: not correct")
                elif c.twin_invalid:
                    line.append(f"twin invalid (whole step {fmt.duration(c.step_s)})")
                else:
                    line.append(phrases.cost_words(decisions.cell_cost(c), mode))
            table.append(line)
        head = [
            "strategy (shape)",
            "against the fastest candidate",
            *(f"{run.symbol}={n}" for n in sizes),
        ]
        note = (
            "Added time per step [95 % interval] (its ratio to the twin's step), and the "
            f"{phrases.ROUNDS_QUARTILES} where a cell has {phrases.QUARTILE_ROUNDS} rounds or more "
            "(PYNATIVE as users run it is a distribution of queue drains, not a number)."
            if dist
            else "Added time per step [95 % interval] (its ratio to the twin's step)."
        )
        caveat = [f"*Caveat*: {QUEUE_DRAIN}.", ""] if dist else []
        faster = any(phrases.FASTER_THAN_WITHOUT in x for row in table for x in row)
        why = [f"*{phrases.FASTER_THAN_WITHOUT}*: {phrases.WHY_FASTER}.", ""] if faster else []
        out += [
            f"### {label(mode)}",
            "",
            note,
            "",
            *caveat,
            *biased_note(run, mode),
            *fmt.table(head, table),
            *why,
        ]
    return out


def _rank(said: dict[str, str], strategy: str) -> tuple:
    order = {"fastest": 0, "faster": 1, "equivalent": 1, "undetermined": 2, "slower": 3}
    return (order.get(said.get(strategy, ""), 4), strategy)


def twins(run: RunData) -> list[str]:
    """Every twin checked in every mode (``analysis.check_twins``): the invalid ones with why."""
    bad = [
        (label(mode), c.control, c.twin_invalid)
        for mode in run.modes
        for c in (run.analysis[mode].of_role("update") if mode in run.analysis else [])
        if c.twin_invalid
    ]
    rows = sorted({(m, f"`{t}`", why) for m, t, why in bad})
    intro = (
        "A twin is its subject's step without the write; it is valid when its step grows with "
        "the size as its subjects' steps do and no subject is faster than it beyond the margin. "
    )
    if not rows:
        return [intro + "Every twin of this run passed both checks.", ""]
    return [
        intro + "These did not: the added time of every strategy measured against them is not "
        "shown (their whole steps are, and the head-to-head comparisons do not use twins).",
        "",
        *fmt.table(["mode", "twin", "why it is invalid"], [list(r) for r in rows]),
    ]


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


def spread(run: RunData, mode: str) -> str:
    """The mode's between-process variance as a user reads it: τ (Paule–Mandel) with Cochran's
    Q and its p, or "not estimable" where no cell was timed in two processes (never "0.0 %")."""
    m = run.analysis.get(mode)
    het = m.heterogeneity if m else None
    if het is None or not het.df:
        return "not estimable (no cell was timed in two processes)"
    return het.describe()


def undetermined_sizes(run: RunData, mode: str) -> list[int]:
    """The sizes whose A/A interval lies wholly outside ±margin: every decision of the mode at
    them is undetermined (``analysis.ModeAnalysis.aa_flagged``)."""
    m = run.analysis.get(mode)
    return m.aa_flagged() if m else []


def biased_note(run: RunData, mode: str) -> list[str]:
    """Where a bias turns decisions undetermined, said where they are shown."""
    sizes = undetermined_sizes(run, mode)
    if not sizes:
        return []
    at = ", ".join(f"{run.symbol}={n}" for n in sizes)
    return [
        f"*At {at} the A/A interval (the base twin against a copy of itself) lies wholly "
        "outside ± the margin: every decision of this mode at "
        f"{'that size' if len(sizes) == 1 else 'those sizes'} is undetermined.*",
        "",
    ]


def calibration(run: RunData) -> list[str]:
    """The A/A cells: the base twin against a second instance of itself, per mode and size, how
    many intervals contain 1, the sizes a bias makes undetermined, the between-process spread."""
    rows = []
    sizes = sorted({n for m in run.analysis.values() for n in m.aa})
    coverage = aa_coverage(run)
    for mode in run.modes:
        m = run.analysis.get(mode)
        if not m or not m.aa:
            continue
        cells = []
        for n in sizes:
            e = m.aa.get(n)
            cells.append(fmt.ratio(e.ratio, *e.ratio_interval) if e else "–")
        flagged = undetermined_sizes(run, mode)
        flag = (
            f"decisions undetermined at {', '.join(f'{run.symbol}={n}' for n in flagged)}"
            if flagged
            else "no size beyond the margin"
        )
        inside, total = coverage.get(mode, (0, 0))
        rows.append([label(mode), *cells, f"{inside}/{total}", flag, spread(run, mode)])
    if not rows:
        return []
    head = [
        "mode",
        *(f"{run.symbol}={n}" for n in sizes),
        "intervals containing 1",
        "A/A bias",
        "between-process spread",
    ]
    return [
        "The base twin timed against a second instance of itself, handled exactly like a "
        "strategy (ratio [95 % interval]; 1 = no bias): about 95 % of these intervals should "
        f"contain 1 (target: at least {AA_TARGET:.0%}). A size whose A/A interval lies wholly "
        f"outside ± the margin ({run.margin.describe()}) turns every decision of the mode at that "
        "size undetermined. The between-process spread is the mode's between-process standard "
        "deviation τ of a process's value around the cell's (Paule–Mandel over every cell timed "
        "in two processes); it widens every interval. Cochran's Q and its p stand beside it: a "
        "small p means processes disagree more than their rounds explain.",
        "",
        *fmt.table(head, rows),
    ]


def layout(run: RunData) -> list[str]:
    out = []
    for mode in run.modes:
        m = run.analysis.get(mode)
        cells = m.of_role("layout") if m else []
        if not cells:
            continue
        sizes = sorted({c.id.size for c in cells})
        by: dict[str, dict] = {}
        for c in cells:
            by.setdefault(c.id.shape, {})[c.id.size] = c
        table = [
            [
                f"`{shape}`",
                *(
                    fmt.ratio(cs[n].estimate.ratio, *cs[n].estimate.ratio_interval)
                    if n in cs
                    else "–"
                    for n in sizes
                ),
            ]
            for shape, cs in sorted(by.items())
        ]
        out += [
            f"**{label(mode)}**",
            "",
            *fmt.table(["twin (layout-read-…)", *(f"{run.symbol}={n}" for n in sizes)], table),
        ]
    if not out:
        return []
    return [
        "No update at all: each twin's step against the base twin's (a 0-d Parameter read "
        "directly), ratio [95 % interval]. What the state's layout and the way the forward reads "
        "it cost; never charged to an update (each strategy is compared with a twin of its own "
        "layout and read).",
        "",
        *out,
    ]


def screen(run: RunData) -> list[str]:
    if not run.selection:
        return []
    rows = []
    for choice in run.selection:
        mode, strategy = choice["mode"], choice["strategy"]
        s = run.screen
        mine = s[(s["mode"] == mode) & (s.strategy == strategy)] if len(s) else s
        screened = mine[mine.cost.notna()] if len(mine) else mine
        costs = (
            f"×{screened.cost.min():.2f}–×{screened.cost.max():.2f} over {len(screened)} reads"
            if len(screened)
            else ""
        )
        failed = mine[mine.cost.isna()] if len(mine) else mine
        costs += "".join(
            f"{'; ' if costs else ''}`{row.shape}` not screened: {row.error or 'no rounds'}"
            for row in failed.itertuples()
        )
        rows.append([label(mode), f"`{strategy}`", f"`{choice['shape']}`", choice["why"], costs])
    return [
        "Which shape of each strategy is timed. The screen times the simplest working shape of "
        "each way of reading the state once against the base twin. The simplest read is timed "
        "unless the screen shows another cheaper: its median more than "
        f"{TIE * 100:.0f} % lower and its rounds lower (one-sided exact Mann–Whitney, "
        f"p ≤ {ALPHA:g}). A lower median alone is a round's noise.",
        "",
        *fmt.table(["mode", "strategy", "timed shape", "why", "screened cost"], rows),
    ]


def first_call(run: RunData) -> list[str]:
    table = {}
    for mode in run.modes:
        m = run.analysis.get(mode)
        for c in m.of_role("update") if m else []:
            table.setdefault(c.id.strategy, {}).setdefault(mode, []).append(c.first_call_s)
    if not table:
        return []
    modes = [m for m in run.modes if any(m in v for v in table.values())]
    rows = [
        [f"`{s}`", *(fmt.duration(float(np.nanmedian(v[m]))) if m in v else "–" for m in modes)]
        for s, v in sorted(table.items())
    ]
    return [
        "The first call of a fresh cell (in compiled modes it compiles the graph), median over "
        "sizes and processes; kept apart from every step time above.",
        "",
        *fmt.table(["strategy", *map(label, modes)], rows),
    ]


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


def big_state(run: RunData) -> list[str]:
    rows = floors(run)
    if rows.empty:
        return []
    bw = run.bandwidth
    points = [
        f"{p['array_bytes'] / 2**20:g} MiB: copy {p['copy_GBs']} / triad {p['triad_GBs']} GB/s"
        for p in bw.get("points", [])
    ]
    out = [
        f"Memory bandwidth measured in this run (one thread, best of {bw.get('repeats')}; "
        f"last-level cache {bw.get('llc_bytes', 0) / 2**20:g} MiB):",
        "",
        *(f"- {p}" for p in points),
        "",
        "× floor = time per step / (bytes the update must move ÷ the bandwidth at the nearest "
        "working-set size above); 1 = as fast as memory allows.",
        "",
    ]
    for mode in run.modes:
        mine = rows[rows["mode"] == mode]
        if mine.empty:
            continue
        sizes = sorted(mine["size"].unique())
        table = []
        for (strategy, shape), group in mine.groupby(["strategy", "shape"]):
            g = group.sort_values("size", kind="stable")
            by = g.set_index("size")
            cells = [
                f"{fmt.duration(by.loc[n].step_s)} (×{by.loc[n].x_floor:,.0f})"
                if n in by.index and math.isfinite(by.loc[n].x_floor)
                else (fmt.duration(by.loc[n].step_s) if n in by.index else "–")
                for n in sizes
            ]
            slopes = [slope(g["size"], g.step_s), slope(g["size"], g.added_s.clip(lower=1e-9))]
            table.append([f"`{strategy}` (`{shape}`)", *cells, *(f"{x:.2f}" for x in slopes)])
        head = [
            "strategy (shape)",
            *(f"{run.symbol}={n}" for n in sizes),
            "slope of step",
            "slope of added time",
        ]
        out += [
            f"**{label(mode)}**: time per step (× floor), log-log slopes against the size",
            "",
            *fmt.table(head, table),
        ]
    return out

"""What it costs, in words: the tables of a workload page's cost sections (per mode, each
strategy's added time per step against its no-update twin with its interval and its standing
against the fastest; the twins, the A/A calibration, the layout twins, the shape screen, the
first call and, for big-state workloads, the memory-bandwidth floor). The numbers come from
``bench.decide.calibration`` and the analysis; this module only formats cells, and
``templates/costs.md.j2`` holds the sentences around them."""

from __future__ import annotations

import math

from bench.core import fmt
from bench.core.schema import Status
from bench.decide import answer, calibration, decisions
from bench.decide.answer import NOT_TIMED
from bench.decide.load import RunData
from bench.measured.modes import MODES, label
from bench.report import phrases, templating

_ORDER = {"fastest": 0, "faster": 1, "equivalent": 1, "undetermined": 2, "slower": 3}


def _macro(name: str, *args) -> str:
    return str(getattr(templating.env().get_template("costs.md.j2").module, name)(*args))


def _sizes(symbol: str, sizes) -> list[str]:
    return [f"{symbol}={n}" for n in sizes]


def _cost_cell(c, what: str, mode: str) -> str:
    if c is None:
        return "–"
    if c.status != Status.WORKS.value or what not in (*answer.TIMED, NOT_TIMED):
        return "not a cost: not correct"
    if c.twin_invalid:
        return f"twin invalid (whole step {fmt.duration(c.step_s)})"
    return phrases.cost_words(decisions.cell_cost(c), mode)


def per_mode(run: RunData) -> str:
    """Per mode: added time [95 % interval] per size, standing against the fastest, ratio."""
    views = []
    for mode in run.modes:
        m = run.analysis.get(mode)
        sizes, by = calibration.by_shape_and_size(m.of_role("update") if m else [])
        if not by:
            continue
        said = answer.outcomes(run, mode)  # the one source every page reads
        rank = sorted(by.items(), key=lambda kv: (_ORDER.get(said.get(kv[0][0], ""), 4), kv[0][0]))
        rows = []
        for (strategy, shape), cells in rank:
            what = said.get(strategy, answer.CANNOT)
            cols = [_cost_cell(cells.get(n), what, mode) for n in sizes]
            rows.append([f"`{strategy}` (`{shape}`)", what, *cols])
        head = ["strategy (shape)", "against the fastest candidate", *_sizes(run.symbol, sizes)]
        views.append(
            dict(
                mode=mode,
                dist=MODES[mode].distribution if mode in MODES else False,
                flagged=calibration.undetermined_sizes(run, mode),
                head=head,
                rows=rows,
                faster=any(phrases.FASTER_THAN_WITHOUT in x for r in rows for x in r),
            )
        )
    return _macro("per_mode", views, run.symbol)


def twins(run: RunData) -> str:
    """Every twin checked in every mode (``calibration.invalid_twins``): the invalid ones."""
    rows = [[label(m), f"`{t}`", why] for m, t, why in calibration.invalid_twins(run)]
    return _macro("twins", sorted(rows))


def spread(run: RunData, mode: str) -> str:
    """The mode's between-process variance as a user reads it: τ (Paule–Mandel) with Cochran's
    Q and its p, or "not estimable" where no cell was timed in two processes (never "0.0 %")."""
    m = run.analysis.get(mode)
    het = m.heterogeneity if m else None
    if het is None or not het.df:
        return "not estimable (no cell was timed in two processes)"
    return het.describe()


def calibration_table(run: RunData) -> str:
    """The A/A cells per mode and size, how many intervals contain 1, the sizes a bias makes
    undetermined, the between-process spread."""
    sizes, found = calibration.aa_rows(run)
    rows = [
        [
            label(r.mode),
            *(fmt.ratio(e.ratio, *e.ratio_interval) if e else "–" for e in r.by_size.values()),
            f"{r.inside}/{r.total}",
            f"decisions undetermined at {', '.join(_sizes(run.symbol, r.flagged))}"
            if r.flagged
            else "no size beyond the margin",
            spread(run, r.mode),
        ]
        for r in found
    ]
    head = ["mode", *_sizes(run.symbol, sizes), "intervals containing 1", "A/A bias"]
    return _macro("calibration", [*head, "between-process spread"], rows, run.margin.describe())


def layout(run: RunData) -> str:
    views = []
    for mode in run.modes:
        m = run.analysis.get(mode)
        sizes, by = calibration.by_shape_and_size(m.of_role("layout") if m else [])
        shapes = {shape: cs for (_, shape), cs in by.items()}
        rows = [
            [
                f"`{shape}`",
                *(
                    fmt.ratio(cs[n].estimate.ratio, *cs[n].estimate.ratio_interval)
                    if n in cs
                    else "–"
                    for n in sizes
                ),
            ]
            for shape, cs in sorted(shapes.items())
        ]
        if rows:
            head = ["twin (layout-read-…)", *_sizes(run.symbol, sizes)]
            views.append(dict(mode=mode, head=head, rows=rows))
    return _macro("layout", views)


def screen(run: RunData) -> str:
    rows = []
    for choice in run.selection or []:
        mode, strategy = choice["mode"], choice["strategy"]
        timed, failed = calibration.screened(run, mode, strategy)
        costs = (
            f"×{timed.cost.min():.2f}–×{timed.cost.max():.2f} over {len(timed)} reads"
            if len(timed)
            else ""
        )
        costs += "".join(
            f"{'; ' if costs else ''}`{row.shape}` not screened: {row.error or 'no rounds'}"
            for row in failed.itertuples()
        )
        rows.append([label(mode), f"`{strategy}`", f"`{choice['shape']}`", choice["why"], costs])
    return _macro("screen", rows)


def first_call(run: RunData) -> str:
    modes, table = calibration.first_calls(run)
    rows = [
        [f"`{s}`", *(fmt.duration(v[m]) if m in v else "–" for m in modes)]
        for s, v in table.items()
    ]
    return _macro("first_call", ["strategy", *map(label, modes)], rows)


def big_state(run: RunData) -> str:
    rows = calibration.floors(run)
    views = []
    for mode in run.modes if not rows.empty else []:
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
            slopes = [
                calibration.slope(g["size"], g.step_s),
                calibration.slope(g["size"], g.added_s.clip(lower=1e-9)),
            ]
            table.append([f"`{strategy}` (`{shape}`)", *cells, *(f"{x:.2f}" for x in slopes)])
        head = [
            "strategy (shape)",
            *_sizes(run.symbol, sizes),
            "slope of step",
            "slope of added time",
        ]
        views.append(dict(mode=mode, head=head, rows=table))
    return _macro("big_state", run.bandwidth, views)

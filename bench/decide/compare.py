"""Compare two runs cell by cell: what changed from RUN_A to RUN_B, and is it real?

``python -m bench.decide.compare RUN_A RUN_B [--only-changed] [--fail-above X]``. First what
differs in how the runs were made (versions, machine, threads, tier, commit): a change in numbers
means little across different setups. Then, per cell timed in both runs, B/A of the overhead
(the ratio to the twin) with a 95 % interval and a p-value from each run's own estimate
(``bench.core.cellstats``: the same random-effects model on the log scale, t on Welch–Satterthwaite
degrees of freedom over the two runs' own), Benjamini–Hochberg over all the cells compared
(``scipy.stats.false_discovery_control``), whether the two runs give each comparison (a
candidate against the best candidate at one size) the same outcome, and each run's answer per
mode. ``--fail-above X``: exit 1 when a cell's overhead is significantly (after correction)
higher in B by more than the fraction X.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy import stats
from scipy.stats import false_discovery_control

from bench.core import cellstats, fmt, paths
from bench.core.args import OneLineParser, UsageError
from bench.core.schema import Status
from bench.decide import answer, load
from bench.measured.modes import label

ALPHA = 0.05


def provenance_diff(a: load.RunData, b: load.RunData) -> list[list[str]]:
    """[what, in A, in B] for every fact that differs between the runs."""

    def facts(run):
        env = run.environment
        return {
            "MindSpore": env.get("mindspore"),
            "Python": env.get("python"),
            "NumPy": env.get("numpy"),
            "CPU": env.get("cpu"),
            "machine": env.get("node"),
            "tier": run.tier,
            "commit": run.manifest.suite_commit,
            "workload": run.workload,
            "workers": _workers(run.manifest.workers),
        }

    fa, fb = facts(a), facts(b)
    return [[k, str(fa[k]), str(fb[k])] for k in fa if fa[k] != fb[k]]


def _workers(started: dict) -> str:
    """How a run's workers started (``bench.run.warm``): "warm", "cold", "warm 7, cold 13", or
    "not recorded" (runs before 2026-12-07)."""
    made = {how: n for how, n in started.items() if n}
    if not made:
        return "not recorded"
    return next(iter(made)) if len(made) == 1 else ", ".join(f"{h} {n}" for h, n in made.items())


def size_outcomes(run: load.RunData, mode: str) -> dict[tuple[str, int], str]:
    """{(strategy, size): its outcome against the best candidate at that size}
    (``answer.standings``, as the run's pages take them)."""
    out = {}
    for s, standing in answer.standings(run, mode).items():
        for n, comp in standing.comparisons.items():
            out[(s, n)] = comp.outcome
    return out


def size_widths(run: load.RunData, mode: str) -> dict[tuple[str, int], float]:
    """{(strategy, size): the width of its comparison's interval over the margin it is decided
    against} (the same standings as ``size_outcomes``; NaN where the interval is not finite).
    About 1 or less, a comparison whose true difference sits near the margin is decided in one
    run and left open in the next; far above 1, it stays open in both."""
    out = {}
    for s, standing in answer.standings(run, mode).items():
        for n, comp in standing.comparisons.items():
            width = comp.high_s - comp.low_s
            ok = math.isfinite(width) and comp.margin_s > 0
            out[(s, n)] = width / comp.margin_s if ok else math.nan
    return out


def compare(a: load.RunData, b: load.RunData) -> pd.DataFrame:
    """One row per cell timed and working in both runs: B/A of the overhead, its interval, p, q,
    and each run's outcome for it at its size (update cells; "" for twins, A/A, layout)."""
    rows = []
    for mode, ma in a.analysis.items():
        mb = b.analysis.get(mode)
        if mb is None:
            continue
        oa, ob = size_outcomes(a, mode), size_outcomes(b, mode)
        wa, wb = size_widths(a, mode), size_widths(b, mode)
        for cid, ca in ma.cells.items():
            cb = mb.cells.get(cid)
            if cb is None or ca.status != Status.WORKS.value or cb.status != Status.WORKS.value:
                continue
            ea, eb = ca.estimate, cb.estimate
            diff = eb.log_ratio - ea.log_ratio
            se = math.hypot(ea.own_log_se, eb.own_log_se)  # each run's own (before widening)
            df = cellstats.welch_df([(ea.own_log_se**2, ea.own_df), (eb.own_log_se**2, eb.own_df)])
            ok = se > 0 and math.isfinite(se) and df > 0
            p = float(2 * stats.t.sf(abs(diff) / se, df)) if ok else 1.0
            half = cellstats.t_quantile(df) * se if ok else math.inf
            key = (cid.strategy, cid.size)
            rows.append(
                {
                    "strategy": cid.strategy,
                    "shape": cid.shape,
                    "mode": mode,
                    "size": cid.size,
                    "role": ca.role,
                    "overhead_a": ea.ratio,
                    "overhead_b": eb.ratio,
                    "ratio": math.exp(diff),
                    "low": math.exp(diff - half) if ok else math.nan,
                    "high": math.exp(diff + half) if ok else math.nan,
                    "p": p,
                    "z": diff / se if se > 0 and math.isfinite(se) else math.nan,
                    "se": se,
                    "outcome_a": oa.get(key, "") if ca.role == "update" else "",
                    "outcome_b": ob.get(key, "") if cb.role == "update" else "",
                    "width_a": wa.get(key, math.nan) if ca.role == "update" else math.nan,
                    "width_b": wb.get(key, math.nan) if cb.role == "update" else math.nan,
                    "margin": ma.margin.rel,
                }
            )
    table = pd.DataFrame(rows)
    if len(table):
        table["q"] = false_discovery_control(table["p"].to_numpy())
    return table


def status_changes(a: load.RunData, b: load.RunData) -> pd.DataFrame:
    keys = ["strategy", "shape", "mode"]
    va, vb = a.verdicts[[*keys, "outcome"]], b.verdicts[[*keys, "outcome"]]
    both = va.merge(vb, on=keys, how="outer", suffixes=("_a", "_b")).fillna("absent")
    return both[both.outcome_a != both.outcome_b]


def _verdict(ratio: float, q: float) -> str:
    if not q < ALPHA:
        return "same"
    return "**higher**" if ratio > 1 else "lower"


def agreement(table: pd.DataFrame) -> list[str]:
    """Per mode, how closely B's overheads repeat A's (within the margin), how wide the
    comparisons' intervals are against the margin in each run (the median of ``size_widths``),
    and how often the two runs give a comparison (a candidate against the best at one size) the
    same outcome."""
    rows = []
    for mode, g in [*table.groupby("mode"), ("all", table)]:
        for name, part in (("all", g), ("≥ 64", g[g["size"] >= 64])):
            if part.empty:
                continue
            err = np.abs(part.ratio - 1)
            within = (err <= part.margin).mean()
            decided = part[(part.outcome_a != "") & (part.outcome_b != "")]
            a, b = decided.outcome_a, decided.outcome_b
            widths = ", ".join(
                width_text(median_width(w)) for w in (decided.width_a, decided.width_b)
            )
            rows.append([label(mode) if mode != "all" else "all modes", name, len(part),
                         f"{err.median():.1%}", f"{within:.0%}", widths, _same(a, b),
                         _contradict(a, b)])  # fmt: skip
    head = ["mode", "sizes", "cells", "median |B/A − 1|", "within the margin",
            "interval / margin, A, B", "same outcome",
            "decided both times, differently"]  # fmt: skip
    return fmt.table(head, rows)


Z_CALIBRATION = 1.96  # |B − A| beyond this many combined standard errors: not covered
CALIBRATION_TARGET = 0.07  # issue 52: at most 7 % of the comparisons timed in both runs


def beyond(z) -> float:
    """The share of finite ``z`` (B − A over its combined standard error) beyond
    ``Z_CALIBRATION``: about 5 % when each run's standard error holds between runs."""
    z = np.asarray(z, dtype=float)
    z = z[np.isfinite(z)]
    return float(np.mean(np.abs(z) > Z_CALIBRATION)) if z.size else math.nan


def cluster_interval(part: pd.DataFrame, draws: int = 2000, seed: int = 0) -> tuple[float, float]:
    """A 95 % percentile interval of ``beyond`` by a cluster bootstrap over cells (a strategy in
    one shape, its sizes together: a cell's sizes share its noise), resampling whole cells."""
    groups = [g.z.to_numpy() for _, g in part.groupby(["strategy", "shape"])]
    if len(groups) < 2:
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    shares = []
    for _ in range(draws):
        picked = rng.integers(0, len(groups), len(groups))
        shares.append(beyond(np.concatenate([groups[i] for i in picked])))
    return float(np.nanpercentile(shares, 2.5)), float(np.nanpercentile(shares, 97.5))


def calibration(table: pd.DataFrame) -> list[list]:
    """Per mode (and over all modes): the cells timed in both runs, the share whose B − A lies
    beyond 1.96 combined standard errors (each run's own standard error of its log overhead),
    with its cluster-bootstrap interval, and whether it is within ``CALIBRATION_TARGET``
    (``yes``, ``no``, or ``undetermined`` when the interval straddles it). Pure."""
    rows = []
    for mode, g in [*table.groupby("mode"), ("all", table)]:
        part = g[np.isfinite(g.z)]
        if part.empty:
            continue
        share = beyond(part.z)
        low, high = cluster_interval(part)
        if math.isfinite(high) and high <= CALIBRATION_TARGET:
            holds = "yes"
        elif math.isfinite(low) and low > CALIBRATION_TARGET:
            holds = "no"
        else:
            holds = "yes" if share <= CALIBRATION_TARGET and math.isnan(high) else "undetermined"
        rows.append([mode, len(part), share, low, high, holds])
    return rows


def calibration_lines(rows: list[list]) -> list[str]:
    body = [
        [label(m) if m != "all" else "all modes", n, f"{share:.1%}",
         f"[{lo:.1%}, {hi:.1%}]" if math.isfinite(lo) else "–", holds]
        for m, n, share, lo, hi, holds in rows
    ]  # fmt: skip
    head = ["mode", "cells", "beyond 1.96 SE", "95 % interval (cells resampled)",
            f"≤ {CALIBRATION_TARGET * 100:.0f} %"]  # fmt: skip
    return fmt.table(head, body)


def median_width(widths) -> float:
    """The median of the finite widths (``size_widths``' values); NaN where none is finite."""
    finite = [w for w in widths if math.isfinite(w)]
    return float(np.median(finite)) if finite else math.nan


def width_text(width: float) -> str:
    return f"{width:.2f}" if math.isfinite(width) else "–"


def contradicts(a: pd.Series, b: pd.Series) -> pd.Series:
    """Per comparison, whether the two runs decided it (neither says undetermined) and decided
    it differently: a run that leaves a comparison undetermined does not contradict one that
    decides it, one that says "equivalent" where the other says "slower" does."""
    open_ = cellstats.UNDETERMINED
    return (a != open_) & (b != open_) & (a != b)


def _contradict(a: pd.Series, b: pd.Series) -> str:
    return f"{contradicts(a, b).mean():.0%} of {len(a)}" if len(a) else "none compared"


def _same(a: pd.Series, b: pd.Series) -> str:
    return f"{(a == b).mean():.0%} of {len(a)}" if len(a) else "none compared"


def answers(a: load.RunData, b: load.RunData) -> list[list[str]]:
    """[mode, A's answer, B's answer, same?, same strategy?] per mode timed in both: each run's
    own answer in its workload (``answer.workload_choice``), decided or not (``answer_row``)."""
    return [
        answer_row(mode, answer.workload_choice(a, mode), answer.workload_choice(b, mode))
        for mode in a.analysis
        if mode in b.analysis
    ]


BOTH_UNDETERMINED = "undetermined both times"


def answer_row(mode: str, ca, cb) -> list[str]:
    """One mode's row of ``answers`` from the two runs' ``answer.Choice``: "same" is "yes" when
    the strategy and whether it is decided agree (or both have none), "undetermined both times"
    when neither run could decide its answer, each naming another of the near-equal candidates
    (the costs issue's "the same answer per mode, or the same undetermined"), and "no"
    otherwise; "same strategy" says whether the names agree (one run may have decided it, the
    other not yet)."""

    def said(c) -> str:
        if c.strategy is None:
            return "none"
        return f"`{c.strategy}`" + ("" if c.decided else " (undetermined)")

    if said(ca) == said(cb):
        same = "yes"
    elif ca.strategy and cb.strategy and not ca.decided and not cb.decided:
        same = BOTH_UNDETERMINED
    else:
        same = "**no**"
    return [label(mode), said(ca), said(cb), same,
            "yes" if ca.strategy == cb.strategy else "**no**"]  # fmt: skip


def render(a, b, table, changes, only_changed: bool) -> str:
    out = [f"# Comparison: A = `{a.manifest.run_id}`, B = `{b.manifest.run_id}`", ""]
    diff = provenance_diff(a, b)
    out += ["## How the runs differ", ""]
    out += (fmt.table(["", "A", "B"], diff) if diff
            else ["Same versions, machine, tier and commit.", ""])  # fmt: skip
    shown = table[table.q < ALPHA] if only_changed and len(table) else table
    out += [
        "## Cells timed in both runs",
        "",
        f"B/A of the overhead (ratio to the twin) with its 95 % interval; q = p corrected over "
        f"the {len(table)} cells compared (Benjamini–Hochberg), significant when q < {ALPHA}.",
        "",
    ]
    rows = [
        [f"`{r.strategy}` (`{r.shape}`)", label(r.mode), r.size, f"{r.overhead_a:.3f}",
         f"{r.overhead_b:.3f}", f"{r.ratio:.3f} [{r.low:.3f}, {r.high:.3f}]", f"{r.q:.3g}",
         _verdict(r.ratio, r.q), f"{r.outcome_a} → {r.outcome_b}"]
        for r in shown.itertuples()
    ]  # fmt: skip
    head = ["cell", "mode", "size", "overhead A", "overhead B", "B/A", "q", "change", "outcome"]
    out += fmt.table(head, rows) if rows else ["No cell to show.", ""]
    if len(table):
        out += ["## Agreement", "", *agreement(table)]
        out += ["Interval / margin: the median width of the comparisons' intervals over the "
                "margin, in each run. An outcome moves between runs most where this is about 1: "
                "a comparison near the margin is decided in one run and left open in the other "
                "(`findings/README.md`, \"How often two runs give a comparison the same "
                "outcome\"); far above 1, most comparisons stay open in both.", ""]  # fmt: skip
    if len(table):
        out += ["## Between-run calibration", "",
                "Each cell's B − A of its log overhead against the two runs' standard errors "
                "combined: with intervals that hold between runs, about 5 % lie beyond 1.96 of "
                f"them (issue 52 asks at most {CALIBRATION_TARGET * 100:.0f} %).", "",
                *calibration_lines(calibration(table))]  # fmt: skip
    same = answers(a, b)
    if same:
        out += ["## The answer in each run", "",
                *fmt.table(["mode", "A", "B", "same", "same strategy"], same)]  # fmt: skip
        if any(r[3] == BOTH_UNDETERMINED for r in same):
            out += [f'"{BOTH_UNDETERMINED}": neither run can tell its answer from the best '
                    "candidate, and each names the simplest candidate its data do not show "
                    "slower; the names differ where a simpler candidate is shown slower in one "
                    "run only (a comparison near the margin), or is a candidate in one run "
                    "only.", ""]  # fmt: skip
    if len(changes):
        body = [[f"`{r.strategy}`", f"`{r.shape}`", label(r.mode), r.outcome_a, r.outcome_b]
                for r in changes.itertuples()]  # fmt: skip
        out += ["## Verdicts that differ", "",
                *fmt.table(["strategy", "shape", "mode", "A", "B"], body)]  # fmt: skip
    return "\n".join(out)


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m bench.decide.compare", description=__doc__.splitlines()[0])
    p.add_argument("run_a", metavar="RUN_A", help="baseline run id or folder")
    p.add_argument("run_b", metavar="RUN_B", help="run id or folder to check against it")
    p.add_argument("--workload", default=paths.DEFAULT_WORKLOAD)
    p.add_argument("--results-dir", type=Path, help="default results/<workload>/")
    p.add_argument("--only-changed", action="store_true", help="show significant changes only")
    p.add_argument("--fail-above", type=float, metavar="X", help="e.g. 0.05 = 5 %% higher overhead")
    try:
        args = p.parse_args(sys.argv[1:] if argv is None else argv)
        raw = paths.raw_dir(args.results_dir or paths.results_dir(args.workload))
        dirs = [paths.named_run(name, raw) for name in (args.run_a, args.run_b)]
    except UsageError as err:
        print(f"compare: error: {err}", file=sys.stderr)
        return 2
    a, b = (load.load(d) for d in dirs)
    for run in (a, b):
        for problem in run.problems:
            print(f"compare: {run.manifest.run_id}: {problem}", file=sys.stderr)
    table = compare(a, b)
    print(render(a, b, table, status_changes(a, b), args.only_changed))
    if args.fail_above is None or table.empty:
        return 0
    worse = table[(table.q < ALPHA) & (table.ratio > 1 + args.fail_above)]
    for r in worse.itertuples():
        print(
            f"compare: {r.strategy} ({r.shape}) · {r.mode} · size {r.size}: overhead "
            f"{r.ratio - 1:+.1%} (q = {r.q:.3g})",
            file=sys.stderr,
        )
    return 1 if len(worse) else 0


if __name__ == "__main__":
    sys.exit(main())

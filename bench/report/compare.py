"""Compare two runs cell by cell: what changed from RUN_A to RUN_B, and is it real?

``python -m bench.report.compare RUN_A RUN_B [--only-changed] [--fail-above X]``. First what
differs in how the runs were made (versions, machine, threads, precision, commit): a change in
numbers means little across different setups. Then, per cell that works in both runs, B/A of
the step time and of the overhead, each with a 95 % interval and a p-value from the two-level
bootstrap (the worker process is the unit, not the round), and a Benjamini–Hochberg correction
over all the cells compared (``scipy.stats.false_discovery_control``). ``--fail-above X``: exit 1
when a cell's overhead is significantly (after correction) higher in B by more than the fraction X.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import false_discovery_control

from bench.core import paths, stats
from bench.core.args import OneLineParser, UsageError
from bench.report import fmt, load
from bench.report.main import find_run

KEYS = ["strategy", "shape", "mode", "batch_size", "role"]
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
            "threads": str(env.get("threads")),
            "commit": str(env.get("commit"))[:10],
            "precision": str(run.plan.get("precision")),
            "workload": run.workload,
        }

    fa, fb = facts(a), facts(b)
    return [[k, str(fa[k]), str(fb[k])] for k in fa if fa[k] != fb[k]]


def compare(a: load.RunData, b: load.RunData, n_boot: int = 2000) -> pd.DataFrame:
    both = a.cells.merge(b.cells, on=KEYS, suffixes=("_a", "_b"))
    both = both[(both.status_a == "works") & (both.status_b == "works")]
    rows = []
    for r in both.itertuples():
        step = stats.bootstrap_ratio(r.step_groups_a, r.step_groups_b, n_boot=n_boot)
        over = stats.bootstrap_ratio(r.ratio_groups_a, r.ratio_groups_b, n_boot=n_boot)
        rows.append(
            {
                **{k: getattr(r, k) for k in KEYS},
                "step_a": r.step_s_a,
                "step_b": r.step_s_b,
                "step_ratio": step[0],
                "step_low": step[1],
                "step_high": step[2],
                "step_p": step[3],
                "overhead_a": r.ratio_a,
                "overhead_b": r.ratio_b,
                "overhead_ratio": over[0],
                "overhead_low": over[1],
                "overhead_high": over[2],
                "overhead_p": over[3],
            }
        )
    table = pd.DataFrame(rows)
    for what in ("step", "overhead"):
        if len(table):
            table[f"{what}_q"] = false_discovery_control(table[f"{what}_p"].to_numpy())
    return table


def status_changes(a: load.RunData, b: load.RunData) -> pd.DataFrame:
    keys = ["strategy", "shape", "mode"]
    va, vb = a.verdicts[[*keys, "phrase"]], b.verdicts[[*keys, "phrase"]]
    both = va.merge(vb, on=keys, how="outer", suffixes=("_a", "_b")).fillna("absent")
    return both[both.phrase_a != both.phrase_b]


def _verdict(ratio: float, q: float) -> str:
    if not q < ALPHA:
        return "same"
    return "**higher**" if ratio > 1 else "lower"


def agreement(table: pd.DataFrame) -> list[str]:
    """Per mode, how closely B's overheads repeat A's (all sizes, and sizes from 64 on)."""
    rows = []
    for mode, g in [*table.groupby("mode"), ("all", table)]:
        for label, part in (("all", g), ("≥ 64", g[g.batch_size >= 64])):
            if part.empty:
                continue
            err = np.abs(part.overhead_ratio - 1)
            name = fmt.mode_label(mode) if mode != "all" else "all modes"
            shares = [f"{err.median():.1%}", f"{(err <= 0.02).mean():.0%}"]
            rows.append([name, label, len(part), *shares, f"{(err <= 0.03).mean():.0%}"])
    head = ["mode", "sizes", "cells", "median |B/A − 1|", "within 2 %", "within 3 %"]
    return fmt.table(head, rows)


def render(a, b, table, changes, only_changed: bool) -> str:
    out = [f"# Comparison: A = `{a.manifest.run_id}`, B = `{b.manifest.run_id}`", ""]
    diff = provenance_diff(a, b)
    out += ["## How the runs differ", ""]
    out += (
        fmt.table(["", "A", "B"], diff)
        if diff
        else ["Same versions, machine, threads, precision and commit.", ""]
    )
    shown = table
    if only_changed and len(table):
        shown = table[(table.step_q < ALPHA) | (table.overhead_q < ALPHA)]
    out += [
        "## Cells that work in both runs",
        "",
        f"B/A with its 95 % interval; q = p-value corrected over the {len(table)} cells compared "
        f"(Benjamini–Hochberg), significant when q < {ALPHA}. The overhead is the stable number; "
        "absolute step times move between processes and runs on a shared machine.",
        "",
    ]
    rows = []
    for r in shown.itertuples():
        rows.append(
            [
                f"`{r.strategy}` (`{r.shape}`)",
                fmt.mode_label(r.mode),
                r.batch_size,
                f"{r.overhead_a:.3f}",
                f"{r.overhead_b:.3f}",
                f"{r.overhead_ratio:.3f} [{r.overhead_low:.3f}, {r.overhead_high:.3f}]",
                f"{r.overhead_q:.3g}",
                _verdict(r.overhead_ratio, r.overhead_q),
                f"{r.step_ratio:.3f} [{r.step_low:.3f}, {r.step_high:.3f}]",
                f"{r.step_q:.3g}",
                _verdict(r.step_ratio, r.step_q),
            ]
        )
    head = [
        "cell",
        "mode",
        "N",
        "overhead A",
        "overhead B",
        "B/A",
        "q",
        "overhead",
        "step B/A",
        "q",
        "step",
    ]
    out += fmt.table(head, rows) if rows else ["No cell to show.", ""]
    if len(table):
        out += ["## Agreement of the overheads", "", *agreement(table)]
    if len(changes):
        body = [
            [f"`{r.strategy}`", f"`{r.shape}`", fmt.mode_label(r.mode), r.phrase_a, r.phrase_b]
            for r in changes.itertuples()
        ]
        out += [
            "## Verdicts that differ",
            "",
            *fmt.table(["strategy", "shape", "mode", "A", "B"], body),
        ]
    return "\n".join(out)


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m bench.report.compare", description=__doc__.splitlines()[0])
    p.add_argument("run_a", metavar="RUN_A", help="baseline run id or folder")
    p.add_argument("run_b", metavar="RUN_B", help="run id or folder to check against it")
    p.add_argument("--workload", default=paths.DEFAULT_WORKLOAD)
    p.add_argument("--results-dir", type=Path, help="default results/ (results/<workload>/)")
    p.add_argument("--only-changed", action="store_true", help="show significant changes only")
    p.add_argument("--fail-above", type=float, metavar="X", help="e.g. 0.05 = 5 %% higher overhead")
    p.add_argument("--bootstrap", type=int, default=2000, metavar="N")
    try:
        args = p.parse_args(sys.argv[1:] if argv is None else argv)
        raw = paths.raw_dir(args.results_dir or paths.results_dir(args.workload))
        dirs = [find_run(name, raw) for name in (args.run_a, args.run_b)]
    except UsageError as err:
        print(f"compare: error: {err}", file=sys.stderr)
        return 2
    a, b = (load.load(d, n_boot=0) for d in dirs)
    for run in (a, b):
        for problem in run.problems:
            print(f"compare: {run.manifest.run_id}: {problem}", file=sys.stderr)
    table = compare(a, b, args.bootstrap)
    print(render(a, b, table, status_changes(a, b), args.only_changed))
    if args.fail_above is None or table.empty:
        return 0
    worse = table[(table.overhead_q < ALPHA) & (table.overhead_ratio > 1 + args.fail_above)]
    for r in worse.itertuples():
        print(
            f"compare: {r.strategy} ({r.shape}) · {r.mode} · N={r.batch_size}: overhead "
            f"{r.overhead_ratio - 1:+.1%} (q = {r.overhead_q:.3g})",
            file=sys.stderr,
        )
    return 1 if len(worse) else 0


if __name__ == "__main__":
    sys.exit(main())

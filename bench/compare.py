"""Compare two runs cell by cell: did anything get slower from RUN_A to RUN_B?

``python -m bench.compare RUN_A RUN_B [--results-dir results] [--fail-above 0.05] [--alpha 0.05]``.
For every strategy × mode × batch size that works in both runs: B/A of the pooled per-step medians
and of the overhead ratios, each with a two-sided Mann–Whitney U test on the raw samples (per-step
times, per-round overhead ratios), as asv does for "significantly different". The p-values are per
cell, not corrected for the number of cells. With ``--fail-above X`` the exit code is 1 when a cell
is significantly slower (p < alpha) by more than the fraction X.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import mannwhitneyu

from bench import report

COLUMNS = "step_a step_b step_ratio step_p overhead_a overhead_b overhead_ratio overhead_p".split()


def _pooled(groups) -> np.ndarray:
    return np.concatenate([np.asarray(g, float) for g in groups]) if groups else np.array([])


def _test(a, b) -> tuple[float, float]:
    """(median(b) / median(a), two-sided Mann–Whitney U p-value) of two pooled samples."""
    a, b = _pooled(a), _pooled(b)
    if not (a.size and b.size):
        return np.nan, np.nan
    return float(np.median(b) / np.median(a)), float(mannwhitneyu(a, b).pvalue)


def compare(df_a: pd.DataFrame, df_b: pd.DataFrame) -> pd.DataFrame:
    """One row per cell that works (and was measured) in both runs: ratios B/A and p-values."""
    keys = ["strategy", "mode", "batch_size"]
    both = df_a.merge(df_b, on=keys, suffixes=("_a", "_b"))
    both = both[(both.status_a == "works") & (both.status_b == "works")]
    both = both[(both.processes_a > 0) & (both.processes_b > 0)]
    rows = []
    for r in both.itertuples():
        step_ratio, step_p = _test(r.step_groups_a, r.step_groups_b)
        overhead_ratio, overhead_p = _test(r.ratio_groups_a, r.ratio_groups_b)
        rows.append(
            {
                **{"strategy": r.strategy, "mode": r.mode, "batch_size": r.batch_size},
                **{"step_a": r.step_median_s_a, "step_b": r.step_median_s_b},
                **{"step_ratio": step_ratio, "step_p": step_p},
                **{"overhead_a": r.ratio_a, "overhead_b": r.ratio_b},
                **{"overhead_ratio": overhead_ratio, "overhead_p": overhead_p},
            }
        )
    return pd.DataFrame(rows, columns=[*keys, *COLUMNS])


def status_changes(df_a: pd.DataFrame, df_b: pd.DataFrame) -> pd.DataFrame:
    """Cells whose status differs between the runs ("absent" when a run lacks the cell)."""
    keys = ["strategy", "mode", "batch_size"]
    both = df_a[[*keys, "status"]].merge(df_b[[*keys, "status"]], on=keys, how="outer")
    both = both.fillna({"status_x": "absent", "status_y": "absent"})
    changed = both[both.status_x != both.status_y]
    return changed.rename(columns={"status_x": "status_a", "status_y": "status_b"})


def regressions(table: pd.DataFrame, alpha: float, fail_above: float) -> pd.DataFrame:
    """Cells significantly slower in B (p < alpha) by more than the fraction ``fail_above``."""
    return table[(table.step_p < alpha) & (table.step_ratio > 1 + fail_above)]


def _verdict(ratio: float, p: float, alpha: float) -> str:
    if not p < alpha:
        return "same"
    return "**slower**" if ratio > 1 else "faster"


def render(table, changes, run_a: str, run_b: str, alpha: float, fail_above=None) -> str:
    """The comparison as Markdown: one table of timings, one of status changes."""
    unit, scale = report.time_unit(table.step_a)
    limit = np.inf if fail_above is None else fail_above
    rows = []
    for r in table.itertuples():
        mark = " ⚠" if r.step_p < alpha and r.step_ratio > 1 + limit else ""
        step = [report.fmt_num(r.step_a * scale), report.fmt_num(r.step_b * scale)]
        step += [
            f"{r.step_ratio:.3f}",
            f"{r.step_p:.3g}",
            _verdict(r.step_ratio, r.step_p, alpha) + mark,
        ]
        overhead = [f"{r.overhead_a:.2f}", f"{r.overhead_b:.2f}", f"{r.overhead_ratio:.3f}"]
        overhead += [f"{r.overhead_p:.3g}", _verdict(r.overhead_ratio, r.overhead_p, alpha)]
        name = [f"`{r.strategy}`", report.mode_label(r.mode), r.batch_size]
        rows.append([*name, *step, *overhead])
    head = ["strategy", "mode", "N", f"A ({unit}/step)", f"B ({unit}/step)", "B/A", "p", "step"]
    head += ["A overhead", "B overhead", "B/A", "p", "overhead"]
    out = [f"# Comparison: A = `{run_a}`, B = `{run_b}`", ""]
    out += [
        f"Two-sided Mann–Whitney U per cell, alpha = {alpha:g}, not corrected for the "
        f"{len(table)} cells compared; step times are pooled per-step timings of all processes."
        + (f" ⚠ = slower by more than {fail_above:.0%}." if fail_above is not None else ""),
        "",
    ]
    out += report.markdown_table(head, rows) if rows else ["No cell works in both runs.", ""]
    if len(changes):
        body = [
            [f"`{r.strategy}`", report.mode_label(r.mode), r.batch_size, r.status_a, r.status_b]
            for r in changes.itertuples()
        ]
        out += ["## Status changes", ""]
        out += report.markdown_table(["strategy", "mode", "N", "status in A", "status in B"], body)
    return "\n".join(out)


def _load(run_dir: Path) -> pd.DataFrame:
    manifest, docs, problems = report.load_run(run_dir)
    for problem in problems:
        print(f"compare: {run_dir.name}: {problem}", file=sys.stderr)
    return report.tidy({**manifest, "run_id": run_dir.name}, docs, problems, n_boot=0)


def main(argv=None) -> int:
    """Print the comparison of RUN_A and RUN_B; exit 1 on a regression beyond --fail-above."""
    p = report.OneLineParser(prog="python -m bench.compare", description=__doc__.splitlines()[0])
    p.add_argument("run_a", metavar="RUN_A", help="baseline run id or folder")
    p.add_argument("run_b", metavar="RUN_B", help="run id or folder to check against it")
    p.add_argument("--results-dir", type=Path, default=report.ROOT / "results")
    p.add_argument("--fail-above", type=float, metavar="X", help="e.g. 0.05 = 5 %% slower")
    p.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    try:
        args = p.parse_args(sys.argv[1:] if argv is None else argv)
        raw = args.results_dir / "raw"
        dirs = [report.find_run(name, raw) for name in (args.run_a, args.run_b)]
    except report.RunNotFound as err:
        print(f"compare: error: {err}", file=sys.stderr)
        return 2
    df_a, df_b = (_load(d) for d in dirs)
    table = compare(df_a, df_b)
    changes = status_changes(df_a, df_b)
    print(render(table, changes, dirs[0].name, dirs[1].name, args.alpha, args.fail_above))
    if args.fail_above is None:
        return 0
    slower = regressions(table, args.alpha, args.fail_above)
    for r in slower.itertuples():
        print(
            f"compare: {r.strategy} · {r.mode} · N={r.batch_size} is {r.step_ratio - 1:.1%} "
            f"slower (p = {r.step_p:.3g})",
            file=sys.stderr,
        )
    return 1 if len(slower) else 0


if __name__ == "__main__":
    sys.exit(main())

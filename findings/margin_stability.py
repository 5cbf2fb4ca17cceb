"""Two runs of one workload, decided at several margins: how often do they agree? (issue 27)

The issue asks that two back-to-back default runs give ≥ 90 % of the compiled-mode comparisons
(a candidate against the fastest candidate at one size, head to head) the same outcome, and the
same answer per mode. The runs' cells repeat (their B/A intervals hold 1), yet the outcomes do
not: at a margin of 2 % of the step most intervals straddle the margin, so a comparison is
"undetermined" in one run and decided in the other. This script measures, on two real runs,
what the margin does to that: it decides both runs again at each margin (``load.load(run,
margin)``: the same estimates, the same head-to-head comparisons, the same answer rule; only
the margin differs) and prints, per mode and margin,

- decided: the share of comparisons decided (not undetermined) in A and in B;
- same: the share with the same outcome in both (each candidate against the best candidate,
  ``compare.size_outcomes``);
- contradict: the share decided in both runs, differently (``compare.contradicts``): the runs
  disagree, not merely one of them undecided;
- width A, width B: the median width of the comparisons' intervals, in margins (high − low over
  the margin at the candidate's step). Near 1 or below, a comparison whose true difference sits
  near the margin is decided in one run and not in the other; much above 1, most comparisons
  stay undetermined in both, and agree for that reason;
- each run's answer in this workload (``answer.workload_choice``, as ``nox -s compare`` prints it).

It times nothing. The margins are what-ifs for choosing the margin, not what the pages use
(those decide at the margin the run's plan recorded).

    python findings/margin_stability.py RUN_A RUN_B [--margins 0.02,0.05,0.1]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from bench.core import paths
from bench.core.cellstats import UNDETERMINED, Margin
from bench.core.records import Records
from bench.decide import answer, compare, load
from bench.measured.modes import label

MARGINS = (0.02, 0.05, 0.10)


def outcomes_at(run_dir: Path, rel: float):
    """The run decided at a margin of ``rel`` of the candidate's step (the plan's floor kept:
    read from its manifest, not from a whole load of the run)."""
    plan = Records(run_dir).manifest.plan
    floor = Margin.of_plan(plan.get("precision", {})).abs_s
    return load.load(run_dir, Margin(rel, floor))


def width(run, mode: str, keys) -> float:
    """The median width, in margins, of the intervals of the comparisons ``keys`` ((strategy,
    size), as ``compare.size_outcomes`` keys them); NaN where none has a finite interval."""
    return compare.median_width(w for k, w in compare.size_widths(run, mode).items() if k in keys)


def agreement(a, b, mode: str) -> dict:
    """One mode's row: decided in A and B, same, contradict, interval widths, each run's answer."""
    oa, ob = compare.size_outcomes(a, mode), compare.size_outcomes(b, mode)
    keys = sorted(set(oa) & set(ob))
    sa = pd.Series([oa[k] for k in keys], dtype=object)
    sb = pd.Series([ob[k] for k in keys], dtype=object)
    said = compare.answer_row(
        mode, answer.workload_choice(a, mode), answer.workload_choice(b, mode)
    )
    return {
        "mode": label(mode),
        "comparisons": len(keys),
        "decided A": f"{(sa != UNDETERMINED).mean():.0%}" if keys else "–",
        "decided B": f"{(sb != UNDETERMINED).mean():.0%}" if keys else "–",
        "same": f"{(sa == sb).mean():.0%}" if keys else "–",
        "contradict": f"{compare.contradicts(sa, sb).mean():.0%}" if keys else "–",
        "width A": compare.width_text(width(a, mode, set(keys))),
        "width B": compare.width_text(width(b, mode, set(keys))),
        "answer A": said[1],
        "answer B": said[2],
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("run_a", type=Path)
    p.add_argument("run_b", type=Path)
    p.add_argument("--margins", default=",".join(f"{m:g}" for m in MARGINS))
    args = p.parse_args(argv)
    margins = [float(x) for x in args.margins.split(",")]
    print(f"A = {args.run_a}\nB = {args.run_b}\n")
    for rel in margins:
        a, b = (outcomes_at(paths.run_folder(r) or r, rel) for r in (args.run_a, args.run_b))
        rows = [agreement(a, b, mode) for mode in a.analysis if mode in b.analysis]
        print(f"margin {rel:.0%} of the candidate's step")
        print(pd.DataFrame(rows).to_string(index=False))
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

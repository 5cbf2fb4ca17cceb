"""What makes a run's head-to-head intervals as wide as they are, per mode (issue 27).

Back to back, two runs give a comparison the same outcome less often when their intervals are
about one margin wide (``margin_stability.py``). This script says what sets that width, from a
run's own timings (nothing is timed again). For every pair of working update members raced
together at a size (the head-to-head estimates the decisions are made of), per mode:

- pairs: how many such estimates;
- tau2: the mode's between-process variance of head-to-head log-ratios (Paule–Mandel,
  ``ModeAnalysis.paired_heterogeneity``), with its degrees of freedom;
- between: the share of an estimate's variance that comes from tau2 rather than from the
  processes' own rounds (``Estimate.variance_parts``), median [quartiles]. More rounds shrink
  only the rest; more processes shrink both;
- t: the median t-quantile of the intervals, at the level of one look (so how much the degrees
  of freedom cost);
- se: the median standard error of the log-ratio (about the relative error of the ratio);
- width: the median width of the decisions' intervals, in margins (``compare.size_widths``);
- data for 0.7: how many times the data (processes, with rounds in proportion) it would take for
  the median width to reach 0.7 margins, (width / 0.7)². Where the two runs of a pair had median
  widths of 0.7 or less, at least 80 % of their compiled-mode comparisons had the same outcome
  (``margin_stability.txt``);
- rounds: the minutes the mode's timing processes spent in timed rounds (``wall_times.spent``),
  and what that becomes with the data for 0.7 (never less than now). A lower bound on the cost:
  more processes also repeat their first calls (compiles) and set-up.

Under each table: the time phase, and what the data for 0.7 margins would add to the compiled
modes' (GRAPH, jit) timed rounds, per mode: at least that much longer a run.

    python findings/interval_parts.py RUN_DIR [RUN_DIR ...]
"""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np

from bench.core import cellstats, fmt, paths
from bench.decide import compare, load
from bench.measured.modes import MODES, label

TARGET = 0.7  # margins


def _sibling(name: str):
    """Another script of this folder (findings/ holds scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


wall_times = _sibling("wall_times")


def split(estimates) -> dict[str, float]:
    """Median (and quartiles) of the between-process share of the variance, the median t at one
    look's level (``alpha``) and the median standard error, over ``estimates`` with a finite
    interval."""
    rows = []
    for e in estimates:
        within, between = e.variance_parts
        if not (math.isfinite(within) and within + between > 0):
            continue
        rows.append((between / (within + between), e.df, math.sqrt(within + between)))
    if not rows:
        return {"pairs": 0}
    share, df, se = (np.array(c, dtype=float) for c in zip(*rows))
    return {
        "pairs": len(rows),
        "between": float(np.median(share)),
        "between_q1": float(np.quantile(share, 0.25)),
        "between_q3": float(np.quantile(share, 0.75)),
        "df": float(np.median(df)),
        "se": float(np.median(se)),
    }


def data_for(width: float, target: float = TARGET) -> float:
    """How many times the data brings a median interval ``width`` (margins) down to ``target``
    (a width shrinks with the square root of the data)."""
    return (width / target) ** 2 if math.isfinite(width) else math.nan


def with_data(minutes: float, factor: float) -> float:
    """Timed-round minutes with ``factor`` times the data; a mode already narrower than the
    target (factor < 1) or without a width (nan) keeps what it took."""
    return minutes * factor if math.isfinite(factor) and factor > 1 else minutes


def rounds_minutes(run: load.RunData) -> dict[str, float]:
    """{mode: minutes of timed rounds, over the mode's timing processes}."""
    return {m: got["rounds"] / 60 for m, got in wall_times.spent(Path(run.run_dir)).items()}


def widths(run: load.RunData) -> dict[str, float]:
    """{mode: the median width of its decisions' intervals, in margins}."""
    return {m: compare.median_width(compare.size_widths(run, m).values()) for m in run.analysis}


def mode_rows(run: load.RunData, width: dict, minutes: dict) -> list[list[str]]:
    """A row per mode; ``width`` from ``widths``, ``minutes`` from ``rounds_minutes``."""
    out = []
    for mode, m in run.analysis.items():
        het = m.paired_heterogeneity
        got = split([a.versus(b, het) for a, b in m.raced_pairs()])
        if not got["pairs"]:
            continue
        t = cellstats.t_quantile(got["df"], cellstats.alpha_per_look(m.looks))
        out.append(
            [
                label(mode),
                str(got["pairs"]),
                f"{het.tau2:.1e} ({het.tau2_df:.0f} df)",
                f"{got['between']:.2f} [{got['between_q1']:.2f}, {got['between_q3']:.2f}]",
                f"{t:.2f}",
                f"{got['se'] * 100:.2f} %",
                compare.width_text(width[mode]),
                f"×{data_for(width[mode]):.1f}" if math.isfinite(width[mode]) else "–",
                _rounds(minutes.get(mode, math.nan), data_for(width[mode])),
            ]
        )
    return out


def _rounds(now: float, factor: float) -> str:
    if not math.isfinite(now):
        return "–"
    return f"{now:.1f} → {with_data(now, factor):.1f} min"


HEAD = [
    "mode",
    "pairs",
    "tau2",
    "between",
    "t",
    "se",
    "width",
    f"data for {TARGET}",
    f"rounds: now → for {TARGET}",
]


def compiled_cost(run: load.RunData, width: dict, minutes: dict) -> str:
    """One line: the time phase, and what the compiled modes' timed rounds would add with the data
    for the target width, per mode (a lower bound on what that width costs); ``width`` and
    ``minutes`` as for ``mode_rows``."""
    added = {
        mode: with_data(minutes[mode], data_for(width[mode])) - minutes[mode]
        for mode in run.analysis
        if MODES[mode].compiled and mode in minutes
    }
    phase = run.manifest.phases.get("time", math.nan) / 60
    each = ", ".join(f"{label(mode)} +{extra:.1f}" for mode, extra in added.items())
    return (
        f"time phase {phase:.1f} min; for {TARGET} margins the compiled modes' timed rounds add "
        f"at least {sum(added.values()):.1f} min ({each})"
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    runs = [paths.run_folder(a) or Path(a) for a in args]  # a folder or an archive
    if not runs:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    for path in runs:
        run = load.load(path)
        print(f"{run.workload} {path.name}")
        width, minutes = widths(run), rounds_minutes(run)
        print("\n".join(fmt.table(HEAD, mode_rows(run, width, minutes))))
        print(compiled_cost(run, width, minutes))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How often would two back-to-back runs give a comparison the same outcome? (issue 27)

The issue asks that two default runs give ≥ 90 % of the compiled-mode comparisons (a candidate
against the fastest candidate at one size, head to head) the same outcome. A run measured on
2026-12-02 gave 40-93 % per mode. This script predicts that rate from one committed reference,
and how it would grow with more rounds. It does not time anything.

The model, per comparison: the difference ``d`` of the whole steps, its 95 % interval of
half-width ``h``, and the margin ``m`` at that size. Take ``d`` as the true difference (plug-in).
A replicate run then draws d' ~ Normal(d, se²), with se = h / 1.96. It is "equivalent" when
|d'| ≤ m − h, "slower" when d' > m + h, "faster" when d' < −(m + h), and "undetermined"
otherwise. Two independent replicates agree with probability Σ P(outcome)². With k times the
rounds, se and h shrink by √k.

The model leaves out three things, so read the numbers as a guide, not a measurement:
- the fastest candidate can change between runs;
- later stages re-time the open cells;
- a t-interval on few degrees of freedom makes h larger than 1.96 se. Taking se = h / 1.96
  then overstates the spread, so the predicted agreement is, if anything, low.

A comparison whose A/A cell is biased is undetermined in every run (its agreement is 1); the
script counts these apart.

    python findings/stability.py          # every workload's committed reference
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from scipy.stats import norm

from bench.core import pins
from bench.core.cellstats import EQUIVALENT, FASTER, SLOWER, UNDETERMINED, outcome
from bench.decide import answer, load
from bench.measured.modes import MODES, label

RESULTS = Path(__file__).resolve().parents[1] / "results"
WORKLOADS = ("clip", "brn", "kvcache", "ema")
MULTIPLIERS = (1, 2, 4, 8, 16)
TARGET = 0.90


def outcome_probabilities(d: float, half: float, margin: float, k: float = 1.0) -> dict:
    """{outcome: probability} for a replicate with k times the rounds, the true difference ``d``
    (the plug-in), a 95 % half-width ``half`` at k = 1, the margin ``margin``."""
    h = half / math.sqrt(k)
    se = h / 1.96
    if se <= 0:  # no spread: the outcome is what d itself is
        return {outcome(d - h, d + h, margin): 1.0}

    def below(x: float) -> float:  # P(d' < x)
        return float(norm.cdf((x - d) / se))

    equal = max(0.0, below(margin - h) - below(-(margin - h))) if h <= margin else 0.0
    slower = 1.0 - below(margin + h)
    faster = below(-(margin + h))
    return {
        EQUIVALENT: equal,
        SLOWER: slower,
        FASTER: faster,
        UNDETERMINED: max(0.0, 1.0 - equal - slower - faster),
    }


def agreement(d: float, half: float, margin: float, k: float = 1.0) -> float:
    """The probability that two independent replicates give the same outcome."""
    return sum(p * p for p in outcome_probabilities(d, half, margin, k).values())


def comparisons(run: load.RunData, mode: str) -> list:
    """The comparisons the pages make in ``mode``: each timed candidate (and other correct
    strategy) against the best candidate, per size (``bench.decide.answer.standings``; the
    fastest point estimate's too: its standing is an estimate, not equivalent by definition)."""
    out = []
    for standing in answer.standings(run, mode).values():
        out.extend(standing.comparisons.values())
    return out


def predicted(comps: list, k: float) -> tuple[float, int]:
    """(mean agreement over the comparisons, how many are biased: undetermined in every run)."""
    if not comps:
        return math.nan, 0
    values, biased = [], 0
    for c in comps:
        if c.biased or not (math.isfinite(c.low_s) and math.isfinite(c.high_s)):
            biased += 1
            values.append(1.0)
            continue
        values.append(agreement(c.difference_s, (c.high_s - c.low_s) / 2, c.margin_s, k))
    return sum(values) / len(values), biased


def needed(comps: list) -> int | None:
    """The smallest multiplier in MULTIPLIERS whose predicted agreement reaches TARGET."""
    for k in MULTIPLIERS:
        if predicted(comps, k)[0] >= TARGET:
            return k
    return None


def main() -> int:
    head = " | ".join(f"×{k}" for k in MULTIPLIERS)
    print(f"| workload | mode | comparisons | biased | {head} | rounds for {TARGET:.0%} |")
    print("|---|---|---|---|" + "---|" * len(MULTIPLIERS) + "---|")
    for w in WORKLOADS:
        ref = pins.reference(w)
        if not ref:
            continue
        run = load.load(ref)
        for mode in run.modes:
            comps = comparisons(run, mode)
            if not comps:
                continue
            cells = [predicted(comps, k) for k in MULTIPLIERS]
            k = needed(comps)
            mark = " (compiled)" if MODES[mode].compiled else ""
            print(f"| {w} | {label(mode)}{mark} | {len(comps)} | {cells[0][1]} | "
                  + " | ".join(f"{a:.0%}" for a, _ in cells)
                  + f" | {f'×{k}' if k else f'more than ×{MULTIPLIERS[-1]}'} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

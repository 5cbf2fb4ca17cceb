"""What to time: each strategy in its cheapest working shape, plus the calibration cells.

Pure functions over verdicts and the screen (no MindSpore), so the choice is testable.

- Only what works is timed: silent failures and errors are known from the gate already.
- What a shape costs is decided by how the forward reads the state (a (1,) Parameter read
  directly can cost many times a 0-d view): the screen times, at one size against the same base
  twin, the simplest working shape of each way of reading (the workload's ``cost_dims``). A read
  other than the simplest is timed only where the screen *shows* it cheaper (``cheaper``: by more
  than ``TIE`` and in its rounds); otherwise the simplest read is (the workload's order of each
  dimension's values): a choice is made by the data, never by a round's noise. The other
  dimensions (where the write sits, how the new value is computed) are assumed not to change the
  cost: ``--screen-all`` times every working shape to check that.
"""

from __future__ import annotations

import numpy as np

from bench.core.schema import Status
from bench.measured.shapes import CONTROL

TIE = 0.10  # a read whose median is within 10 % of another's is not cheaper than it
ALPHA = 0.05  # and its rounds must be lower: one-sided exact Mann–Whitney, p <= ALPHA


def working(verdicts, mode: str) -> dict[str, list]:
    """{strategy: [verdicts of its working shapes]} in ``mode`` (twins excluded)."""
    out: dict[str, list] = {}
    for v in verdicts:
        if v.mode == mode and v.status == Status.WORKS and v.strategy != CONTROL:
            out.setdefault(v.strategy, []).append(v)
    return out


def twins_working(verdicts, mode: str) -> set[str]:
    return {
        v.shape
        for v in verdicts
        if v.mode == mode and v.strategy == CONTROL and v.status == Status.WORKS
    }


def representatives(shapes: list, simplicity, cost_class) -> dict[str, object]:
    """{cost class: the simplest working shape of that class}: what the screen times."""
    out: dict[str, object] = {}
    for v in sorted(shapes, key=lambda v: (simplicity(v), v.shape)):
        out.setdefault(cost_class(v), v)
    return out


def cheaper(a: list[float], b: list[float]) -> bool:
    """Whether the screen shows read ``a`` cheaper than read ``b`` (per-round ratios to the base
    twin): its median more than ``TIE`` below b's *and* its rounds below b's (one-sided exact
    Mann–Whitney U, p <= ``ALPHA``; with 4 rounds each, at most one of the 16 pairs of rounds
    the other way round). A median alone follows a round's noise: the rounds of one screen
    scatter by 5–20 %, and with medians alone 12 of brn's 46 choices differed between three
    runs (issue 27), which moved the shape a strategy was timed in, its cost and an answer."""
    if len(a) == 0 or len(b) == 0 or float(np.median(a)) * (1 + TIE) >= float(np.median(b)):
        return False
    from scipy.stats import mannwhitneyu  # here: scipy.stats takes about 1 s to import

    return bool(mannwhitneyu(a, b, alternative="less", method="exact").pvalue <= ALPHA)


def choose(shapes: list, screen: dict, simplicity, cost_class) -> tuple[str, str]:
    """(chosen shape, why) among a strategy's working shape verdicts.

    ``screen`` maps a shape name to its screened per-round ratios to the base twin. Among the
    screened reads, those no other read is shown ``cheaper`` than; of them, the simplest shape
    (a read whose median is lowest is never shown costlier, so there is one)."""
    reps = representatives(shapes, simplicity, cost_class)
    if len(reps) == 1:
        best = next(iter(reps.values()))
        read = f" ({cost_class(best)})" if cost_class(best) else ""
        return best.shape, f"the simplest working shape; all read the state one way{read}"
    rounds = {c: screen[v.shape] for c, v in reps.items() if screen.get(v.shape)}
    if not rounds:
        best = min(reps.values(), key=lambda v: (simplicity(v), v.shape))
        return best.shape, "the simplest working shape (not screened)"
    cost = {c: float(np.median(r)) for c, r in rounds.items()}
    kept = [c for c in rounds if not any(cheaper(rounds[o], rounds[c]) for o in rounds if o != c)]
    best = min((reps[c] for c in kept), key=lambda v: (simplicity(v), v.shape))
    simplest = min((reps[c] for c in rounds), key=lambda v: (simplicity(v), v.shape))
    classes = ", ".join(f"{c} ×{x:.2f}" for c, x in sorted(cost.items(), key=lambda kv: kv[1]))
    if best is simplest:
        why = "the simplest working shape; the screen shows no read cheaper than its"
    else:
        why = "the simplest working shape of a read no other is shown cheaper than (every "
        why += "simpler read is shown costlier than another)"
    return best.shape, f"{why} ({classes})"

"""What to time: each strategy in its cheapest working shape, plus the calibration cells.

Pure functions over verdicts and the screen (no MindSpore), so the choice is testable.

- Only what works is timed: silent failures and errors are known from the gate already.
- What a shape costs is decided by how the forward reads the state (a (1,) Parameter read
  directly can cost many times a 0-d view): the screen times, at one size against the same base
  twin, the simplest working shape of each way of reading (the workload's ``cost_dims``), and
  the cheapest wins; reads within ``TIE`` of it are a tie, broken by simplicity (the workload's
  order of each dimension's values), never by noise. The other dimensions (where the write sits,
  how the new value is computed) are assumed not to change the cost: ``--screen-all`` times every
  working shape to check that.
"""

from __future__ import annotations

import numpy as np

from bench.core.schema import Status
from bench.measured.shapes import CONTROL

TIE = 0.10  # within 10 % of the cheapest read is a tie (a round scatters by ~3-5 %)


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


def choose(shapes: list, screen: dict, simplicity, cost_class) -> tuple[str, str]:
    """(chosen shape, why) among a strategy's working shape verdicts.

    ``screen`` maps a shape name to its screened per-round ratios to the base twin. The cheapest
    cost class wins (a tie within ``TIE`` goes to the simpler shape); within it, the simplest
    working shape."""
    reps = representatives(shapes, simplicity, cost_class)
    if len(reps) == 1:
        best = next(iter(reps.values()))
        read = f" ({cost_class(best)})" if cost_class(best) else ""
        return best.shape, f"the simplest working shape; all read the state one way{read}"
    cost = {c: float(np.median(screen[v.shape])) for c, v in reps.items() if screen.get(v.shape)}
    if not cost:
        best = min(reps.values(), key=lambda v: (simplicity(v), v.shape))
        return best.shape, "the simplest working shape (not screened)"
    fastest = min(cost.values())
    tied = [reps[c] for c in cost if cost[c] <= fastest * (1 + TIE)]
    best = min(tied, key=lambda v: (simplicity(v), v.shape))
    classes = ", ".join(f"{c} ×{x:.2f}" for c, x in sorted(cost.items(), key=lambda kv: kv[1]))
    return best.shape, f"the simplest working shape of the cheapest read in the screen ({classes})"

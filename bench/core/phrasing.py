"""What an added-time estimate says, in the words a user reads (pure functions: the pages call
them; ``tests/unit/test_phrasing.py`` holds their table).

- An interval that contains 0: "no detectable cost (95 % bound +x µs)": the upper end is the
  most the write can cost at this precision; never a bare "not measurable".
- An interval above 0: the added time with its interval.
- An interval below 0: "faster than the same step without the write", with its interval and why
  that can happen (``WHY_FASTER``): the no-update twin is a different program, not the same one
  minus a free operation.
- Quartiles of the per-round added time only from ``QUARTILE_ROUNDS`` rounds or more: with fewer,
  a quartile is one or two rounds, not a spread.
"""

from __future__ import annotations

import math

from bench.report import fmt

QUARTILE_ROUNDS = 20  # 20 rounds leave 5 beyond each quartile
WHY_FASTER = (
    "possible because the twin is another program: the write changes what later steps compute "
    "(a clip limit that grows clips fewer elements) or how the compiler lays out the step"
)


def cost(added_s: float, low_s: float, high_s: float) -> str:
    """The added time per step of a write, with its 95 % interval, as a sentence fragment."""
    if not math.isfinite(added_s):
        return "not measured"
    if not (math.isfinite(low_s) and math.isfinite(high_s)):
        return f"{fmt.signed(added_s)} a step (no interval: too few rounds to have one)"
    if low_s <= 0 <= high_s:
        return f"no detectable cost (95 % bound {fmt.signed(high_s)})"
    if low_s > 0:
        return f"{fmt.signed(added_s, low_s, high_s)} a step"
    return (
        f"faster than the same step without the write: {fmt.signed(added_s, low_s, high_s)} "
        f"a step ({WHY_FASTER})"
    )


def quartiles(q1_s: float, q2_s: float, q3_s: float, rounds: int) -> str:
    """The per-round added time's quartiles, or "" below ``QUARTILE_ROUNDS`` rounds."""
    if rounds < QUARTILE_ROUNDS or not all(map(math.isfinite, (q1_s, q2_s, q3_s))):
        return ""
    return (
        f"{fmt.signed(q2_s)} a step (rounds' quartiles {fmt.signed(q1_s)} … {fmt.signed(q3_s)}, "
        f"{rounds} rounds)"
    )

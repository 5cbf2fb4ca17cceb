"""How the answer reads: what a write adds as a user reads it (the one phrasing module: every page,
table and README block says a cost through ``cost`` / ``cost_words`` (over a ``decisions.Cost``), in
code or in the templates' filters; ``tests/unit/test_phrasing.py`` holds their table).

- An interval that contains 0: "no detectable cost: ≤ +x µs, y % of a z step (97.5 % bound)",
  against the step without the write: the upper end of the 95 % interval, a one-sided 97.5 %
  bound on what the write can cost at this precision, named for what it is (issue 52); never a
  bare "not measurable".
- An interval above 0: the added time with its interval.
- An interval below 0: "faster than the same step without the write", with its interval and why
  that can happen (``WHY_FASTER``): the no-update twin is a different program, not the same one
  minus a free operation.
- Quartiles of the per-round added time only from ``QUARTILE_ROUNDS`` rounds or more: with fewer,
  a quartile is one or two rounds, not a spread.
"""

from __future__ import annotations

import math

from bench.core import fmt
from bench.decide.answer import NOT_TIMED, distribution

NOT_MEASURED = "not measured"
NO_COST = "no detectable cost"  # the 95 % interval of the added time contains 0
FASTER_THAN_WITHOUT = "faster than the same step without the write"
WHY_FASTER = (
    "possible because the twin is another program: the write changes what later steps compute "
    "(a clip limit that grows clips fewer elements) or how the compiler lays out the step"
)
TWIN_INVALID = f"{NOT_MEASURED} (its twin is invalid in this mode)"
ROUNDS_QUARTILES = "rounds' quartiles"
QUARTILE_ROUNDS = 20  # 20 rounds leave 5 beyond each quartile
QUEUE_DRAIN = (
    "PYNATIVE_MODE on a machine with few cores: ops such as assign, assign_add, stop_gradient and "
    "set_data make the eager queue drain. One drain (a scheduler slice of ~4 ms) dominates a few "
    "steps, so these numbers are a distribution of drains, not a per-op cost. A machine with more "
    "cores drains faster (`findings/pynative_queue_drain.py` reproduces it, `findings/README.md` "
    "explains it)"
)


def relative(ratio: float) -> str:
    """A step's ratio to its twin as a user reads it: a percentage up to doubling, then ×N (a
    percentage of a tiny twin, "+360726 %", says nothing)."""
    if not math.isfinite(ratio):
        return "–"
    if 0.5 <= ratio <= 2.0:
        return f"{(ratio - 1) * 100:+.0f} %"
    return f"×{ratio:.3g}"


def share(x: float) -> str:
    """A share of a step: ``6 %``, ``0.5 %`` below 10 %."""
    return f"{100 * x:.1f} %" if abs(x) < 0.1 else f"{100 * x:.0f} %"


def cost(
    added_s: float,
    low_s: float,
    high_s: float,
    ratio: float = math.nan,
    why: bool = True,
    step_s: float = math.nan,
) -> str:
    """The added time per step of a write, with its 95 % interval, as a sentence fragment:

    - an interval that contains 0: "no detectable cost: ≤ +x, y % of a z step (97.5 % bound)"
      against ``step_s``, the step without the write (the step the user pays); without it "no
      detectable cost (97.5 % upper bound +x)". The bound is the most the write can cost at
      this precision, a one-sided 97.5 % bound (never a bare "not measurable");
    - an interval above 0: the added time with its interval (and ``ratio`` to the twin's step);
    - an interval below 0: "faster than the same step without the write", with its interval and
      (``why``) why that can happen (``WHY_FASTER``)."""
    if not math.isfinite(added_s):
        return NOT_MEASURED
    rel = f" ({relative(ratio)})" if math.isfinite(ratio) else ""
    if not (math.isfinite(low_s) and math.isfinite(high_s)):
        return f"{fmt.signed(added_s)} a step{rel} (no interval: too few rounds to have one)"
    if low_s <= 0 <= high_s:
        if math.isfinite(step_s) and step_s > 0:
            return (
                f"{NO_COST}: ≤ {fmt.signed(high_s)}, {share(high_s / step_s)} of a "
                f"{fmt.duration(step_s)} step (97.5 % bound)"
            )
        return f"{NO_COST} (97.5 % upper bound {fmt.signed(high_s)})"
    if low_s > 0:
        return f"{fmt.signed(added_s, low_s, high_s)} a step{rel}"
    because = f" ({WHY_FASTER})" if why else ""
    return f"{FASTER_THAN_WITHOUT}: {fmt.signed(added_s, low_s, high_s)} a step{rel}{because}"


def quartiles(q1_s: float, q2_s: float, q3_s: float, rounds: int) -> str:
    """The per-round added time's quartiles, or "" below ``QUARTILE_ROUNDS`` rounds (with fewer,
    a quartile is one or two rounds, not a spread)."""
    if rounds < QUARTILE_ROUNDS or not all(map(math.isfinite, (q1_s, q2_s, q3_s))):
        return ""
    return (
        f"{ROUNDS_QUARTILES} {fmt.signed(q1_s)} … {fmt.signed(q3_s)} "
        f"(median {fmt.signed(q2_s)}, {rounds} rounds)"
    )


def cost_words(c, mode: str, why: bool = False) -> str:
    """A ``decisions.Cost`` in the pages' words (``cost``): the added time with its interval, or
    why there is none; in a distribution mode the rounds' quartiles too, from enough rounds
    (``quartiles``)."""
    if not c.timed:
        return NOT_TIMED
    if c.twin_invalid:
        return TWIN_INVALID
    text = cost(c.added_s, c.low_s, c.high_s, ratio=c.ratio, why=why, step_s=c.step_s)
    if distribution(mode) and c.quartiles:
        spread = quartiles(*c.quartiles, c.rounds)
        text += f"; {spread}" if spread else ""
    return text


CROSSOVER = "the cheaper one depends on the size"


def crossover_words(symbol: str, strategy: str, found) -> str:
    """What ``answer.crossovers`` found, as a user reads it: "the cheaper one depends on the size:
    head to head, `a`'s whole step is shorter than `b`'s and `c`'s at N=1, 64 and longer at
    N=1024" (one clause per set of sizes; "" when there is none)."""
    groups: dict[tuple, list[str]] = {}
    for x in found:
        groups.setdefault((x.faster, x.slower), []).append(x.other)
    if not groups:
        return ""

    def at(sizes):
        return f"{symbol}={', '.join(str(n) for n in sizes)}"

    def names(others):
        quoted = [f"`{o}`'s" for o in sorted(others)]
        return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"

    clauses = [
        f"shorter than {names(others)} at {at(faster)} and longer at {at(slower)}"
        for (faster, slower), others in sorted(groups.items())
    ]
    return (
        f"{CROSSOVER}: head to head, `{strategy}`'s whole step is {'; it is '.join(clauses)}. "
        "The answer is decided over every size; at yours, the shorter step is the cheaper"
    )

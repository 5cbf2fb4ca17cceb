"""What a later stage's race will cost, for the progress line's ETA, from its mode's stage-0
records.

The ETA counts a race in units of a stage-0 member: a mode's rate is its stage-0 seconds per
member. A later stage races fewer members and more rounds, and which members stay decides what
they cost. A default run's stage 0 races layout twins and strategies that compile slowly (brn's
``index_add`` and ``vector-view`` twin in GRAPH_MODE: 1.1-1.5 s against 0.6 s); a later stage
races only the candidates still open. So one number per member (``time_phase.LATER_FIXED``) cannot
fit both. On the later stages of the traces of 270094e (``findings/eta/``) it counted brn's at
1.13-1.44 times what they ran, the two-strategy runs' at 0.76-0.92 and clip's at 0.95-1.36.

Here each member's stage-0 records give what it costs: a part that does not grow with the
rounds (its first call, which compiles it, and the steps that warmed it up and sized its
blocks) and one round's block. A later race's units are the seconds these predict for its
members and twins at the rounds it will run, over what they predict for an average stage-0
member of the mode. Per mode, this counted the later stages of those six runs at 0.83-1.07 of
what they ran (0.76-1.44 before), and those of seven runs of 2026-12-07's evening at 0.84-1.20.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import fmean

from bench.core.schema import Timing
from bench.run.race import budget_rounds


@dataclass(frozen=True)
class Cost:
    """A member's seconds in a race of R rounds: ``fixed_s + R * round_s``."""

    fixed_s: float  # its first call, warm-up and sizing steps: what does not grow with rounds
    round_s: float  # one round's block of k steps

    def seconds(self, rounds: int) -> float:
        return self.fixed_s + rounds * self.round_s


def _cost(first_call_s: float, steps: list, k: int, steps_run: int) -> Cost | None:
    """A record's cost; None where it measured nothing usable."""
    finite = [s for s in steps if isinstance(s, (int, float)) and math.isfinite(s) and s >= 0]
    if not finite or not math.isfinite(first_call_s) or first_call_s < 0:
        return None
    step, k = fmean(finite), max(1, k)
    outside = max(0, steps_run - len(steps) * k)  # warm-up and sizing steps
    return Cost(first_call_s + outside * step, k * step)


def _mean(costs: list[Cost]) -> Cost:
    return Cost(fmean(c.fixed_s for c in costs), fmean(c.round_s for c in costs))


def _twins(controls) -> int:
    """The twin blocks a race times each round: one per control its strategies (and the A/A
    cell, whose control is the base twin) are measured against."""
    return max(1, len(set(controls)))


@dataclass(frozen=True)
class RaceCosts:
    """A mode's members' costs from its stage-0 records, per size."""

    members: dict  # (strategy, shape, role, size) -> Cost, averaged over processes
    bases: dict  # size -> Cost of a race's base twin (each twin block priced as the base's)
    unit_s: float  # the seconds these predict for an average stage-0 member
    cell_seconds: float = 0.0  # the tier's seconds per pair of blocks (0: rounds as planned)

    @classmethod
    def of(cls, timings: list[Timing], mode: str, cell_seconds: float = 0.0) -> RaceCosts | None:
        """None where the mode has no usable stage-0 race records."""
        mine = [t for t in timings if t.mode == mode and t.stage == 0 and t.race]
        seen: dict[tuple, list[Cost]] = {}
        bases: dict[int, list[Cost]] = {}
        races: dict[str, list[Timing]] = {}
        for t in mine:
            races.setdefault(t.race, []).append(t)
        predicted = 0.0
        counted = 0
        for race in races.values():
            for t in race:
                cost = _cost(t.first_call_s, t.step_s, t.k, t.steps_run)
                if cost is None:
                    continue
                seen.setdefault((t.strategy, t.shape, t.role, t.batch_size), []).append(cost)
                predicted += cost.seconds(len(t.step_s))
                counted += 1
            first = race[0]  # every record of a race holds its base twin's rounds
            base = _cost(first.control_first_call_s, first.race_base_s, first.k, first.steps_run)
            if base is not None:
                bases.setdefault(first.batch_size, []).append(base)
                twins = _twins(t.control for t in race if t.role in ("update", "aa"))
                predicted += twins * base.seconds(len(first.race_base_s))
        if not counted or predicted <= 0:
            return None
        return cls(
            {key: _mean(c) for key, c in seen.items()},
            {n: _mean(c) for n, c in bases.items()},
            predicted / counted,
            cell_seconds,
        )

    def units(self, members, size: int, rounds: int) -> float | None:
        """A race of ``members`` (``plan.Member``) at ``size`` over at most ``rounds`` rounds, in
        stage-0 members of this mode; None where a member or the base twin has no stage-0
        record (the caller's fallback counts it). A race runs fewer rounds where they would take
        longer than ``cell_seconds`` per pair of blocks (``race.budget_rounds``, at least 4): a
        race of brn's largest size in launch_blocking, planned at 40, ran 4."""
        costs = [self.members.get((m.strategy, m.shape, m.role, size)) for m in members]
        base = self.bases.get(size)
        if not costs or base is None or any(c is None for c in costs):
            return None
        twins = _twins(m.control for m in members if m.role in ("update", "aa"))
        if self.cell_seconds > 0:
            round_s = sum(c.round_s for c in costs) + twins * base.round_s
            blocks = len(members) + twins
            rounds = budget_rounds(self.cell_seconds, blocks, round_s, 4, max(4, rounds))
        seconds = sum(c.seconds(rounds) for c in costs) + twins * base.seconds(rounds)
        return seconds / self.unit_s

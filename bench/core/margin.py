"""The margin of practical equivalence: its one definition and its defaults (no NumPy or SciPy,
so a plan or a worker can import it without the statistics)."""

from __future__ import annotations

import math
from dataclasses import dataclass

OLD_REL = 0.05  # the relative margin of runs whose plan does not record one


@dataclass(frozen=True)
class Margin:
    """Two steps are practically equivalent when they differ by less than the larger of ``rel``
    of the candidate's whole step and ``abs_s`` seconds. The floor is what a mode can resolve on
    this machine: below ~5 µs a step difference is within a block's timer and dispatch jitter.
    Relative to the step being compared, so "equivalent" means the same at every size."""

    rel: float = 0.02
    abs_s: float = 5e-6

    @classmethod
    def of_plan(cls, precision: dict) -> Margin:
        """The margin a run's plan recorded (``precision``, as in its manifest); a plan older
        than the margin's fields was decided with 5 % of the step and 5 µs."""
        return cls(precision.get("margin_rel", OLD_REL), precision.get("margin_abs_s", cls.abs_s))

    def at(self, step_s: float) -> float:
        """The margin in seconds for a candidate whose whole step is ``step_s``."""
        return max(self.rel * step_s, self.abs_s) if math.isfinite(step_s) else self.abs_s

    def describe(self) -> str:
        return f"the larger of {self.rel:.0%} of the candidate's step and {self.abs_s * 1e6:g} µs"

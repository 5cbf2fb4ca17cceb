"""A timed cell's estimate: what the update adds per step, with an interval that covers processes.

Every round pairs a block of the subject with a block of its no-update twin; its log-ratio
``log(subject / twin)`` is the sample. In each worker process the cell's value is the median of
its rounds, whose variance is about (π/2)·σ²/n (σ: a robust, small-sample-corrected spread of the
rounds). Processes also differ by more than their rounds explain (memory placement, kernel
choice: a process keeps its speed for life), so the model is a random-effects one (DerSimonian &
Laird 1986): process medians scatter around the cell's value with a between-process variance τ²,
estimated once per mode from every cell measured in two or more processes (``pooled_tau2``) —
one cell's two processes could not estimate it, the mode's hundred cells can. The cell's value is
the inverse-variance weighted mean of its process medians; its 95 % interval is normal on the log
scale. Added time per step = (ratio − 1) × the twin's median step.

Decisions (``decide``) compare a candidate's added time with the fastest's against a stated
margin (``Margin``): *equivalent* when the whole interval of the difference lies within ±margin,
*slower* when it lies above it, *undetermined* otherwise (Kruschke's region of practical
equivalence; not significant is not the same). ``p_fastest`` is the probability, under the same
normal model, that a strategy has the lowest mean relative cost over the sizes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

Z95 = 1.959964
MAD_TO_SD = 1.4826
MEDIAN_EFFICIENCY = math.pi / 2  # variance of a median / variance of a mean, normal data


def robust_sd(values) -> float:
    """1.4826 × MAD × n / (n − 0.8): the small-sample correction (Croux & Rousseeuw 1992) without
    which a 5-round spread is ~25 % low."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return math.nan
    mad = float(np.median(np.abs(v - np.median(v))))
    return MAD_TO_SD * mad * v.size / (v.size - 0.8)


@dataclass(frozen=True)
class Process:
    """One worker process's rounds of a cell: per-round log-ratios."""

    logs: tuple[float, ...]

    @cached_property
    def median(self) -> float:
        return float(np.median(self.logs)) if self.logs else math.nan

    @cached_property
    def variance(self) -> float:
        """Variance of the median of its rounds."""
        n = len(self.logs)
        sd = robust_sd(self.logs)
        if n < 2 or not math.isfinite(sd):
            return math.inf
        return MEDIAN_EFFICIENCY * max(sd, 1e-6) ** 2 / n


def processes(groups) -> tuple[Process, ...]:
    """From per-process lists of ratios (subject / twin)."""
    out = []
    for g in groups:
        r = np.asarray(g, float)
        r = r[np.isfinite(r) & (r > 0)]
        if r.size:
            out.append(Process(tuple(np.log(r).tolist())))
    return tuple(out)


def pooled_tau2(cells) -> float:
    """The between-process variance of a mode: Σ (m_j − m̄)² − Σ (P−1)·v̄, over Σ (P−1), from every
    cell with two or more processes (method of moments); 0 when no cell has two."""
    between, within, dof = 0.0, 0.0, 0
    for procs in cells:
        meds = [p.median for p in procs if math.isfinite(p.variance)]
        if len(meds) < 2:
            continue
        between += float(np.sum((np.asarray(meds) - np.mean(meds)) ** 2))
        within += (len(meds) - 1) * float(np.mean([p.variance for p in procs]))
        dof += len(meds) - 1
    return max(0.0, (between - within) / dof) if dof else 0.0


@dataclass(frozen=True)
class Estimate:
    """A cell's pooled estimate (log scale) and what follows from it."""

    procs: tuple[Process, ...]
    control_step_s: float  # the twin's median per-step time
    tau2: float = 0.0

    @cached_property
    def _fit(self) -> tuple[float, float]:
        usable = [p for p in self.procs if math.isfinite(p.median)]
        if not usable:
            return math.nan, math.inf
        if all(not math.isfinite(p.variance) for p in usable):  # single rounds: no spread known
            return float(np.mean([p.median for p in usable])), math.inf
        weights = np.asarray([1.0 / (p.variance + self.tau2) for p in usable])
        meds = np.asarray([p.median for p in usable])
        return float(np.sum(weights * meds) / np.sum(weights)), float(1.0 / np.sum(weights))

    @property
    def log_ratio(self) -> float:
        return self._fit[0]

    @property
    def log_se(self) -> float:
        return math.sqrt(self._fit[1])

    @property
    def ratio(self) -> float:
        return math.exp(self.log_ratio) if math.isfinite(self.log_ratio) else math.nan

    @property
    def ratio_interval(self) -> tuple[float, float]:
        half = Z95 * self.log_se
        if not math.isfinite(half):
            return (math.nan, math.nan)
        return math.exp(self.log_ratio - half), math.exp(self.log_ratio + half)

    @property
    def halfwidth(self) -> float:
        """Relative half-width of the ratio's interval (e.g. 0.02 = ±2 %)."""
        low, high = self.ratio_interval
        return (high - low) / 2 / self.ratio if math.isfinite(low) else math.inf

    @property
    def added_s(self) -> float:
        return (self.ratio - 1.0) * self.control_step_s

    @property
    def added_interval(self) -> tuple[float, float]:
        low, high = self.ratio_interval
        return (low - 1.0) * self.control_step_s, (high - 1.0) * self.control_step_s

    @property
    def added_se(self) -> float:
        """Standard error of the added time (delta method)."""
        return self.ratio * self.log_se * self.control_step_s

    @property
    def rounds(self) -> int:
        return sum(len(p.logs) for p in self.procs)


def estimate(groups, control_step_s: float, tau2: float = 0.0) -> Estimate:
    return Estimate(processes(groups), control_step_s, tau2)


@dataclass(frozen=True)
class Margin:
    """Two costs are practically equivalent when they differ by less than the larger of ``rel``
    of the twin's step and ``abs_s`` seconds."""

    rel: float = 0.05
    abs_s: float = 5e-6

    def at(self, control_step_s: float) -> float:
        return max(self.rel * control_step_s, self.abs_s)

    def describe(self) -> str:
        return f"the larger of {self.rel:.0%} of the step and {self.abs_s * 1e6:g} µs"


EQUIVALENT, SLOWER, FASTER, UNDETERMINED = "equivalent", "slower", "faster", "undetermined"


@dataclass(frozen=True)
class Comparison:
    """A candidate's added time minus the fastest's, at one size, with its interval."""

    difference_s: float
    low_s: float
    high_s: float
    margin_s: float
    outcome: str = field(init=False)

    def __post_init__(self):
        if not (math.isfinite(self.low_s) and math.isfinite(self.high_s)):
            outcome = UNDETERMINED
        elif self.low_s >= -self.margin_s and self.high_s <= self.margin_s:
            outcome = EQUIVALENT
        elif self.low_s > self.margin_s:
            outcome = SLOWER
        elif self.high_s < -self.margin_s:
            outcome = FASTER
        else:
            outcome = UNDETERMINED
        object.__setattr__(self, "outcome", outcome)


def compare(candidate: Estimate, fastest: Estimate, margin: Margin) -> Comparison:
    diff = candidate.added_s - fastest.added_s
    se = math.hypot(candidate.added_se, fastest.added_se)
    m = margin.at(fastest.control_step_s)
    return Comparison(diff, diff - Z95 * se, diff + Z95 * se, m)


def decide(outcomes: list[str]) -> str:
    """A strategy over sizes: slower anywhere is slower; equivalent everywhere is equivalent;
    faster somewhere and equivalent or faster elsewhere is faster; anything else undetermined."""
    if SLOWER in outcomes:
        return SLOWER
    if outcomes and all(o == EQUIVALENT for o in outcomes):
        return EQUIVALENT
    if outcomes and FASTER in outcomes and all(o in (EQUIVALENT, FASTER) for o in outcomes):
        return FASTER
    return UNDETERMINED


def p_fastest(estimates: dict[str, list[Estimate]], draws: int = 4000, seed: int = 0) -> dict:
    """{strategy: probability that its mean relative added time over the sizes is the lowest}."""
    names = [n for n, e in estimates.items() if e and all(math.isfinite(x.log_se) for x in e)]
    if not names:
        return {}
    rng = np.random.default_rng(seed)
    scores = []
    for name in names:
        mu = np.asarray([e.log_ratio for e in estimates[name]])
        se = np.asarray([e.log_se for e in estimates[name]])
        draws_ = rng.normal(mu, se, size=(draws, mu.size))
        scores.append(np.mean(np.exp(draws_) - 1.0, axis=1))
    best = np.argmin(np.vstack(scores), axis=0)
    return {n: float(np.mean(best == i)) for i, n in enumerate(names)}


def rounds_for(target_halfwidth: float, procs: tuple[Process, ...], tau2: float, n_procs: int):
    """Rounds per process that ``n_procs`` new processes need for the target half-width, from the
    spread seen so far (None when the between-process spread alone exceeds it)."""
    sds = [robust_sd(p.logs) for p in procs if len(p.logs) >= 3]
    sd = float(np.median(sds)) if sds else math.nan
    if not math.isfinite(sd):
        return None
    want = (target_halfwidth / Z95) ** 2  # variance of the mean the target allows
    per_process = want * n_procs - tau2
    if per_process <= 0:
        return None
    return math.ceil(MEDIAN_EFFICIENCY * sd**2 / per_process)

"""A timed cell's estimate: what the update adds per step, with an interval as wide as the data.

The sample is a round's log-ratio ``log(subject / twin)`` (or, for a race, of two candidates).

Within a process: the 20 % trimmed mean of its rounds, with the Tukey–McLaughlin standard error
(winsorized spread, in Yuen's form) and ``h − 1`` degrees of freedom, ``h`` the rounds left
after trimming (Wilcox, *Introduction to Robust Estimation*, §4.3; cut as
``scipy.stats.trim_mean`` cuts).
Trimming keeps a preempted block from moving the estimate the way a mean would, and unlike a
median it has a known t-distribution with real degrees of freedom (3 rounds: 2; 10 rounds: 5),
so the interval of a short process is as wide as it must be.

Between processes: a process keeps its speed for life (memory placement, kernel choice), so
process estimates scatter around the cell's value with a between-process variance τ². One cell's
one to three processes cannot estimate τ²; a mode's cells can, assuming one τ² per mode
(``heterogeneity``). The estimator is **Paule–Mandel** generalised to many cells with their own
means: the τ² at which the generalised Q statistic Σ_cells Σ_i w_i (y_i − ȳ_cell)² with
w_i = 1 / (v_i + τ²) equals its degrees of freedom Σ (k_cell − 1). Why Paule–Mandel: it is the
estimator recommended over DerSimonian–Laird when within-process variances differ a lot (they
do: a 3-round process and a 40-round one; Veroniki et al. 2016, Langan et al. 2019), DL being
biased low there; and it is positive exactly when Cochran's Q exceeds its degrees of freedom,
so τ² cannot be 0 where processes disagree more than their rounds explain. For one cell it is
what ``statsmodels.stats.meta_analysis.combine_effects(method_re="pm")`` computes from the same
variances (a test checks that); statsmodels has no common τ² over groups with their own means,
hence the few lines here. Cochran's Q over the mode and its p-value (χ² with Σ (k_cell − 1)
degrees of freedom) are reported with it (``Heterogeneity``). A process's v_i comes from the
cell's winsorized per-round spread pooled over its processes (``within_variances``): weights
from each process's own few-round spread would follow its errors and undercover.

A cell's value is the weighted mean of its process estimates with weights 1 / (v_i + τ²). Its
interval is a t-interval whose degrees of freedom come from the **Welch–Satterthwaite**
approximation over the variance's two components: the processes' part (Σ (h_i − 1) degrees of
freedom) and τ²'s (Satterthwaite's degrees of freedom of a variance component, Σ (k_cell − 1) ·
(τ² / (τ² + v̄))², ``Heterogeneity.tau2_df``: few where the processes' own spread dominates).
Why not Hartung–Knapp with k − 1: a cell has one to three processes (k − 1 = 0 is no interval at
all, 1 is t = 12.7), and its τ² is not estimated from its own k processes but from the whole
mode; Welch–Satterthwaite gives each component the degrees of freedom it was actually estimated
with. Added time per step = (ratio − 1) × the twin's median step.

Decisions (``compare``, ``decide``): the difference of two added times against a stated margin
(``Margin``, relative to the candidate's whole step, with an absolute floor): *equivalent* when
its whole interval lies within ±margin, *slower* above it, *faster* below it, *undetermined*
otherwise (two one-sided tests; not significant is not equivalent). A candidate is judged
against the *best* candidate, not against whichever measured fastest (``versus_best``: its
largest excess over any other candidate, bounded by their head-to-head intervals), so its
outcome does not move when two near-equal candidates swap places. A later stage re-times only
the open decisions, so a decision is looked at up to ``looks`` times: each look uses a two-sided
level of α / looks (Bonferroni over the looks: the chance of any wrong call over all looks stays
below α; conservative, simple, and valid whatever the stopping rule, ``alpha_per_look``). A mode
size whose A/A interval lies outside ±margin turns that size's decisions undetermined
(``aa_biased``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy import special

from bench.core.margin import OLD_REL, Margin  # noqa: F401 - re-exported: the decisions' margin

ALPHA = 0.05  # the intervals shown are 95 %
Z95 = 1.959964  # only for planning (rounds_for), never for an interval
TRIM = 0.2  # each end of a process's rounds (Wilcox's default: robust, still efficient)
MAD_TO_SD = 1.4826


def robust_sd(values) -> float:
    """1.4826 × MAD × n / (n − 0.8): the small-sample correction (Croux & Rousseeuw 1992) without
    which a 5-round spread is ~25 % low."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v)]
    if v.size < 2:
        return math.nan
    mad = float(np.median(np.abs(v - np.median(v))))
    return MAD_TO_SD * mad * v.size / (v.size - 0.8)


def t_quantile(df: float, alpha: float = ALPHA) -> float:
    """The two-sided (1 − alpha) t-quantile; inf without degrees of freedom."""
    if not df > 0:
        return math.inf
    return float(special.stdtrit(df, 1.0 - alpha / 2.0))  # stats.t.ppf's kernel, 1000× faster


def alpha_per_look(looks: int, alpha: float = ALPHA) -> float:
    """The two-sided level of one look when a decision may be looked at ``looks`` times
    (Bonferroni: the error over all looks stays below ``alpha``)."""
    if looks < 1:
        raise ValueError(f"looks must be at least 1, got {looks!r}")
    return alpha / looks


def welch_df(parts) -> float:
    """Welch–Satterthwaite degrees of freedom of a sum of variances [(variance, its df)], at
    least 1 when every part has some (below 1 the approximation itself fails, and t with 1
    degree of freedom, ×12.7, is already as wide as an interval can usefully be); 0 when a part
    has none."""
    parts = [(v, d) for v, d in parts if v > 0]
    if not parts or any(not (d > 0 and math.isfinite(v)) for v, d in parts):
        return 0.0
    denom = sum(v**2 / d for v, d in parts)
    return max(1.0, sum(v for v, _ in parts) ** 2 / denom) if denom > 0 else math.inf


def numpy_sum(xs: list[float]) -> float:
    """Σ xs in NumPy's order (``np.add.reduce`` on a float64 array: pairwise summation, eight
    partial sums per block of up to 128), so a plain-float mean or variance is bit for bit
    NumPy's without its per-call overhead (a test checks it against ``np.mean`` and ``np.var``)."""
    n = len(xs)
    if n < 8:
        total = -0.0
        for x in xs:
            total += x
        return total
    if n > 128:
        half = n // 2
        half -= half % 8
        return numpy_sum(xs[:half]) + numpy_sum(xs[half:])
    r = xs[:8]
    end = n - n % 8
    for i in range(8, end, 8):
        for j in range(8):
            r[j] += xs[i + j]
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for x in xs[end:]:
        total += x
    return total


def _exp(x: float) -> float:
    return math.exp(min(x, 700.0))  # inf-like, without OverflowError


@dataclass(frozen=True)
class Process:
    """One worker process's rounds of a cell: per-round log-ratios."""

    logs: tuple[float, ...]

    @property
    def trimmed(self) -> int:
        """Rounds cut from each end."""
        return int(TRIM * len(self.logs))

    @cached_property
    def _trimmed(self) -> tuple[float, float]:
        """(trimmed mean, its variance): the variance is (n − 1) s_w² / (h (h − 1)), s_w² the
        winsorized variance (Yuen 1974; Tukey–McLaughlin's s_w² / ((1 − 2γ)² n) up to the
        rounding of the cut, exact for a plain mean when nothing is cut); inf below two rounds
        left. By hand rather than ``scipy.stats.trim_mean`` (the same cut: ``int(γ n)`` each end,
        a test checks it), which costs ~2 ms a call through its argument handling, and in plain
        floats rather than ``np.mean`` / ``np.var`` (31 µs a call on 10 rounds, 4 µs here): a
        run's analysis takes thousands, a simulation test hundreds of thousands. The sums are
        NumPy's own (``numpy_sum``), so every bit is what ``np.mean`` and ``np.var`` give (a test
        checks it) and no committed page moves."""
        n, g = len(self.logs), self.trimmed
        if not n:
            return math.nan, math.inf
        logs = self.logs
        # ``sorted`` cannot place a NaN (their sum is NaN then); NumPy puts it last
        w = np.sort(logs).tolist() if math.isnan(sum(logs)) else sorted(logs)
        h = n - 2 * g
        center = numpy_sum(w[g : n - g]) / h
        if self.df < 1:
            return center, math.inf
        w = [w[g]] * g + w[g : n - g] + [w[n - g - 1]] * g  # winsorized
        mean = numpy_sum(w) / n
        var = numpy_sum([(x - mean) * (x - mean) for x in w]) / (n - 1)
        return center, max(var * (n - 1) / (h * (h - 1)), 1e-18)

    @property
    def center(self) -> float:
        """The 20 % trimmed mean of its rounds."""
        return self._trimmed[0]

    @property
    def median(self) -> float:
        return float(np.median(self.logs)) if self.logs else math.nan

    @property
    def df(self) -> int:
        """Degrees of freedom of its variance: rounds left after trimming, minus one."""
        return len(self.logs) - 2 * self.trimmed - 1

    @property
    def variance(self) -> float:
        """Variance of its trimmed mean (see ``_trimmed``)."""
        return self._trimmed[1]


def processes(groups) -> tuple[Process, ...]:
    """From per-process lists of ratios (subject / twin)."""
    out = []
    for g in groups:
        r = np.asarray(g, float)
        r = r[np.isfinite(r) & (r > 0)]
        if r.size:
            out.append(Process(tuple(np.log(r).tolist())))
    return tuple(out)


def _usable(procs) -> list[Process]:
    return [p for p in procs if math.isfinite(p.center) and math.isfinite(p.variance)]


def within_variances(procs: list[Process]) -> tuple[list[float], float]:
    """(variance of each process's trimmed mean, degrees of freedom) from the cell's winsorized
    per-round spread pooled over its processes (same code, same machine: one spread; weights
    from each process's own few-round spread would follow its errors and undercover). Plain
    floats: a cell has one to three processes, and a run's analysis takes thousands."""
    shape = [(len(p.logs), len(p.logs) - 2 * p.trimmed) for p in procs]
    units = [p.variance * h * (h - 1) / (n - 1) for p, (n, h) in zip(procs, shape)]  # s_w²
    df = sum(h - 1 for _, h in shape)
    pooled = max(sum((h - 1) * u for (_, h), u in zip(shape, units)) / df, 1e-18)
    return [(n - 1) * pooled / (h * (h - 1)) for n, h in shape], float(df)


def _q_of(cells: list[list[Process]]):
    """Q(τ²), the generalised Q: Σ over cells of Σ w_i (y_i − ȳ_cell)², w_i = 1 / (v_i + τ²)."""
    y = np.asarray([p.center for procs in cells for p in procs])
    v = np.asarray([x for procs in cells for x in within_variances(procs)[0]])
    cell = np.repeat(np.arange(len(cells)), [len(procs) for procs in cells])

    def q(tau2: float) -> float:
        w = 1.0 / (v + tau2)
        mean = np.bincount(cell, w * y) / np.bincount(cell, w)
        return float(np.sum(w * (y - mean[cell]) ** 2))

    return q


@dataclass(frozen=True)
class Heterogeneity:
    """A mode's between-process variance (Paule–Mandel over its cells) and Cochran's Q."""

    tau2: float
    q: float  # Cochran's Q (fixed-effect weights) summed over the cells with two processes
    df: int  # Σ (processes − 1) over those cells: the degrees of freedom of Q
    cells: int  # cells with two or more processes
    within: float = 0.0  # mean variance of a process's estimate in those cells

    @property
    def tau2_df(self) -> float:
        """Satterthwaite degrees of freedom of τ²: it is a between-process mean square (about
        τ² + within, on ``df``) minus the within part, so its variance is about
        2 (τ² + within)² / df and its degrees of freedom df · (τ² / (τ² + within))²: few where
        the processes' own spread dominates (inf when τ² is 0: it then adds nothing)."""
        if self.tau2 <= 0:
            return math.inf
        return self.df * (self.tau2 / (self.tau2 + self.within)) ** 2

    @property
    def p(self) -> float:
        """P(Q this large | one speed for every process): small means processes disagree."""
        from scipy import stats  # here: importing scipy.stats takes about 1 s (its docstrings)

        return float(stats.chi2.sf(self.q, self.df)) if self.df else math.nan

    def describe(self) -> str:
        if not self.df:
            return "no cell timed in two processes: between-process spread unknown"
        return (
            f"τ = {math.sqrt(self.tau2) * 100:.1f} % (Paule–Mandel), Cochran's Q = {self.q:.1f} "
            f"on {self.df} df, p = {self.p:.2g}, from {self.cells} cells"
        )


def heterogeneity(cells) -> Heterogeneity:
    """The between-process variance of a mode from every cell with two or more processes that
    have a spread: one τ² for the mode, each cell its own mean (see the module's docstring)."""
    mine = [u for u in (_usable(procs) for procs in cells) if len(u) >= 2]
    df = sum(len(u) - 1 for u in mine)
    if not df:
        return Heterogeneity(0.0, 0.0, 0, 0)
    q_of = _q_of(mine)
    within = float(np.mean([x for procs in mine for x in within_variances(procs)[0]]))
    q = q_of(0.0)
    tau2 = 0.0
    if q > df:  # Q(τ²) decreases in τ²: solve Q(τ²) = df above 0
        high = 1e-4
        while q_of(high) > df and high < 1e3:
            high *= 10
        from scipy import optimize  # here: a process that analyses nothing skips its 0.4 s

        tau2 = float(optimize.brentq(lambda t: q_of(t) - df, 0.0, high, xtol=1e-14))
    return Heterogeneity(tau2, q, df, len(mine), within)


def pooled_tau2(cells) -> float:
    """The mode's τ² (``heterogeneity(cells).tau2``)."""
    return heterogeneity(cells).tau2


@dataclass(frozen=True)
class Estimate:
    """A cell's pooled estimate (log scale) and what follows from it."""

    procs: tuple[Process, ...]
    control_step_s: float  # the twin's median per-step time
    tau2: float = 0.0
    tau2_df: float = math.inf  # degrees of freedom of τ² (Heterogeneity.tau2_df)
    run_tau2: float = 0.0  # the variance between runs of the machine (``between_runs``): one
    run_df: float = math.inf  # draw for the whole run, added to the estimate's variance whole

    @cached_property
    def variance_parts(self) -> tuple[float, float]:
        """(within, between): the log-ratio's variance from the processes' own rounds and from
        τ² (the spread between processes) plus ``run_tau2`` (between runs); inf, 0 where no
        process is usable."""
        return self._parts[1], self._parts[2]

    @cached_property
    def _parts(self) -> tuple[float, float, float, float, float]:
        """(log-ratio, within variance, between variance, Welch–Satterthwaite degrees of
        freedom, and those of this run alone, without ``run_tau2``)."""
        usable = _usable(self.procs)
        if not usable:
            centers = [p.center for p in self.procs if math.isfinite(p.center)]
            return (float(np.mean(centers)) if centers else math.nan), math.inf, 0.0, 0.0, 0.0
        v, df = within_variances(usable)
        w = [1.0 / (x + self.tau2) for x in v]
        a = [x / sum(w) for x in w]  # the estimate is Σ a_i y_i: variance Σ a_i² (v_i + τ²)
        center = sum(ai * p.center for ai, p in zip(a, usable))
        within = sum(ai**2 * x for ai, x in zip(a, v))
        between = sum(ai**2 for ai in a) * self.tau2
        own = [(within, df), (between, self.tau2_df)]
        every = welch_df([*own, (self.run_tau2, self.run_df)])
        return center, within, between + self.run_tau2, every, welch_df(own)

    @cached_property
    def _fit(self) -> tuple[float, float, float]:
        """(log-ratio, its variance, Welch–Satterthwaite degrees of freedom)."""
        center, within, between, df, _ = self._parts
        return center, within + between, df

    @property
    def log_ratio(self) -> float:
        return self._fit[0]

    @property
    def log_se(self) -> float:
        return math.sqrt(self._fit[1])

    @property
    def own_df(self) -> float:
        """The degrees of freedom from this run alone (as ``own_log_se``)."""
        return self._parts[4]

    @property
    def own_log_se(self) -> float:
        """The standard error from this run alone (without ``run_tau2``): what a comparison of
        two runs checks, and what the between-run variance is estimated against."""
        return math.sqrt(max(0.0, self._fit[1] - self.run_tau2))

    @property
    def df(self) -> float:
        """Degrees of freedom of the interval (Welch–Satterthwaite over processes and τ²)."""
        return self._fit[2]

    @property
    def ratio(self) -> float:
        return math.exp(self.log_ratio) if math.isfinite(self.log_ratio) else math.nan

    def log_interval(self, alpha: float = ALPHA) -> tuple[float, float]:
        half = t_quantile(self.df, alpha) * self.log_se
        if not (math.isfinite(half) and math.isfinite(self.log_ratio)):
            return (math.nan, math.nan)
        return self.log_ratio - half, self.log_ratio + half

    @property
    def ratio_interval(self) -> tuple[float, float]:
        low, high = self.log_interval()
        return (_exp(low), _exp(high)) if math.isfinite(low) else (math.nan, math.nan)

    @property
    def halfwidth(self) -> float:
        """Relative half-width of the ratio's interval (e.g. 0.02 = ±2 %)."""
        low, high = self.ratio_interval
        return (high - low) / 2 / self.ratio if math.isfinite(low) else math.inf

    @property
    def step_s(self) -> float:
        """The subject's whole step: the twin's times the ratio."""
        return self.ratio * self.control_step_s

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


def estimate(
    groups,
    control_step_s: float,
    tau2: float = 0.0,
    tau2_df: float = math.inf,
    run_tau2: float = 0.0,
    run_df: float = math.inf,
) -> Estimate:
    """A cell's estimate from per-process groups of per-round ratios."""
    return Estimate(processes(groups), control_step_s, tau2, tau2_df, run_tau2, run_df)


EQUIVALENT, SLOWER, FASTER, UNDETERMINED = "equivalent", "slower", "faster", "undetermined"


def outcome(low_s: float, high_s: float, margin_s: float, biased: bool = False) -> str:
    """A difference's interval against ±margin (two one-sided tests)."""
    if biased or not (math.isfinite(low_s) and math.isfinite(high_s)):
        return UNDETERMINED
    if low_s >= -margin_s and high_s <= margin_s:
        return EQUIVALENT
    if low_s > margin_s:
        return SLOWER
    if high_s < -margin_s:
        return FASTER
    return UNDETERMINED


@dataclass(frozen=True)
class Comparison:
    """A candidate's added time minus the fastest's, at one size, with its interval. ``biased``:
    the A/A cell of this mode and size is off by more than the margin, so nothing is decided."""

    difference_s: float
    low_s: float
    high_s: float
    margin_s: float
    biased: bool = False
    outcome: str = field(init=False)

    def __post_init__(self):
        object.__setattr__(
            self, "outcome", outcome(self.low_s, self.high_s, self.margin_s, self.biased)
        )


def compare(
    candidate: Estimate, fastest: Estimate, margin: Margin, looks: int = 1, biased: bool = False
) -> Comparison:
    """The candidate's added time minus the fastest's, with a t-interval at the level of one of
    ``looks`` looks (Welch–Satterthwaite degrees of freedom over the two estimates), against the
    margin at the candidate's whole step."""
    diff = candidate.added_s - fastest.added_s
    s1, s2 = candidate.added_se, fastest.added_se
    se = math.hypot(s1, s2)
    half = se * t_quantile(
        welch_df([(s1**2, candidate.df), (s2**2, fastest.df)]), alpha_per_look(looks)
    )
    return Comparison(diff, diff - half, diff + half, margin.at(candidate.step_s), biased)


def compare_paired(
    paired: Estimate, margin: Margin, looks: int = 1, biased: bool = False
) -> Comparison:
    """A head-to-head comparison: ``paired`` is the candidate's whole step over the fastest's on
    shared rounds, its ``control_step_s`` the fastest's step. The difference of the steps with a
    t-interval at the level of one of ``looks`` looks, against the margin at the candidate's
    whole step (ratio × the fastest's step)."""
    ref = paired.control_step_s
    low, high = paired.log_interval(alpha_per_look(looks))
    return Comparison(
        (paired.ratio - 1.0) * ref,
        (_exp(low) - 1.0) * ref,
        (_exp(high) - 1.0) * ref,
        margin.at(paired.step_s),
        biased,
    )


def versus_best(
    against: list[Comparison],
    margin_s: float,
    candidate: bool,
    biased: bool = False,
    lows: list[float] | None = None,
) -> Comparison:
    """One strategy's step minus the best candidate's, from its head-to-head comparisons with
    each other candidate (Hsu's multiple comparisons with the best, for "lower is better").

    The best's step is the lowest true step, so the excess over it is the largest excess over
    any candidate, and none below 0 for a candidate (the best may be itself). The comparison
    with the true best is among ``against``, so the largest upper bound bounds the excess above
    at that comparison's level; the largest lower bound bounds it below. The outcome against
    ``margin_s`` (``outcome``) then does not depend on which candidate measured fastest: a
    candidate is equivalent where no other may be faster than it beyond the margin, slower where
    one is faster beyond it; a strategy that is not a candidate (``candidate`` False) is faster
    where it is faster than every candidate beyond the margin. No other candidate: it is the
    best (0). ``lows``: the comparisons' lower bounds at a simultaneous level (one bound per
    comparison of ``against``), for the union "some candidate is faster beyond the margin"
    (default: the comparisons' own)."""
    if not against:
        return Comparison(0.0, 0.0, 0.0, margin_s, biased)
    floor = 0.0 if candidate else -math.inf
    lows = [c.low_s for c in against] if lows is None else list(lows)
    if len(lows) != len(against):
        raise ValueError(f"{len(lows)} lower bounds for {len(against)} comparisons")
    return Comparison(
        max([floor, *(c.difference_s for c in against)]),
        max([floor, *lows]),
        max([floor, *(c.high_s for c in against)]),
        margin_s,
        biased,
    )


def aa_biased(aa: Estimate, margin: Margin) -> bool:
    """True when an A/A cell (a twin against itself, truly 1) has its 95 % interval of the
    added time wholly outside ±margin: the mode cannot compare at this size."""
    low, high = aa.added_interval
    return beyond(low, high, margin.at(aa.control_step_s))


def beyond(low_s: float, high_s: float, margin_s: float) -> bool:
    """Whether an interval lies wholly outside ±margin (False when it is not finite)."""
    return bool(math.isfinite(low_s) and math.isfinite(high_s)) and (
        low_s > margin_s or high_s < -margin_s
    )


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


def as_fast(outcome_: str) -> bool:
    """Whether an outcome against the fastest lets a candidate be the answer: equivalent, or
    faster (a candidate faster than the fastest at some size is not worse)."""
    return outcome_ in (EQUIVALENT, FASTER)


def across(outcomes) -> str:
    """One candidate over several workloads (or any set of decided outcomes): slower in one is
    slower; as fast (``as_fast``) in every one is equivalent; otherwise undetermined."""
    outcomes = list(outcomes)
    if SLOWER in outcomes:
        return SLOWER
    if outcomes and all(as_fast(o) for o in outcomes):
        return EQUIVALENT
    return UNDETERMINED


def scores(estimates: dict[str, list[Estimate]], common: list[float] | None = None) -> dict:
    """{strategy: the quantity the fastest is the lowest of}: with ``common`` (per size, one
    step), the mean over sizes of its added time divided by that step (separate twins); without,
    the mean over sizes of its log-ratio (races: every candidate's whole step over one base)."""
    if common is None:
        return {s: float(np.mean([e.log_ratio for e in es])) for s, es in estimates.items()}
    return {
        s: float(np.mean([e.added_s / c for e, c in zip(es, common)]))
        for s, es in estimates.items()
    }


def fastest(estimates: dict[str, list[Estimate]], common: list[float] | None = None):
    """The strategy of the lowest score (``scores``; ties: the first name), None without one."""
    found = scores(estimates, common)
    found = {s: v for s, v in found.items() if math.isfinite(v)}
    return min(found, key=lambda s: (found[s], s)) if found else None


def rounds_for(target_halfwidth: float, procs: tuple[Process, ...], tau2: float, n_procs: int):
    """Rounds per process that ``n_procs`` new processes need for the target half-width, from the
    spread seen so far (None when the between-process spread alone exceeds it)."""
    per_round = [p.variance * len(p.logs) for p in _usable(procs) if len(p.logs) >= 3]
    if not per_round:
        return None
    want = (target_halfwidth / Z95) ** 2  # variance of the mean the target allows
    per_process = want * n_procs - tau2
    if per_process <= 0:
        return None
    return math.ceil(float(np.median(per_round)) / per_process)

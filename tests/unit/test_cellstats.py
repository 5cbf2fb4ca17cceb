"""The statistics of a cell and the decisions on them (hand-made tables, simulated data; no
MindSpore). The coverage simulations are in test_coverage_sim.py."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from statsmodels.stats.meta_analysis import combine_effects

from bench.core import cellstats
from bench.core.cellstats import EQUIVALENT, FASTER, SLOWER, UNDETERMINED, Margin

INF, NAN = math.inf, math.nan


def rounds(rng, true_log, sd, n, shift=0.0):
    return np.exp(true_log + shift + rng.normal(0, sd, n)).tolist()


def test_the_small_sample_spread_is_unbiased_in_median():
    rng = np.random.default_rng(0)
    sds = [cellstats.robust_sd(rng.normal(0, 1, 6)) for _ in range(4000)]
    assert 0.9 < np.median(sds) < 1.1


@pytest.mark.parametrize(
    "logs, center, df",
    [
        ((0.0, 0.0, 0.0, 0.0, 10.0), 0.0, 2),  # 5 rounds: one cut at each end, 3 left
        ((0.1, 0.2, 0.3), 0.2, 2),  # 3 rounds: nothing cut, a mean on 2 df
        ((0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 100.0), 4.5, 5),  # 10: two cut each end
        ((0.5,), 0.5, 0),
    ],
)
def test_a_process_is_its_trimmed_mean_with_the_degrees_of_freedom_left(logs, center, df):
    p = cellstats.Process(logs)
    assert p.center == pytest.approx(center)
    assert p.df == df
    assert math.isfinite(p.variance) == (df >= 1)


@pytest.mark.parametrize("n", [2, 3, 4, 5, 9, 10, 14, 15, 40])
def test_the_cut_is_scipys_and_the_variance_yuens(n):
    """The trimmed mean equals scipy's; the variance equals the winsorized one of Yuen's form
    (here from scipy's winsorize, with the same cut)."""
    from scipy import stats
    from scipy.stats import mstats

    x = np.random.default_rng(n).standard_t(3, n)
    p = cellstats.Process(tuple(x))
    assert p.center == pytest.approx(stats.trim_mean(x, 0.2))
    g = int(0.2 * n)
    h = n - 2 * g
    w = np.asarray(mstats.winsorize(x, (g / n, g / n)))
    assert p.variance == pytest.approx(np.var(w, ddof=1) * (n - 1) / (h * (h - 1)))


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 15, 16, 17, 40, 127, 128, 129, 136, 300, 1000])
def test_the_plain_float_sums_are_numpys_bit_for_bit(n):
    """``numpy_sum`` adds in NumPy's order, so a process's trimmed mean and variance are exactly
    what ``np.mean`` and ``np.var`` of the same cut give (committed pages print their digits):
    below 8, from 8 to 128 (eight partial sums) and above (halves)."""
    rng = np.random.default_rng(n)
    for scale in (1e-4, 1.0, 1e3):
        x = rng.standard_t(3, n) * scale + rng.normal()
        assert cellstats.numpy_sum(x.tolist()) == float(np.add.reduce(x))
        p = cellstats.Process(tuple(x.tolist()))
        g = int(0.2 * n)
        w = np.sort(x)
        assert p.center == float(np.mean(w[g : n - g]))
        if p.df >= 1:
            w[:g], w[n - g :] = w[g], w[n - g - 1]
            h = n - 2 * g
            assert p.variance == float(np.var(w, ddof=1)) * (n - 1) / (h * (h - 1))


def test_a_sum_in_another_order_is_told_apart():
    """The check above can fail: a plain left-to-right sum differs from NumPy's in the last bits
    of many arrays of 9 or more."""
    rng = np.random.default_rng(0)
    xs = [rng.standard_t(3, 40) for _ in range(50)]
    assert any(sum(x.tolist(), -0.0) != float(np.add.reduce(x)) for x in xs)


def test_one_process_has_a_t_interval_on_its_own_degrees_of_freedom():
    """Three rounds: a mean, its standard error, and t with 2 degrees of freedom (4.303)."""
    logs = np.log([1.00, 1.02, 1.04])
    e = cellstats.estimate([np.exp(logs)], 1e-3)
    se = float(np.std(logs, ddof=1) / math.sqrt(3))
    assert e.df == pytest.approx(2)
    low, high = e.ratio_interval
    assert math.log(high) - e.log_ratio == pytest.approx(4.302653 * se, rel=1e-4)
    assert math.log(low) == pytest.approx(e.log_ratio - 4.302653 * se, rel=1e-4)


@pytest.mark.parametrize(
    "df, alpha, q",
    [(2, 0.05, 4.302653), (5, 0.05, 2.570582), (INF, 0.05, 1.959964), (INF, 0.05 / 3, 2.393980)],
)
def test_t_quantiles(df, alpha, q):
    assert cellstats.t_quantile(df, alpha) == pytest.approx(q, rel=1e-5)


def test_no_degrees_of_freedom_no_interval():
    assert cellstats.t_quantile(0) == INF
    e = cellstats.estimate([[1.1]], 1e-3)  # one round: no spread known
    assert e.ratio == pytest.approx(1.1)
    assert all(math.isnan(x) for x in e.ratio_interval)
    assert e.halfwidth == INF


@pytest.mark.parametrize(
    "parts, df",
    [
        ([(1.0, 10)], 10),
        ([(1.0, 10), (1.0, 10)], 20),
        ([(1.0, 5), (0.0, 1)], 5),  # a zero part adds nothing
        ([(1.0, INF)], INF),
        ([(1.0, 4), (3.0, INF)], 16 * 4),  # (1 + 3)² / (1² / 4)
        ([(1.0, 0)], 0),  # a part without degrees of freedom: none for the sum
        ([(1.0, 0.2)], 1),  # floored at 1
        ([(1.0, 0.5), (1.0, 0.5)], 1),
        ([], 0),
    ],
)
def test_welch_satterthwaite(parts, df):
    assert cellstats.welch_df(parts) == pytest.approx(df)


@pytest.mark.parametrize("looks, alpha", [(1, 0.05), (2, 0.025), (3, 0.05 / 3)])
def test_each_look_spends_its_share_of_alpha(looks, alpha):
    assert cellstats.alpha_per_look(looks) == pytest.approx(alpha)


def test_zero_looks_is_refused():
    with pytest.raises(ValueError, match="looks must be at least 1"):
        cellstats.alpha_per_look(0)


def test_the_mode_tau2_of_one_cell_is_statsmodels_paule_mandel():
    rng = np.random.default_rng(11)
    procs = cellstats.processes(
        [rounds(rng, 0.0, 0.04, 12, shift) for shift in (0.0, 0.05, -0.04, 0.02)]
    )
    het = cellstats.heterogeneity([procs])
    variances, df = cellstats.within_variances(list(procs))
    assert df == 4 * (12 - 4 - 1)  # 12 rounds: 2 cut at each end, 8 left
    ref = combine_effects(
        np.asarray([p.center for p in procs]), np.asarray(variances), method_re="pm"
    )
    assert het.tau2 > 0
    assert het.tau2 == pytest.approx(ref.tau2, rel=1e-4)
    assert het.q == pytest.approx(ref.q, rel=1e-9)
    assert het.df == 3 and het.cells == 1
    assert het.within == pytest.approx(np.mean(variances))
    assert het.tau2_df == pytest.approx(3 * (het.tau2 / (het.tau2 + het.within)) ** 2)


def test_processes_that_disagree_give_a_positive_tau2_and_a_small_p():
    """Two processes per cell, each cell its own mean, every second process shifted by 5 %: the
    mode's Q far exceeds its degrees of freedom (what brn PYNATIVE showed, τ² was 0 there)."""
    rng = np.random.default_rng(12)
    cells = [
        cellstats.processes([rounds(rng, mu, 0.03, 10), rounds(rng, mu, 0.03, 10, 0.05)])
        for mu in rng.normal(0, 0.2, 12)
    ]
    het = cellstats.heterogeneity(cells)
    assert het.df == 12 and het.cells == 12
    assert het.p < 1e-4
    assert 0.03 < math.sqrt(het.tau2) < 0.06
    assert "Paule–Mandel" in het.describe() and "12 df" in het.describe()


def test_processes_that_agree_give_tau2_zero_and_no_cell_with_two_gives_no_q():
    cells = [
        cellstats.processes([[1.0, 1.02, 0.98, 1.01], [1.01, 0.99, 1.0, 1.02]]),
        cellstats.processes([[2.0, 2.04, 1.96], [2.02, 1.98, 2.0]]),
    ]
    het = cellstats.heterogeneity(cells)
    assert het.q < het.df and het.tau2 == 0.0
    none = cellstats.heterogeneity([cellstats.processes([[1.0, 1.1, 0.9]])])
    assert (none.tau2, none.df, none.cells) == (0.0, 0, 0)
    assert math.isnan(none.p)
    assert "unknown" in none.describe()


def test_tau2_widens_a_one_process_interval_with_its_degrees_of_freedom():
    e0 = cellstats.estimate([[1.00, 1.01, 0.99, 1.00, 1.02]], 1e-3)
    e1 = cellstats.estimate([[1.00, 1.01, 0.99, 1.00, 1.02]], 1e-3, tau2=0.02**2, tau2_df=12)
    assert e1.log_se == pytest.approx(math.sqrt(e0.log_se**2 + 0.02**2))
    assert e0.df == 2 and 2 < e1.df <= 14
    assert e1.halfwidth > e0.halfwidth


def test_added_time_follows_the_ratio_and_the_twin_step():
    e = cellstats.estimate([[1.1] * 5 + [1.08, 1.12]], control_step_s=200e-6)
    assert e.ratio == pytest.approx(1.1, rel=1e-3)
    assert e.added_s == pytest.approx(20e-6, rel=1e-2)
    assert e.step_s == pytest.approx(220e-6, rel=1e-2)
    low, high = e.added_interval
    assert low < e.added_s < high


@pytest.mark.parametrize(
    "step, margin",
    [(50e-6, 5e-6), (250e-6, 5e-6), (1e-3, 20e-6), (10e-3, 200e-6), (NAN, 5e-6)],
)
def test_the_margin_is_two_percent_of_the_candidates_step_floored_at_5_us(step, margin):
    assert Margin().at(step) == pytest.approx(margin)


def test_the_margin_says_what_it_is():
    assert Margin().describe() == "the larger of 2% of the candidate's step and 5 µs"


M = 10.0  # a margin, in any unit


@pytest.mark.parametrize(
    "low, high, biased, want",
    [
        (-M, M, False, EQUIVALENT),  # the edges of the margin belong to it
        (-9, 9, False, EQUIVALENT),
        (-11, 9, False, UNDETERMINED),
        (-9, 11, False, UNDETERMINED),
        (M, 20, False, UNDETERMINED),  # at the edge: not beyond it
        (10.01, 20, False, SLOWER),
        (-20, -10.01, False, FASTER),
        (-20, 20, False, UNDETERMINED),  # not significantly different is not equivalent
        (-9, 9, True, UNDETERMINED),  # a biased A/A turns a decision undetermined
        (11, 20, True, UNDETERMINED),
        (NAN, NAN, False, UNDETERMINED),
        (-INF, 1, False, UNDETERMINED),
        (1, INF, False, UNDETERMINED),
    ],
)
def test_outcome_of_an_interval_against_the_margin(low, high, biased, want):
    assert cellstats.outcome(low, high, M, biased) == want
    assert cellstats.Comparison((low + high) / 2, low, high, M, biased).outcome == want


@pytest.mark.parametrize(
    "low, high, want",
    [
        (11, 12, True),
        (-12, -11, True),
        (10, 12, False),
        (-10, 10, False),
        (-12, 12, False),
        (NAN, NAN, False),
        (11, INF, False),
    ],
)
def test_beyond_the_margin(low, high, want):
    assert cellstats.beyond(low, high, M) is want


@dataclass
class Stub:
    """What compare and fastest read from an estimate, set by hand."""

    added_s: float
    added_se: float
    df: float
    step_s: float = 1e-3
    control_step_s: float = 1e-3

    @property
    def log_ratio(self):
        return math.log(1 + self.added_s / self.control_step_s)

    @property
    def log_se(self):
        return self.added_se / (self.control_step_s + self.added_s)


@pytest.mark.parametrize(
    "cand, best, looks, want_half, outcome",
    [
        # both without estimation error in their spread (df inf): z; the margin is 20 µs
        (Stub(15e-6, 3e-6, INF), Stub(0, 4e-6, INF), 1, 1.959964 * 5e-6, UNDETERMINED),
        (Stub(2e-6, 3e-6, INF), Stub(0, 4e-6, INF), 1, 1.959964 * 5e-6, EQUIVALENT),
        # three looks: 2.394 instead of 1.96, the same data no longer decide
        (Stub(9e-6, 3e-6, INF), Stub(0, 4e-6, INF), 1, 1.959964 * 5e-6, EQUIVALENT),
        (Stub(9e-6, 3e-6, INF), Stub(0, 4e-6, INF), 3, 2.393980 * 5e-6, UNDETERMINED),
        (Stub(40e-6, 3e-6, INF), Stub(0, 4e-6, INF), 3, 2.393980 * 5e-6, SLOWER),
        # equal spreads on 4 df each: Welch–Satterthwaite 8 df, t = 2.306
        (Stub(40e-6, 3e-6, 4), Stub(0, 3e-6, 4), 1, 2.306004 * math.hypot(3e-6, 3e-6), SLOWER),
        # no spread known for one: no interval
        (Stub(40e-6, INF, 0), Stub(0, 3e-6, 4), 1, NAN, UNDETERMINED),
    ],
)
def test_compare_uses_t_on_welch_degrees_of_freedom_and_alpha_per_look(
    cand, best, looks, want_half, outcome
):
    c = cellstats.compare(cand, best, Margin(0.02, 5e-6), looks)
    assert c.difference_s == pytest.approx(cand.added_s - best.added_s)
    if math.isnan(want_half):
        assert math.isnan(c.low_s) or math.isinf(c.low_s)
    else:
        assert c.high_s - c.difference_s == pytest.approx(want_half, rel=1e-4)
    assert c.margin_s == pytest.approx(20e-6)  # 2 % of the candidate's 1 ms step
    assert c.outcome == outcome


def test_the_margin_is_taken_at_the_candidates_step_not_the_references():
    small, big = Stub(0, 1e-7, INF, step_s=100e-6), Stub(150e-6, 1e-7, INF, step_s=10e-3)
    assert cellstats.compare(big, small, Margin()).margin_s == pytest.approx(200e-6)
    assert cellstats.compare(big, small, Margin()).outcome == EQUIVALENT
    assert cellstats.compare(small, big, Margin()).margin_s == pytest.approx(5e-6)
    assert cellstats.compare(small, big, Margin()).outcome == FASTER


@pytest.mark.parametrize(
    "outcomes, want",
    [
        ([], UNDETERMINED),
        ([EQUIVALENT], EQUIVALENT),
        ([EQUIVALENT, EQUIVALENT], EQUIVALENT),
        ([EQUIVALENT, UNDETERMINED], UNDETERMINED),
        ([UNDETERMINED, SLOWER], SLOWER),
        ([FASTER, SLOWER], SLOWER),
        ([FASTER, EQUIVALENT], FASTER),
        ([FASTER], FASTER),
        ([FASTER, UNDETERMINED], UNDETERMINED),
    ],
)
def test_a_strategy_over_sizes(outcomes, want):
    assert cellstats.decide(outcomes) == want


@pytest.mark.parametrize(
    "outcomes, want",
    [
        ([], UNDETERMINED),
        ([EQUIVALENT, FASTER], EQUIVALENT),  # faster than the fastest is as fast
        ([FASTER], EQUIVALENT),
        ([EQUIVALENT, UNDETERMINED], UNDETERMINED),
        ([EQUIVALENT, SLOWER], SLOWER),
        ([FASTER, SLOWER, UNDETERMINED], SLOWER),
    ],
)
def test_a_candidate_across_workloads(outcomes, want):
    assert cellstats.across(outcomes) == want


@pytest.mark.parametrize(
    "o, want", [(EQUIVALENT, True), (FASTER, True), (SLOWER, False), (UNDETERMINED, False)]
)
def test_what_may_be_the_answer(o, want):
    assert cellstats.as_fast(o) is want


def test_the_fastest_is_the_lowest_added_time_over_a_common_step_and_ties_go_by_name():
    """A: 10 ms twin, ratio 1.1 (+1 ms). B: 1 ms twin, ratio 1.5 (+0.5 ms). B adds less."""
    a = Stub(1e-3, 1e-5, INF, control_step_s=10e-3)
    b = Stub(0.5e-3, 1e-5, INF, control_step_s=1e-3)
    assert cellstats.fastest({"a": [a], "b": [b]}, [1e-3]) == "b"
    assert cellstats.fastest({"b": [a], "a": [a]}, [1e-3]) == "a"
    assert cellstats.fastest({}, [1e-3]) is None


@pytest.mark.parametrize(
    "ratios, looks, outcome, margin_us",
    [
        ([1.10, 1.10, 1.10, 1.12, 1.08], 1, SLOWER, 22.0),  # 2 % of its 1.1 ms step
        ([1.0, 1.001, 0.999, 1.0, 1.0], 1, EQUIVALENT, 20.0),
        ([0.90, 0.90, 0.90, 0.91, 0.89], 1, FASTER, 18.0),
        ([1.0, 1.03, 0.97, 1.0, 1.01], 1, UNDETERMINED, 20.0),
        ([1.0], 1, UNDETERMINED, 20.0),  # one round: no interval
    ],
)
def test_a_head_to_head_comparison_on_shared_rounds(ratios, looks, outcome, margin_us):
    """``paired``: the candidate's whole step over the fastest's (1 ms), round by round."""
    c = cellstats.compare_paired(cellstats.estimate([ratios], 1e-3), Margin(), looks)
    assert c.outcome == outcome
    assert c.margin_s == pytest.approx(margin_us * 1e-6, rel=0.01)


def test_a_head_to_head_comparison_widens_with_its_looks():
    paired = cellstats.estimate([[1.0, 1.01, 0.99, 1.0, 1.005, 0.995]], 1e-3)
    one, three = (cellstats.compare_paired(paired, Margin(), k) for k in (1, 3))
    assert three.high_s - three.difference_s > one.high_s - one.difference_s > 0
    assert one.low_s < one.difference_s < one.high_s


def test_without_a_common_step_the_score_is_the_mean_log_ratio():
    """Races: each candidate's whole step over one base twin; the score is the mean log-ratio
    over sizes."""
    a = [Stub(0.10e-3, 1e-6, 20), Stub(0.0, 1e-6, 20)]  # log 1.1, log 1.0: mean 0.0477
    b = [Stub(0.05e-3, 1e-6, 20), Stub(0.04e-3, 1e-6, 20)]  # mean 0.0440
    assert cellstats.scores({"a": a})["a"] == pytest.approx((math.log(1.1) + 0) / 2)
    assert cellstats.fastest({"a": a, "b": b}) == "b"


def test_rounds_for_a_target_and_when_the_spread_alone_exceeds_it():
    procs = cellstats.processes([np.exp(np.random.default_rng(9).normal(0, 0.05, 10))])
    need = cellstats.rounds_for(0.02, procs, 0.0, 1)
    assert 10 < need < 100
    assert cellstats.rounds_for(0.02, procs, 0.02**2, 1) is None


def test_a_runs_margin_is_the_one_its_plan_recorded():
    from bench.core.cellstats import Margin
    from bench.run.plan import TIERS

    assert Margin.of_plan({"margin_rel": 0.02, "margin_abs_s": 5e-6}) == Margin()
    assert Margin.of_plan({}) == Margin(0.05, 5e-6)  # a plan from before the margin was recorded
    p = TIERS["default"]
    assert Margin(p.margin_rel, p.margin_abs_s) == Margin()  # one default, in cellstats

"""The statistics of a cell and the decisions on them (simulated data, no MindSpore)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.core import cellstats
from bench.core.cellstats import EQUIVALENT, SLOWER, UNDETERMINED, Margin


def rounds(rng, true_log, sd, n, shift=0.0):
    return np.exp(true_log + shift + rng.normal(0, sd, n)).tolist()


def test_the_small_sample_spread_is_unbiased_in_median():
    rng = np.random.default_rng(0)
    sds = [cellstats.robust_sd(rng.normal(0, 1, 6)) for _ in range(4000)]
    assert 0.9 < np.median(sds) < 1.1


def test_between_process_spread_is_estimated_from_every_cell_of_a_mode():
    rng = np.random.default_rng(1)
    tau = 0.02
    cells = []
    for _ in range(60):
        procs = [rounds(rng, 0.0, 0.05, 20, rng.normal(0, tau)) for _ in range(2)]
        cells.append(cellstats.processes(procs))
    got = math.sqrt(cellstats.pooled_tau2(cells))
    assert 0.01 < got < 0.03
    assert cellstats.pooled_tau2([cellstats.processes([rounds(rng, 0, 0.05, 20)])]) == 0.0


@pytest.mark.parametrize("n_procs, tau", [(1, 0.0), (2, 0.02), (3, 0.03)])
def test_the_interval_covers_the_truth_about_95_percent_of_the_time(n_procs, tau):
    """The reported interval must cover between-process spread: simulate a mode of cells with
    process shifts, estimate tau from it, count how often each cell's interval holds the truth."""
    rng = np.random.default_rng(2 + n_procs)
    truth, cells = 0.03, []
    for _ in range(200):
        procs = [rounds(rng, truth, 0.05, 12, rng.normal(0, tau)) for _ in range(n_procs)]
        cells.append(cellstats.processes(procs))
    calib = [
        cellstats.processes([rounds(rng, 0, 0.05, 12, rng.normal(0, tau)) for _ in range(2)])
        for _ in range(40)
    ]
    tau2 = cellstats.pooled_tau2(calib + cells)
    hits = []
    for procs in cells:
        e = cellstats.Estimate(procs, 1e-3, tau2)
        low, high = e.ratio_interval
        hits.append(low <= math.exp(truth) <= high)
    assert 0.88 <= np.mean(hits) <= 0.99


def test_added_time_follows_the_ratio_and_the_twin_step():
    e = cellstats.estimate([[1.1] * 5 + [1.08, 1.12]], control_step_s=200e-6)
    assert e.ratio == pytest.approx(1.1, rel=1e-3)
    assert e.added_s == pytest.approx(20e-6, rel=1e-2)
    low, high = e.added_interval
    assert low < e.added_s < high


def make(ratio, sd=0.01, n=30, step=200e-6, seed=0, procs=2):
    rng = np.random.default_rng(seed)
    return cellstats.estimate([rounds(rng, math.log(ratio), sd, n) for _ in range(procs)], step)


@pytest.mark.parametrize(
    "candidate, sd, outcome",
    [(1.01, 0.01, EQUIVALENT), (1.20, 0.01, SLOWER), (1.04, 0.15, UNDETERMINED)],
)
def test_three_outcomes_against_the_fastest(candidate, sd, outcome):
    fastest = make(1.0, seed=1)
    other = make(candidate, sd=sd, seed=2, n=8 if sd > 0.1 else 30)
    comparison = cellstats.compare(other, fastest, Margin(0.05, 5e-6))
    assert comparison.outcome == outcome, comparison


def test_not_significantly_different_is_not_equivalent():
    """A noisy candidate whose interval spans the margin is undetermined, never tied."""
    comparison = cellstats.compare(make(1.0, sd=0.3, n=5, seed=3), make(1.0, seed=4), Margin())
    assert comparison.low_s < 0 < comparison.high_s
    assert comparison.outcome == UNDETERMINED


def test_a_strategy_over_sizes():
    assert cellstats.decide([EQUIVALENT, EQUIVALENT]) == EQUIVALENT
    assert cellstats.decide([EQUIVALENT, UNDETERMINED]) == UNDETERMINED
    assert cellstats.decide([UNDETERMINED, SLOWER]) == SLOWER


def test_the_margin_is_the_larger_of_its_parts():
    m = Margin(0.05, 5e-6)
    assert m.at(50e-6) == 5e-6 and m.at(1e-3) == pytest.approx(50e-6)
    assert "5 µs" in m.describe()


def test_p_fastest_prefers_the_clearly_fastest_and_splits_a_tie():
    fast, slow = make(1.0, seed=5), make(1.3, seed=6)
    p = cellstats.p_fastest({"a": [fast], "b": [slow]})
    assert p["a"] > 0.99 and abs(sum(p.values()) - 1) < 1e-9
    tie = cellstats.p_fastest({"a": [make(1.0, seed=7)], "b": [make(1.0, seed=8)]})
    assert 0.1 < tie["a"] < 0.9


def test_rounds_for_a_target_and_when_the_spread_alone_exceeds_it():
    procs = cellstats.processes([np.exp(np.random.default_rng(9).normal(0, 0.05, 10))])
    need = cellstats.rounds_for(0.02, procs, 0.0, 1)
    assert 10 < need < 100
    assert cellstats.rounds_for(0.02, procs, 0.02**2, 1) is None

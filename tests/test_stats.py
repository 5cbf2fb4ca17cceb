"""The bootstrap: intervals cover the truth, widen with between-process spread (no MindSpore)."""

from __future__ import annotations

import numpy as np

from bench.core import stats


def test_interval_contains_the_median_and_narrows_with_more_data():
    rng = np.random.default_rng(1)
    small = [rng.normal(1.0, 0.05, 10) for _ in range(3)]
    large = [rng.normal(1.0, 0.05, 200) for _ in range(3)]
    m, lo, hi = stats.hierarchical_bootstrap(small, n_boot=500)
    assert lo <= m <= hi and lo < 1.0 < hi
    _, lo2, hi2 = stats.hierarchical_bootstrap(large, n_boot=500)
    assert hi2 - lo2 < hi - lo


def test_between_process_spread_widens_the_interval():
    rng = np.random.default_rng(2)
    same = [rng.normal(1.0, 0.01, 50) for _ in range(3)]
    shifted = [rng.normal(mu, 0.01, 50) for mu in (0.9, 1.0, 1.1)]
    _, lo, hi = stats.hierarchical_bootstrap(same, n_boot=500)
    _, lo2, hi2 = stats.hierarchical_bootstrap(shifted, n_boot=500)
    assert hi2 - lo2 > 5 * (hi - lo)


def test_unequal_group_sizes_and_empty_input():
    m, lo, hi = stats.hierarchical_bootstrap([[1.0, 1.0, 1.0], [2.0]], n_boot=200)
    assert m == 1.0 and 1.0 <= lo <= hi <= 2.0
    assert all(np.isnan(stats.hierarchical_bootstrap([], n_boot=10)))


def test_difference_detects_a_shift_and_not_its_absence():
    rng = np.random.default_rng(3)
    a = [rng.normal(1.2, 0.05, 40) for _ in range(3)]
    b = [rng.normal(1.0, 0.05, 40) for _ in range(3)]
    d, lo, hi = stats.bootstrap_difference(a, b, n_boot=500)
    assert lo > 0 and lo <= d <= hi
    _, lo, hi = stats.bootstrap_difference(b, [g + 0.0 for g in b], n_boot=500)
    assert lo <= 0 <= hi


def test_bootstrap_ratio_treats_the_process_as_the_unit():
    rng = np.random.default_rng(4)
    a = [rng.normal(1.0, 0.01, 200) for _ in range(2)]
    shifted = [rng.normal(1.1, 0.01, 200) for _ in range(2)]
    ratio, low, high, p = stats.bootstrap_ratio(a, shifted, n_boot=500)
    assert 1.05 < low <= ratio <= high and p <= 0.01
    # two processes that disagree: many rounds each do not make the difference significant
    wobbly = [rng.normal(mu, 0.01, 200) for mu in (0.9, 1.12)]
    _, low, high, p = stats.bootstrap_ratio(a, wobbly, n_boot=500)
    assert low < 1 < high and p > 0.05


def test_rounds_needed_delivers_the_target_interval():
    from bench.run.pairing import rounds_needed

    rng = np.random.default_rng(7)
    sigma, target = 0.08, 0.02
    pilot = rng.normal(1.0, sigma, 2000)  # a long pilot: the rule itself, not pilot noise
    per_process = rounds_needed(list(pilot), target, processes=2)
    assert 30 < per_process < 60  # (1.96 x 1.2533 x 0.08 / 0.02)^2 / 2 = 38.6
    widths = []
    for seed in range(20):
        r = np.random.default_rng(seed)
        groups = [r.normal(1.0, sigma, per_process) for _ in range(2)]
        _, lo, hi = stats.hierarchical_bootstrap(groups, n_boot=400)
        widths.append((hi - lo) / 2)
    assert 0.6 * target < float(np.median(widths)) < 1.4 * target
    assert rounds_needed(list(2 * (pilot - 1) + 1), target, 2) > 3.5 * per_process
    assert rounds_needed([1.0, 1.1], target, 2) == 0  # too short a pilot: no opinion
    pilots = [rounds_needed(list(rng.normal(1.0, sigma, 5)), target, 2) for _ in range(2000)]
    assert 0.75 * per_process < float(np.median(pilots)) < 1.25 * per_process  # 5 rounds: unbiased

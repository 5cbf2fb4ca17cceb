"""findings/stability.py's model of two back-to-back runs: hand-made comparisons."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import pytest

from bench.core.cellstats import EQUIVALENT, FASTER, SLOWER, UNDETERMINED
from bench.core.paths import ROOT

spec = importlib.util.spec_from_file_location("stability", ROOT / "findings" / "stability.py")
stability = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stability)


@pytest.mark.parametrize(
    ("d", "half", "margin", "likely"),
    [
        (0.0, 1.0, 10.0, EQUIVALENT),  # a narrow interval well inside the margin
        (30.0, 1.0, 10.0, SLOWER),
        (-30.0, 1.0, 10.0, FASTER),
        (0.0, 12.0, 10.0, UNDETERMINED),  # wider than the margin: never equivalent
    ],
)
def test_a_clear_comparison_repeats(d, half, margin, likely):
    p = stability.outcome_probabilities(d, half, margin)
    assert sum(p.values()) == pytest.approx(1.0)
    assert p[likely] > 0.99
    assert stability.agreement(d, half, margin) > 0.98


def test_an_interval_wider_than_the_margin_is_never_equivalent():
    assert stability.outcome_probabilities(0.0, 10.5, 10.0)[EQUIVALENT] == 0.0


def test_a_difference_one_half_width_beyond_the_margin_is_a_coin_toss():
    p = stability.outcome_probabilities(10.5, 0.5, 10.0)  # the interval's edge on the margin
    assert p[SLOWER] == pytest.approx(0.5, abs=0.01)
    assert p[UNDETERMINED] == pytest.approx(0.5, abs=0.01)
    assert stability.agreement(10.5, 0.5, 10.0) < 0.55


def test_a_difference_on_the_margin_stays_undetermined_and_repeats():
    p = stability.outcome_probabilities(10.0, 0.5, 10.0)
    assert p[UNDETERMINED] > 0.9


def test_rounds_can_make_agreement_worse_before_better():
    """Undetermined (repeats) at k = 1, a toss between undetermined and slower when the
    shrunk interval's edge reaches the margin, slower (repeats) with many rounds."""
    got = [stability.agreement(12.0, 8.0, 10.0, k) for k in (1, 16, 10_000)]
    assert got[1] < got[0] and got[1] < got[2]
    assert got[2] > 0.99


def test_more_rounds_settle_an_equal_pair_whose_interval_was_as_wide_as_the_margin():
    once = stability.agreement(0.0, 9.0, 10.0, 1)
    four = stability.agreement(0.0, 9.0, 10.0, 4)
    assert once < 0.9 < four


def test_biased_comparisons_count_as_undetermined_in_every_run():
    clear = SimpleNamespace(difference_s=0.0, low_s=-1.0, high_s=1.0, margin_s=10.0, biased=False)
    biased = SimpleNamespace(difference_s=9.0, low_s=0.0, high_s=18.0, margin_s=10.0, biased=True)
    mean, n_biased = stability.predicted([clear, biased], 1)
    assert n_biased == 1
    assert mean == pytest.approx(1.0, abs=1e-6)
    flip = SimpleNamespace(difference_s=10.5, low_s=10.0, high_s=11.0, margin_s=10.0, biased=False)
    assert stability.predicted([flip], 1)[0] < 0.55
    assert stability.needed([flip]) == 4  # a quarter the spread: slower in 97.5 % of runs
    assert stability.needed([clear]) == 1

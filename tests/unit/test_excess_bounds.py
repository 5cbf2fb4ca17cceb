"""Costs as bounds (issue 52): each candidate's excess over the best, bounded above, and a
mode's resolution, from hand-made standings (``answer.excess_bound``, ``answer.resolution``,
``readme.bound_words``): no run, no MindSpore."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bench.core.analysis import Standing
from bench.core.cellstats import Comparison
from bench.decide import answer
from bench.report import readme


def _run(comparisons: dict, steps: dict, against: dict | None = None, mode: str = "graph"):
    """A run whose ``mode`` has these standings: {strategy: {size: (diff, low, high)}}."""
    standings = {}
    for s, per_size in comparisons.items():
        st = Standing(s)
        for n, (d, lo, hi) in per_size.items():
            st.comparisons[n] = Comparison(d, lo, hi, 0.02 * steps[s][n])
            st.against[n] = (against or {}).get(s, {"rival": None})
        standings[s] = st
    cands = {s: {n: SimpleNamespace(step_s=v) for n, v in by.items()} for s, by in steps.items()}
    memo = {("standings", mode): standings}
    return SimpleNamespace(memo=memo, analysis={mode: SimpleNamespace(candidates=cands)})


STEPS = {"a": {1: 1e-3, 64: 2e-3}, "b": {1: 1e-3, 64: 4e-3}}


def test_the_bound_is_the_upper_end_at_the_largest_size_as_time_and_share():
    run = _run({"a": {1: (0, 0, 5e-6), 64: (1e-5, 0, 4e-5)}}, STEPS)
    bound = answer.excess_bound(run, "graph", "a")
    assert bound == answer.Bound(64, 4e-5, pytest.approx(0.02))
    assert readme.bound_words(bound) == "+40.0 µs, 2 %"


@pytest.mark.parametrize(
    "comparisons, against, mode",
    [
        ({"a": {64: (0, 0, 4e-5)}}, {"a": {}}, "graph"),  # the only candidate: no rival
        ({"a": {64: (0, 0, float("inf"))}}, None, "graph"),  # an interval without an end
        ({"a": {64: (0, 0, 4e-5)}}, None, "pynative"),  # a distribution: not raced
        ({"b": {64: (0, 0, 4e-5)}}, None, "graph"),  # a is not timed against the best
    ],
)
def test_no_bound_where_the_data_give_none(comparisons, against, mode):
    run = _run(comparisons, STEPS, against, mode)
    assert answer.excess_bound(run, mode, "a") is None


def test_a_candidate_faster_than_every_rival_is_bounded_at_zero_and_said_so():
    run = _run({"a": {64: (0, 0, 0.0)}}, STEPS)
    bound = answer.excess_bound(run, "graph", "a")
    assert bound.high_s == 0.0
    assert readme.bound_words(bound) == "0 (faster than every other candidate)"


def test_the_resolution_is_the_median_upper_half_width_as_a_share_of_the_step():
    # half-widths: a 1e-5/1e-3 = 1 %, 2e-5/2e-3 = 1 %; b 1.2e-4/4e-3 = 3 % -> median 1 %
    run = _run({"a": {1: (0, -1e-5, 1e-5), 64: (1e-5, 0, 3e-5)},
                "b": {64: (0, 0, 1.2e-4)}}, STEPS)  # fmt: skip
    assert answer.resolution(run, "graph") == pytest.approx(0.01)
    assert answer.resolution(_run({}, STEPS), "graph") is None
    assert answer.resolution(_run({"a": {1: (0, 0, 1e-5)}}, STEPS, mode="pynative"),
                             "pynative") is None  # fmt: skip

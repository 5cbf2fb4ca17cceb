"""Ranking strategies in one mode (simulated timings, no MindSpore)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from bench.core import analysis
from bench.core.cellstats import (
    EQUIVALENT,
    FASTER,
    SLOWER,
    UNDETERMINED,
    Comparison,
    Margin,
    decide,
    versus_best,
)
from bench.core.schema import Timing


def timing(strategy, size, step, twin, process, seed, role="update", sd=0.005):
    rng = np.random.default_rng(seed)
    noise = rng.normal(1.0, sd, (2, 30))
    return Timing(
        workload="ema",
        strategy=strategy,
        shape="as-written" if strategy == "host" else "inline",
        mode="graph",
        batch_size=size,
        process=process,
        control=f"control/{strategy}",
        role=role,
        k=10,
        step_s=(step * noise[0]).tolist(),
        control_s=(twin * noise[1]).tolist(),
        control_position=[i % 2 for i in range(30)],
    )


def test_the_fastest_is_ranked_by_time_added_not_by_ratios_to_different_twins():
    """A host update adds 0.2 ms to a 0.01 ms bare forward (ratio 21); an in-graph write adds
    10 ms to a 1 ms step (ratio 11). The host update adds less and is the fastest."""
    timings = [
        timing(s, n, step, twin, p, seed=zlib.crc32(f"{s}-{n}-{p}".encode()))
        for s, step, twin in (("host", 0.21e-3, 0.01e-3), ("set_data", 11e-3, 1e-3))
        for n in (10, 100)
        for p in range(2)
    ]
    m = analysis.analyse(timings, [], ["graph"], [10, 100], Margin(0.05, 5e-6))["graph"]
    assert m.fastest == "host"
    st = m.rank(["host", "set_data"])
    assert st["host"].reference and st["host"].outcome == EQUIVALENT
    assert st["set_data"].outcome == "slower"


def mode(cells, sizes=(10, 100), looks=1):
    """A mode from {(strategy, size): (step, twin)} (A/A cells: strategy "aa"), 2 processes."""
    timings = [
        timing(s, n, step, twin, p, seed=7 * i + p, role="aa" if s == "aa" else "update")
        for i, ((s, n), (step, twin)) in enumerate(sorted(cells.items()))
        for p in range(2)
    ]
    return analysis.analyse(timings, [], ["graph"], list(sizes), Margin(), looks)["graph"]


SAME = {("a", 10): (1e-3, 1e-3), ("a", 100): (2e-3, 2e-3)}
SAME_B = {("b", 10): (1e-3, 1e-3), ("b", 100): (2e-3, 2e-3)}


@pytest.mark.parametrize(
    "aa, outcome_10, outcome_100, flagged",
    [
        ({}, EQUIVALENT, EQUIVALENT, []),  # no A/A cell: nothing to overrule
        ({("aa", 10): (1e-3, 1e-3), ("aa", 100): (2e-3, 2e-3)}, EQUIVALENT, EQUIVALENT, []),
        ({("aa", 10): (1.05e-3, 1e-3)}, UNDETERMINED, EQUIVALENT, [10]),  # +5 %: beyond 2 %
        ({("aa", 10): (0.95e-3, 1e-3)}, UNDETERMINED, EQUIVALENT, [10]),  # −5 %
        ({("aa", 10): (1.01e-3, 1e-3)}, EQUIVALENT, EQUIVALENT, []),  # +1 %: within the margin
    ],
)
def test_an_aa_cell_biased_beyond_the_margin_makes_its_sizes_decisions_undetermined(
    aa, outcome_10, outcome_100, flagged
):
    m = mode({**SAME, **SAME_B, **aa})
    st = m.rank(["a", "b"])
    other = "b" if st["a"].reference else "a"
    assert st[other].comparisons[10].outcome == outcome_10
    assert st[other].comparisons[100].outcome == outcome_100
    assert m.aa_flagged() == flagged
    assert st[other].outcome == (EQUIVALENT if not flagged else UNDETERMINED)


def test_a_slower_candidate_against_the_fastest():
    """c adds 10 % to its step, a nothing: c is slower at every size, with the margin at c's
    step."""
    m = mode({**SAME, ("c", 10): (1.1e-3, 1e-3), ("c", 100): (2.2e-3, 2e-3)})
    assert m.fastest == "a"
    st = m.rank(["a", "c"])
    assert st["a"].reference and st["c"].outcome == SLOWER
    assert st["c"].comparisons[10].margin_s == pytest.approx(0.02 * 1.1e-3, rel=0.02)


def test_no_candidate_no_fastest():
    m = mode({("a", 10): (1e-3, 1e-3)})  # timed at one size of two: not a candidate
    assert m.candidates == {} and m.fastest is None
    assert m.rank(["a"]) == {}


def test_the_mode_reports_its_heterogeneity():
    m = mode({**SAME, **SAME_B})
    assert m.heterogeneity is not None and m.heterogeneity.df == 4
    assert m.tau2 == m.heterogeneity.tau2
    assert 0 <= m.heterogeneity.p <= 1


def test_faster_somewhere_and_equivalent_elsewhere_is_faster():
    assert decide([FASTER, EQUIVALENT]) == FASTER
    assert decide([FASTER, "slower"]) == "slower"
    assert decide([FASTER, "undetermined"]) == "undetermined"


def test_a_cell_reuses_its_own_k_not_the_same_cell_of_another_mode():
    from dataclasses import replace

    from bench.run import time_phase
    from bench.run.plan import Item

    graph = replace(timing("host", 10, 2e-4, 1e-5, 0, 0), k=4)
    pynative = replace(graph, mode="pynative", k=64)
    ks = time_phase._ks([graph, pynative])
    item = Item("host", "as-written", "v.py", "scalar", batch_size=10)
    assert ks[time_phase._key("graph", item)] == 4
    assert ks[time_phase._key("pynative", item)] == 64


def comp(low, high, margin=2.0):
    """A head-to-head comparison from its interval (µs), the difference at its middle."""
    return Comparison((low + high) / 2, low, high, margin)


@pytest.mark.parametrize(
    "against, candidate, outcome, low, high",
    [
        ([], True, EQUIVALENT, 0.0, 0.0),  # the only candidate is the best
        ([comp(-9, -4), comp(-1, 1.5)], True, EQUIVALENT, 0.0, 1.5),  # none may beat it by 2
        ([comp(-9, -4), comp(-1, 3)], True, UNDETERMINED, 0.0, 3.0),  # one may, by up to 3
        ([comp(-9, -4), comp(2.5, 6)], True, SLOWER, 2.5, 6.0),  # one beats it by ≥ 2.5
        ([comp(-9, -4), comp(-8, -3)], True, EQUIVALENT, 0.0, 0.0),  # faster than all: the best
        ([comp(-9, -4), comp(-8, -3)], False, FASTER, -8.0, -3.0),  # not a candidate: faster
        ([comp(-9, -4), comp(-1, 1)], False, EQUIVALENT, -1.0, 1.0),
    ],
)
def test_a_standing_is_against_the_best_candidate_whichever_measured_fastest(
    against, candidate, outcome, low, high
):
    """Its excess over the best is its largest over any candidate: bounded by the largest lower
    and upper bounds, none below 0 for a candidate; the order of the others does not matter."""
    for order in (against, against[::-1]):
        got = versus_best(order, 2.0, candidate)
        assert (got.outcome, got.low_s, got.high_s) == (outcome, low, high)
    assert versus_best(against, 2.0, candidate, biased=True).outcome == UNDETERMINED


def test_the_fastest_point_estimate_is_not_equivalent_by_definition():
    """a and b cost the same and their rounds are noisy (SD 5 %): which measures fastest is
    noise. Against the fastest point estimate, that one was "equivalent" by definition and the
    other undetermined, so the two swapped outcomes when the noise did (issue 27: brn GRAPH, ten
    outcomes between two runs). Against the best, neither can be told from the other either way,
    and c, 30 % slower, is slower either way."""
    runs = []
    for first, second in (("a", "b"), ("b", "a")):  # the same rounds, the names swapped
        timings = [
            timing(s, n, step * n, 1e-3 * n, p, seed=100 * i + 10 * p + n, sd=0.05)
            for i, (s, step) in enumerate(((first, 1e-3), (second, 1e-3), ("c", 1.3e-3)))
            for n in (1, 2)
            for p in range(2)
        ]
        m = analysis.analyse(timings, [], ["graph"], [1, 2], Margin())["graph"]
        st = m.rank(["a", "b", "c"])
        runs.append(({s: x.outcome for s, x in st.items()}, m.fastest_of(["a", "b", "c"])))
    (one, fastest_one), (two, fastest_two) = runs
    assert fastest_one != fastest_two  # the swap moved the fastest point estimate
    assert one == two == {"a": UNDETERMINED, "b": UNDETERMINED, "c": SLOWER}

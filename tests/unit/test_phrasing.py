"""Costs in the words a user reads (hand-made tables): ``bench.report.phrases``, the one module
every page, table and README block says a cost through."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from bench.core import cellstats
from bench.report import phrases

US, NAN, INF = 1e-6, math.nan, math.inf
WHY = phrases.WHY_FASTER


@pytest.mark.parametrize(
    "added, low, high, words",
    [
        (2.0 * US, -1.5 * US, 5.5 * US, "no detectable cost (97.5 % upper bound +5.50 µs)"),
        (0.0, 0.0, 3.0 * US, "no detectable cost (97.5 % upper bound +3.00 µs)"),  # 0 is in [0, 3]
        (-1.0 * US, -4.0 * US, 0.0, "no detectable cost (97.5 % upper bound +0.00 ns)"),
        # the assign_primitive N = 64: an interval that excludes 0 is a cost, even when
        # it lies within the margin
        (8.6 * US, 2.9 * US, 14.3 * US, "+8.60 µs [+2.9, +14.3] a step"),
        (1.2e-3, 1.1e-3, 1.3e-3, "+1.20 ms [+1.10, +1.30] a step"),
        (
            -1.03e-3,
            -1.5e-3,
            -0.6e-3,
            f"faster than the same step without the write: −1.03 ms [−1.50, −0.60] a step ({WHY})",
        ),
        (5.0 * US, NAN, NAN, "+5.00 µs a step (no interval: too few rounds to have one)"),
        (5.0 * US, -INF, INF, "+5.00 µs a step (no interval: too few rounds to have one)"),
        (NAN, NAN, NAN, "not measured"),
    ],
)
def test_cost_words(added, low, high, words):
    assert phrases.cost(added, low, high) == words.replace("−", "-")


def test_cost_words_with_the_ratio_and_without_the_why():
    assert phrases.cost(8.6 * US, 2.9 * US, 14.3 * US, ratio=1.05) == (
        "+8.60 µs [+2.9, +14.3] a step (+5 %)"
    )
    assert phrases.cost(-2 * US, -3 * US, -1 * US, ratio=0.9, why=False) == (
        "faster than the same step without the write: -2.00 µs [-3.00, -1.00] a step (-10 %)"
    )
    # a contained 0 needs no ratio: the bound is the message
    assert phrases.cost(1 * US, -1 * US, 3 * US, ratio=1.01) == (
        "no detectable cost (97.5 % upper bound +3.00 µs)"
    )


@pytest.mark.parametrize(
    "rounds, words",
    [
        (19, ""),
        (4, ""),
        (20, "rounds' quartiles +1.00 µs … +5.00 µs (median +3.00 µs, 20 rounds)"),
        (60, "rounds' quartiles +1.00 µs … +5.00 µs (median +3.00 µs, 60 rounds)"),
    ],
)
def test_quartiles_only_from_enough_rounds(rounds, words):
    assert phrases.quartiles(1 * US, 3 * US, 5 * US, rounds) == words


def test_no_quartiles_from_non_finite_values():
    assert phrases.quartiles(NAN, 3 * US, 5 * US, 60) == ""


class _Est:
    def __init__(self, added, low, high, ratio=1.0, step=100 * US):
        self.added_s, self.added_interval, self.ratio = added, (low, high), ratio
        self.control_step_s = step  # the twin's step: a bound reads against it


def _cell(added, low, high, rounds=10, quart=(1 * US, 2 * US, 3 * US), twin_invalid=""):
    return SimpleNamespace(
        estimate=_Est(added, low, high),
        rounds=rounds,
        added_quartiles=lambda: quart,
        twin_invalid=twin_invalid,
    )


def _run(cells: dict[int, object], mode="graph"):
    m = SimpleNamespace(candidates={"s": cells})
    work = SimpleNamespace(size_label="batch size N", size_symbol="N", size_unit="")
    return SimpleNamespace(analysis={mode: m}, symbol="N", work=work, workload="w")


def cost_phrase(run, mode: str, strategy: str, ends: bool = False) -> str:
    """What the pages print of a write's cost at each size (``ends``: the smallest and the
    largest), through the path they take: ``decisions.costs_at`` to data, then the templates'
    filter (``templating._costs_text``)."""
    from bench.decide import decisions
    from bench.report import templating

    costs = decisions.costs_at(run, mode, strategy, run.workload, "ends" if ends else "all")
    return templating._costs_text(costs, mode, run.symbol)


@pytest.mark.parametrize(
    "cells, ends, words",
    [
        pytest.param(
            {
                1: _cell(7 * US, 4 * US, 10 * US),
                64: _cell(1 * US, -2 * US, 3 * US),
                256: _cell(1 * US, -1 * US, 5 * US),
            },
            False,
            "+7.00 µs [+4.0, +10.0] a step (+0 %) at N=1; "
            "no detectable cost: ≤ +3.00 µs, 3.0 % of a 100 µs step (97.5 % bound) at N=64; "
            "no detectable cost: ≤ +5.00 µs, 5.0 % of a 100 µs step (97.5 % bound) at N=256",
            id="each-size-its-own-bound",
        ),
        pytest.param(
            {
                1: _cell(1 * US, -2 * US, 3 * US),
                8: _cell(1 * US, -1 * US, 4 * US),
                64: _cell(9 * US, 8 * US, 10 * US),
            },
            False,
            "no detectable cost: ≤ +3.00 µs, 3.0 % of a 100 µs step (97.5 % bound) at N=1; "
            "no detectable cost: ≤ +4.00 µs, 4.0 % of a 100 µs step (97.5 % bound) at N=8; "
            "+9.00 µs [+8.0, +10.0] a step (+0 %) at N=64",
            id="no-cost-then-a-cost",
        ),
        pytest.param(
            {1: _cell(-2 * US, -3 * US, -1 * US), 8: _cell(-2 * US, -3 * US, -1 * US)},
            False,
            "faster than the same step without the write: -2.00 µs [-3.00, -1.00] a step (+0 %) "
            f"at N=1 ({WHY}); faster than the same step without the write: -2.00 µs "
            "[-3.00, -1.00] a step (+0 %) at N=8",
            id="negative-why-once",
        ),
        pytest.param(
            {
                1: _cell(7 * US, 4 * US, 10 * US),
                8: _cell(-2 * US, -3 * US, -1 * US),
                64: _cell(1 * US, -1 * US, 4 * US),
            },
            True,
            "+7.00 µs [+4.0, +10.0] a step (+0 %) at N=1; "
            "no detectable cost: ≤ +4.00 µs, 4.0 % of a 100 µs step (97.5 % bound) at N=64",
            id="ends-only",
        ),
        pytest.param(
            {1: _cell(7 * US, 4 * US, 10 * US, twin_invalid="flat")},
            False,
            "not measured (its twin is invalid in this mode) at N=1",
            id="invalid-twin",
        ),
        pytest.param(
            {
                1: _cell(7 * US, 4 * US, 10 * US, twin_invalid="flat"),
                64: _cell(1 * US, -2 * US, 3 * US, twin_invalid="flat"),
                256: _cell(1 * US, -1 * US, 5 * US, twin_invalid="flat"),
            },
            True,
            "not measured (its twin is invalid in this mode) at any size",
            id="invalid-twin-said-once",
        ),
        pytest.param(
            {
                1: _cell(7 * US, 4 * US, 10 * US, twin_invalid="flat"),
                64: _cell(1 * US, -2 * US, 3 * US),
            },
            False,
            "not measured (its twin is invalid in this mode) at N=1; "
            "no detectable cost: ≤ +3.00 µs, 3.0 % of a 100 µs step (97.5 % bound) at N=64",
            id="invalid-twin-at-one-size-only",
        ),
    ],
)
def test_cost_phrase_per_size(cells, ends, words):
    assert cost_phrase(_run(cells), "graph", "s", ends=ends) == words


def test_a_distribution_mode_shows_quartiles_only_from_enough_rounds():
    few = {1: _cell(7 * US, 4 * US, 10 * US, rounds=10)}
    many = {1: _cell(7 * US, 4 * US, 10 * US, rounds=40)}
    assert cost_phrase(_run(few, "pynative"), "pynative", "s") == (
        "+7.00 µs [+4.0, +10.0] a step (+0 %) at N=1"
    )
    assert cost_phrase(_run(many, "pynative"), "pynative", "s") == (
        "+7.00 µs [+4.0, +10.0] a step (+0 %); rounds' quartiles +1.00 µs … +3.00 µs "
        "(median +2.00 µs, 40 rounds) at N=1"
    )
    # the same cell in a compiled mode: no quartiles
    assert "quartiles" not in cost_phrase(_run(many), "graph", "s")
    assert cost_phrase(_run({}), "graph", "other") == phrases.NOT_TIMED


def test_a_real_estimate_reads_as_its_interval():
    """An Estimate from per-round ratios (cellstats) through the same words."""
    e = cellstats.estimate([[1.05, 1.06, 1.04, 1.05, 1.07, 1.05]], 100 * US)
    low, high = e.added_interval
    assert low > 0 and phrases.cost(e.added_s, low, high).startswith("+5.")

"""Costs in the words a user reads (hand-made table)."""

from __future__ import annotations

import math

import pytest

from bench.core import phrasing

US, NAN, INF = 1e-6, math.nan, math.inf
WHY = phrasing.WHY_FASTER


@pytest.mark.parametrize(
    "added, low, high, words",
    [
        (2.0 * US, -1.5 * US, 5.5 * US, "no detectable cost (95 % bound +5.50 µs)"),
        (0.0, 0.0, 3.0 * US, "no detectable cost (95 % bound +3.00 µs)"),  # 0 is in [0, 3]
        (-1.0 * US, -4.0 * US, 0.0, "no detectable cost (95 % bound +0.00 ns)"),
        # the assign_primitive N = 64: an interval that excludes 0 is a cost
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
    assert phrasing.cost(added, low, high) == words.replace("−", "-")


@pytest.mark.parametrize(
    "rounds, words",
    [
        (19, ""),
        (4, ""),
        (20, "+3.00 µs a step (rounds' quartiles +1.00 µs … +5.00 µs, 20 rounds)"),
        (60, "+3.00 µs a step (rounds' quartiles +1.00 µs … +5.00 µs, 60 rounds)"),
    ],
)
def test_quartiles_only_from_enough_rounds(rounds, words):
    assert phrasing.quartiles(1 * US, 3 * US, 5 * US, rounds) == words


def test_no_quartiles_from_non_finite_values():
    assert phrasing.quartiles(NAN, 3 * US, 5 * US, 60) == ""

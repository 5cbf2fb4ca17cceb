"""Does optional stopping inflate the errors? The time phase looks at every open decision after
each stage and stops timing it once decided (``time_phase.later_stage``: ``open_cells``, as many
rounds as ``_needed`` asks). Its rule spends α over the looks (each look at α / looks, a
Bonferroni spending function), so a decision's chance of being wrong at *some* look stays below
α. Naive peeking — every look at the full α — does not: the test shows it failing.

The worst case for "equivalent" is a candidate whose true excess over the best is exactly one
margin: it must be called equivalent at most α / 2 of the time (the one-sided level of its
interval), whatever stage the decision is taken at, and its interval must still cover its true
excess 95 % of the time. Synthetic races as in ``test_coverage_sim_races`` (a drift common to a
round, heavy-tailed noise, a per-process shift), through the real analysis and the real stopping
rule, with the rigorous tier's five looks. The rounds are the calm scenario's: with noisier ones
the intervals are conservative enough (t on few degrees of freedom, τ²) that naive peeking stays
near α / 2 and the test could not tell the two rules apart (typical: 17 of 600 against 4).
Statistics only: nothing is timed; seeds are fixed integers."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from bench.core import cellstats
from bench.core.cellstats import EQUIVALENT, SLOWER
from bench.run.plan import TIERS
from tests.unit import test_coverage_sim_races as sim

# the default tier's rounds and processes, the rigorous tier's count of stages (five looks)
TIER = replace(TIERS["default"], stages=TIERS["rigorous"].stages)
AT_MARGIN = math.log(1.10 / (1 - sim.MARGIN.rel))  # its excess over the best: one margin
TRUTH = {"best": math.log(1.10), "at_margin": AT_MARGIN}
MODES = 120  # five sizes each: 600 decisions of the candidate at the margin
SCENARIO = sim.SCENARIOS["calm"]
ONE_SIDED = cellstats.ALPHA / 2  # 2.5 %: what "equivalent" may get wrong at the margin
# the bound leaves room for the Monte Carlo error of 600 decisions (2.33 standard errors)
BOUND = ONE_SIDED + 2.33 * math.sqrt(ONE_SIDED * (1 - ONE_SIDED) / (MODES * len(sim.SIZES)))


def run(monkeypatch, looks: int, seed: int) -> dict:
    """The stopping rule over ``MODES`` synthetic modes, every look at the level α / ``looks``:
    how often the candidate one margin slower ends "equivalent" (wrong) or "slower", how often its
    interval covers its true excess, and how many later stages ran."""
    monkeypatch.setattr(sim, "TRUTH", TRUTH)
    monkeypatch.setattr(sim, "TIER", TIER)
    monkeypatch.setattr(sim, "LOOKS", looks)
    rng = np.random.default_rng(seed)
    out = {"decisions": 0, "equivalent": 0, "slower": 0, "covered": 0, "stages": 0}
    for _ in range(MODES):
        timings, stages = sim.timed_mode(rng, SCENARIO)  # the real stopping rule
        out["stages"] += stages
        m = sim._analyse(timings)
        for n, comp in m.rank(set(TRUTH))["at_margin"].comparisons.items():
            best_s = m.candidates["best"][n].step_s
            true = (math.exp(AT_MARGIN - TRUTH["best"]) - 1) * best_s
            out["covered"] += comp.low_s <= true <= comp.high_s
            out["decisions"] += 1
            out["equivalent"] += comp.outcome == EQUIVALENT
            out["slower"] += comp.outcome == SLOWER
    return out


@pytest.fixture(scope="module")
def spent():
    with pytest.MonkeyPatch.context() as mp:
        return run(mp, TIER.stages + 1, 54)


def test_the_rule_looks_at_the_open_decisions_more_than_once(spent):
    """Later stages do run: the test is about optional stopping, not one look."""
    assert spent["decisions"] == MODES * len(sim.SIZES)
    assert spent["stages"] >= MODES, spent


def test_spending_alpha_over_the_looks_keeps_false_equivalence_at_the_margin_below_alpha(spent):
    assert spent["equivalent"] / spent["decisions"] <= BOUND, (spent, BOUND)


def test_the_intervals_still_cover_the_true_excess_after_optional_stopping(spent):
    assert spent["covered"] / spent["decisions"] >= 0.95, spent


def test_naive_peeking_fails(monkeypatch):
    """Every look at the full α (what a stopping rule that ignores its looks does): the
    candidate one margin slower is called equivalent beyond the bound, and its intervals cover
    less than 95 % (seen: 27 of 600, 4.5 %, and 542 of 600, 90 %)."""
    naive = run(monkeypatch, 1, 54)
    assert naive["equivalent"] / naive["decisions"] > BOUND, (naive, BOUND)
    assert naive["covered"] / naive["decisions"] < 0.95, naive

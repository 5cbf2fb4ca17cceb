"""findings/margin_stability.py: two runs decided again at other margins (the fixture run)."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from bench.core.cellstats import EQUIVALENT, SLOWER, Margin
from bench.core.paths import ROOT
from bench.decide import answer, compare, load
from tests.conftest import RUN

spec = importlib.util.spec_from_file_location(
    "margin_stability", ROOT / "findings" / "margin_stability.py"
)
margin_stability = importlib.util.module_from_spec(spec)
spec.loader.exec_module(margin_stability)


def test_a_run_against_itself_agrees_at_every_margin():
    for rel in (0.02, 0.5):
        run = margin_stability.outcomes_at(RUN, rel)
        for mode in run.analysis:
            row = margin_stability.agreement(run, run, mode)
            if row["comparisons"]:
                assert row["same"] == "100%" and row["contradict"] == "0%"
                assert row["decided A"] == row["decided B"]
                assert row["answer A"] == row["answer B"]
                assert row["width A"] == row["width B"] != "–"


def test_width_is_the_median_interval_over_the_margin_and_shrinks_as_the_margin_grows():
    narrow = margin_stability.outcomes_at(RUN, 0.02)
    wide = margin_stability.outcomes_at(RUN, 0.5)
    seen = 0
    for mode in narrow.analysis:
        keys = set(compare.size_outcomes(narrow, mode))
        if not keys:
            continue
        seen += 1
        by_hand = sorted(
            (c.high_s - c.low_s) / c.margin_s
            for st in answer.standings(narrow, mode).values()
            for c in st.comparisons.values()
            if math.isfinite(c.high_s - c.low_s)
        )
        assert by_hand, mode
        assert margin_stability.width(narrow, mode, keys) == pytest.approx(
            float(np.median(by_hand))
        )
        # the same intervals over a margin at least as large: no comparison's width grows
        assert margin_stability.width(wide, mode, keys) <= margin_stability.width(
            narrow, mode, keys
        )
        assert math.isnan(margin_stability.width(narrow, mode, set()))
    assert seen


def test_a_wider_margin_keeps_every_equivalence_and_no_new_slower():
    plan_margin = load.load(RUN).margin
    wide = load.load(RUN, Margin(0.5, plan_margin.abs_s))
    assert wide.margin == plan_margin  # the pages' margin is the plan's; only the decisions move
    assert all(m.margin.rel == 0.5 for m in wide.analysis.values())
    narrow = load.load(RUN)
    seen = 0
    for mode in narrow.analysis:
        a, b = compare.size_outcomes(narrow, mode), compare.size_outcomes(wide, mode)
        for key, o in a.items():
            seen += 1
            if o == EQUIVALENT:  # inside ±m is inside ±m' > m
                assert b[key] == EQUIVALENT
            if b[key] == SLOWER:  # beyond +m' > m is beyond +m
                assert o == SLOWER
    assert seen

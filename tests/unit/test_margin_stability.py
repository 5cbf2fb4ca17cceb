"""findings/margin_stability.py: two runs decided again at other margins (the fixture run)."""

from __future__ import annotations

import importlib.util

from bench.core.cellstats import EQUIVALENT, SLOWER, Margin
from bench.core.paths import ROOT
from bench.report import compare, load
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

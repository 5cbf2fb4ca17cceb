"""The alone check's decision: a cell alone in a fresh process against the run's verdict."""

from __future__ import annotations

import pytest

from bench.core.schema import Status, Verdict
from bench.run import alone


@pytest.mark.parametrize(
    ("recorded", "seen", "same"),
    [
        ("works", "works", True),
        ("works", "incorrect: write dropped", False),
        ("incorrect: write dropped", "works", False),
        ("incorrect: stale read", "incorrect: write dropped", False),
        ("crashed", "crashed", True),
        ("raises: RuntimeError: boom", "raises: RuntimeError: boom", True),
        ("raises: RuntimeError: boom", "raises: AttributeError: boom", False),
        ("incorrect: differs between processes", "works", True),  # known to vary
        ("incorrect: differs between processes", "crashed", True),
    ],
)
def test_a_cell_agrees_when_alone_it_does_what_the_run_recorded(recorded, seen, same):
    assert alone.agrees(recorded, seen) is same


def _verdict(status, kind=""):
    return Verdict(workload="clip", strategy="assign", shape="inline-param-after-expr",
                   mode="jit_bytecode", status=Status(status), kind=kind)  # fmt: skip


def test_the_summary_counts_and_lists_each_disagreement():
    outcomes = [
        alone.Outcome(_verdict("works"), "works", 2.0),
        alone.Outcome(_verdict("works"), "incorrect: write dropped", 3.0),
        alone.Outcome(_verdict("incorrect", "stale read"), "incorrect: stale read", 4.0),
    ]
    text = alone.summary(outcomes, "RUN", ["jit_bytecode"])
    assert "cells: 3; agree with the gate: 2; disagree: 1" in text
    row = "| `assign@inline-param-after-expr` | jit_bytecode | works | incorrect: write dropped |"
    assert row in text
    assert "median 3.0 s" in text


def test_a_twin_is_run_alone_as_a_twin():
    from pathlib import Path

    twin = Verdict(workload="clip", strategy="control", shape="scalar-param-after-expr",
                   mode="jit_bytecode", status=Status.WORKS)  # fmt: skip
    assert alone._item(twin, Path("v.py"))["update"] is False
    assert alone._item(_verdict("works"), Path("v.py"))["update"] is True

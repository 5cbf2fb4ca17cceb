"""The later-instance / network / first-call table: counts of a run's final verdicts."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from bench.decide.instances import counts
from bench.report import instances, templating


def _run(rows):
    cols = ["strategy", "mode", "status", "detail", "calls", "second_instance",
            "third_instance", "network"]  # fmt: skip
    return SimpleNamespace(verdicts=pd.DataFrame(rows, columns=cols), modes=["jit_bytecode"])


def test_each_check_counts_the_cells_it_ran_on_and_those_failing_there_only():
    run = _run(
        [
            ["a", "jit_bytecode", "works", "", "", "works", "works", "works"],
            ["b", "jit_bytecode", "incorrect", "in a second instance only (the first works): x",
             "in a second instance only", "write dropped: x",
             "not checked (an earlier check already fails)",
             "not checked (an earlier check already fails)"],
            ["c", "jit_bytecode", "crashed",
             "in a network of two layers only (the first works): the gate's process died", "",
             "", "", ""],
            ["d", "jit_bytecode", "incorrect", "stale read", "at the first call only",
             "not checked (the first instance does not work)", "", ""],
            ["e", "jit_bytecode", "incorrect", "stale read", "at the first 3 calls only", "", "",
             ""],
            ["f", "jit_bytecode", "incorrect", "write dropped", "at every call", "", "", ""],
            ["control", "jit_bytecode", "works", "", "", "works", "works", "works"],
        ]
    )  # fmt: skip
    c = counts(run, "jit_bytecode")
    assert c["second_instance"] == (2, 1)  # a and b ran it; b fails there only
    assert c["third_instance"] == (1, 0)
    assert c["network"] == (2, 1)  # a ran it; c crashed in it (its record is lost with it)
    assert c["first_calls"] == (4, 2)  # of the silent failures b, d, e, f: d and e
    head, rows = instances.table(run)
    assert rows == [['jit(capture_mode="bytecode")', "1 of 2", "0 of 1", "1 of 2", "2 of 4"]]
    text = templating.render("instances.md.j2", tables=[("brn", "r1", head, rows)])
    assert "| 1 of 2 | 0 of 1 | 1 of 2 | 2 of 4 |" in text

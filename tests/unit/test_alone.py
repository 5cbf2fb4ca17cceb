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
    text = alone.summary(outcomes, "RUN", ["jit_bytecode"], _how(planned=3))
    assert "cells: 3; agree with the gate: 2; disagree: 1" in text
    assert "interrupted" not in text
    row = "| `assign@inline-param-after-expr` | jit_bytecode | works | incorrect: write dropped |"
    assert row in text
    assert "median 3.0 s" in text


def _how(planned):
    return alone.Provenance(
        command="python -m bench.run.alone results/clip/raw/RUN --modes jit_bytecode",
        run_suite="a5b36c3", suite="ec49d6e (dirty)", mindspore="2.10.0", python="3.11.7",
        started="2026-12-02T13:00:00Z", jobs=2, wall_s=600.0, planned=planned,
    )  # fmt: skip


def test_the_summary_says_where_it_ran_and_what_an_interruption_left_unchecked():
    outcomes = [alone.Outcome(_verdict("works"), "works", 2.0)]
    text = alone.summary(outcomes, "RUN", ["jit_bytecode"], _how(planned=5))
    assert "`python -m bench.run.alone results/clip/raw/RUN --modes jit_bytecode`" in text
    assert "<workload>" not in text
    assert "gated by suite a5b36c3; this check ran suite ec49d6e (dirty)" in text
    assert "MindSpore 2.10.0, Python 3.11.7" in text
    assert "10 min in all with --jobs 2" in text
    assert "interrupted: 1 of 5 cells ran" in text


def test_a_twin_is_run_alone_as_a_twin():
    from pathlib import Path

    twin = Verdict(workload="clip", strategy="control", shape="scalar-param-after-expr",
                   mode="jit_bytecode", status=Status.WORKS)  # fmt: skip
    assert alone._item(twin, Path("v.py"))["update"] is False
    assert alone._item(_verdict("works"), Path("v.py"))["update"] is True


def test_main_prints_the_command_as_typed_and_writes_the_summary(tmp_path, monkeypatch, capsys):
    from types import SimpleNamespace

    run_dir = tmp_path / "RUN"
    run_dir.mkdir()
    (run_dir / "manifest.json").write_text("{}")
    fake_run = SimpleNamespace(run_id="RUN", variant=lambda s, sh: tmp_path / "v.py")
    fake = SimpleNamespace(run=fake_run, manifest=SimpleNamespace(suite_commit="a5b36c3"))
    monkeypatch.setattr(alone.records, "Records", lambda path: fake)
    monkeypatch.setattr(alone, "cells", lambda *a: [_verdict("works"), _verdict("works")])
    seen = iter(["works", "incorrect: write dropped"])
    monkeypatch.setattr(alone, "run_alone", lambda v, path: alone.Outcome(v, next(seen), 1.0))
    out = tmp_path / "summary.md"
    code = alone.main([str(run_dir), "--jobs", "1", "--out", str(out)])
    assert code == 1  # one cell disagrees
    text = out.read_text()
    assert f"`python -m bench.run.alone {run_dir} --jobs 1 --out {out}`" in text
    assert "gated by suite a5b36c3" in text
    assert "cells: 2; agree with the gate: 1; disagree: 1" in text
    assert text in capsys.readouterr().out

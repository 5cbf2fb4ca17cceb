"""The result model: versions, round trips, events (no MindSpore)."""

from __future__ import annotations

import json

import pytest

from bench.core import records
from bench.core.schema import (
    SCHEMA_VERSION,
    Manifest,
    SchemaError,
    Status,
    Timing,
    Verdict,
    event_line,
    parse_event,
)


def _verdict(**over) -> Verdict:
    base = dict(
        workload="clip",
        strategy="assign",
        shape="inline-param-after-expr",
        mode="graph",
        status="works",
        dims={"write": "inline"},
    )
    return Verdict(**{**base, **over})


def test_verdict_round_trip_and_status_enum():
    v = _verdict(
        status="incorrect",
        detail="Parameter unchanged after step 1",
        declared=True,
        expected="Parameter unchanged",
    )
    data = json.loads(json.dumps(v.to_dict()))
    assert data["schema_version"] == SCHEMA_VERSION and data["status"] == "incorrect"
    back = Verdict.from_dict(data)
    assert back == v and back.status is Status.INCORRECT and back.as_declared


@pytest.mark.parametrize(
    "status, expected, declared, ok",
    [
        ("works", None, False, True),
        ("works", "boom", False, False),  # declared to fail, but works: not as declared
        ("raises", None, False, False),  # an undeclared failure
        ("raises", "boom", True, True),
        ("incorrect", "other", False, False),  # declared, but a different finding
        ("inexpressible", None, False, True),
    ],
)
def test_as_declared(status, expected, declared, ok):
    assert _verdict(status=status, expected=expected, declared=declared).as_declared is ok


def test_a_newer_schema_is_refused_with_a_message():
    data = {**_verdict().to_dict(), "schema_version": SCHEMA_VERSION + 1}
    with pytest.raises(SchemaError, match="newer than this suite reads"):
        Verdict.from_dict(data)
    with pytest.raises(SchemaError, match="bad schema_version"):
        Verdict.from_dict({**data, "schema_version": "2"})


def test_timing_derives_ratios_from_raw_samples():
    t = Timing(
        "clip",
        "assign",
        "s",
        "graph",
        64,
        0,
        "control/scalar-param",
        "update",
        8,
        step_s=[2.0, 3.0],
        control_s=[1.0, 2.0],
        first_call_s=0.1,
        control_first_call_s=0.1,
    )
    assert t.ratios == [2.0, 1.5] and t.added_s == [1.0, 1.0]
    assert Timing.from_dict(json.loads(json.dumps(t.to_dict()))) == t


def test_manifest_ignores_unknown_keys_of_the_same_version():
    m = Manifest.from_dict({"run_id": "x", "plan": {}, "later_field": 1})
    assert m.run_id == "x" and m.schema_version == SCHEMA_VERSION


def test_progress_events_are_json_lines():
    line = event_line("verdict", key="a/b", status="works")
    assert parse_event(line) == {"event": "verdict", "key": "a/b", "status": "works"}
    assert parse_event("plain output") is None and parse_event("@@bench {broken") is None


def test_version_1_files_are_read(tmp_path):
    """Runs made before code shapes existed: gate-*.json and time-*.json at the top."""
    suite = {
        "kind": "gate",
        "strategy": "set_data",
        "mode": "graph",
        "workload": "clip",
        "layout": "scalar",
        "verdict": {
            "strategy": "set_data",
            "mode": "graph",
            "status": "unsupported",
            "detail": "RuntimeError: boom",
            "declared": True,
        },
    }
    (tmp_path / "gate-set_data-graph.json").write_text(json.dumps({"suite": suite}))
    bench = {
        "name": "test_step[N1]",
        "stats": {"data": [4.0, 8.0]},
        "extra_info": {
            "strategy": "assign",
            "mode": "graph",
            "batch_size": 1,
            "process": 0,
            "steps_per_round": 4,
            "control_data": [2.0, 4.0],
            "layout": "scalar",
        },
    }
    (tmp_path / "time-assign-graph-p0.json").write_text(
        json.dumps({"suite": {"kind": "time", "cells": []}, "benchmarks": [bench]})
    )
    problems: list[str] = []
    (v,) = records.read_verdicts(tmp_path, problems)
    assert (v.status, v.shape, v.as_declared) == (Status.RAISES, "as-written", True)
    (t,), _ = records.read_timings(tmp_path, problems)
    assert t.step_s == [1.0, 2.0] and t.ratios == [2.0, 2.0] and not problems

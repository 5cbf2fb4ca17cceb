"""Older result files are read through a version map (one upgrade per version step, as pyperf
does); a newer file, or an older one with no upgrade path, is refused with the reason."""

from __future__ import annotations

import json

import pytest

from bench.core.schema import (
    SCHEMA_VERSION,
    Manifest,
    SchemaError,
    Status,
    Timing,
    Verdict,
    check_version,
    upgrade,
)

# A verdict line as suite version 2 wrote it (written by hand from that version's Verdict).
V2_VERDICT = {
    "workload": "clip",
    "strategy": "index_add",
    "shape": "inline-view-before-expr",
    "mode": "graph",
    "status": "incorrect",
    "detail": "limit differs from the NumPy reference at step 1",
    "dims": {"write": "inline", "read": "view", "order": "before", "new": "expr"},
    "expected": None,
    "declared": False,
    "layout": "vector",
    "seconds": 0.5,
    "schema_version": 2,
}


def test_a_version_2_verdict_is_read_as_it_was_judged():
    v = Verdict.from_dict(V2_VERDICT)
    assert SCHEMA_VERSION == 3  # a new version needs its own step in UPGRADES and a test here
    assert (v.strategy, v.shape, v.mode, v.layout) == (
        "index_add",
        "inline-view-before-expr",
        "graph",
        "vector",
    )
    assert v.status == Status.INCORRECT and v.detail.startswith("limit differs")
    assert v.intended is True and v.kind == "" and v.kinds == [] and v.meaning == ""
    assert v.schema_version == 3 and v.dims["read"] == "view"
    assert "expected" not in upgrade(V2_VERDICT, "verdict")
    assert V2_VERDICT["schema_version"] == 2  # the record read is not changed


def test_a_version_2_manifest_and_timing_get_the_fields_version_3_added():
    m = Manifest.from_dict({"run_id": "r", "plan": {"workload": "clip"}, "schema_version": 2})
    assert (m.run_id, m.refused, m.environment, m.suite_commit, m.schema_version) == (
        "r",
        {},
        {},
        "",
        3,
    )
    t = Timing.from_dict(
        {
            "workload": "clip",
            "strategy": "assign",
            "shape": "inline-param-after-expr",
            "mode": "graph",
            "batch_size": 64,
            "process": 0,
            "control": "control/inline-param-after-expr",
            "role": "update",
            "k": 10,
            "step_s": [2.0, 3.0],
            "control_s": [1.0, 1.5],
            "schema_version": 2,
        }
    )
    assert t.stage == 0 and t.ratios == [2.0, 2.0] and t.schema_version == 3


@pytest.mark.parametrize(
    "data, kind, words",
    [
        ({"schema_version": SCHEMA_VERSION + 1}, "verdict", "is newer than this suite reads"),
        ({}, "verdict", "schema_version 1 was written by an older suite"),  # no version: 1
        ({"schema_version": 1}, "manifest", "upgrades manifest records from version 2"),
        ({"schema_version": 2}, None, "upgrades nothing older"),
        ({"schema_version": 0}, "verdict", "bad schema_version 0"),
        ({"schema_version": "3"}, "verdict", "bad schema_version '3'"),
        ({"schema_version": True}, "verdict", "bad schema_version True"),
        ([], "verdict", "not a JSON object"),
    ],
)
def test_what_cannot_be_read_is_refused_with_the_reason(data, kind, words):
    with pytest.raises(SchemaError, match="") as err:
        check_version(data, "f.json", kind)
    assert words in str(err.value) and str(err.value).startswith("f.json: ")


def test_the_current_version_reads_as_it_is():
    assert check_version({"schema_version": SCHEMA_VERSION}, "f") == SCHEMA_VERSION
    data = {**V2_VERDICT, "schema_version": SCHEMA_VERSION}
    assert upgrade(data, "verdict") is data


def _timing(step_s, control_s) -> Timing:
    cell = ("clip", "assign", "s", "graph", 64, 0, "control/s", "update", 10)
    return Timing(*cell, step_s, control_s)


def test_ratios_pair_rounds_and_refuse_lists_of_unequal_length():
    assert _timing([2.0, 3.0], [1.0, 2.0]).ratios == [2.0, 1.5]
    with pytest.raises(ValueError, match="assign/s N=64: 2 subject blocks but 1 twin blocks"):
        _timing([2.0, 3.0], [1.0]).ratios  # noqa: B018 - the property raises


def test_the_run_status_has_a_type():
    from bench.core.schema import RunStatus

    base = {"run_id": "r", "plan": {}, "schema_version": 3}
    m = Manifest.from_dict({**base, "status": "interrupted"})
    assert m.status is RunStatus.INTERRUPTED
    assert json.dumps(m.to_dict()["status"]) == '"interrupted"'
    with pytest.raises(ValueError):
        Manifest.from_dict({**base, "status": "halfway"})


def test_a_raise_in_a_later_check_keeps_its_exception_and_where_it_happened():
    from bench.core.schema import signature

    plain = "step 1 (N=8192): RuntimeError: The kernel X unregistered."
    assert signature("raises", "", plain) == "raises: RuntimeError: The kernel X unregistered."
    later = f"in a second instance only (the first works): {plain}"
    assert signature("raises", "", later) == (
        "raises: RuntimeError: The kernel X unregistered. (in a second instance only)"
    )
    net = "in a network of two layers only (the first works): building the network: TypeError: no"
    assert signature("raises", "", net) == "raises: TypeError: no (in a network of two layers only)"

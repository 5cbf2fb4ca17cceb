"""findings/eta_replay.py: a trace made with another later-stage model is replayed in this
checkout's units (recounted from its run's records where the run is at hand); one made with this
model is replayed as it was recorded, its guess on this checkout's share."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import SimpleNamespace as NS

import pytest

from bench.core.paths import ROOT
from bench.run import time_phase

spec = importlib.util.spec_from_file_location("eta_replay", ROOT / "findings" / "eta_replay.py")
eta_replay = importlib.util.module_from_spec(spec)
spec.loader.exec_module(eta_replay)


def _segment(note: dict | None) -> list[dict]:
    events = [{"t": 0.0, "call": "init", "parallel": {"time": 1}, "tier": "default",
               "workload": "clip", "warm": True}]  # fmt: skip
    if note is not None:
        events.append({"t": 0.0, "call": "note", **note})
    return [
        *events,
        {"t": 1.0, "call": "plan", "args": ["time", "graph", 10, 1]},
        {"t": 1.0, "call": "expect", "args": ["time", "graph", 8.0, 1]},  # the guess
        {
            "t": 2.0,
            "call": "item_started",
            "args": ["g-p0", "time", "graph", 10],
            "kw": {"stage": 0, "members": 10, "rounds": 10, "base_rounds": 10},
        },
        {"t": 9.0, "call": "item_recorded", "args": ["g-p0"]},
        {"t": 9.0, "call": "line", "eta": 1.0},
        {"t": 9.5, "call": "settle", "args": ["time", "graph"]},
        {"t": 9.5, "call": "expect", "args": ["time", "graph", 4.0, 1]},  # the stage, known
        {"t": 9.6, "call": "settle", "args": ["time"]},
        {"t": 9.6, "call": "plan", "args": ["time", "graph", 4.0, 1]},  # the stage, planned
        {
            "t": 10.0,
            "call": "item_started",
            "args": ["g-p2", "time", "graph", 4.0],
            "kw": {"stage": 1, "members": 2, "rounds": 40, "base_rounds": 10},
        },
    ]


def _args(events, call):
    return [e["args"][2 if call != "item_started" else 3] for e in events if e["call"] == call]


def test_a_trace_of_this_model_is_replayed_as_recorded():
    same = {"later_fixed": time_phase.LATER_FIXED, "later_share": time_phase.LATER_SHARE,
            "later_units": "records"}  # fmt: skip
    events, how = eta_replay.rescaled(_segment(same))  # its run not at hand
    assert how == "as recorded"
    assert _args(events, "expect") == [8.0, 4.0]
    assert _args(events, "plan") == [10, 4.0]
    assert _args(events, "item_started") == [10, 4.0]


def test_a_trace_of_another_model_is_rescaled(monkeypatch):
    monkeypatch.setattr(time_phase, "LATER_FIXED", 0.8)
    monkeypatch.setattr(time_phase, "LATER_SHARE", 0.5)
    to = eta_replay.member(0.8, 4) / eta_replay.member(0.75, 4)
    events, how = eta_replay.rescaled(_segment(None))  # no note: made with 0.75 and 1
    assert how == "fallback"
    assert _args(events, "expect") == pytest.approx([8.0 * 0.5 * to, 4.0 * to])
    assert _args(events, "plan") == pytest.approx([10, 4.0 * to])  # stage 0's plan: as it was
    assert _args(events, "item_started") == pytest.approx([10, 4.0 * to])
    rows = eta_replay.P.replay(events)
    assert [r[0] for r in rows] == [9.0] and rows[0][1] == 1.0  # printed: kept
    # replayed: 7 s for stage 0's 10 units, the rescaled guess left, two warm starts
    want = 0.7 * 8.0 * 0.5 * to + 2 * eta_replay.P.WARM_PROCESS_START
    assert rows[0][2] == pytest.approx(want)


def test_a_records_trace_keeps_its_known_stage_and_rescales_only_its_guess(monkeypatch):
    monkeypatch.setattr(time_phase, "LATER_SHARE", 0.5)
    note = {"later_fixed": time_phase.LATER_FIXED, "later_share": 0.75, "later_units": "records"}
    events, how = eta_replay.rescaled(_segment(note))
    assert how == "as recorded"
    assert _args(events, "expect") == pytest.approx([8.0 * 0.5 / 0.75, 4.0])
    assert _args(events, "plan") == [10, 4.0] and _args(events, "item_started") == [10, 4.0]


def test_an_older_trace_is_recounted_from_its_runs_records(monkeypatch, tmp_path):
    """The run's later race (file g-p2, its first race) is found in its records and counted as
    this checkout counts it; the known and planned stage follow the recount."""
    from bench.core.schema import Timing

    def rec(strategy, stage, first, process, rounds):
        return Timing(workload="clip", strategy=strategy, shape="x", mode="graph", batch_size=64,
                      process=process, control="control/x", role="update", k=1,
                      step_s=[0.1] * rounds, control_s=[0.1] * rounds, first_call_s=first,
                      control_first_call_s=0.0, steps_run=rounds, stage=stage,
                      race=f"graph-N64-p{process}-s{stage}",
                      race_base_s=[0.0] * rounds)  # fmt: skip

    # stage 0: a cheap (1 s + 1 s of rounds) and a dear member (5 s + 1 s); unit 4 s
    timings = [rec("cheap", 0, 1.0, 0, 10), rec("dear", 0, 5.0, 0, 10),
               rec("cheap", 1, 1.0, 2, 40)]  # fmt: skip
    monkeypatch.setattr(eta_replay.records, "Records", lambda run: NS(timings=timings))
    segment = _segment(None)
    segment[-1]["args"][0] = "/x/graph-p2.json"
    manifest = {"plan": {"precision": {"cell_seconds": 0.0}}}  # rounds as planned
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    events, how = eta_replay.rescaled(segment, run=tmp_path)
    assert how == "records"
    new = (1.0 + 40 * 0.1) / 4.0  # the cheap member at 40 rounds, in stage-0 members
    assert _args(events, "item_started") == pytest.approx([10, new])
    assert _args(events, "plan") == pytest.approx([10, 4.0 * new / 4.0])
    assert _args(events, "expect")[1] == pytest.approx(4.0 * new / 4.0)


def test_a_trace_names_its_committed_run():
    name = "20261207T150838Z-7dc6-clip.jsonl.xz"
    found = eta_replay.committed_run(Path(name))
    assert found is not None and found.name == "20261207T150838Z-7dc6"
    assert eta_replay.committed_run(Path("20000101T000000Z-0000-clip.jsonl.xz")) is None


def test_the_committed_traces_name_no_machines_folders():
    traces = sorted(eta_replay.HERE.glob("*.jsonl.xz"))
    assert traces
    for trace in traces:
        for segment in eta_replay.P.read_trace(trace):
            named = {
                e["args"][0] for e in segment if e["call"] in ("item_started", "item_recorded")
            }
            assert named and all(name.count("/") == 1 for name in named), trace.name

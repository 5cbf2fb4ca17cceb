"""findings/wall_times.py: where a run's time went, from a hand-made run folder."""

from __future__ import annotations

import importlib.util
import json

from bench.core.paths import ROOT

spec = importlib.util.spec_from_file_location("wall_times", ROOT / "findings" / "wall_times.py")
wall_times = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wall_times)


def _timing(folder, name, mode, stage, started, finished):
    suite = {"mode": mode, "stage": stage, "started": started, "finished": finished}
    (folder / name).write_text(json.dumps({"suite": suite, "benchmarks": []}))


def test_each_modes_processes_are_summed_per_stage(tmp_path):
    run = tmp_path / "20260101T000000Z-aaaa"
    (run / "timing").mkdir(parents=True)
    manifest = {"command": "nox -s bench", "phases": {"gate": 60.0, "time": 240.0}}
    (run / "manifest.json").write_text(json.dumps(manifest))
    t0 = "2026-01-01T00:00:00+00:00"
    _timing(run / "timing", "graph-p0.json", "graph", 0, t0, "2026-01-01T00:01:00+00:00")
    _timing(run / "timing", "graph-p1.json", "graph", 0, t0, "2026-01-01T00:00:30+00:00")
    _timing(run / "timing", "graph-p2.json", "graph", 1, t0, "2026-01-01T00:00:30+00:00")
    _timing(run / "timing", "pynative-p0.json", "pynative", 0, t0, "2026-01-01T00:02:00+00:00")
    found = wall_times.processes(run)
    assert {m: dict(s) for m, s in found.items()} == {
        "graph": {0: [60.0, 30.0], 1: [30.0]},
        "pynative": {0: [120.0]},
    }
    text = "\n".join(wall_times.describe(run))
    assert "gate 1.0 min, time 4.0 min; total 5.0 min" in text
    assert "| PYNATIVE_MODE | 0: 1 | 2.0 min | 50% |" in text
    assert "| GRAPH_MODE | 0: 2, 1: 1 | 2.0 min | 50% |" in text


def test_a_folder_that_is_no_run_is_refused(tmp_path, capsys):
    assert wall_times.main([str(tmp_path)]) == 2
    assert "no manifest.json" in capsys.readouterr().err
    assert wall_times.main([]) == 2


def _member(role, strategy, shape, first, control="control/x", control_first=0.3, race="r0"):
    info = {
        "role": role,
        "strategy": strategy,
        "shape": shape,
        "batch_size": 1,
        "race": race,
        "control": control,
        "first_call_s": first,
        "control_first_call_s": control_first,
    }
    return {"extra_info": info, "stats": {"total": 99.0}}  # a member's total is not a round's


def test_process_time_is_split_into_first_calls_rounds_and_the_rest(tmp_path):
    """Each cell a race built counts its first call once: the twin every member names, and a
    layout twin (a member whose label is a control key) that is also a member's twin."""
    run = tmp_path / "20260101T000000Z-aaaa"
    (run / "timing").mkdir(parents=True)
    manifest = {"command": "nox -s bench", "phases": {"time": 78.0}}
    (run / "manifest.json").write_text(json.dumps(manifest))
    suite = {
        "mode": "graph",
        "stage": 0,
        "started": "2026-01-01T00:00:00+00:00",
        "finished": "2026-01-01T00:01:00+00:00",
    }
    benchmarks = [
        {"extra_info": {"kind": wall_times.RACE_ROUNDS}, "stats": {"total": 4.2}},
        _member("update", "a", "s1", 0.5),
        _member("update", "b", "s2", 0.4),
        _member("update", "c", "s3", 0.6, control="control/y", control_first=0.1),
        _member("aa", "control", "x", 0.2),
        _member("layout", "control", "y", 0.1),  # the same cell as c's twin: counted once
        _member("update", "a", "s1", 0.7, race="r1"),  # another race (a later size) builds anew
    ]
    (run / "timing" / "graph-p0.json").write_text(
        json.dumps({"suite": suite, "benchmarks": benchmarks})
    )
    got = wall_times.spent(run)["graph"]
    assert got["wall"] == 60.0
    assert got["rounds"] == 4.2
    assert abs(got["first calls"] - (0.5 + 0.4 + 0.6 + 0.2 + 0.1 + 0.3 + 0.7 + 0.3)) < 1e-9
    text = "\n".join(wall_times.describe(run))
    assert "| GRAPH_MODE | 1.0 min | 0.1 min (5%) | 0.1 min (7%) | 0.9 min (88%) |" in text
    assert "outside any timing process" in text and "0.3 min of 1.3" in text

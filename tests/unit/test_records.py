"""The run folder, its checkpoints, final verdicts over processes, expected verdicts (no
MindSpore)."""

from __future__ import annotations

import json

import pytest

from bench.core import expected, records, verdicts
from bench.core.rundir import CellId, Checkpoint, RunDir, partial_path, salvage
from bench.core.schema import SCHEMA_VERSION, SchemaError, Status, Timing, Verdict


def v(status="works", kind="", replica=0, shape="inline-param-after-expr", detail=""):
    return Verdict(
        "clip",
        "assign",
        shape,
        "jit_bytecode",
        status,
        kind,
        [kind] if kind else [],
        detail,
        replica=replica,
    )


def test_a_cell_id_round_trips_through_its_test_id():
    cell = CellId("assign", "inline-alias-after-expr", "jit_bytecode", 64)
    assert CellId.parse(cell.test_id) == cell
    with pytest.raises(ValueError):
        CellId.parse("no-at-sign")


def test_a_dead_timing_process_keeps_its_finished_cells(tmp_path):
    out = tmp_path / "timing" / "graph-p0.json"
    check = Checkpoint(partial_path(out), mode="w")
    check.write(suite={"schema_version": SCHEMA_VERSION, "kind": "time", "mode": "graph"})
    cell = {"test": "a@s-graph-N1", "status": "works", "detail": ""}
    info = Timing("clip", "a", "s", "graph", 1, 0, "control/c", "update", 8, [1.0], [1.0]).to_dict()
    check.write(
        cell=cell,
        at="t1",
        load={"others_cpus": 0.0},
        benchmark={"name": "test_step[a@s-graph-N1]", "extra_info": info, "stats": {}},
    )
    check.write(cell={"test": "b@s-graph-N1", "status": "raises", "detail": "E"}, at="t2")
    check._file.write('{"cell": {"test": "c@s-graph-N1", "sta')  # cut by the crash
    check._file.flush()
    ended = {"status": "crashed", "detail": "worker died with SIGSEGV", "at": "c/s/N1"}
    assert salvage(out, ended) == {"a@s-graph-N1", "b@s-graph-N1"}
    assert not partial_path(out).exists()
    data = json.loads(out.read_text())
    assert data["suite"]["ended"] == ended and data["suite"]["finished"] == "t2"
    rec = records.Records(tmp_path)
    assert [t.strategy for t in rec.timings] == ["a"] and len(rec.cell_statuses) == 2
    assert any("the timing process stopped" in line for line in rec.restarts())
    assert salvage(out, ended) == set()  # no checkpoint: nothing to do


def test_a_new_timing_file_never_overwrites_one(tmp_path):
    run = RunDir(tmp_path)
    first = run.timing_file("graph", 0)
    first.parent.mkdir(parents=True)
    first.write_text("{}")
    second = run.timing_file("graph", 0)
    assert second.name == "graph-p0.a1.json"
    second.write_text("{}")
    assert {p.name for p in run.timing_of("graph", 0)} == {"graph-p0.json", "graph-p0.a1.json"}


def test_processes_that_agree_give_their_verdict():
    final = verdicts.final([v(replica=0), v(replica=1)], [])
    assert len(final) == 1 and final[0].status == Status.WORKS
    assert final[0].evidence["gate"] == ["works", "works"]


def test_processes_that_disagree_differ_between_processes():
    final = verdicts.final([v(replica=0), v("incorrect", "write dropped", 1, detail="d")], [])
    (f,) = final
    assert f.status == Status.INCORRECT and f.kind == "differs between processes"
    assert "works in 1 of 2" in f.detail and "write dropped" in f.detail


def test_a_cell_wrong_while_timed_is_a_verdict_too():
    cells = [
        {
            "test": CellId("assign", "inline-param-after-expr", "jit_bytecode", n).test_id,
            "status": status,
            "detail": "after 527 timed steps the state is ...",
        }
        for n, status in ((1, "works"), (8, "incorrect"), (64, "incorrect"))
    ]
    (f,) = verdicts.final([v(replica=0), v(replica=1)], cells)
    assert f.status == Status.INCORRECT and f.kind == "differs between processes"
    assert "2 of 3 timed cells" in f.detail and f.evidence["timed"]["wrong"] == 2


def test_a_verdict_of_another_schema_is_refused():  # version 2 is upgraded: test_schema_versions
    data = v().to_dict()
    with pytest.raises(SchemaError, match="newer"):
        Verdict.from_dict({**data, "schema_version": SCHEMA_VERSION + 1})
    with pytest.raises(SchemaError, match="older suite"):
        Verdict.from_dict({**data, "schema_version": 1})


def test_expected_verdicts_are_compared_and_recorded(tmp_path):
    path = tmp_path / "mindspore-9.9.tsv"
    found = [
        v(),
        v("incorrect", "write dropped", shape="depend-param-after-expr"),
        v(
            "raises",
            detail="step 1 (N=8): AttributeError: 'Tensor' object has no attribute 'set_data'",
            shape="inline-alias-after-expr",
        ),
    ]
    diffs = expected.compare(found, expected.read(path))
    assert [d.observed for d in diffs] == [
        "incorrect: write dropped",
        "raises: AttributeError: 'Tensor' object has no attribute 'set_data'",
    ]
    assert all(d.unrecorded for d in diffs)  # a cell that works needs no line
    assert expected.record(path, found, "9.9") == 3
    assert expected.compare(found, expected.read(path)) == []
    assert expected.record(path, found, "9.9") == 0
    changed = [v(), v(shape="depend-param-after-expr"), *found[2:]]
    (d,) = expected.compare(changed, expected.read(path))
    assert d.recorded == "incorrect: write dropped" and d.observed == "works"
    text = path.read_text()
    assert text.splitlines()[2] == "workload\tstrategy\tshape\tmode\tverdict"


def test_a_cell_recorded_as_varying_accepts_either_outcome(tmp_path):
    path = tmp_path / "e.tsv"
    path.write_text(
        "clip\tassign\tinline-param-after-expr\tjit_bytecode\t"
        "incorrect: differs between processes\n"
    )
    for found in (v(), v("incorrect", "write dropped")):
        assert expected.compare([found], expected.read(path)) == []
    assert expected.compare([v("raises", detail="x: y")], expected.read(path))


def test_right_in_one_process_and_raising_in_another_is_silently_wrong():
    final = verdicts.final([v(replica=0), v("raises", "", 1, detail="AttributeError: x")], [])
    (f,) = final
    assert f.status == Status.INCORRECT and f.kind == "differs between processes"


def test_the_reference_is_the_newest_complete_run_that_published(tmp_path):
    from bench.core import paths

    for run_id, status, publish in (
        ("20260101T000000Z-aaaa", "complete", True),
        ("20260102T000000Z-bbbb", "complete", False),  # a subset or --quick run
        ("20260103T000000Z-cccc", "running", True),  # still going (or killed)
    ):
        (tmp_path / run_id).mkdir()
        (tmp_path / run_id / "manifest.json").write_text(
            json.dumps({"run_id": run_id, "status": status, "publish": publish})
        )
    assert paths.reference(tmp_path).name == "20260101T000000Z-aaaa"
    assert paths.reference(tmp_path / "none") is None

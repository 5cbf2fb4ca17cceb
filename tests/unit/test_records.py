"""The run folder, its checkpoints, final verdicts over processes, expected verdicts (no
MindSpore)."""

from __future__ import annotations

import json
from dataclasses import replace

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


def test_releases_with_the_same_verdicts_share_one_file(tmp_path):
    found = [v(), v("incorrect", "write dropped", shape="depend-param-after-expr")]
    for version in ("9.8", "9.9", "9.10"):
        expected.record(expected.path_for(version, tmp_path), found, version)
    other = [v("raises", detail="x: y")]
    expected.record(expected.path_for("9.7", tmp_path), other, "9.7")
    assert len(list(tmp_path.glob("*.tsv"))) == 4
    (merged,) = expected.merge(tmp_path)
    assert merged.name == "mindspore-9.8+9.9+9.10.tsv"
    assert sorted(p.name for p in tmp_path.glob("*.tsv")) == [
        "mindspore-9.7.tsv",
        "mindspore-9.8+9.9+9.10.tsv",
    ]
    assert merged.read_text().startswith("# Expected verdicts on MindSpore 9.8, 9.9 and 9.10 ")
    for version in ("9.8", "9.9", "9.10"):
        assert expected.path_for(version, tmp_path) == merged
        assert expected.compare(found, expected.read(expected.path_for(version, tmp_path))) == []
    assert expected.compare(found, expected.read(expected.path_for("9.7", tmp_path)))
    assert expected.path_for("9.11", tmp_path) == tmp_path / "mindspore-9.11.tsv"
    # recording a change for one release splits it out; the others keep their lines
    assert expected.record(merged, other, "9.9") == 1
    assert sorted(p.name for p in tmp_path.glob("*.tsv")) == [
        "mindspore-9.7.tsv",
        "mindspore-9.8+9.10.tsv",
        "mindspore-9.9.tsv",
    ]
    assert expected.compare(found, expected.read(expected.path_for("9.10", tmp_path))) == []
    assert expected.compare(other, expected.read(expected.path_for("9.9", tmp_path))) == []
    split = expected.read(expected.path_for("9.9", tmp_path))
    assert len(split) == 2 and "incorrect: write dropped" in split.values()  # the shared line kept


def test_the_committed_expected_files_name_every_release_once():
    releases = [r for p in expected.EXPECTED_DIR.glob("*.tsv") for r in expected.releases_of(p)]
    assert sorted(releases) == sorted(set(releases))
    assert {"2.7.2", "2.8.0", "2.9.0", "2.10.0"} <= set(releases)
    bodies = [tuple(sorted(expected.read(p).items())) for p in expected.EXPECTED_DIR.glob("*.tsv")]
    assert len(bodies) == len(set(bodies))  # files that agree are merged


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


@pytest.mark.parametrize(
    "message, comparable",
    [
        (
            "'NoneType' object has no attribute 'x' (<foo.Bar object at 0x7f3a2b1c9d60>)",
            "'NoneType' object has no attribute 'x' (<foo.Bar object>)",
        ),
        ("tensor at 0x7fa1b2c3d4e5 freed", "tensor at 0x… freed"),
        ("bad node id=1234 in graph", "bad node id=… in graph"),
        ("Parameter id: 98765 not found", "Parameter id: … not found"),
        ("cannot open /tmp/tmpab12cd34/kernel.so", "cannot open <tmp path>"),
        ("file '/tmp/pytest-of-x/a.py', line 3", "file '<tmp path>', line 3"),
        ("module tmpq9x8y7z6 has no attribute", "module <tmp name> has no attribute"),
        ("shape (1, 3) vs (2, 3)", "shape (1, 3) vs (2, 3)"),  # numbers that mean something stay
        ("index 0x1 out of range", "index 0x1 out of range"),  # a short hex literal stays
    ],
)
def test_messages_are_compared_without_addresses_ids_or_temp_paths(message, comparable):
    from bench.core.schema import comparable as strip

    assert strip(message) == comparable


def test_two_processes_whose_errors_differ_only_in_an_address_agree():
    a = v("raises", detail="step 1 (N=8): AttributeError: <m.C object at 0x7f00aa11> has no x")
    b = v("raises", detail="step 1 (N=8): AttributeError: <m.C object at 0x7f99bb22> has no x")
    merged = verdicts.merge_replicas([a, replace(b, replica=1)])
    assert merged.kind != "differs between processes"
    assert merged.status == Status.RAISES


@pytest.mark.parametrize(
    "gate, cells, wrong, alone, outcome",
    [
        ("works", 3, 0, None, (None, None)),  # right while timed: nothing changes
        ("incorrect: stale read", 3, 3, None, (None, None)),  # the gate's kind stands
        ("works", 3, 1, None, ("incorrect", "differs between processes")),
        ("works", 3, 1, "works", ("incorrect", "differs between processes")),
        ("works", 1, 1, "incorrect: write dropped", ("incorrect", "write dropped")),
        ("works", 3, 2, "incorrect: wrong value", ("incorrect", "wrong value")),
        ("works", 2, 2, "crashed", ("crashed", "")),
        ("works", 2, 2, "raises: RuntimeError: x", ("raises", "")),
    ],
)
def test_a_cell_wrong_while_timed_takes_its_kind_from_a_regate_alone(
    gate, cells, wrong, alone, outcome
):
    status, kind, _ = verdicts.timed_outcome(gate, cells, wrong, alone)
    assert (status and str(status), kind) == outcome


def test_a_lazy_update_wrong_alone_is_its_own_kind_not_differs():
    cells = [
        {
            "test": CellId("assign", "inline-param-after-expr", "jit_bytecode", 8).test_id,
            "status": "incorrect",
            "detail": "after 527 timed steps the state is ...",
        }
    ]
    solo = v("incorrect", "write dropped", verdicts.ALONE, detail="write dropped at step 46")
    (f,) = verdicts.final([v(replica=0), v(replica=1), solo], cells)
    assert (f.status, f.kind) == (Status.INCORRECT, "write dropped")
    assert (
        "wrong when re-gated alone" in f.detail
        and f.evidence["alone"] == "incorrect: write dropped"
    )
    (g,) = verdicts.final([v(replica=0), v(replica=1), v(replica=verdicts.ALONE)], cells)
    assert g.kind == "differs between processes" and "right when re-gated alone" in g.detail


def test_the_cells_regated_alone_are_those_wrong_only_while_timed():
    from bench.run.gate_phase import REGATE_STEPS, regate_plan

    def cell(shape, size, status, detail=""):
        test = CellId("assign", shape, "jit_bytecode", size).test_id
        return {"test": test, "status": status, "detail": detail}

    gated = [v(shape="a-b"), v(shape="c-d"), v("incorrect", "stale read", shape="e-f")]
    cells = [
        cell("a-b", 64, "incorrect", "after 527 timed steps the state is ..."),
        cell("a-b", 8, "incorrect", "after 300 timed steps the state is ..."),
        cell("a-b", 256, "works"),
        cell("c-d", 8, "works"),  # right while timed: not re-gated
        cell("e-f", 8, "incorrect", "after 10 timed steps"),  # the gate saw it wrong already
        cell("g-h", 8, "incorrect", "no count given"),  # not gated (another run's cell)
        {"test": "not a cell id", "status": "incorrect"},
    ]
    assert regate_plan(gated, cells) == {("assign", "a-b", "jit_bytecode"): (8, 300)}
    gated.append(v(shape="g-h"))
    assert regate_plan(gated, cells)[("assign", "g-h", "jit_bytecode")] == (8, REGATE_STEPS)

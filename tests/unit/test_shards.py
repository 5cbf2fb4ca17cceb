"""Shards (``--shard I/N``, ``bench.run.shard``) and their merge (``bench.run.merge``), no
MindSpore: the split is the same everywhere, disjoint and complete; bad shards exit 2 in one line;
the merge refuses shards that are not one run's, with the reason; shards run by the fake worker
and merged give the verdicts and the timed cells of the same run unsplit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from bench import cli
from bench.core import archive, procs, verdicts
from bench.core.paths import ROOT
from bench.core.records import Records
from bench.measured.shapes import CONTROL
from bench.run import merge, shard
from bench.run.plan import Plan
from tests.conftest import FIXTURES, bench

MODES = ("graph", "pynative", "jit_ast", "jit_bytecode", "pynative_blocking")


def plan(strategies=("assign", "set_data", "assign_primitive"), modes=MODES, gate_only=True):
    return Plan("clip", tuple(strategies), tuple(modes), (1, 1024), "strategies",
                gate_only=gate_only)  # fmt: skip


PLANS = [
    plan(),
    plan(gate_only=False),
    plan(("assign",), ("graph",)),
    plan(("b", "a", "c", "d", "e", "f", "g"), ("pynative", "graph")),
    plan(("b", "a", "c", "d", "e", "f", "g"), MODES, gate_only=False),
]


def every_unit(p: Plan) -> set[str]:
    return {shard.unit(s, m) for s in (*p.strategies, CONTROL) for m in p.modes}


@pytest.mark.parametrize("p", PLANS)
@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_the_split_is_disjoint_and_complete(p, count):
    if count > len(shard.groups(p)):
        with pytest.raises(ValueError, match="fewer than"):
            shard.check(p, (1, count))
        return
    parts = shard.split(p, count)
    assert len(parts) == count and all(parts)
    assert sum(len(x) for x in parts) == len(every_unit(p))  # no unit twice
    assert set().union(*map(set, parts)) == every_unit(p)  # union = the unsharded plan
    sizes = [len([g for g in shard.groups(p) if g[0] in x]) for x in parts]
    assert max(sizes) - min(sizes) <= 1  # round-robin: as even as groups allow


@pytest.mark.parametrize("p", PLANS)
def test_a_timed_shard_holds_whole_modes(p):
    if p.gate_only:
        return
    for part in shard.split(p, 2):
        modes = {u.split("|")[1] for u in part}
        assert set(part) == {shard.unit(s, m) for s in (*p.strategies, CONTROL) for m in modes}


def test_the_split_depends_on_the_plan_not_on_the_order_of_the_command():
    a = plan(("assign", "set_data", "assign_primitive"), ("pynative", "graph"))
    b = plan(("assign_primitive", "assign", "set_data"), ("graph", "pynative"))
    assert shard.split(a, 3) == shard.split(b, 3)


def test_the_split_is_the_same_in_every_process_whatever_its_hash_seed():
    """Nothing in it depends on Python's randomized ``hash()`` (the same on every machine)."""
    code = (
        "import json; from bench.run import shard; from bench.run.plan import Plan; "
        "p = Plan('clip', ('b', 'a', 'c', 'd'), ('graph', 'pynative', 'jit_ast'), (1,), 's', "
        "gate_only=True); print(json.dumps(shard.split(p, 4)))"
    )
    outs = {
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout
        for seed in ("1", "2", "3")
    }  # fmt: skip
    assert len(outs) == 1
    expected = shard.split(plan(("b", "a", "c", "d"), ("graph", "pynative", "jit_ast")), 4)
    assert json.loads(outs.pop()) == expected


def test_a_shard_holds_its_units_and_a_whole_run_everything():
    p = plan(("assign", "set_data"), ("graph", "pynative"))
    assert shard.holds(p, "assign", "graph") and shard.modes(p) == ["graph", "pynative"]
    first, second = (replace(p, shard=(i, 2)) for i in (1, 2))
    for s in ("assign", "set_data", CONTROL):
        for m in p.modes:
            assert shard.holds(first, s, m) != shard.holds(second, s, m)
    assert shard.record(p) == {}
    assert shard.record(second)["shard"] == "2/2"
    assert shard.record(second)["holds"] == shard.split(p, 2)[1]


def test_a_shard_survives_its_manifest():
    p = replace(plan(), shard=(2, 3))
    assert Plan.from_dict(json.loads(json.dumps(p.to_dict()))) == p


@pytest.mark.parametrize(
    "args, words",
    [
        (["--shard", "0/2"], "shard '0/2': I must be between 1 and N"),
        (["--shard", "3/2"], "shard '3/2': I must be between 1 and N"),
        (["--shard", "a/b"], "not I/N (two whole numbers): 'a/b'"),
        (["--shard", "2"], "not I/N"),
        (["--shard", "1/6", "--modes", "graph,pynative"], "splits into 2 modes"),
        (["--shard", "1/2", "--record"], "--shard and --record do not go together"),
        (["--shard", "1/2", "--publish"], "--shard and --publish do not go together"),
    ],
)
def test_bad_shards_fail_in_one_line_before_any_work(tmp_path, args, words, capsys, monkeypatch):
    monkeypatch.delenv(procs.ENV, raising=False)  # main() sets it for the workers
    assert cli.main([*args, "--results-dir", str(tmp_path / "results")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bench: error: ") and err.count("\n") == 1, err
    assert words in err
    raw = tmp_path / "results" / "raw"
    assert not raw.exists() or not any(raw.iterdir())


# --- the merge's refusals, on hand-made shard folders ---------------------------------------


def shard_run(tmp_path, index, count=2, p=None, run_id=None, **manifest):
    p = replace(p or plan(("assign", "set_data"), ("graph", "pynative")), shard=(index, count))
    run_id = run_id or f"20260101T00000{index}Z-000{index}"
    folder = tmp_path / "shards" / "raw" / run_id
    (folder / "gate").mkdir(parents=True)
    data = {
        "run_id": run_id,
        "plan": {**p.to_dict(), "mindspore": "2.10.0"},
        "status": "complete",
        "suite_commit": "abc1234",
        "schema_version": 3,
        "shard": shard.record(p),
        "started": f"2026-01-01T00:00:0{index}+00:00",
        "finished": f"2026-01-01T00:01:0{index}+00:00",
        **manifest,
    }
    if "mindspore" in manifest:
        data["plan"]["mindspore"] = manifest.pop("mindspore")
        data.pop("mindspore")
    (folder / "manifest.json").write_text(json.dumps(data))
    for unit in shard.record(p)["holds"]:
        strategy, mode = unit.split("|")
        line = {"workload": p.workload, "strategy": strategy, "shape": "s", "mode": mode,
                "status": "works", "replica": 0, "schema_version": 3}  # fmt: skip
        with open(folder / "gate" / f"{mode}.r0.p0.jsonl", "a") as f:
            f.write(json.dumps(line) + "\n")
    return folder


def refused(folders, tmp_path) -> str:
    with pytest.raises(merge.MergeError) as err:
        merge.merge(merge.load([str(f) for f in folders]), tmp_path / "merged")
    assert not (tmp_path / "merged").exists()  # nothing written
    return str(err.value)


def test_two_shards_merge_into_one_run_with_every_verdict(tmp_path):
    folders = [shard_run(tmp_path, 2), shard_run(tmp_path, 1)]
    out = merge.merge(merge.load([str(f) for f in folders]), tmp_path / "merged")
    rec = Records(out)
    assert rec.manifest.plan["shard"] is None and rec.manifest.status == "complete"
    assert [m["shard"] for m in rec.manifest.shard["merged"]] == ["1/2", "2/2"]
    assert rec.manifest.suite_commit == "abc1234" and rec.manifest.plan["mindspore"] == "2.10.0"
    got = {(v.strategy, v.mode) for v in verdicts.final(rec.verdicts, [])}
    assert got == {(s, m) for s in ("assign", "set_data", CONTROL) for m in ("graph", "pynative")}
    assert sorted(p.name for p in rec.run.gate_files()) == [
        "graph.r0.p0.s1.jsonl", "graph.r0.p0.s2.jsonl",
        "pynative.r0.p0.s1.jsonl", "pynative.r0.p0.s2.jsonl",
    ]  # fmt: skip
    # the same shards always give the same run id; merged again: refused, named
    assert out.name == merge.merged_id([Records(f).manifest for f in folders])
    with pytest.raises(merge.MergeError, match="merged already"):
        merge.merge(merge.load([str(f) for f in folders]), tmp_path / "merged")


@pytest.mark.parametrize(
    "second, words",
    [
        ({"suite_commit": "def5678"}, "different commits (20260101T000001Z-0001: abc1234; "),
        ({"mindspore": "2.9.0"}, "different MindSpore releases"),
        ({"p": plan(("assign", "set_data"), ("graph", "pynative"), gate_only=False)}, "plans"),
        ({"p": replace(plan(("assign", "set_data"), ("graph", "pynative")), workload="brn")},
         "different workloads (20260101T000001Z-0001: clip; 20260101T000002Z-0002: brn)"),
        ({"count": 3}, "different shard counts"),
        ({"status": "interrupted"}, "shard 2/2 (run 20260101T000002Z-0002) is interrupted"),
        ({"shard": {"shard": "2/2", "holds": ["assign|graph"]}}, "holds other cells"),
    ],
)  # fmt: skip
def test_the_merge_refuses_shards_of_different_runs_with_the_reason(tmp_path, second, words):
    folders = [shard_run(tmp_path, 1), shard_run(tmp_path, 2, **second)]
    assert words in refused(folders, tmp_path)


def test_the_merge_refuses_a_missing_or_repeated_shard_or_a_run_that_is_no_shard(tmp_path):
    one = shard_run(tmp_path, 1, count=3)
    two = shard_run(tmp_path, 2, count=3)
    assert "shard 3/3 missing (given: 1/3, 2/3)" in refused([one, two], tmp_path)
    again = shard_run(tmp_path, 2, count=3, run_id="20260101T000009Z-0009")
    assert "shard 2/3 is given twice (runs" in refused([one, two, again], tmp_path)
    assert "a run is named twice" in refused([one, one], tmp_path)
    whole = shard_run(tmp_path, 1, run_id="20260101T000008Z-0008")
    manifest = json.loads((whole / "manifest.json").read_text())
    manifest["plan"]["shard"] = None
    (whole / "manifest.json").write_text(json.dumps(manifest))
    assert "is not a shard" in refused([whole], tmp_path)
    assert "not a run folder" in refused([tmp_path / "nothing"], tmp_path)


def test_a_refused_merge_exits_2_in_one_line(tmp_path, capsys):
    one = shard_run(tmp_path, 1)
    two = shard_run(tmp_path, 2, suite_commit="def5678")
    code = merge.main([str(one), str(two), "--results-dir", str(tmp_path / "merged")])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("merge: error: the shards are of different commits")
    assert err.count("\n") == 1


# --- end to end with the fake worker ----------------------------------------------------------

FAKE = FIXTURES / "fake_worker.py"


def fake_bench(tmp_path, results: str, *more: str) -> subprocess.CompletedProcess:
    (tmp_path / "shake").mkdir(exist_ok=True)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(FIXTURES / "no_mindspore"), str(ROOT)]),
        "BENCH_WORKER": str(FAKE),
        "BENCH_FAKE_HANDSHAKE": str(tmp_path / "shake"),
    }
    args = ["--strategies-dir", str(FIXTURES / "e2e_strategies"), "--strategies", "good,wrong",
            "--modes", "pynative,graph", "--shapes", "inline-param-after-expr", "--fresh-gate",
            "--no-report", "--results-dir", str(tmp_path / results),
            "--expected-dir", str(tmp_path / "expected"), *more]  # fmt: skip
    done = bench(*args, env=env, timeout=240)
    assert done.returncode == 1, done.stderr  # `wrong` is a failure nobody recorded
    return done


def final_of(run: Path) -> list[tuple]:
    rec = Records(run)
    return sorted(
        (v.strategy, v.shape, v.mode, str(v.status), v.kind, tuple(v.evidence.get("gate", [])))
        for v in verdicts.final(rec.verdicts, rec.cell_statuses)
    )


@pytest.mark.parametrize("what", [("--gate-only",), ("--quick", "--batch-sizes", "1,8")])
def test_shards_merged_give_the_verdicts_and_cells_of_the_run_unsplit(tmp_path, what, monkeypatch):
    fake_bench(tmp_path, "whole", *what)
    for i in (1, 2):
        done = fake_bench(tmp_path, "shards", *what, "--shard", f"{i}/2")
        assert f"shard {i}/2 of workload clip" in done.stdout
        assert "merge the 2 shards" in done.stdout
    (whole,) = (tmp_path / "whole" / "raw").iterdir()
    shards = sorted((tmp_path / "shards" / "raw").iterdir())
    held = [json.loads((s / "manifest.json").read_text())["shard"]["holds"] for s in shards]
    assert not set(held[0]) & set(held[1])
    if "--gate-only" in what:  # as CI uploads them: each shard packed into its archive
        monkeypatch.setenv("BENCH_RUN_CACHE", str(tmp_path / "cache"))
        shards = [archive.pack(s, targets={}) for s in shards]
    out = merge.merge(merge.load([str(s) for s in shards]), tmp_path / "merged")
    assert final_of(out) == final_of(whole)
    cells = lambda run: sorted(c["test"] for c in Records(run).cell_statuses)  # noqa: E731
    assert cells(out) == cells(whole)
    if "--quick" in what:
        assert len(cells(out)) == 4  # a race per mode and size
        assert {p.name for p in (out / "timing").iterdir()} == {"graph-p0.json", "pynative-p0.json"}
        assert json.loads((out / "prepare" / "selection.json").read_text()) == json.loads(
            (whole / "prepare" / "selection.json").read_text()
        )


def test_a_merged_runs_page_names_its_shards_and_a_run_never_split_says_nothing(tmp_path):
    from bench.report import summary

    folders = [shard_run(tmp_path, 1), shard_run(tmp_path, 2)]
    out = merge.merge(merge.load([str(f) for f in folders]), tmp_path / "merged")
    (row,) = summary._shards(Records(out).manifest)
    assert row[0] == "merged from 2 shards (phases summed)"
    assert "`20260101T000001Z-0001` (1/2: 3 strategy × mode cells" in row[1]
    assert summary._shards(Records(folders[0]).manifest) == []

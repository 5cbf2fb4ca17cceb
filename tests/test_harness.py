"""`python -m bench` end to end with tiny settings: files, names, exit codes, faults, resume.

Never asserts a timing: only that the numbers exist, have the right shape and are positive.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.core.paths import ROOT

TINY = ["--batch-sizes", "2,16", "--processes", "1", "--cell-seconds", "0.02", "--no-report"]
SHAPES = ["--shapes", "inline-param-after-expr,helper-param-after-arg"]


def bench(*args, timeout=900, cwd=ROOT, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bench", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )


def only_run(results: Path) -> Path:
    runs = [p for p in (results / "raw").iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


def verdict(run: Path, strategy: str, shape: str, mode: str) -> dict:
    return json.loads((run / "gate" / f"{strategy}--{shape}--{mode}.json").read_text())


@pytest.mark.mindspore
def test_end_to_end_files_names_and_groups(ms, tmp_path):
    done = bench(
        "--strategies",
        "assign,set_data",
        "--modes",
        "graph",
        *SHAPES,
        *TINY,
        "--jobs",
        "1",
        "--results-dir",
        str(tmp_path),
    )
    run = only_run(tmp_path)
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["schema_version"] == 2
    assert set(manifest["phases"]) == {"gate", "prepare", "time"}
    assert manifest["strategies"]["assign"]["api"] == "mindspore.ops.assign"

    v = verdict(run, "set_data", "inline-param-after-expr", "graph")
    assert v["status"] == "raises" and "set_data" in v["detail"] and v["schema_version"] == 2
    assert v["dims"] == {
        "write": "inline",
        "read": "param",
        "order": "after",
        "new": "expr",
        "construct": "own",
    }
    assert not list((run / "timing").glob("*set_data*"))  # only what works is timed
    assert (run / "variants" / "assign" / "inline-param-after-expr.py").is_file()
    assert verdict(run, "control", "scalar-param", "graph")["status"] == "works"

    (timing,) = [p for p in (run / "timing").glob("graph-p0*.json")]
    data = json.loads(timing.read_text())
    assert {"machine_info", "commit_info", "benchmarks", "suite"} <= set(data)
    assert data["suite"]["schema_version"] == 2 and data["suite"]["threads"]["op_threads"] == 1
    assert data["suite"]["context"]["mode"] == "GRAPH_MODE"  # the worker really ran in the mode
    names = {b["name"] for b in data["benchmarks"]}
    assert "test_step[assign@inline-param-after-expr-graph-N16]" in names or (
        "test_step[assign@helper-param-after-arg-graph-N16]" in names
    )
    assert "test_step[control@vector-view-graph-N2]" in names  # a layout cell
    for entry in data["benchmarks"]:
        info, st = entry["extra_info"], entry["stats"]
        assert entry["group"] == f"clip graph N={info['batch_size']}"
        assert st["iterations"] == info["k"] >= 1  # pytest-benchmark's stats are per step
        assert st["rounds"] == len(st["data"]) == len(info["control_s"]) == len(info["step_s"])
        assert info["step_s"] == st["data"] and min(st["data"]) > 0
        assert set(info["control_position"]) <= {"before", "after"}
        assert info["final_state_ok"] is True and info["first_call_s"] > 0
    ks = {
        (e["extra_info"]["control"], e["extra_info"]["batch_size"]): e["extra_info"]["k"]
        for e in data["benchmarks"]
    }
    prepare = json.loads((run / "prepare" / "graph.json").read_text())
    for (control, n), k in ks.items():  # one k per control and batch size, from the calibration
        assert prepare["k"][f"{control}/N{n}"] == k
    # set_data's undeclared... no: set_data declares its graph error; the run is as declared
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]


@pytest.mark.mindspore
def test_a_subset_run_reports_into_its_own_folder(ms, tmp_path):
    (tmp_path / "summary.md").write_text("the reference\n")
    done = bench(
        "--strategies",
        "assign",
        "--modes",
        "pynative",
        *SHAPES,
        *TINY[:-1],
        "--results-dir",
        str(tmp_path),
        "--plots-dir",
        str(tmp_path / "plots"),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    run = only_run(tmp_path)
    assert (tmp_path / "summary.md").read_text() == "the reference\n"  # untouched
    assert not (tmp_path / "plots").exists()
    report = run / "report"
    assert (report / "summary.md").is_file() and (report / "shapes.md").is_file()
    assert list((report / "plots").glob("*.png"))
    assert "## The answer" in (report / "summary.md").read_text()


@pytest.mark.mindspore
def test_an_undeclared_failure_exits_1_and_prints_what_to_paste(ms, tmp_path, fixture_strategies):
    done = bench(
        "--strategies-dir",
        str(fixture_strategies),
        "--strategies",
        "unchanged,good_assign",
        "--modes",
        "pynative",
        "--gate-only",
        *SHAPES,
        "--results-dir",
        str(tmp_path),
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert "NOT AS DECLARED" in done.stdout and "EXPECTED_FAILURES = {" in done.stdout
    assert "'clip/*/pynative': 'incorrect: Parameter unchanged'" in done.stdout


@pytest.mark.mindspore
def test_bad_strategies_cost_only_their_own_cells(ms, tmp_path, fixture_strategies):
    names = "good_assign,unchanged,syntax_error,raises_in_init,crash_exit,segfault,sigkill,hang"
    done = bench(
        "--strategies-dir",
        str(fixture_strategies),
        "--strategies",
        names + ",crash_when_timed",
        "--modes",
        "pynative",
        "--timeout",
        "20",
        *SHAPES,
        *TINY,
        "--results-dir",
        str(tmp_path),
    )
    assert done.returncode == 1, done.stderr[-2000:]  # undeclared failures and a timing crash
    run = only_run(tmp_path)
    shape = {
        "syntax_error": "-",
        "crash_exit": "as-written",
        "segfault": "as-written",
        "sigkill": "as-written",
        "hang": "as-written",
    }
    expected = {
        "good_assign": ("works", ""),
        "unchanged": ("incorrect", "Parameter unchanged"),
        "syntax_error": ("broken", "failed to load: SyntaxError"),
        "raises_in_init": ("raises", "deliberately broken __init__"),
        "crash_exit": ("crashed", "exited with code 3"),
        "segfault": ("crashed", "SIGSEGV"),
        "sigkill": ("crashed", "SIGKILL"),
        "hang": ("timeout", "no progress for 16 s"),
    }
    for name, (status, words) in expected.items():
        v = verdict(run, name, shape.get(name, "inline-param-after-expr"), "pynative")
        assert v["status"] == status, (name, v)
        assert words in v["detail"], (name, v)
    timing = [json.loads(p.read_text()) for p in (run / "timing").glob("pynative-p0*.json")]
    good = [
        b for t in timing for b in t["benchmarks"] if b["extra_info"]["strategy"] == "good_assign"
    ]
    assert {b["extra_info"]["batch_size"] for b in good} == {2, 16}
    crashed = [c for t in timing for c in t["suite"]["cells"] if c["status"] == "crashed"]
    assert crashed and all("crash_when_timed" in c["test"] for c in crashed)
    assert "exited with code 4" in crashed[0]["detail"]


def test_a_dead_timing_process_keeps_its_finished_cells(tmp_path):
    from bench.core import records
    from bench.core.schema import Timing
    from bench.run.worker import Checkpoint, partial_path, salvage

    out = tmp_path / "timing" / "graph-p0.json"
    check = Checkpoint(out, {"schema_version": 2, "kind": "time", "mode": "graph", "process": 0})
    cell = {"test": "a@s-graph-N1", "status": "works", "detail": ""}
    info = Timing("clip", "a", "s", "graph", 1, 0, "control/c", "update", 8, [1.0], [1.0]).to_dict()
    bench_record = {"name": "test_step[a@s-graph-N1]", "extra_info": info, "stats": {}}
    check.write(cell=cell, at="t1", load={"others_cpus": 0.0}, benchmark=bench_record)
    check.write(cell={"test": "b@s-graph-N1", "status": "raises", "detail": "E"}, at="t2")
    check._file.write('{"cell": {"test": "c@s-graph-N1", "sta')  # cut by the crash
    check._file.flush()

    ended = {"status": "crashed", "detail": "worker died with SIGSEGV", "at": "c/s/N1"}
    assert salvage(out, ended) == {"a@s-graph-N1", "b@s-graph-N1"}
    assert not partial_path(out).exists()
    data = json.loads(out.read_text())
    assert data["suite"]["ended"] == ended and data["suite"]["finished"] == "t2"
    assert [c["status"] for c in data["suite"]["cells"]] == ["works", "raises"]
    assert [b["name"] for b in data["benchmarks"]] == ["test_step[a@s-graph-N1]"]
    timings, statuses = records.read_timings(tmp_path, problems := [])
    assert len(statuses) == 2 and [t.strategy for t in timings] == ["a"] and not problems

    again = Checkpoint(out, {"kind": "time"})  # a file already there is never overwritten
    again.write(cell={"test": "d@s-graph-N1", "status": "works", "detail": ""}, at="t3")
    assert salvage(out, ended) == set() and json.loads(out.read_text()) == data
    assert salvage(out, ended) == set()  # no checkpoint: nothing to do


@pytest.mark.mindspore
def test_a_crash_that_does_not_reproduce_costs_no_finished_cell(ms, tmp_path, fixture_strategies):
    from bench.report.load import restarts

    env = {**os.environ, "BENCH_TEST_CRASH_ONCE": str(tmp_path / "crashed-once")}
    done = bench(
        "--strategies-dir",
        str(fixture_strategies),
        "--strategies",
        "good_assign,crash_once",
        "--modes",
        "graph",
        "--batch-sizes",
        "2,16,32",
        *SHAPES,
        *TINY[2:],
        "--results-dir",
        str(tmp_path),
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]  # alone, the culprit worked
    assert (tmp_path / "crashed-once").exists()
    run = only_run(tmp_path)
    files = {p.name: json.loads(p.read_text()) for p in (run / "timing").glob("graph-p0*.json")}
    ended = [(name, d["suite"]) for name, d in files.items() if "ended" in d["suite"]]
    assert len(ended) == 1, files.keys()
    name, suite = ended[0]
    assert suite["ended"]["status"] == "crashed" and "code 5" in suite["ended"]["detail"]
    assert suite["ended"]["at"].startswith("crash_once/")
    tests = [c["test"] for d in files.values() for c in d["suite"]["cells"]]
    assert len(tests) == len(set(tests)), "a finished cell was measured twice"
    timed = [b["extra_info"] for d in files.values() for b in d["benchmarks"]]
    assert {(i["strategy"], i["batch_size"]) for i in timed} >= {
        (s, n) for s in ("good_assign", "crash_once") for n in (2, 16, 32)
    }
    assert not list(run.rglob("*.partial.jsonl"))
    assert any(line.startswith(f"{name}: the timing process stopped") for line in restarts(run))


@pytest.mark.mindspore
def test_interrupt_keeps_finished_cells_and_resume_completes(ms, tmp_path):
    args = ["--strategies", "assign,copy_", "--modes", "graph,pynative", *SHAPES, *TINY]
    args += ["--results-dir", str(tmp_path)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 600
    raw = tmp_path / "raw"
    while time.monotonic() < deadline and not list(raw.glob("*/timing/*-p0.json")):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    run = only_run(tmp_path)
    assert json.loads((run / "manifest.json").read_text())["status"] == "interrupted"
    kept = {p.name: p.stat().st_mtime_ns for p in run.rglob("*.json") if "logs" not in p.parts}
    assert any(name.endswith("-p0.json") for name in kept), "the finished worker's JSON is kept"
    assert f"--results-dir {tmp_path} --resume {run.name}" in err
    assert not list(run.rglob(".*.tmp")), "no half-written files"
    assert not list(run.rglob("*.partial.jsonl")), "checkpoints of stopped processes are saved"

    resumed = bench("--resume", "--results-dir", str(tmp_path), "--no-report")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert only_run(tmp_path) == run  # resumed in place, no second run
    assert json.loads((run / "manifest.json").read_text())["status"] == "complete"
    assert {p.name for p in (run / "timing").glob("*-p0.json")} == {
        "graph-p0.json",
        "pynative-p0.json",
    }
    for mode in ("graph", "pynative"):
        tests = [
            c["test"]
            for p in (run / "timing").glob(f"{mode}-p0*.json")
            for c in json.loads(p.read_text())["suite"]["cells"]
        ]
        assert len(tests) == len(set(tests)), "a finished cell was measured twice"
    for name, mtime in kept.items():  # finished results were not measured again
        path = next(run.rglob(name))
        if name != "manifest.json":
            assert path.stat().st_mtime_ns == mtime, name


@pytest.mark.parametrize(
    "args, words",
    [
        (["--strategies", "assign,nope"], "unknown strategy 'nope' (valid: assign,"),
        (["--modes", "graph,eager"], "unknown mode 'eager' (valid: graph, pynative"),
        (["--shapes", "inline-nope"], "unknown shape 'inline-nope' (valid: "),
        (["--batch-sizes", "0,8"], "must be positive: '0'"),
        (["--batch-sizes", "1.5"], "not a whole number: '1.5'"),
        (["--batch-sizes", ""], "empty item"),
        (["--strategies", "assign,,host"], "empty item"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["--timeout", "-1"], "must be positive"),
        (["--strategies-dir", "/nonexistent"], "does not exist"),
        (["--resume"], "nothing to resume"),
        (["--workload", "bn"], "unknown workload 'bn' (valid: clip, brn, kvcache, ema)"),
    ],
)
def test_bad_arguments_fail_in_one_line_before_any_work(tmp_path, args, words):
    done = bench(*args, "--results-dir", str(tmp_path / "results"), timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("bench: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert words in done.stderr
    raw = tmp_path / "results" / "raw"
    assert not raw.exists() or not any(raw.iterdir())


def test_a_new_invocation_never_reuses_a_run(tmp_path):
    (tmp_path / "raw" / "20000101T000000Z-aaaa").mkdir(parents=True)
    (tmp_path / "raw" / "20000101T000000Z-aaaa" / "manifest.json").write_text("{}")
    done = bench("--resume", "nope", "--results-dir", str(tmp_path), timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no run 'nope'" in done.stderr


def test_unwritable_results_folder_is_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = bench("--results-dir", str(blocker), timeout=60)
    assert done.returncode == 2
    assert "cannot write to" in done.stderr and done.stderr.count("\n") == 1
    assert blocker.read_text() == "not a folder"


@pytest.mark.mindspore
def test_a_relative_results_folder_works(ms, tmp_path):
    done = bench(
        "--strategies",
        "assign",
        "--modes",
        "graph",
        *SHAPES,
        "--results-dir",
        "results",
        "--gate-only",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(list((tmp_path / "results" / "raw").glob("*/gate/assign--*--graph.json"))) == 2


def test_list_shows_strategies_shapes_and_modes():
    done = bench("--list", timeout=60)
    assert done.returncode == 0
    assert "strategy  assign" in done.stdout and "mode      graph" in done.stdout
    assert "shape     inline-param-after-expr" in done.stdout

"""`python -m bench` end to end with tiny settings: files, names, exit codes, faults, resume.

Never asserts a timing: only that the numbers exist, have the right shape and are positive."""

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
from bench.core.records import Records
from tests.conftest import bench

# End-to-end runs: CI's conformance tier, not the fast one.
pytestmark = [pytest.mark.mindspore, pytest.mark.conformance]
TINY = ["--batch-sizes", "2,16", "--processes", "1", "--cell-seconds", "0.02", "--no-report"]
SHAPES = ["--shapes", "inline-param-after-expr,helper-param-after-arg"]


def only_run(results: Path) -> Path:
    runs = [p for p in (results / "raw").iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


def test_end_to_end_files_names_and_groups(ms, tmp_path):
    done = bench(
        "--strategies",
        "assign,assign_primitive,scatter_nd_update,set_data",  # three close: stage 1 is likely
        "--modes",
        "graph",
        *SHAPES,
        *TINY,
        "--results-dir",
        str(tmp_path),
        "--expected-dir",
        str(tmp_path / "e"),
        "--record",
        # as if started from a pytest-xdist worker, with xdist asked for: the timing suite still
        # runs in its own process, with pytest-benchmark on (it disables itself under xdist)
        env={**os.environ, "PYTEST_XDIST_WORKER": "gw1", "PYTEST_ADDOPTS": "-n 2"},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    run = only_run(tmp_path)
    rec = Records(run)
    m = rec.manifest
    assert m.status == "complete" and set(m.phases) >= {"generate", "gate", "time"}
    assert m.strategies["assign"]["api"] == "mindspore.ops.assign"
    assert m.environment["mindspore"] and m.plan["mindspore"] == m.environment["mindspore"]
    by = {(v.strategy, v.shape, v.replica): v for v in rec.verdicts}
    sd = by[("set_data", "inline-param-after-expr", 0)]
    assert sd.status == "raises" and "set_data" in sd.detail and sd.meaning == "before"
    assert sd.dims == {
        "write": "inline",
        "read": "param",
        "order": "after",
        "new": "expr",
        "construct": "own",
    }
    assert ("set_data", "inline-param-after-expr", 1) in by  # a compiled mode: two processes
    assert (run / "variants" / "assign" / "inline-param-after-expr.py").is_file()
    files = list((run / "timing").glob("graph-p*.json"))
    data = json.loads(files[0].read_text())
    assert {"machine_info", "commit_info", "benchmarks", "suite"} <= set(data)
    assert data["suite"]["threads"]["op_threads"] == 1
    assert data["suite"]["context"]["mode"] == "GRAPH_MODE"  # the worker really ran the mode
    # stage 0 is process 0 (one process asked for); a decision still open after it gets a later
    # stage in a new process (process 1, stage 1), racing only the open candidates and the A/A
    # cell: whether one runs depends on the timings, so each file is checked on its own terms
    stages = {}
    for f in files:
        entries = json.loads(f.read_text())["benchmarks"]
        rounds = {b["name"]: b for b in entries if b["extra_info"].get("kind") == "race rounds"}
        members = [b["extra_info"] for b in entries if b["name"] not in rounds]
        assert members and set(rounds) == {
            f"test_step[race@race-graph-N{n}]" for n in {i["batch_size"] for i in members}
        }  # one race per size: pytest-benchmark times its whole rounds
        for info in members:
            race = rounds[f"test_step[race@race-graph-N{info['batch_size']}]"]
            assert race["stats"]["rounds"] == len(info["step_s"])  # the same rounds for all
            assert len(info["step_s"]) == len(info["control_s"]) == len(info["race_base_s"]) >= 3
            assert min(info["step_s"]) > 0 and info["final_state_ok"] is True
            assert info["process"] == info["stage"]  # --processes 1: stage s runs in process s
            n, p, s = info["batch_size"], info["process"], info["stage"]
            assert info["race"] == f"graph-N{n}-p{p}-s{s}"
            assert info["k"] >= 1
            stages.setdefault(info["stage"], []).append(info)
    assert set(stages) <= {0, 1}  # the default tier has one later stage
    assert {i["batch_size"] for i in stages[0]} == {2, 16}  # stage 0 races every size
    by = {(i["strategy"], i["role"], i["batch_size"]): i for i in stages[0]}
    assert ("assign", "update", 16) in by and ("control", "aa", 16) in by  # + the A/A cell
    for info in stages.get(1, []):
        assert (info["strategy"], info["role"], info["batch_size"]) in by  # stage-0 members only
    assert not list((run / "timing").glob("*set_data*"))  # only what works is timed
    assert (tmp_path / "e" / "mindspore-2.10.0.tsv").is_file()


def test_a_failure_nobody_recorded_exits_1_until_it_is_recorded(ms, tmp_path, fixture_strategies):
    args = [
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
        "--expected-dir",
        str(tmp_path / "e"),
    ]
    first = bench(*args)
    assert first.returncode == 1, first.stderr[-2000:]
    assert "unchanged/inline-param-after-expr pynative: incorrect: write dropped" in first.stdout
    assert "no line (a failure nobody recorded)" in first.stdout
    assert bench(*args, "--record").returncode == 0
    again = bench(*args)
    assert again.returncode == 0, again.stdout[-2000:]
    tsv = (tmp_path / "e" / "mindspore-2.10.0.tsv").read_text()
    assert "clip\tunchanged\tinline-param-after-expr\tpynative\tincorrect: write dropped" in tsv


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
        "--expected-dir",
        str(tmp_path),
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert "REFUSED syntax_error: SyntaxError" in done.stdout  # the reason, in the terminal
    run = only_run(tmp_path)
    by = {(v.strategy, v.shape): v for v in Records(run).verdicts}
    expected = {
        ("good_assign", "inline-param-after-expr"): ("works", ""),
        ("unchanged", "inline-param-after-expr"): ("incorrect", "write dropped"),
        ("syntax_error", "-"): ("broken", "failed to load: SyntaxError"),
        ("raises_in_init", "inline-param-after-expr"): ("raises", "broken __init__"),
        ("crash_exit", "as-written"): ("crashed", "exited with code 3"),
        ("segfault", "as-written"): ("crashed", "SIGSEGV"),
        ("sigkill", "as-written"): ("crashed", "SIGKILL"),
        ("hang", "as-written"): ("timeout", "no progress for 16 s"),
    }
    for key, (status, words) in expected.items():
        v = by[key]
        assert v.status == status and words in v.detail, (key, v)
    cells = Records(run).cell_statuses
    good = {c["test"] for c in cells if c["test"].startswith("good_assign@")}
    assert good == {f"good_assign@inline-param-after-expr-pynative-N{n}" for n in (2, 16)}
    crashed = [c for c in cells if c["status"] == "crashed"]
    assert crashed and all("crash_when_timed" in c["test"] for c in crashed)
    assert "timing: crash_when_timed" in done.stdout


def test_a_crash_that_does_not_reproduce_costs_no_finished_cell(ms, tmp_path, fixture_strategies):
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
        "--expected-dir",
        str(tmp_path),
        env=env,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (tmp_path / "crashed-once").exists()
    rec = Records(only_run(tmp_path))
    first = [c["test"] for c in rec.cell_statuses if c["file"].startswith("graph-p0")]
    assert len(first) == len(set(first)), "a finished cell was measured twice by its process"
    assert {(t.strategy, t.batch_size) for t in rec.timings} >= {
        (s, n) for s in ("good_assign", "crash_once") for n in (2, 16, 32)
    }
    assert any("the timing process stopped" in line for line in rec.restarts())


def test_a_spawned_child_that_cannot_start_stops_the_run_with_exit_3(ms, tmp_path):
    """The gate's children spawned by an interpreter that is not there: a failure of the
    environment, not a verdict of any cell (exit 3, the interpreter named)."""
    missing = tmp_path / "no-python"
    done = bench(
        "--strategies", "assign", "--modes", "pynative", "--shapes", "inline-param-after-expr",
        "--gate-only", "--fresh-gate", "--start-method", "spawn", "--results-dir", str(tmp_path),
        "--expected-dir", str(tmp_path),
        env={**os.environ, "BENCH_SPAWN_PYTHON": str(missing)},
    )  # fmt: skip
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr[-2000:]
    assert f"a spawned child could not start: {missing}: " in done.stderr
    verdicts = [line for f in tmp_path.glob("raw/*/gate/*.jsonl") for line in f.open()]
    assert verdicts == []  # nobody's verdict


def test_interrupt_keeps_finished_cells_and_resume_completes(ms, tmp_path):
    args = [
        "--strategies",
        "assign,copy_",
        "--modes",
        "graph,pynative",
        *SHAPES,
        *TINY,
        "--results-dir",
        str(tmp_path),
        "--expected-dir",
        str(tmp_path),
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline and not list(tmp_path.glob("raw/*/timing/*.partial.jsonl")):
        time.sleep(0.2)
    time.sleep(2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    run = only_run(tmp_path)
    assert json.loads((run / "manifest.json").read_text())["status"] == "interrupted"
    assert f"--results-dir {tmp_path} --resume {run.name}" in err
    assert not list(run.rglob(".*.tmp")), "no half-written files"
    assert not list(run.rglob("*.partial.jsonl")), "checkpoints of stopped processes are saved"
    kept = {c["test"] for c in Records(run).cell_statuses}
    resumed = bench(
        "--resume", "--results-dir", str(tmp_path), "--no-report", "--expected-dir", str(tmp_path)
    )
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
    assert only_run(tmp_path) == run  # resumed in place, no second run
    assert json.loads((run / "manifest.json").read_text())["status"] == "complete"
    stage0 = [c["test"] for c in Records(run).cell_statuses if "-p0" in c["file"]]
    assert len(stage0) == len(set(stage0)) and kept <= set(stage0)


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
        "--expected-dir",
        str(tmp_path),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    run = only_run(tmp_path)
    assert (tmp_path / "summary.md").read_text() == "the reference\n"  # untouched
    assert not (tmp_path / "plots").exists()
    report = run / "report"
    assert (report / "summary.md").is_file() and (report / "shapes.md").is_file()
    assert "## The answer" in (report / "summary.md").read_text()


def test_the_screen_times_every_shape_and_a_failure_or_a_retry_alone_costs_only_itself(
    ms, tmp_path
):
    """PYNATIVE_MODE's screen of ``slice_ellipsis`` once crashed its process: the twin's state
    was written into the subject too, and after ``param[...] = v`` the Parameter is a view that
    ``ops.assign`` refuses. Each crash re-screened everything and the retry alone failed (its
    twin was calibrated by another item). Now the subject keeps its state, a shape the harness
    cannot screen is recorded as such, and a job without the calibration calibrates itself."""
    done = bench(
        "--strategies",
        "slice_ellipsis,assign",
        "--modes",
        "pynative",
        "--shapes",
        "inline-param-after-expr,inline-view-after-expr",
        *TINY[:2],  # one size; the screen is the default tier's
        "--processes",
        "1",
        "--cell-seconds",
        "0.02",
        "--no-report",
        "--results-dir",
        str(tmp_path),
        "--expected-dir",
        str(tmp_path / "e"),
        "--record",
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    run = only_run(tmp_path)
    logs = sorted(p.name for p in (run / "logs").glob("prepare-*"))
    assert logs == ["prepare-pynative.job.json", "prepare-pynative.log"], logs  # no retry
    rows = json.loads((run / "prepare" / "pynative.json").read_text())["screen"]
    screened = {(r["strategy"], r["shape"]) for r in rows if r["ratios"] and not r.get("error")}
    assert screened == {
        (s, f"inline-{read}-after-expr") for s in ("slice_ellipsis", "assign")
        for read in ("param", "view")
    }  # fmt: skip

    # the same job again, without its calibration item and with a variant that cannot load
    job = json.loads((run / "logs" / "prepare-pynative.job.json").read_text())
    items = [i for i in job["items"] if i["role"] == "screen"]
    broken = {**items[0], "strategy": "broken", "path": str(tmp_path / "missing.py")}
    out = tmp_path / "again.json"
    job.update(items=[broken, *items[:2]], out=str(out))
    (tmp_path / "again.job.json").write_text(json.dumps(job))
    worker = subprocess.run(
        [sys.executable, "-m", "bench.run.worker", str(tmp_path / "again.job.json")],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert worker.returncode == 0, worker.stdout[-2000:] + worker.stderr[-2000:]
    again = json.loads(out.read_text())
    assert list(again["k"].values()) and all(k >= 64 for k in again["k"].values())
    first, *rest = again["screen"]
    assert first["strategy"] == "broken" and first["ratios"] == [] and first["error"]
    assert [(r["strategy"], r["shape"]) for r in rest] == [
        (i["strategy"], i["shape"]) for i in items[:2]
    ]
    assert all(r["ratios"] and r["subject_k"] >= 64 for r in rest)  # PYNATIVE's drain floor

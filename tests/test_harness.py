"""`python -m bench` end to end with tiny settings: JSON structure, statuses, faults, resume.

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
from conftest import FIXTURE_STRATEGIES, ROOT

TINY = [
    "--batch-sizes", "2,16",
    "--processes", "1",
    "--cell-seconds", "0.02",
    "--gate-steps", "3",
    "--gate-batch-sizes", "4",
    "--no-report",
]  # fmt: skip


def bench(*args, timeout=600, cwd=ROOT, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # for a cwd other than the repository
    return subprocess.run(
        [sys.executable, "-m", "bench", *args], cwd=cwd, capture_output=True, text=True,
        timeout=timeout, env=env, **kw,
    )  # fmt: skip


def only_run(results: Path) -> Path:
    runs = [p for p in (results / "raw").iterdir() if p.is_dir()]
    assert len(runs) == 1, runs
    return runs[0]


def load(run: Path, name: str) -> dict:
    return json.loads((run / f"{name}.json").read_text())


@pytest.mark.mindspore
def test_end_to_end_json_structure(ms, tmp_path):
    done = bench("--strategies", "assign,set_data", *TINY, "--results-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    run = only_run(tmp_path)
    manifest = load(run, "manifest")
    assert manifest["status"] == "complete"
    assert manifest["plan"]["strategies"] == ["assign", "set_data"]

    assert load(run, "gate-set_data-graph")["suite"]["verdict"]["status"] == "unsupported"
    assert not (run / "time-set_data-graph-p0.json").exists()  # only gated combos are timed
    for control in ("control_scalar", "control_vector"):  # the controls are always gated
        assert load(run, f"gate-{control}-graph")["suite"]["verdict"]["status"] == "works"

    data = load(run, "time-assign-graph-p0")
    suite = data["suite"]
    assert suite["environment"]["mindspore"] == ms.__version__
    assert suite["threads"]["op_threads"] == 1
    assert [c["status"] for c in suite["cells"]] == ["works", "works"]
    assert {"machine_info", "commit_info", "benchmarks"} <= set(data)
    assert len(data["benchmarks"]) == 2
    for bench_ in data["benchmarks"]:
        info, st = bench_["extra_info"], bench_["stats"]
        assert info["strategy"] == "assign" and info["mode"] == "graph"
        assert info["batch_size"] in (2, 16)
        assert (
            st["rounds"] == len(st["data"]) == len(info["control_data"]) == len(info["ratio_data"])
        )
        assert st["rounds"] >= 3
        assert set(info["control_position"]) <= {"before", "after"}
        assert info["steps_per_round"] >= 1
        for key in ("median", "iqr", "mean", "stddev", "min"):
            assert info["per_step_s"][key] >= 0
        assert info["per_step_s"]["median"] == pytest.approx(st["median"] / info["steps_per_round"])
        assert info["first_call_s"] > 0 and info["peak_rss_bytes"] > 0 and info["samples_per_s"] > 0
        low, high = info["ratio_ci95_within_process"]
        assert low <= info["ratio_median"] <= high
        assert info["final_state_ok"] is True and info["workload"] == "clip"
    assert "@@cell" not in done.stdout
    assert "[4/6]" in done.stdout.replace(" ", "") or "ETA" in done.stdout


@pytest.mark.mindspore
def test_bad_strategies_cost_only_their_own_cells(ms, tmp_path):
    names = "good_assign,unchanged,syntax_error,raises_in_init,crash_exit,segfault,sigkill,hang"
    done = bench(
        "--strategies-dir", str(FIXTURE_STRATEGIES), "--strategies", names + ",crash_when_timed",
        "--modes", "pynative", "--timeout", "20", *TINY, "--results-dir", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    run = only_run(tmp_path)

    def gate(name):
        return load(run, f"gate-{name}-pynative")["suite"]["verdict"]

    expected = {
        "good_assign": ("works", ""),
        "unchanged": ("incorrect", "Parameter unchanged"),
        "syntax_error": ("broken", "failed to load: SyntaxError"),
        "raises_in_init": ("broken", "deliberately broken __init__"),
        "crash_exit": ("crashed", "exited with code 3"),
        "segfault": ("crashed", "SIGSEGV"),
        "sigkill": ("crashed", "SIGKILL"),
        "hang": ("timeout", "no result after 20 s"),
    }
    for name, (status, words) in expected.items():
        verdict = gate(name)
        assert verdict["status"] == status, (name, verdict)
        assert words in verdict["detail"], (name, verdict)
    assert [c["status"] for c in load(run, "time-good_assign-pynative-p0")["suite"]["cells"]] == [
        "works",
        "works",
    ]
    crashed = load(run, "time-crash_when_timed-pynative-p0")["suite"]["cells"]
    assert {c["status"] for c in crashed} == {"crashed"}
    assert "exited with code 4" in crashed[0]["detail"]


@pytest.mark.mindspore
def test_interrupt_keeps_finished_cells_and_resume_completes(ms, tmp_path):
    args = ["--strategies", "assign,host", "--modes", "pynative", *TINY]
    args += ["--processes", "3", "--results-dir", str(tmp_path)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench", *args], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 300
    raw = tmp_path / "raw"
    while time.monotonic() < deadline and not list(raw.glob("*/time-*.json")):
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    run = only_run(tmp_path)
    assert load(run, "manifest")["status"] == "interrupted"
    kept = {p.name: p.stat().st_mtime_ns for p in run.glob("time-*.json")}
    assert kept, "the finished worker's JSON must be kept"
    for name in kept:
        assert json.loads((run / name).read_text())["suite"]["cells"][0]["status"] == "works"
    assert f"--results-dir {tmp_path} --resume {run.name}" in err
    assert not list(run.glob(".*.tmp")), "no half-written files"

    resumed = bench("--resume", "--results-dir", str(tmp_path), "--no-report")
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert only_run(tmp_path) == run  # resumed in place, no second run
    assert load(run, "manifest")["status"] == "complete"
    assert len(list(run.glob("time-*.json"))) == 6
    for name, mtime in kept.items():  # finished cells were not measured again
        assert (run / name).stat().st_mtime_ns == mtime
    assert "cells kept from before" in resumed.stdout


def test_a_new_invocation_never_reuses_a_run(tmp_path):
    (tmp_path / "raw" / "20000101T000000Z-aaaa").mkdir(parents=True)
    (tmp_path / "raw" / "20000101T000000Z-aaaa" / "manifest.json").write_text("{}")
    done = bench("--resume", "nope", "--results-dir", str(tmp_path), timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no run 'nope'" in done.stderr


@pytest.mark.parametrize(
    "args, words",
    [
        (["--strategies", "assign,nope"], "unknown strategy 'nope' (valid: assign,"),
        (["--modes", "graph,eager"], "unknown mode 'eager' (valid: graph, pynative"),
        (["--batch-sizes", "0,8"], "must be positive: '0'"),
        (["--batch-sizes", "1.5"], "not a whole number: '1.5'"),
        (["--batch-sizes", ""], "empty item"),
        (["--strategies", "assign,,host"], "empty item"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["--timeout", "-1"], "must be positive"),
        (["--strategies-dir", "/nonexistent"], "does not exist"),
        (["--resume"], "nothing to resume"),
        (["--workload", "bn"], "unknown workload 'bn' (valid: clip, brn)"),
    ],
)
def test_bad_arguments_fail_in_one_line_before_any_work(tmp_path, args, words):
    done = bench(*args, "--results-dir", str(tmp_path / "results"), timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("bench: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert words in done.stderr
    assert not (tmp_path / "results" / "raw").exists() or not any(
        (tmp_path / "results" / "raw").iterdir()
    )


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
        "--strategies", "assign", "--modes", "graph", *TINY, "--batch-sizes", "2",
        "--results-dir", "results", "--gate-only", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert len(list((tmp_path / "results" / "raw").glob("*/gate-assign-graph.json"))) == 1


def test_list_shows_strategies_and_modes():
    done = bench("--list", timeout=60)
    assert done.returncode == 0
    assert "strategy  assign" in done.stdout and "mode      graph" in done.stdout


def test_worker_json_is_data_only(tmp_path):
    """The report reads results with json only; a results folder cannot run code."""
    src = (
        (ROOT / "bench" / "report.py").read_text()
        if (ROOT / "bench" / "report.py").exists()
        else ""
    )
    for forbidden in ("pickle", "eval(", "exec(", "yaml.load("):
        assert forbidden not in src
    assert os.path.exists(ROOT / "bench" / "runner.py")


@pytest.mark.mindspore
def test_brn_workload_end_to_end(ms, tmp_path):
    done = bench(
        "--workload", "brn", "--strategies", "assign,host", "--modes", "graph", *TINY,
        "--results-dir", str(tmp_path),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    run = only_run(tmp_path)
    assert load(run, "manifest")["plan"]["workload"] == "brn"
    host = load(run, "gate-host-graph")["suite"]["verdict"]
    assert host["status"] == "inexpressible" and "WORKLOADS = ('clip',)" in host["detail"]
    data = load(run, "time-assign-graph-p0")
    assert data["suite"]["workload"] == "brn"
    for entry in data["benchmarks"]:
        info = entry["extra_info"]
        assert info["workload"] == "brn" and info["final_state_ok"] is True
        assert info["final_state"]["step"] == [info["steps_run"]]

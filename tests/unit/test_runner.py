"""The runner end to end with the fake worker, no MindSpore (a stand-in ``mindspore`` package is
first on the path): every exit code of ``python -m bench``, the exit-1 causes told apart, and an
interrupt then ``--resume`` through a file handshake (no sleep races the signal)."""

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
from tests.conftest import FIXTURES

FAKE = FIXTURES / "fake_worker.py"
STRATEGIES = FIXTURES / "e2e_strategies"
SHAPE = "inline-param-after-expr"


def env(tmp_path) -> dict:
    (tmp_path / "shake").mkdir(exist_ok=True)
    path = os.pathsep.join([str(FIXTURES / "no_mindspore"), str(ROOT)])
    return {
        **os.environ,
        "PYTHONPATH": path,
        "BENCH_WORKER": str(FAKE),
        "BENCH_FAKE_HANDSHAKE": str(tmp_path / "shake"),
    }


def args(tmp_path, strategies: str, *more: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "bench",
        "--strategies-dir",
        str(STRATEGIES),
        "--strategies",
        strategies,
        "--modes",
        "pynative",
        "--shapes",
        SHAPE,
        "--gate-only",
        "--results-dir",
        str(tmp_path / "results"),
        "--expected-dir",
        str(tmp_path / "expected"),
        *more,
    ]


def bench(tmp_path, strategies: str, *more: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        args(tmp_path, strategies, *more),
        cwd=ROOT,
        env=env(tmp_path),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


def runs(tmp_path) -> list[Path]:
    return sorted((tmp_path / "results" / "raw").glob("*/manifest.json"))


def test_the_stand_in_keeps_mindspore_out(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", "import mindspore; print(mindspore.STUB)"],
        env=env(tmp_path),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.strip() == "True", done.stderr


def test_exit_0_when_every_verdict_is_as_recorded(tmp_path):
    done = bench(tmp_path, "good")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "good" in done.stdout and "pynative 1/1" in done.stdout
    assert "exit 1" not in done.stdout


def test_exit_1_for_a_failure_nobody_recorded_until_it_is_recorded(tmp_path):
    first = bench(tmp_path, "good,wrong")
    assert first.returncode == 1, first.stdout[-2000:] + first.stderr[-2000:]
    assert f"wrong/{SHAPE} pynative: incorrect: write dropped; no line" in first.stdout
    assert first.stdout.rstrip().endswith("exit 1: 1 verdict(s) not as recorded")
    assert bench(tmp_path, "good,wrong", "--record").returncode == 0
    again = bench(tmp_path, "good,wrong")
    assert again.returncode == 0, again.stdout[-2000:]


def test_exit_1_for_a_refused_file_says_so(tmp_path):
    done = bench(tmp_path, "good,refused")
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert "REFUSED refused: module does not define DESCRIPTION" in done.stdout
    assert done.stdout.rstrip().endswith("exit 1: 1 strategy file(s) refused")


def test_exit_2_for_a_bad_argument_before_any_work(tmp_path):
    done = bench(tmp_path, "good,nope")
    assert done.returncode == 2 and "unknown strategy 'nope'" in done.stderr
    assert runs(tmp_path) == []


@pytest.mark.posix
def test_exit_1_for_a_timing_process_that_crashes_and_the_rest_is_kept(tmp_path):
    """Both strategies work in the gate; `timecrash` kills its timing process every time. The
    race goes on without it, its cells are recorded as crashed, and the run exits 1."""
    cmd = [a for a in args(tmp_path, "good,timecrash", "--no-report", "--batch-sizes", "1,8")
           if a != "--gate-only"]  # fmt: skip
    done = subprocess.run(cmd, cwd=ROOT, env=env(tmp_path), capture_output=True, text=True,
                          timeout=240, check=False)  # fmt: skip
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.rstrip().endswith("timing crash(es)"), done.stdout[-2000:]
    assert "timing: timecrash" in done.stdout and "crashed" in done.stdout
    timing = sorted((runs(tmp_path)[0].parent / "timing").glob("*.json"))
    kept = [json.loads(p.read_text()) for p in timing if not p.name.endswith(".failed.json")]
    cells = [c for data in kept for c in data["suite"]["cells"]]
    assert cells and all(c["status"] == "works" for c in cells)  # the race without it finished


def test_exit_3_when_the_harness_breaks(tmp_path):
    done = bench(tmp_path, "broken")
    assert done.returncode == 3, done.stdout[-2000:] + done.stderr[-2000:]
    assert "bench: internal error" in done.stderr and "harness broke" in done.stderr


@pytest.mark.posix
def test_exit_130_on_interrupt_then_resume_finishes_the_same_run(tmp_path):
    shake = tmp_path / "shake"
    proc = subprocess.Popen(
        args(tmp_path, "good,wait"),
        cwd=ROOT,
        env=env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 180
    while not (shake / "started").exists():  # the worker is inside the item: interrupt now
        if proc.poll() is not None or time.monotonic() > deadline:
            out, err = proc.communicate()
            pytest.fail(f"the worker never reached the item: {out[-1500:]} {err[-1500:]}")
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, out[-2000:] + err[-2000:]
    (manifest,) = runs(tmp_path)
    run = manifest.parent
    assert json.loads(manifest.read_text())["status"] == "interrupted"
    assert f"--resume {run.name}" in err
    (shake / "go").touch()  # the resumed worker may finish the item
    resumed = bench(tmp_path, "good,wait", "--resume", run.name)
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
    assert runs(tmp_path) == [manifest]  # the same run folder, finished in place
    assert json.loads(manifest.read_text())["status"] == "complete"
    lines = [
        json.loads(line)
        for path in sorted((run / "gate").glob("pynative.*.jsonl"))
        for line in path.read_text().splitlines()
    ]
    assert sorted(v["strategy"] for v in lines if v["shape"] == SHAPE) == ["good", "wait"]


BUDGETED = (
    "import sys\n"
    "from bench import cli\n"
    "from bench.core import args\n"
    "args.MIN_BUDGET_MINUTES = 0.0  # a test's budget: shorter than one real round\n"
    "sys.exit(cli.main(sys.argv[1:]))\n"
)


def _timed_run(tmp_path, budget_minutes: str) -> tuple[subprocess.CompletedProcess, dict]:
    cmd = [a for a in args(tmp_path, "good", "--no-report", "--batch-sizes", "1,8")
           if a != "--gate-only"]  # fmt: skip
    cmd = [sys.executable, "-c", BUDGETED, *cmd[3:], "--budget", budget_minutes]
    done = subprocess.run(cmd, cwd=ROOT, env=env(tmp_path), capture_output=True, text=True,
                          timeout=240, check=False)  # fmt: skip
    (manifest,) = runs(tmp_path)
    return done, json.loads(manifest.read_text())


@pytest.mark.posix
def test_a_budget_spent_before_the_timing_times_nothing_and_the_run_says_so(tmp_path):
    """A deadline already past when the timing starts: no race is timed, the run still ends
    complete (its gate verdicts kept), and the manifest records what the budget cut."""
    done, manifest = _timed_run(tmp_path, "0.00001")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert manifest["status"] == "complete" and manifest["budget"]["reached"] is True
    budget = manifest["budget"]
    assert budget["races"] == 2 and budget["untimed"] == 2 and budget["short"] == 0
    assert "the --budget ended the timing: 2 of 2 races not timed" in done.stdout
    assert not list((runs(tmp_path)[0].parent / "timing").glob("*-p*.json"))
    from dataclasses import replace

    from bench.decide.provenance import lacks, why_not_pinnable
    from bench.run.plan import Plan

    plan = replace(Plan.from_dict(manifest["plan"]), shapes=None)  # lacks nothing but time
    assert "its --budget ended the timing: 2 of 2 races not timed" in "; ".join(
        lacks(plan, "complete", plan, budget=budget)
    )
    assert why_not_pinnable(plan, "complete", plan, budget)
    assert why_not_pinnable(plan, "complete", plan, {**budget, "reached": False}) is None


@pytest.mark.posix
def test_a_budget_that_lasts_times_everything(tmp_path):
    done, manifest = _timed_run(tmp_path, "30")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    budget = manifest["budget"]
    assert budget == {"races": 2, "untimed": 0, "short": 0, "processes": 2, "reached": False}
    # the folders the command named are not recorded: no path of this machine in a run
    assert "DIR" in manifest["argv"] and str(tmp_path) not in json.dumps(manifest)
    assert "--budget ended" not in done.stdout

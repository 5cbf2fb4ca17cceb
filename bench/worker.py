"""One worker process: gate one strategy × mode, or time it with pytest-benchmark.

``python -m bench.worker JOB_JSON``. MindSpore's context is process-global and a strategy may
crash its process, so the runner starts one of these per job and reads the JSON it writes.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import sys
from pathlib import Path

from bench import discovery, gate, modes
from bench.jobs import Job, write_json_atomic

SUITE = Path(__file__).with_name("timing_suite.py")
ROOT = SUITE.parent.parent


class _Plugin:
    """Hands the job to timing_suite.py and records each test's outcome."""

    def __init__(self, job, strategy, mode):
        self.job, self.strategy, self.mode = job, strategy, mode
        self.cells: dict[int, dict] = {}

    def pytest_configure(self, config):
        config._bench_job = self.job
        config._bench_strategy = self.strategy
        config._bench_mode = self.mode

    def pytest_runtest_logreport(self, report):
        match = re.search(r"\[N(\d+)\]", report.nodeid)
        if not match or (report.when != "call" and not report.failed):
            return
        n = int(match.group(1))
        if report.passed:
            self.cells[n] = {"batch_size": n, "status": "works", "detail": ""}
            return
        message = getattr(report.longrepr, "reprcrash", None)
        message = message.message if message else str(report.longrepr).splitlines()[-1]
        status = "incorrect" if "timed steps the state is" in message else "broken"
        self.cells[n] = {"batch_size": n, "status": status, "detail": message.splitlines()[0]}


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def run(job: Job) -> dict:
    from bench.measure import environment, pin_threads

    threads = pin_threads(job.threads)
    suite = {
        "kind": job.kind,
        "run_id": job.run_id,
        "strategy": job.strategy,
        "mode": job.mode,
        "process": job.process,
        "workload": job.workload,
        "job": json.loads(job.to_json()),
        "threads": threads,
        "environment": environment(),
        "started": _now(),
    }
    mode = modes.get(job.mode)
    try:
        strategy = discovery.load(job.strategy, Path(job.strategies_dir))
    except discovery.StrategyLoadError as err:
        verdict = gate.Verdict(job.strategy, job.mode, "broken", f"failed to load: {err.reason}")
        return {"suite": {**suite, "verdict": verdict.as_dict(), "finished": _now()}}
    suite.update(description=strategy.description, layout=strategy.layout, control=strategy.control)

    if job.kind == "gate":
        verdict = gate.check(
            strategy, mode, job.gate_batch_sizes, job.gate_steps, job.seed, job.workload
        )
        return {"suite": {**suite, "verdict": verdict.as_dict(), "finished": _now()}}

    import pytest

    mode.activate()
    # pytest-benchmark's own file goes next to the logs: only finished results stand in the run
    raw = Path(job.out).parent / "logs" / Path(job.out).with_suffix(".pytest.json").name
    raw.parent.mkdir(parents=True, exist_ok=True)
    plugin = _Plugin(job, strategy, mode)
    args = [
        str(SUITE),
        "-q",
        "-s",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        f"--rootdir={SUITE.parent}",
        f"--benchmark-json={raw}",
        "--benchmark-save-data",
        "--benchmark-disable-gc",
        "--benchmark-timer=time.perf_counter",
        "--benchmark-sort=name",
    ]
    here = os.getcwd()
    os.chdir(ROOT)  # pytest-benchmark reads the git commit from the working folder
    try:
        exit_code = pytest.main(args, plugins=[plugin])
    finally:
        os.chdir(here)
    data = {"benchmarks": []}
    if raw.is_file():
        data = json.loads(raw.read_text())
        raw.unlink()
    cells = [
        plugin.cells.get(n, {"batch_size": n, "status": "broken", "detail": "no test outcome"})
        for n in job.batch_sizes
    ]
    data["suite"] = {
        **suite,
        "cells": cells,
        "pytest_exit_code": int(exit_code),
        "finished": _now(),
    }
    return data


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m bench.worker JOB_JSON", file=sys.stderr)
        return 2
    job = Job.from_json(argv[0])
    write_json_atomic(job.out, run(job))
    return 0


if __name__ == "__main__":
    sys.exit(main())

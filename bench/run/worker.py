"""One worker process: gate, prepare (calibrate + screen) or time the items of one job, one mode.

``python -m bench.run.worker JOB_FILE``. MindSpore's context is process-global and some code
shapes crash MindSpore, so the runner starts one of these per job and mode. Before each item the
worker prints a ``start`` event and after it a result event (``bench.core.schema.event_line``):
when the process dies, the runner knows which item killed it, records that one as crashed and
starts a new process for the rest. Results are written as they finish (a gate verdict or a timed
cell: one fsync'd line each, ``bench.core.rundir.Checkpoint``) or once at the end (prepare, and
the timing file a finished process writes), always atomically.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from bench.core.io import write_json_atomic
from bench.core.paths import ROOT
from bench.core.rundir import CellId, Checkpoint, k_key, now, partial_path
from bench.core.schema import SCHEMA_VERSION, Status, event_line
from bench.measured import modes, workloads
from bench.measured.oracle import first_line
from bench.measured.shapes.codegen import load_variant
from bench.run import forked, gate, pairing
from bench.run.plan import Job

SUITE = Path(__file__).with_name("timing_suite.py")


def _emit(event: str, **data) -> None:
    print(event_line(event, **data), flush=True)


class Context:
    """What the items of one process share: loaded variants, reusable twins, the checkpoint."""

    def __init__(self, job: Job, checkpoint: Checkpoint | None = None, meter=None):
        self.job = job
        self.checkpoint, self.meter = checkpoint, meter
        self.workload = workloads.get(job.workload)
        self.mode = modes.get(job.mode)
        self._classes: dict[str, type] = {}
        self._controls: dict[tuple[str, int], pairing.Stepper] = {}
        self._k: dict[tuple[str, int], int] = {}

    def variant(self, path: str, fresh: bool = False) -> type:
        """The class of the variant file at ``path``, loaded once; ``fresh``: loaded again as a
        class of its own (the same code, another class object)."""
        if fresh:
            return load_variant(path, fresh=True)
        if path not in self._classes:
            self._classes[path] = load_variant(path)
        return self._classes[path]

    def control(self, item, x) -> tuple[pairing.Stepper, float]:
        """The twin of ``item`` at its size: compiled once per process, reused (an A/A cell gets
        a twin instance of its own, as its subject is that twin too)."""
        key = (item.control_path, item.batch_size)
        if key in self._controls and item.role != "aa":
            return self._controls[key], math.nan
        stepper = pairing.Stepper(
            self.workload, self.variant(item.control_path), self.mode, x, item.batch_size
        )
        stepper.warm_up(self.job.precision.warmup_seconds)
        if item.role != "aa":
            self._controls[key] = stepper
        return stepper, stepper.first_call_s

    def k(self, item, control: pairing.Stepper) -> int:
        """Steps per block for a twin at a size: the smallest power of two whose block of the
        twin lasts ``block_seconds`` (once per process; later processes reuse the first's)."""
        key = (item.control, item.batch_size)
        if key not in self._k:
            self._k[key], _ = pairing.calibrate(
                control, self.job.precision.block_seconds, self.mode.min_steps
            )
        return self._k[key]

    def calibrated(self) -> dict[tuple[str, int], int]:
        """{(twin, size): k} of the twins calibrated in this process."""
        return dict(self._k)

    def finished(self, cell: dict, benchmark: dict | None = None) -> None:
        """A cell's status (and timing record): into the checkpoint before anything else runs."""
        if self.checkpoint is not None:
            line = {"cell": cell, "at": now(), "load": self.meter.read() if self.meter else None}
            self.checkpoint.write(**line, **({"benchmark": benchmark} if benchmark else {}))

    def finished_race(self, cell: dict, timings) -> None:
        """A race: each member's record and status (a cell of its own), then the race's."""
        if self.checkpoint is not None:
            for t in timings:
                record = {"name": f"{cell['test']}::{t.strategy}@{t.shape}/{t.role}",
                          "extra_info": t.to_dict()}  # fmt: skip
                self.checkpoint.write(benchmark=record, race=True)
        for t in timings:
            if t.role == "update":
                test = CellId(t.strategy, t.shape, t.mode, t.batch_size).test_id
                ok = Status.WORKS.value if t.final_state_ok else Status.INCORRECT.value
                detail = (
                    ""
                    if t.final_state_ok
                    else (
                        f"after {t.steps_run} timed steps the state is {t.final_state}, the code "
                        f"writes {t.expected_final_state}"
                    )
                )
                self.finished({"test": test, "status": ok, "detail": detail, "race": cell["test"]})
        self.finished(cell)

    def warm_process(self) -> None:
        """One untimed step of a twin: one-time start-up is not charged to the first cell. Not
        where a later instance of a class can run the first one's graph (``race_per_process``:
        under bytecode capture the race's own instance of that twin would then run the warm-up
        instance's graph, at the gate's size: the EMA twin stayed flat over 1000× the state)."""
        import mindspore as ms

        if self.mode.race_per_process:
            return
        item = self.job.items[0]
        path = item.control_path or item.path  # a race's is its base twin
        size = self.workload.gate_schedule[0][0]
        x = tuple(ms.Tensor(a) for a in self.workload.make_inputs(size, self.job.seed, True))
        pairing.Stepper(self.workload, self.variant(path), self.mode, x, size).timed_block(2)


# -- gate -------------------------------------------------------------------------------------
def _set_up(job: Job) -> dict:
    """What a worker does before anything runs (process-global): threads pinned, mode selected."""
    from bench.run.machine import pin_threads

    threads = pin_threads(job.threads)
    modes.get(job.mode).activate()  # process-global: before any cell is built
    return threads


class GateWork:
    """The gate of one item, in the child that runs it (``bench.run.forked``), and the verdict of
    an item whose child died, in the worker. Picklable: a spawned child gets the job and sets its
    process up as the worker did (a forked one inherits the worker's)."""

    def __init__(self, job: Job):
        self.job = job
        self._context: Context | None = None
        self._lines: Checkpoint | None = None

    def __getstate__(self) -> dict:
        return {"job": self.job}

    def __setstate__(self, state: dict) -> None:  # in a spawned child
        self.__init__(state["job"])
        _set_up(self.job)

    @property
    def context(self) -> Context:
        if self._context is None:
            self._context = Context(self.job)
        return self._context

    def record(self, item, status, detail="", found=None, seconds=0.0, diagnostics=None) -> None:
        job = self.job
        v = gate.verdict(
            item,
            job.workload,
            job.mode,
            status,
            detail,
            found,
            diagnostics=diagnostics,
            replica=job.process,
            seconds=round(seconds, 3),
            cache_key=item.key_hash,
        )
        if self._lines is None:  # each process appends to the gate file (one line a verdict)
            self._lines = Checkpoint(Path(job.out))
        self._lines.write(**v.to_dict())
        _emit("verdict", key=item.key, status=str(v.status), detail=v.detail, seconds=seconds)

    def __call__(self, item) -> None:
        _emit("start", key=item.key)
        start = time.monotonic()
        context = self.context
        try:
            cls = context.variant(item.path)
        except Exception as exc:  # the generated file of a broken strategy
            detail = f"the variant failed to load: {first_line(exc)}"
            self.record(item, Status.BROKEN, detail, seconds=time.monotonic() - start)
            return
        found = gate.check(cls, context.workload, context.mode, item, self.job.seed,
                           self.job.process)  # fmt: skip
        self.record(item, found.status, found=found, seconds=time.monotonic() - start)

    def failed(self, item, status, detail, where="", stack="") -> None:
        died = f"the gate's process {detail}"
        # a later instance or the network crashed it: the first instance had worked
        self.record(item, status, f"{where} (the first works): {died}" if where else died,
                    diagnostics={"traceback": stack} if stack else None)  # fmt: skip

    def close(self) -> None:
        if self._lines is not None:
            self._lines.close()


def run_gate(job: Job) -> None:
    """Every item in child processes (``bench.run.forked``): a crash costs only its item."""
    work = GateWork(job)
    work._lines = Checkpoint(Path(job.out))  # the gate file exists even when no item finishes
    alone = modes.get(job.mode).capture_mode == "bytecode"  # where history changes verdicts
    try:
        forked.run_isolated(job.items, work, job.timeout * 0.8, work.failed, alone=alone)
    finally:
        work.close()


# -- prepare: calibrate k per twin and size, then screen the ways of reading the state ---------
def run_prepare(job: Job) -> dict:
    import mindspore as ms

    context = Context(job)
    context.warm_process()
    screen = []
    for item in job.items:
        _emit("start", key=item.key)
        x = tuple(ms.Tensor(a) for a in context.workload.make_inputs(item.batch_size, job.seed))
        control, _ = context.control(item, x)
        k = context.k(item, control)  # calibrated here when the calibration item is not in this
        # job (a retry of one screen item alone, after a crash)
        if item.role == "calibrate":
            _emit("calibrated", key=item.key, k=k)
            continue
        try:
            row = _screen(context, item, control, k, x)
        except Exception as exc:  # the harness could not time this shape: the others still are
            detail = first_line(exc)
            screen.append({**_screen_key(item), "k": k, "ratios": [], "error": detail})
            _emit("screen_failed", key=item.key, detail=detail)
            continue
        screen.append(row)
        _emit("screened", key=item.key, ratio=float(np.median(row["ratios"])))
    k_table = {k_key(control, size): k for (control, size), k in context.calibrated().items()}
    return {"kind": "prepare", "mode": job.mode, "k": k_table, "screen": screen}


def _screen_key(item) -> dict:
    return {"strategy": item.strategy, "shape": item.shape, "layout": item.layout,
            "batch_size": item.batch_size, "control": item.control}  # fmt: skip


def _screen(context, item, control, k: int, x) -> dict:
    """One shape screened against the base twin: a few ABBA rounds of per-step ratios. The
    subject's blocks are shorter than the twin's when one of its steps is slow (``subject_k``:
    still at least ``block_seconds``, and the mode's ``min_steps`` unless such a block would last
    more than ``max_block_seconds``), so a host-side update does not spend seconds a block on a
    choice between its own shapes."""
    precision = context.job.precision
    subject = pairing.Stepper(
        context.workload, context.variant(item.path), context.mode, x, item.batch_size
    )
    subject.warm_up(precision.warmup_seconds)
    subject_k = pairing.shorter(
        k, subject, precision.block_seconds, context.mode.min_steps, precision.max_block_seconds
    )
    round_s = subject.timed_block(subject_k) + control.timed_block(k)
    rounds = pairing.rounds_for(precision.screen_seconds, round_s, 4, 12)
    pair = pairing.Pair(subject, control, k, pairing.abba(rounds), subject_k=subject_k)
    with pairing.gc_off():
        step_s = pair.run_own_clock()
    return {
        **_screen_key(item),
        "k": k,
        "subject_k": subject_k,
        "step_s": step_s,
        "control_s": pair.control_s,
        "ratios": [s / c for s, c in zip(step_s, pair.control_s)],
        "first_call_s": subject.first_call_s,
    }


# -- time: pytest-benchmark over the job's cells ----------------------------------------------
class _Plugin:
    """Hands the context to timing_suite.py and records a cell that raised."""

    def __init__(self, context: Context):
        self.context = context

    def pytest_configure(self, config):
        config._bench_context = self.context

    def pytest_benchmark_update_json(self, config, benchmarks, output_json):
        from bench.core.portable import plain_params

        # params as plain dicts, paths relative to the repository, or to the results folder of
        # a run kept outside it (<results>/raw/<run>/timing/<file>)
        results = Path(self.context.job.out).resolve().parents[3]
        plain_params(output_json, (ROOT, results))

    def pytest_runtest_logreport(self, report):
        if report.when != "call" or report.passed:
            return
        cell = report.nodeid.split("[", 1)[-1].rstrip("]")
        if getattr(report, "_bench_recorded", False):
            return
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message if crash else str(report.longrepr).splitlines()[-1]
        if "timed steps the state is" in message or "race member's state is wrong" in message:
            return  # the cell recorded itself as incorrect (timing_suite)
        detail = message.splitlines()[0] if message else "raised"
        self.context.finished({"test": cell, "status": Status.RAISES.value, "detail": detail})


def run_time(job: Job, checkpoint: Checkpoint, meter=None) -> dict:
    import pytest

    context = Context(job, checkpoint, meter)
    context.warm_process()
    raw = Path(job.out).with_suffix(".pytest.json")
    raw.parent.mkdir(parents=True, exist_ok=True)
    args = [
        str(SUITE),
        "-q",
        "-s",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "-o",
        "addopts=",
        f"--rootdir={SUITE.parent}",
        f"--benchmark-json={raw}",
        "--benchmark-save-data",
        "--benchmark-disable-gc",
        "--benchmark-timer=time.perf_counter",
        "--benchmark-sort=name",
        "--benchmark-columns=min,median,iqr,rounds,iterations",
    ]
    args += ["-p", "no:xdist"]  # the timing suite runs in this one process, never spread out
    for name in [n for n in os.environ if n.startswith("PYTEST_XDIST") or n == "PYTEST_ADDOPTS"]:
        # a run started under pytest-xdist (the suite's own tests with -n 2) is not an xdist
        # worker: pytest-benchmark would silently disable itself and run each race once
        del os.environ[name]
    here = os.getcwd()
    os.chdir(ROOT)  # pytest-benchmark reads the git commit from the working folder
    try:
        exit_code = pytest.main(args, plugins=[_Plugin(context)])
    finally:
        os.chdir(here)
    data = {"benchmarks": []}
    if raw.is_file():
        import json

        data = json.loads(raw.read_text(encoding="utf-8"))
        raw.unlink()
    lines = _lines(checkpoint.path)
    cells = [line["cell"] for line in lines if "cell" in line]
    data["benchmarks"] += [line["benchmark"] for line in lines if line.get("race")]
    data["suite"] = {"cells": cells, "pytest_exit_code": int(exit_code)}
    return data


def _lines(path: Path) -> list[dict]:
    from bench.core.rundir import read_lines

    return read_lines(path, []) if Path(path).is_file() else []


def _context() -> dict:
    """MindSpore's execution context as this process ran (checked by the tests)."""
    import mindspore as ms

    mode = ms.get_context("mode")
    return {
        "mode": {ms.GRAPH_MODE: "GRAPH_MODE", ms.PYNATIVE_MODE: "PYNATIVE_MODE"}.get(mode, mode)
    }


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m bench.run.worker JOB_FILE", file=sys.stderr)
        return 2
    job = Job.read(Path(argv[0]))
    from bench.run.machine import LoadMeter, environment

    meter = LoadMeter()
    threads = _set_up(job)
    started = now()
    if job.kind == "gate":
        try:
            run_gate(job)
        except forked.HarnessError as err:
            print(f"bench: {err}", file=sys.stderr)
            return forked.HARNESS_ERROR
        return 0
    header = {
        "schema_version": SCHEMA_VERSION,
        "kind": job.kind,
        "run_id": job.run_id,
        "workload": job.workload,
        "mode": job.mode,
        "process": job.process,
        "stage": job.stage,
        "threads": threads,
        "environment": environment(),
        "started": started,
        "context": _context(),
    }
    if job.kind == "prepare":
        data = run_prepare(job)
        checkpoint = None
    else:
        checkpoint = Checkpoint(partial_path(job.out), mode="w")
        checkpoint.write(suite=header)
        data = run_time(job, checkpoint, meter)
    data["suite"] = {**data.get("suite", {}), **header, "finished": now(), "load": meter.read()}
    write_json_atomic(job.out, data)
    if checkpoint is not None:
        checkpoint.remove()
    broken = pytest_failed(data["suite"].get("pytest_exit_code"))
    if broken:  # the finished cells are kept; the run fails as the harness's own failure
        print(f"bench: the timing suite {broken} ({job.out})", file=sys.stderr)
        return forked.HARNESS_ERROR
    return 0


PYTEST_BROKEN = {  # pytest's exit codes that say the suite itself did not run (not a cell)
    2: "was interrupted",
    3: "failed inside pytest (an internal error)",
    4: "was called wrongly (a usage error)",
    5: "collected no cell",
}


def pytest_failed(code) -> str:
    """Why a timing process's pytest run is the harness's failure, "" when it is not: 0 every
    cell passed, 1 some cell failed (recorded per cell); 2-5 the suite did not run as planned."""
    return PYTEST_BROKEN.get(code, "") if code is not None else ""


if __name__ == "__main__":
    import importlib

    # run under the module's own name: a spawned child unpickles GateWork from there
    sys.exit(importlib.import_module("bench.run.worker").main())

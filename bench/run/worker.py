"""One worker process: gate, prepare (calibrate + screen) or time the items of one job, one mode.

``python -m bench.run.worker JOB_FILE``. MindSpore's context is process-global and some code
shapes crash MindSpore, so the runner starts one of these per job and mode. Before each item the
worker prints a ``start`` event and after it a result event (``bench.core.schema.event_line``):
when the process dies, the runner knows which item killed it, records that one as crashed and
starts a new process for the rest. Results are written as they finish (gate verdicts one file
each; timed cells one line each in a checkpoint, see ``Checkpoint``) or once at the end (prepare,
and the timing file a finished process writes), always atomically.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

from bench.core.io import write_json_atomic
from bench.core.paths import ROOT
from bench.core.schema import SCHEMA_VERSION, Status, event_line
from bench.measured import modes, shapes, workloads
from bench.run import forked, gate, pairing
from bench.run.plan import Job

SUITE = Path(__file__).with_name("timing_suite.py")


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def _emit(event: str, **data) -> None:
    print(event_line(event, **data), flush=True)


def partial_path(out: str | Path) -> Path:
    return Path(out).with_suffix(".partial.jsonl")


class Checkpoint:
    """A timing process's finished cells, one JSON line each, flushed and fsync'd as they finish.

    The first line is the file's ``suite`` header; then one line per cell: its pytest-benchmark
    record (exactly what ``--benchmark-json`` would hold for it) and its status. A process that
    ends normally writes its timing file and removes the checkpoint; if it dies (crash, timeout,
    Ctrl-C), ``salvage`` turns the checkpoint into that file, so only unfinished cells are lost.
    """

    def __init__(self, out: str | Path, header: dict):
        self.path = partial_path(out)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, "w")  # open for the process's life
        self.write(suite=header)

    def write(self, **line) -> None:
        self._file.write(json.dumps(line, default=str) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def remove(self) -> None:
        self._file.close()
        self.path.unlink(missing_ok=True)


def salvage(out: str | Path, ended: dict) -> set[str]:
    """Write the timing file of a process that died from its checkpoint; the tests it holds.

    ``ended`` says how the process ended (``status``, ``detail``; stored as ``suite.ended``).
    Never overwrites a file; removes the checkpoint.
    """
    partial = partial_path(out)
    if not partial.is_file():
        return set()
    suite, benchmarks, cells = {}, [], []
    for line in partial.read_text(errors="replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # the line the process was writing when it died
        suite = record.get("suite", suite)
        if "benchmark" in record:
            benchmarks.append(record["benchmark"])
        if "cell" in record:
            cells.append(record["cell"])
            suite["finished"], suite["load"] = record.get("at"), record.get("load")
    target, written = Path(out), False
    if suite and not target.exists():  # even with no cell: the file says how the process ended
        suite.update(cells=cells, pytest_exit_code=None, ended=ended)
        write_json_atomic(target, {"benchmarks": benchmarks, "suite": suite})
        written = True
    partial.unlink()
    return {c["test"] for c in cells} if written else set()


class Context:
    """What the timing tests share within one process: loaded variants, reusable controls."""

    def __init__(self, job: Job, checkpoint: Checkpoint | None = None, meter=None):
        self.job = job
        self.checkpoint, self.meter = checkpoint, meter
        self.workload = workloads.get(job.workload)
        self.mode = modes.get(job.mode)
        self._classes: dict[str, type] = {}
        self._controls: dict[tuple[str, int], pairing.Stepper] = {}

    def variant(self, path: str) -> type:
        if path not in self._classes:
            self._classes[path] = shapes.load_variant(path)
        return self._classes[path]

    def control(self, item, x) -> tuple[pairing.Stepper, float]:
        """The control cell of ``item`` at its batch size: compiled once per process, reused."""
        key = (item.control_path, item.batch_size)
        if key in self._controls:
            return self._controls[key], math.nan
        stepper = pairing.Stepper(
            self.workload, self.variant(item.control_path), self.mode, x, item.batch_size
        )
        stepper.warm_up(self.job.precision.warmup_seconds)
        self._controls[key] = stepper
        return stepper, stepper.first_call_s

    def finished(self, cell: dict, benchmark: dict | None = None) -> None:
        """A cell's status (and timing record): into the checkpoint before anything else runs."""
        if self.checkpoint is not None:
            line = {"cell": cell, "at": _now(), "load": self.meter.read() if self.meter else None}
            self.checkpoint.write(**line, **({"benchmark": benchmark} if benchmark else {}))

    def warm_process(self) -> None:
        """One untimed step of a control: one-time start-up is not charged to the first cell."""
        import mindspore as ms

        item = self.job.items[0]
        path = item.control_path or item.path
        size = self.workload.gate_schedule[0][0]
        x = tuple(ms.Tensor(a) for a in self.workload.make_inputs(size, self.job.seed, True))
        pairing.Stepper(self.workload, self.variant(path), self.mode, x, size).timed_block(2)


# -- gate -------------------------------------------------------------------------------------
def run_gate(job: Job) -> None:
    """Every item in forked children (``bench.run.forked``): a crash costs only its item."""
    context = Context(job)  # the mode is active (main): each forked child inherits it
    out = Path(job.out)

    def record(item, status, detail, seconds) -> None:
        verdict = gate.verdict(item, job.workload, job.mode, status, detail, seconds)
        write_json_atomic(
            out / f"{item.strategy}--{item.shape}--{job.mode}.json", verdict.to_dict()
        )
        _emit("verdict", key=item.key, status=str(status), detail=detail, seconds=seconds)

    def work(item) -> None:
        _emit("start", key=item.key)
        start = time.monotonic()
        try:
            cls = context.variant(item.path)
        except Exception as exc:  # the generated file of a broken strategy
            status, detail = Status.BROKEN, f"the variant failed to load: {gate.first_line(exc)}"
        else:
            status, detail = gate.check(cls, context.workload, context.mode, item.update, job.seed)
        record(item, status, detail, time.monotonic() - start)

    def failed(item, status, detail) -> None:
        record(item, status, f"the gate's process {detail}", 0.0)

    forked.run_isolated(job.items, work, job.timeout * 0.8, failed)


# -- prepare: calibrate k per control and batch size, then screen every shape -----------------
def run_prepare(job: Job) -> dict:
    import mindspore as ms

    context = Context(job)
    context.warm_process()
    precision = job.precision
    k_table, screen = {}, []
    for item in job.items:
        _emit("start", key=item.key)
        x = tuple(ms.Tensor(a) for a in context.workload.make_inputs(item.batch_size, job.seed))
        if item.role == "calibrate":
            control, _ = context.control(item, x)
            k, block = pairing.calibrate(control, precision.block_seconds, context.mode.min_steps)
            k_table[f"{item.control}/N{item.batch_size}"] = k
            _emit("calibrated", key=item.key, k=k, block_s=block)
            continue
        k = k_table[f"{item.control}/N{item.batch_size}"]
        subject = pairing.Stepper(
            context.workload, context.variant(item.path), context.mode, x, item.batch_size
        )
        control, _ = context.control(item, x)
        subject.warm_up(precision.warmup_seconds)
        round_s = subject.timed_block(k) + control.timed_block(k)
        rounds = pairing.rounds_for(precision.screen_seconds, round_s, precision.min_rounds, 12)
        rng = np.random.default_rng([job.seed, item.batch_size, len(screen)])
        pair = pairing.Pair(subject, control, k, pairing.positions(rng, rounds))
        with pairing.gc_off():
            step_s = pair.run_own_clock()
        ratios = [s / c for s, c in zip(step_s, pair.control_s)]
        screen.append(
            {
                "strategy": item.strategy,
                "shape": item.shape,
                "layout": item.layout,
                "batch_size": item.batch_size,
                "control": item.control,
                "k": k,
                "step_s": step_s,
                "control_s": pair.control_s,
                "ratios": ratios,
                "first_call_s": subject.first_call_s,
            }
        )
        _emit("screened", key=item.key, ratio=float(np.median(ratios)))
    return {"kind": "prepare", "mode": job.mode, "k": k_table, "screen": screen}


# -- time: pytest-benchmark over the job's cells ----------------------------------------------
class _Plugin:
    """Hands the context to timing_suite.py and records each test's outcome."""

    def __init__(self, context: Context):
        self.context = context
        self.cells: dict[str, dict] = {}

    def pytest_configure(self, config):
        config._bench_context = self.context

    def pytest_runtest_logreport(self, report):
        if report.when != "call" and not report.failed:
            return
        cell = report.nodeid.split("[", 1)[-1].rstrip("]")
        if report.passed:
            self.cells[cell] = {"test": cell, "status": "works", "detail": ""}
            return
        crash = getattr(report.longrepr, "reprcrash", None)
        message = crash.message if crash else str(report.longrepr).splitlines()[-1]
        status = "incorrect" if "timed steps the state is" in message else "raises"
        self.cells[cell] = {"test": cell, "status": status, "detail": message.splitlines()[0]}
        if status == "raises":  # a timed cell checkpoints itself (timing_suite.test_step)
            self.context.finished(self.cells[cell])


def run_time(job: Job, checkpoint: Checkpoint | None = None, meter=None) -> dict:
    import pytest

    context = Context(job, checkpoint, meter)
    context.warm_process()
    raw = Path(job.out).with_suffix(".pytest.json")
    raw.parent.mkdir(parents=True, exist_ok=True)
    plugin = _Plugin(context)
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
    here = os.getcwd()
    os.chdir(ROOT)  # pytest-benchmark reads the git commit from the working folder
    try:
        exit_code = pytest.main(args, plugins=[plugin])
    finally:
        os.chdir(here)
    data = {"benchmarks": []}
    if raw.is_file():
        import json

        data = json.loads(raw.read_text())
        raw.unlink()
    data["suite"] = {"cells": list(plugin.cells.values()), "pytest_exit_code": int(exit_code)}
    return data


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
    from bench.run.machine import LoadMeter, environment, pin_threads

    meter = LoadMeter()
    threads = pin_threads(job.threads)
    modes.get(job.mode).activate()  # process-global: before any cell is built
    started = _now()
    if job.kind == "gate":
        run_gate(job)
        return 0
    header = {
        "schema_version": SCHEMA_VERSION,
        "kind": job.kind,
        "run_id": job.run_id,
        "workload": job.workload,
        "mode": job.mode,
        "process": job.process,
        "threads": threads,
        "environment": environment(),
        "started": started,
        "context": _context(),
    }
    if job.kind == "prepare":
        data = run_prepare(job)
    else:
        checkpoint = Checkpoint(job.out, header)
        data = run_time(job, checkpoint, meter)
    data["suite"] = {**data.get("suite", {}), **header, "finished": _now(), "load": meter.read()}
    write_json_atomic(job.out, data)
    if job.kind == "time":
        checkpoint.remove()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Run a benchmark: gate every strategy × mode, then time the passing ones, one process per job.

A run lives in ``results/raw/<run-id>/``: ``manifest.json`` (what was asked, and how it ended),
one JSON per worker process, and ``logs/``. Run ids sort by start time, so the newest run is the
last name in the folder. Every JSON is written atomically; a crashed, hung or interrupted worker
costs only its own cells, which are recorded with their status.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import random
import secrets
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from bench.jobs import Job, Precision, write_json_atomic

ROOT = Path(__file__).resolve().parent.parent
CONTROL_OF_LAYOUT = {"scalar": "control_scalar", "vector": "control_vector"}
CELL_PREFIX = "@@cell "


@dataclass
class Plan:
    """Everything a run was asked to do (stored in its manifest, reused by --resume)."""

    strategies: list[str]
    modes: list[str]
    batch_sizes: list[int]
    strategies_dir: str
    precision: Precision
    threads: int = 1
    timeout: float = 900.0
    seed: int = 0
    gate_jobs: int = 2
    gate_steps: int = 30
    gate_batch_sizes: list[int] = field(default_factory=lambda: [4, 1024])
    workload: str = "clip"

    @classmethod
    def from_dict(cls, data: dict) -> Plan:
        return cls(**{**data, "precision": Precision(**data["precision"])})


def new_run_id() -> str:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{now}-{secrets.token_hex(2)}"


def runs(raw_dir: Path) -> list[Path]:
    """Run folders, oldest first."""
    return sorted(p for p in Path(raw_dir).glob("*") if (p / "manifest.json").is_file())


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """Linux: a worker is killed when the runner dies, even by SIGKILL (else it would linger)."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


class Runner:
    def __init__(self, run_dir: Path, plan: Plan, out=print):
        self.run_dir = Path(run_dir)
        self.plan = plan
        self.out = out
        self.live: set[subprocess.Popen] = set()
        self.stopping = False
        self.lock = threading.Lock()
        self.manifest_path = self.run_dir / "manifest.json"

    # -- manifest -------------------------------------------------------------------------
    def write_manifest(self, status: str, argv: list[str], **extra) -> None:
        old = {}
        if self.manifest_path.is_file():
            old = json.loads(self.manifest_path.read_text())
        manifest = {
            "run_id": self.run_dir.name,
            "status": status,
            "plan": asdict(self.plan),
            "command": old.get(
                "command", " ".join(["nox -s bench", *(["--", *argv] if argv else [])])
            ),
            "argv": old.get("argv", argv),
            "started": old.get("started", dt.datetime.now(dt.timezone.utc).isoformat()),
            "invocations": [*old.get("invocations", []), *extra.pop("invocation", [])],
            **{k: v for k, v in old.items() if k not in ("status", "plan")},
            **extra,
        }
        manifest["status"] = status
        write_json_atomic(self.manifest_path, manifest)

    # -- jobs -----------------------------------------------------------------------------
    def job(self, kind: str, strategy: str, mode: str, process: int = 0, **over) -> Job:
        name = f"{kind}-{strategy}-{mode}" + (f"-p{process}" if kind == "time" else "")
        plan = self.plan
        return Job(
            kind=kind,
            strategy=strategy,
            mode=mode,
            out=str(self.run_dir / f"{name}.json"),
            strategies_dir=over.get("strategies_dir", plan.strategies_dir),
            batch_sizes=tuple(plan.batch_sizes),
            process=process,
            threads=plan.threads,
            seed=plan.seed,
            run_id=self.run_dir.name,
            precision=plan.precision,
            gate_steps=plan.gate_steps,
            gate_batch_sizes=tuple(plan.gate_batch_sizes),
            workload=plan.workload,
        )

    @staticmethod
    def done(job: Job) -> bool:
        try:
            json.loads(Path(job.out).read_text())
            return True
        except (OSError, ValueError):
            return False

    def execute(self, job: Job, on_line=None) -> dict:
        """Run one worker; on a crash or timeout write the job's JSON with that status."""
        log_path = self.run_dir / "logs" / (Path(job.out).stem + ".log")
        log_path.parent.mkdir(parents=True, exist_ok=True)
        cmd = [sys.executable, "-m", "bench.worker", job.to_json()]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
        }
        started = time.monotonic()
        if self.stopping:
            raise KeyboardInterrupt
        with open(log_path, "w") as log:
            proc = subprocess.Popen(
                cmd,
                cwd=log_path.parent,
                env=env,
                stdout=subprocess.PIPE,
                stderr=log,
                text=True,
                start_new_session=True,  # Ctrl-C reaches the runner, which ends the worker itself
                # only a prctl call between fork and exec: safe despite the reader threads
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None,  # noqa: PLW1509
            )
            with self.lock:
                self.live.add(proc)
            timer = threading.Timer(self.plan.timeout, proc.kill)
            timer.start()
            try:
                for line in proc.stdout:
                    if line.startswith(CELL_PREFIX) and on_line:
                        on_line(line[len(CELL_PREFIX) :].split())
                    else:
                        log.write(line)
                code = proc.wait()
            finally:
                timer.cancel()
                with self.lock:
                    self.live.discard(proc)
        elapsed = time.monotonic() - started
        if self.stopping:  # killed by stop_all: the cells are missing, not crashed
            raise KeyboardInterrupt
        if self.done(job):
            return json.loads(Path(job.out).read_text())
        if elapsed >= self.plan.timeout:
            status, detail = "timeout", f"no result after {self.plan.timeout:g} s (--timeout)"
        else:
            how = f"died with {_signal_name(code)}" if code < 0 else f"exited with code {code}"
            tail = [ln for ln in log_path.read_text(errors="replace").splitlines() if ln.strip()]
            last = next((ln for ln in reversed(tail) if "WARNING" not in ln), "")
            status, detail = (
                "crashed",
                f"worker {how}" + (f"; last output: {last[:200]}" if last else ""),
            )
        verdict = {"strategy": job.strategy, "mode": job.mode, "status": status, "detail": detail}
        data = {
            "suite": {
                "kind": job.kind,
                "run_id": job.run_id,
                "strategy": job.strategy,
                "mode": job.mode,
                "workload": job.workload,
                "process": job.process,
                "verdict": verdict,
                "cells": [
                    {"batch_size": n, "status": status, "detail": detail} for n in job.batch_sizes
                ]
                if job.kind == "time"
                else [],
            },
            "benchmarks": [],
        }
        write_json_atomic(job.out, data)
        return data

    def stop_all(self) -> None:
        self.stopping = True
        with self.lock:
            for proc in list(self.live):
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    # -- phases ---------------------------------------------------------------------------
    def gate_phase(self) -> dict[tuple[str, str], dict]:
        from bench.discovery import STRATEGIES_DIR

        plan = self.plan
        wanted = [(s, m) for m in plan.modes for s in plan.strategies]
        controls = [
            (c, m) for m in plan.modes for c in CONTROL_OF_LAYOUT.values() if (c, m) not in wanted
        ]
        jobs = [self.job("gate", s, m) for s, m in wanted]
        jobs += [self.job("gate", c, m, strategies_dir=str(STRATEGIES_DIR)) for c, m in controls]
        verdicts: dict[tuple[str, str], dict] = {}
        count = [0]

        def one(job: Job):
            start = time.monotonic()
            resumed = self.done(job)
            data = json.loads(Path(job.out).read_text()) if resumed else self.execute(job)
            suite = data["suite"]
            verdict = suite["verdict"]
            with self.lock:
                verdicts[(job.strategy, job.mode)] = suite
                count[0] += 1
                note = "kept from before" if resumed else f"{time.monotonic() - start:.1f} s"
                self.out(
                    f"gate [{count[0]:>2}/{len(jobs)}] {job.strategy} · {job.mode}: "
                    f"{verdict['status']} ({note}) {verdict['detail'][:100]}"
                )

        pool = ThreadPoolExecutor(max_workers=max(1, plan.gate_jobs))
        try:
            for future in [pool.submit(one, j) for j in jobs]:
                future.result()
        except BaseException:
            self.stop_all()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown()
        return verdicts

    def timed_pairs(self, verdicts) -> list[tuple[str, str]]:
        pairs = []
        for m in self.plan.modes:
            for s in self.plan.strategies:
                suite = verdicts[(s, m)]
                if suite["verdict"]["status"] != "works":
                    continue
                control = verdicts.get((CONTROL_OF_LAYOUT.get(suite.get("layout")), m))
                if control is None or control["verdict"]["status"] != "works":
                    self.out(f"skip {s} · {m}: its control does not pass the gate")
                    continue
                pairs.append((s, m))
        return pairs

    def time_phase(self, pairs) -> None:
        plan = self.plan
        jobs = [
            self.job("time", s, m, p) for s, m in pairs for p in range(plan.precision.processes)
        ]
        random.Random(plan.seed).shuffle(jobs)  # interleave strategies and modes against drift
        total = len(jobs) * len(plan.batch_sizes)
        done = sum(len(plan.batch_sizes) for j in jobs if self.done(j))
        todo = [j for j in jobs if not self.done(j)]
        if done:
            self.out(f"time: {done} of {total} cells kept from before")
        state = {"done": done, "job_start": time.monotonic(), "left": list(todo)}
        took: dict[tuple[str, str], list[float]] = {}  # seconds per finished job, by pair

        def eta() -> float:
            """Remaining jobs, each costed like finished jobs of its pair (else the average)."""
            every = [t for times in took.values() for t in times]
            if not every:
                return float("nan")
            mean = sum(every) / len(every)

            def cost(j):
                times = took.get((j.strategy, j.mode))
                return sum(times) / len(times) if times else mean

            current = state["left"][0]
            running = max(0.0, cost(current) - (time.monotonic() - state["job_start"]))
            return running + sum(cost(j) for j in state["left"][1:])

        def progress(fields):
            name, mode, n, process, step_s, ratio, low, high = fields
            state["done"] += 1
            left = eta()
            self.out(
                f"[{state['done']:>3}/{total}] {name} · {mode} · N={n} · p{process}: "
                f"{float(step_s) * 1e3:8.3f} ms/step, vs control ×{float(ratio):.3f} "
                f"[{float(low):.3f}, {float(high):.3f}] · ETA "
                + ("…" if math.isnan(left) else _fmt(left))
            )

        for job in todo:
            before = state["done"]
            state["job_start"] = time.monotonic()
            data = self.execute(job, on_line=progress)
            took.setdefault((job.strategy, job.mode), []).append(
                time.monotonic() - state["job_start"]
            )
            state["left"].pop(0)
            failed = [c for c in data["suite"].get("cells", []) if c["status"] != "works"]
            for cell in failed:
                self.out(
                    f"      {job.strategy} · {job.mode} · N={cell['batch_size']} · "
                    f"p{job.process}: {cell['status']}: {cell['detail'][:120]}"
                )
            state["done"] = before + len(plan.batch_sizes)


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _fmt(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s"


def run(run_dir: Path, plan: Plan, argv: list[str], out=print, gate_only: bool = False) -> str:
    """Gate and time ``plan`` into ``run_dir``; returns the final status."""
    runner = Runner(run_dir, plan, out)
    signal.signal(signal.SIGTERM, _raise_interrupt)  # nox and kill send SIGTERM: stop cleanly
    invocation = [{"argv": argv, "at": dt.datetime.now(dt.timezone.utc).isoformat()}]
    runner.write_manifest("running", argv, invocation=invocation)
    try:
        verdicts = runner.gate_phase()
        if not gate_only:
            runner.time_phase(runner.timed_pairs(verdicts))
    except KeyboardInterrupt:
        runner.stop_all()
        runner.write_manifest("interrupted", argv)
        return "interrupted"
    runner.write_manifest("complete", argv, finished=dt.datetime.now(dt.timezone.utc).isoformat())
    return "complete"


def with_precision(plan: Plan, **changes) -> Plan:
    return replace(plan, precision=replace(plan.precision, **changes))

"""The time phase of a run: per mode and process index, one worker process times its cells.

``min_processes`` processes per mode for every cell, then more only for cells whose overhead
interval is still wider than the target. Each process checkpoints every cell as it finishes
(``bench.run.worker.Checkpoint``): when it dies (crash, hang, Ctrl-C) its finished cells are saved
as its timing file and only the rest run again; ``--resume`` finishes a half-done process.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

import numpy as np

from bench.core import records, stats
from bench.core.io import read_json, write_json_atomic
from bench.core.schema import SCHEMA_VERSION
from bench.run import worker
from bench.run.plan import Item, Job

STOPPED = {"status": "interrupted", "detail": "the run was stopped"}


class TimePhase:
    """Mixed into ``bench.run.runner.Run``: uses its ``dir``, ``plan``, ``progress``,
    ``supervisor``, ``_pool`` and ``phase_done``."""

    def _unconverged(self, mode: str, cells: list[Item], process: int) -> list[Item]:
        timings, _ = records.read_timings(self.dir, [])
        groups: dict[str, dict[int, list[float]]] = {}
        for t in timings:
            if t.mode == mode:
                key = f"{t.strategy}/{t.shape}/N{t.batch_size}"
                groups.setdefault(key, {})[t.process] = t.ratios
        target = self.plan.precision.target_for(mode)
        todo = []
        for cell in cells:
            got = groups.get(cell.key, {})
            if len(got) < min(process, self.plan.precision.min_processes):
                todo.append(cell)  # a process lost this cell (crash): measure it again
                continue
            median, low, high = stats.hierarchical_bootstrap(list(got.values()), n_boot=400)
            if not np.isfinite(median) or (high - low) / 2 / median > target:
                todo.append(cell)
        return todo

    def _recorded(self, mode: str, process: int) -> set[str]:
        """The tests (``Item.test_id``) the timing files of one mode and process hold."""
        found = set()
        for path in (self.dir / "timing").glob(f"{mode}-p{process}.*json"):
            if path.name.endswith(".pytest.json"):
                continue
            try:
                found |= {c["test"] for c in read_json(path)["suite"].get("cells", [])}
            except (OSError, ValueError, KeyError, TypeError):
                continue  # unreadable: the report names it; its cells are measured again
        return found

    def _salvage_checkpoints(self, how: dict) -> None:
        """Timing files from the checkpoints of processes that were stopped (Ctrl-C, a kill)."""
        for partial in sorted((self.dir / "timing").glob("*.partial.jsonl")):
            out = partial.with_name(partial.name.replace(".partial.jsonl", ".json"))
            kept = worker.salvage(out, how)
            if kept:
                self.progress.line(f"time: {out.name}: kept its {len(kept)} finished cells")

    def _kept(self, job: Job, outcome, how: dict) -> set[str]:
        """After a timing process died: its finished cells, saved from its checkpoint."""
        saved = worker.salvage(job.out, how)
        return {i.key for i in job.items if i.test_id(job.mode) in saved}

    def time_phase(self, cells: dict[str, list[Item]]) -> None:
        plan, start = self.plan, time.monotonic()
        precision = plan.precision
        self._salvage_checkpoints(STOPPED)
        for mode, todo in cells.items():
            self.progress.plan(
                "time", mode, len(todo) * precision.min_processes, precision.min_processes
            )
        try:
            for process in range(precision.max_processes):
                jobs = [self._time_job_for(mode, process, cells) for mode in plan.modes]
                jobs = [job for job in jobs if job is not None]
                if not jobs:
                    continue
                random.Random(f"{plan.seed}-{process}").shuffle(jobs)  # modes interleave
                self._pool(jobs, self._time_job, plan.time_jobs)
        except KeyboardInterrupt:
            self._salvage_checkpoints(STOPPED)
            raise
        self.phase_done("time", time.monotonic() - start)

    def _time_job_for(self, mode: str, process: int, cells: dict[str, list[Item]]) -> Job | None:
        """The job of one timing process: the mode's cells this process has not recorded yet."""
        plan, precision = self.plan, self.plan.precision
        done = self._recorded(mode, process)
        todo = [c for c in cells.get(mode, []) if c.test_id(mode) not in done]
        if process >= precision.min_processes and todo:
            todo = self._unconverged(mode, todo, process)
            self.progress.plan("time", mode, len(todo), 1 if todo else 0)
        if not todo:
            return None
        out = self.dir / "timing" / f"{mode}-p{process}.json"
        resumed = 0
        while list(out.parent.glob(f"{out.stem}.*json")):  # a resumed process: a file of its own
            resumed += 1
            out = self.dir / "timing" / f"{mode}-p{process}.r{resumed}.json"
        order = list(todo)
        random.Random(f"{plan.seed}-{mode}-{process}-{resumed}").shuffle(order)
        return Job(
            "time",
            self.dir.name,
            plan.workload,
            mode,
            str(out),
            tuple(order),
            process,
            plan.threads,
            plan.seed,
            precision,
        )

    def _time_job(self, job: Job) -> None:
        self.progress.process_started("time")
        started = {}

        def handle(event):
            if event["event"] == "start":
                started[event["key"]] = time.monotonic()
            elif event["event"] == "cell":
                took = time.monotonic() - started.get(event["key"], time.monotonic())
                self.progress.finished("time", job.mode, took)
                self.progress.line(
                    f"time {job.mode} p{job.process}: {event['key']}: "
                    f"{event['step_s'] * 1e3:.3f} ms/step, ×{event['ratio']:.3f} vs control"
                )

        name = Path(job.out).stem
        failures = self.supervisor.run(job, f"time-{name}", handle, kept=self._kept)
        if failures:
            stub = {
                "suite": {
                    "schema_version": SCHEMA_VERSION,
                    "kind": "time",
                    "mode": job.mode,
                    "process": job.process,
                    "cells": [
                        {
                            "test": f.item.test_id(job.mode),
                            "status": f.status,
                            "detail": f.detail,
                        }
                        for f in failures
                    ],
                },
                "benchmarks": [],
            }
            write_json_atomic(Path(job.out).with_suffix(".failed.json"), stub)
            for f in failures:
                self.progress.line(f"time {job.mode}: {f.item.key}: {f.status}: {f.detail}")

"""Phase 3, time: stage 0 times every cell in ``processes`` worker processes; each later stage
(one new process per mode) times the cells whose decision is still open, as many rounds as that
decision needs (``bench.core.analysis.ModeAnalysis.open_cells``), until the stages or the cells
run out. Stage 1 also times the A/A cells again, so every mode has cells in two processes to
estimate its between-process spread from. A mode timed as a distribution (PYNATIVE as users run
it) keeps its fixed budget: only its A/A cells get a second process. The steps per block (k) of
a cell are the first process's, reused by every later one.

Each process checkpoints every cell as it finishes (``bench.core.rundir.Checkpoint``): when it
dies (crash, hang, Ctrl-C) its finished cells are saved as its timing file and only the rest run
again; ``--resume`` finishes a half-done stage. Two processes of a mode run at once only where
that was measured harmless (``Mode.concurrent``: GRAPH), or when ``--jobs`` says so.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import replace
from pathlib import Path

from bench.core import analysis, cellstats, records
from bench.core.io import write_json_atomic
from bench.core.rundir import recorded_tests, salvage
from bench.core.schema import SCHEMA_VERSION
from bench.run.context import RunContext
from bench.run.plan import Item, Job

STOPPED = {"status": "interrupted", "detail": "the run was stopped"}


def _salvage_checkpoints(ctx: RunContext, how: dict) -> None:
    """Timing files from the checkpoints of processes that were stopped (Ctrl-C, a kill)."""
    for partial in ctx.run.checkpoints():
        out = partial.with_name(partial.name.replace(".partial.jsonl", ".json"))
        kept = salvage(out, how)
        if kept:
            ctx.progress.line(f"time: {out.name}: kept its {len(kept)} finished cells")


def _job(ctx: RunContext, mode: str, process: int, stage: int, items: list[Item]) -> Job | None:
    done = recorded_tests(ctx.run.timing_of(mode, process))
    todo = [c for c in items if c.test_id(mode) not in done]
    if not todo:
        return None
    order = list(todo)
    random.Random(f"{ctx.plan.seed}-{mode}-{process}").shuffle(order)
    out = ctx.run.timing_file(mode, process)
    return Job.of("time", ctx.plan, ctx.run.run_id, mode, out, order, process=process, stage=stage)


def _run_jobs(ctx: RunContext, jobs: list[Job]) -> None:
    """Concurrent only where measured harmless (or asked for): a mode's two processes."""
    plan = ctx.plan
    together = [j for j in jobs if ctx.mode(j.mode).concurrent and plan.time_jobs == 1]
    alone = [j for j in jobs if j not in together]
    if together:
        ctx.pool(together, lambda j: _time_job(ctx, j), 2)
    ctx.pool(alone, lambda j: _time_job(ctx, j), plan.time_jobs)


def _key(mode: str, item: Item) -> tuple:
    return (mode, item.strategy, item.shape, item.batch_size)


def _ks(timings) -> dict[tuple, int]:
    """{(mode, strategy, shape, size): k} of the cells timed so far: a cell's later processes
    reuse its first process's k (a cell in another mode is another cell, with its own k)."""
    return {(t.mode, t.strategy, t.shape, t.batch_size): t.k for t in timings}


def stage_zero(ctx: RunContext, cells: dict[str, list[Item]]) -> None:
    precision = ctx.plan.precision
    jobs = []
    for process in range(precision.processes):
        jobs = []
        ks = _ks(records.Records(ctx.run.path).timings)
        for mode, items in cells.items():
            rounds = (
                precision.distribution_rounds if ctx.mode(mode).distribution else precision.rounds
            )
            mine = [replace(c, rounds=rounds, k=ks.get(_key(mode, c), 0)) for c in items]
            job = _job(ctx, mode, process, 0, mine)
            if job:
                jobs.append(job)
                ctx.progress.plan("time", mode, len(job.items), 1)
        random.Random(f"{ctx.plan.seed}-{process}").shuffle(jobs)  # modes interleave
        _run_jobs(ctx, jobs)


def later_stage(ctx: RunContext, stage: int, cells: dict[str, list[Item]]) -> bool:
    """One more process per mode for the cells still open; False when none is."""
    precision = ctx.plan.precision
    rec = records.Records(ctx.run.path)
    margin = cellstats.Margin(precision.margin_rel, precision.margin_abs_s)
    found = analysis.analyse(
        rec.timings, rec.cell_statuses, list(cells), ctx.plan.batch_sizes, margin
    )
    process = precision.processes + stage - 1
    jobs = []
    ks = _ks(rec.timings)
    for mode, items in cells.items():
        if mode not in found:
            continue
        m = found[mode]
        by_id = {c.cell(mode): c for c in items}
        todo = []
        if stage == 1:  # a second process for the A/A cells: the mode's between-process spread
            todo += [replace(c, rounds=precision.rounds) for c in items if c.role == "aa"]
        for cell in [] if ctx.mode(mode).distribution else m.open_cells(precision.target):
            item = by_id.get(cell.id)
            if item is None or item.role != "update":
                continue
            want = max(precision.target, _needed(m, cell))
            rounds = cellstats.rounds_for(want, cell.estimate.procs, m.tau2, 1)
            rounds = min(precision.max_rounds, rounds or precision.max_rounds)
            todo.append(replace(item, rounds=max(rounds, precision.rounds)))
        todo = [replace(c, k=ks.get(_key(mode, c), 0)) for c in todo]
        job = _job(ctx, mode, process, stage, todo)
        if job:
            jobs.append(job)
            ctx.progress.plan("time", mode, len(job.items), 1)
            ctx.progress.line(f"time {mode}: stage {stage}: {len(job.items)} cells still open")
    if not jobs:
        return False
    _run_jobs(ctx, jobs)
    return True


def _needed(m: analysis.ModeAnalysis, cell: analysis.Cell) -> float:
    """The relative half-width that would settle this cell's comparison, if its estimate held."""
    standing = m.standings.get(cell.id.strategy)
    comp = standing.comparisons.get(cell.id.size) if standing else None
    if comp is None or not math.isfinite(cell.control_step_s) or cell.control_step_s <= 0:
        return 0.01
    gap = abs(abs(comp.difference_s) - comp.margin_s)
    return max(0.004, gap / 2 / cell.control_step_s)


def time_phase(ctx: RunContext, cells: dict[str, list[Item]]) -> None:
    start = time.monotonic()
    _salvage_checkpoints(ctx, STOPPED)
    try:
        stage_zero(ctx, cells)
        for stage in range(1, ctx.plan.precision.stages + 1):
            if not later_stage(ctx, stage, cells):
                break
    except KeyboardInterrupt:
        _salvage_checkpoints(ctx, STOPPED)
        raise
    ctx.phase_done("time", time.monotonic() - start)


def _time_job(ctx: RunContext, job: Job) -> None:
    ctx.progress.process_started("time")
    started = {}

    def handle(event):
        if event["event"] == "start":
            started[event["key"]] = time.monotonic()
        elif event["event"] == "cell":
            took = time.monotonic() - started.get(event["key"], time.monotonic())
            ctx.progress.finished("time", job.mode, took)
            ctx.progress.line(
                f"time {job.mode} p{job.process}: {event['key']}: "
                f"{event['step_s'] * 1e3:.3f} ms/step, ×{event['ratio']:.3f} vs twin"
                + ("" if event["status"] == "works" else f" ({event['status']})")
            )

    def kept(this: Job, outcome, how: dict) -> set[str]:
        saved = salvage(this.out, how)
        return {i.key for i in this.items if i.test_id(this.mode) in saved}

    failures = ctx.supervisor.run(job, f"time-{Path(job.out).stem}", handle, kept=kept)
    if failures:
        stub = {
            "suite": {
                "schema_version": SCHEMA_VERSION,
                "kind": "time",
                "mode": job.mode,
                "process": job.process,
                "stage": job.stage,
                "cells": [
                    {"test": f.item.test_id(job.mode), "status": f.status, "detail": f.detail}
                    for f in failures
                ],
            },
            "benchmarks": [],
        }
        write_json_atomic(Path(job.out).with_suffix(".failed.json"), stub)
        for f in failures:
            ctx.progress.line(f"time {job.mode}: {f.item.key}: {f.status}: {f.detail}")

"""Phase 3, time: stage 0 runs every race (per mode and size: every working strategy, the
twins, the A/A cell, head to head in the same rounds: ``bench.run.race``) in ``processes``
worker processes; each later stage (one new process per mode) races the candidates whose
decision is still open, with the candidates that keep it open, as many rounds as that decision
needs (``bench.core.analysis.ModeAnalysis.open_cells``), until the stages or the decisions run
out. A mode timed as a distribution (PYNATIVE as users run it) keeps its fixed budget. The steps
per block (k) of a race are its first process's, reused by every later one.

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
from bench.core.schema import SCHEMA_VERSION, RunStatus, Status
from bench.run import select
from bench.run.context import RunContext
from bench.run.plan import RACE, Item, Job
from bench.run.race_cost import RaceCosts

STOPPED = {"status": RunStatus.INTERRUPTED.value, "detail": "the run was stopped"}


def _salvage_checkpoints(ctx: RunContext, how: dict) -> None:
    """Timing files from the checkpoints of processes that were stopped (Ctrl-C, a kill)."""
    for partial in ctx.run.checkpoints():
        out = partial.with_name(partial.name.replace(".partial.jsonl", ".json"))
        kept = salvage(out, how)
        if kept:
            ctx.progress.line(f"time: {out.name}: kept its {len(kept)} finished cells")


def _unrecorded(ctx: RunContext, mode: str, process: int, items: list[Item]) -> list[Item]:
    """The items of ``mode`` that ``process`` has not recorded yet (all but a resumed run's)."""
    done = recorded_tests(ctx.run.timing_of(mode, process))
    return [c for c in items if c.test_id(mode) not in done]


def _jobs(ctx: RunContext, mode: str, process: int, stage: int, items: list[Item]) -> list[Job]:
    """The timing processes of one mode's ``process``: one for its items, or, where each race
    needs a process of its own (``Mode.race_per_process``), one per race."""
    todo = _unrecorded(ctx, mode, process, items)
    if not todo:
        return []
    order = list(todo)
    random.Random(f"{ctx.plan.seed}-{mode}-{process}").shuffle(order)
    parts = [[c] for c in order] if ctx.mode(mode).race_per_process else [order]
    out = []
    for part in parts:
        name = f"N{part[0].batch_size}" if len(parts) > 1 else ""
        path = ctx.run.timing_file(mode, process, name)
        job = Job.of("time", ctx.plan, ctx.run.run_id, mode, path, part, process=process,
                     stage=stage, deadline=ctx.deadline)  # fmt: skip
        out.append(job)
    return out


def _processes(ctx: RunContext, mode: str, races: int) -> int:
    """How many processes ``_jobs`` starts for ``races`` races of ``mode`` (for the ETA)."""
    return races if ctx.mode(mode).race_per_process else min(races, 1)


def _run_jobs(ctx: RunContext, jobs: list[Job], ended=None, costs=None) -> None:
    """Concurrent only where measured harmless (or asked for): a mode's two processes.
    ``ended(job)``, if given, is called as each job ends; ``costs``: {mode: RaceCosts} that
    count a later stage's races for the ETA (``units``)."""
    plan = ctx.plan

    def run(job: Job) -> None:
        _time_job(ctx, job, (costs or {}).get(job.mode))
        if ended:
            ended(job)

    together = [j for j in jobs if ctx.mode(j.mode).concurrent and plan.time_jobs == 1]
    alone = [j for j in jobs if j not in together]
    if together:
        ctx.pool(together, run, 2)
    ctx.pool(alone, run, plan.time_jobs)


def _when_mode_ends(ctx: RunContext, jobs: list[Job], cells, candidates):
    """A callback for the jobs of stage 0's last process: once every job of a mode has ended,
    the ETA learns that mode's next stage (``_expect_later``)."""
    left = {}
    for job in jobs:
        left[job.mode] = left.get(job.mode, 0) + 1

    def ended(job: Job) -> None:
        left[job.mode] -= 1
        if not left[job.mode]:
            _expect_later(ctx, job.mode, cells, candidates)

    return ended


def _key(mode: str, item: Item) -> tuple:
    return (mode, item.strategy, item.shape, item.batch_size)


def _ks(timings) -> dict[tuple, int]:
    """{(mode, strategy, shape, size): k} of the cells timed so far: a cell's later processes
    reuse its first process's k (a cell in another mode is another cell, with its own k); a
    race's later processes reuse the k of its first race at that size."""
    out = {(t.mode, t.strategy, t.shape, t.batch_size): t.k for t in timings}
    out.update(
        {(t.mode, RACE, RACE, t.batch_size): t.k for t in timings if t.race and t.role != "layout"}
    )  # a layout twin may run shorter blocks of its own (bench.run.race)
    return out


# Of a stage-0 member's seconds, the part that does not grow with its rounds (compile, warm-up,
# sizing its blocks): a later-stage member of R rounds costs LATER_FIXED + (1 - LATER_FIXED) * R / r
# of a stage-0 member of r rounds. Stage 1's members at 28-40 rounds took 1.55-2.3 times a stage-0
# member of 10 in the clip runs of 2026-12-07 (c0d2 default: graph 1.55, blocking 1.68; 67a7 two
# strategies: graph 1.7, ast 2.3). The traces of 270094e (findings/eta_replay.py) say why one
# number cannot fit both: a two-strategy run's later members took 1.7-2.5 times its stage-0
# ones, a default run's 0.84-2.2 (1.5 on average), since a default stage 0's mean member
# includes layout twins and slow strategies that no later stage races. 0.83 fitted the default
# runs (brn's lines within +-20 %: 96 %) and broke the two-strategy runs' (42-60 %); 0.75 holds
# 73-100 % of every traced run's. So a later race is counted by what its own members cost in
# stage 0 (``bench.run.race_cost``); this number prices only the guess made before a mode's stage
# 0 ends, and a race with a member stage 0 did not record.
LATER_FIXED = 0.75


def units(
    item: Item, stage: int = 0, base_rounds: int = 0, costs: RaceCosts | None = None
) -> float:
    """An item's work for the ETA: a race's members, else one. A later stage's race: what its
    members cost in the mode's stage-0 records at its rounds (``costs``, ``bench.run.race_cost``),
    else each member as more of a stage-0 one as its rounds (``item.rounds``) exceed stage 0's
    (``base_rounds``)."""
    members = len(item.members) or 1
    if not stage:
        return members
    base = base_rounds or item.rounds or 1
    rounds = item.rounds or base
    if costs is not None and item.members:
        known = costs.units(item.members, item.batch_size, rounds)
        if known is not None:
            return known
    return members * (LATER_FIXED + (1 - LATER_FIXED) * rounds / base)


# The share of the bound below that a later stage ran: stage 1 of the traced clip run 7dc6
# (270094e, 2026-12-07) raced 0.74 of it (graph 0.85, ast 1.0, bytecode 0.88, launch_blocking
# 0.40). The bound itself kept the clip's ETA at 1.1-1.3 times the time left until its stage 0
# ended. The other traces raced 0.79 (clip), 0.89 and 0.92 (brn), 0.78 and 1.0 (two
# strategies) of it; brn's later members cost less than their units (``LATER_FIXED``), and its
# two runs replay better at 0.75 (87 and 73 % of lines within +-20 %) than at 1 (56 and 47 %).
LATER_SHARE = 0.75
# EMA's and the KV cache's stage 0 decides far more: their traced default runs of 2026-12-07
# (fbaea80: ema 9f7d, kvcache 0efb) raced 0.12 and 0.20 of the bound again, and at 0.75 their ETA
# said 1.3-1.5 times the time left (15 % and 7 % of lines within +-20 %): fewer of their
# comparisons stay open after stage 0. One run each chose these numbers.
LATER_SHARES = {"ema": 0.12, "kvcache": 0.2}


def later_share(workload: str) -> float:
    """The share of the bound a workload's later stage is guessed at (``LATER_SHARES``, else
    ``LATER_SHARE``: the clip's and brn's, and a workload a user adds)."""
    return LATER_SHARES.get(workload, LATER_SHARE)


def later_guess(
    precision, distribution: bool, races: int, open_members: int, share: float = LATER_SHARE
) -> float:
    """The units a mode's later stage is guessed at until its stage 0 ends (``_expect_later``
    replaces the guess): ``share`` (``later_share``) of a bound, each of its ``races`` again with
    the ``open_members`` that may stay undecided (the candidates the answer is chosen from) and the
    A/A cell, at the tier's most rounds (stage 1 of the clip's runs of 2026-12-07 raced every size
    of every compiled mode, mostly at ``max_rounds``). Nothing where the tier has no later stage,
    where the mode is timed as a distribution, or where fewer than two candidates leave nothing to
    decide (a tier with a ``target`` width races even one)."""
    if not precision.stages or distribution or not races:
        return 0.0
    if open_members < (1 if precision.target else 2):
        return 0.0
    member = LATER_FIXED + (1 - LATER_FIXED) * precision.max_rounds / precision.rounds
    return share * races * (open_members + 1) * member


def _open_members(item: Item, names) -> int:
    """How many of a stage-0 race's strategies a later stage may race (``names``: the
    candidates, None: every working one)."""
    return sum(m.role == "update" and (names is None or m.strategy in names) for m in item.members)


def expect_timing(ctx: RunContext, gated=None, candidates=None) -> None:
    """The races the time phase will run, one per mode and size in each process of stage 0 and
    in one later stage (``_plan_stage_zero`` replaces the guess), so the ETA counts them from the
    first line on. Before the gate (``gated`` None) a race is guessed at one member per strategy;
    once the gate's verdicts are known, at the strategies that work in the mode, the A/A cell
    and, in a full run of a tier that times them, the layout twins; its later stage at the
    mode's ``candidates`` (``{mode: names}``; None: every working strategy)."""
    precision = ctx.plan.precision
    share = later_share(ctx.plan.workload)
    ctx.progress.note(later_fixed=LATER_FIXED, later_share=share, later_units="records")
    ctx.progress.settle("time")
    layouts = len(ctx.workload.layout_twins()) if precision.layout_cells and ctx.full else 0
    for mode in ctx.plan.modes:
        if gated is None:  # clip: 24 strategies, races of about 19 members on 2026-12-06
            members = len(ctx.plan.strategies)
            working = set(ctx.plan.strategies)
        else:
            working = set(select.working(gated, mode))
            members = len(working) + 1 + max(0, layouts - 1)
        names = (candidates or {}).get(mode)
        open_members = len(working if names is None else working & set(names))
        sizes = len(ctx.plan.batch_sizes)
        later = later_guess(precision, ctx.mode(mode).distribution, sizes, open_members, share)
        starts = (precision.processes + (later > 0)) * _processes(ctx, mode, sizes)
        ctx.progress.expect("time", mode, members * sizes * precision.processes + later, starts)


def _plan_stage_zero(ctx: RunContext, cells: dict[str, list[Item]], candidates=None) -> None:
    """The ETA counts every process of stage 0 from its start (a later process is built only
    once the first has run, to reuse its k): each mode's items not yet recorded, per process,
    and one process per item where each race needs its own."""
    ctx.progress.settle("time")
    for process in range(ctx.plan.precision.processes):
        for mode, items in cells.items():
            todo = _unrecorded(ctx, mode, process, items)
            if todo:
                starts = _processes(ctx, mode, len(todo))
                ctx.progress.plan("time", mode, sum(units(c) for c in todo), starts)
    precision, share = ctx.plan.precision, later_share(ctx.plan.workload)
    for mode, items in cells.items():  # a later stage, guessed from the candidates
        names = (candidates or {}).get(mode)
        open_members = max((_open_members(c, names) for c in items), default=0)
        later = later_guess(precision, ctx.mode(mode).distribution, len(items), open_members, share)
        if later:
            ctx.progress.expect("time", mode, later, _processes(ctx, mode, len(items)))


def stage_zero(ctx: RunContext, cells: dict[str, list[Item]], candidates=None) -> None:
    precision = ctx.plan.precision
    _plan_stage_zero(ctx, cells, candidates)
    jobs = []
    for process in range(precision.processes):
        if ctx.past_deadline():
            break
        jobs = []
        ks = _ks(records.Records(ctx.run.path).timings)
        for mode, items in cells.items():
            rounds = (
                precision.distribution_rounds if ctx.mode(mode).distribution else precision.rounds
            )
            mine = [replace(c, rounds=rounds, k=ks.get(_key(mode, c), 0)) for c in items]
            jobs += _jobs(ctx, mode, process, 0, mine)
        random.Random(f"{ctx.plan.seed}-{process}").shuffle(jobs)  # modes interleave
        last = process == precision.processes - 1
        _run_jobs(ctx, jobs, _when_mode_ends(ctx, jobs, cells, candidates) if last else None)


def later_stage(
    ctx: RunContext, stage: int, cells: dict[str, list[Item]], candidates: dict | None = None
) -> bool:
    """One more process per mode for the decisions still open (``open_races``); False when
    none is open."""
    ctx.progress.settle("time")  # what this stage times replaces the guess
    if ctx.past_deadline():
        return False
    rec = records.Records(ctx.run.path)
    process = ctx.plan.precision.processes + stage - 1
    jobs = []
    costs = {}
    for mode, todo in open_races(ctx, rec, cells, candidates).items():
        mine = _jobs(ctx, mode, process, stage, todo)
        costs[mode] = RaceCosts.of(rec.timings, mode, ctx.plan.precision.cell_seconds)
        for job in mine:
            jobs.append(job)
            rounds = ctx.plan.precision.rounds
            work = sum(units(c, stage, rounds, costs[mode]) for c in job.items)
            ctx.progress.plan("time", mode, work, 1)
        if mine:
            ctx.progress.line(f"time {mode}: stage {stage}: {len(todo)} races still open")
    if not jobs:
        return False
    _run_jobs(ctx, jobs, costs=costs)
    return True


def open_races(
    ctx: RunContext, rec: records.Records, cells: dict[str, list[Item]], candidates=None
) -> dict[str, list[Item]]:
    """{mode: the races a later stage runs}: per size, the candidates still undetermined, the
    candidates that may still be faster than them beyond the margin
    (``ModeAnalysis.open_cells``), and the A/A cell, as many rounds as the closest decision
    needs. ``candidates``: {mode: the strategies the answer is chosen from}
    (``prepare_phase.candidates``), so the decisions settled are the ones the report makes
    (default: every working strategy). A mode timed as a distribution has none."""
    precision = ctx.plan.precision
    margin = cellstats.Margin(precision.margin_rel, precision.margin_abs_s)
    modes = [m for m in cells if not ctx.mode(m).distribution]
    found = analysis.analyse(
        rec.timings,
        rec.cell_statuses,
        modes,
        ctx.plan.batch_sizes,
        margin,
        looks=precision.stages + 1,  # every decision may be looked at once per stage
    )
    ks = _ks(rec.timings)
    out = {}
    for mode in modes:
        if mode not in found:
            continue
        m = found[mode]
        open_cells = m.open_cells(precision.target, (candidates or {}).get(mode))
        todo = []
        for race_item in cells[mode]:
            n = race_item.batch_size
            mine = [c for c in open_cells if c.id.size == n]
            if not mine:
                continue
            names = {c.id.strategy for c in mine}
            members = [x for x in race_item.members if x.strategy in names or x.role == "aa"]
            want = max(precision.target, min(_needed(m, c) for c in mine))
            rounds = cellstats.rounds_for(want, mine[0].estimate.procs, m.tau2, 1)
            rounds = min(precision.max_rounds, rounds or precision.max_rounds)
            todo.append(replace(race_item, members=tuple(members),
                                rounds=max(rounds, precision.rounds)))  # fmt: skip
        out[mode] = [replace(c, k=ks.get(_key(mode, c), 0)) for c in todo]
    return out


def _expect_later(ctx: RunContext, mode: str, cells: dict[str, list[Item]], candidates) -> None:
    """A mode's stage 0 has ended: the races its next stage would run are known now (the other
    modes' stages do not change them), so they replace the guess in the ETA."""
    if not ctx.plan.precision.stages or ctx.mode(mode).distribution or ctx.past_deadline():
        return
    rec = records.Records(ctx.run.path)
    todo = open_races(ctx, rec, {mode: cells[mode]}, candidates)
    ctx.progress.settle("time", mode)
    races = todo.get(mode, [])
    if races:
        starts = _processes(ctx, mode, len(races))
        costs = RaceCosts.of(rec.timings, mode, ctx.plan.precision.cell_seconds)
        work = sum(units(c, 1, ctx.plan.precision.rounds, costs) for c in races)
        ctx.progress.expect("time", mode, work, starts)


def _needed(m: analysis.ModeAnalysis, cell: analysis.Cell) -> float:
    """The relative half-width that would settle this cell's comparison, if its estimate held."""
    standing = m.standings.get(cell.id.strategy)
    comp = standing.comparisons.get(cell.id.size) if standing else None
    if comp is None or not math.isfinite(cell.control_step_s) or cell.control_step_s <= 0:
        return 0.01
    gap = abs(abs(comp.difference_s) - comp.margin_s)
    return max(0.004, gap / 2 / cell.control_step_s)


def time_phase(ctx: RunContext, cells: dict[str, list[Item]], candidates=None) -> None:
    start = time.monotonic()
    _salvage_checkpoints(ctx, STOPPED)
    try:
        stage_zero(ctx, cells, candidates)
        for stage in range(1, ctx.plan.precision.stages + 1):
            if not later_stage(ctx, stage, cells, candidates):
                break
    except KeyboardInterrupt:
        _salvage_checkpoints(ctx, STOPPED)
        raise
    ctx.phase_done("time", time.monotonic() - start)
    if ctx.deadline:
        budget = short_of(ctx, cells) | {"reached": ctx.past_deadline()}
        manifest = ctx.manifest()
        manifest.budget = budget
        ctx.save(manifest)
        if budget["reached"]:
            ctx.progress.line(
                f"time: the --budget ended the timing: {budget['untimed']} of {budget['races']} "
                f"races not timed, {budget['short']} in fewer than {budget['processes']} processes"
            )


def short_of(ctx: RunContext, cells: dict[str, list[Item]]) -> dict:
    """How far stage 0 got: races timed in no process, and in fewer than the tier's processes."""
    processes = ctx.plan.precision.processes
    races = untimed = short = 0
    for mode, items in cells.items():
        done = [recorded_tests(ctx.run.timing_of(mode, p)) for p in range(processes)]
        for item in items:
            got = sum(item.test_id(mode) in d for d in done)
            races += 1
            untimed += got == 0
            short += 0 < got < processes
    return {"races": races, "untimed": untimed, "short": short, "processes": processes}


def _time_job(ctx: RunContext, job: Job, costs: RaceCosts | None = None) -> None:
    ctx.progress.process_started("time")
    base = ctx.plan.precision.rounds
    work = {i.key: units(i, job.stage, base, costs) for i in job.items}
    about = {i.key: {"members": len(i.members) or 1, "rounds": i.rounds or base} for i in job.items}

    def handle(event):
        if event["event"] == "start":
            key = event["key"]
            ctx.progress.item_started(
                job.out, "time", job.mode, work.get(key, 1),
                stage=job.stage, base_rounds=base, **about.get(key, {}),
            )  # fmt: skip
        elif event["event"] == "cell":
            ctx.progress.item_recorded(job.out)  # a race's first member finishes the item
            ctx.progress.line(
                f"time {job.mode} p{job.process}: {event['key']}: "
                f"{event['step_s'] * 1e3:.3f} ms/step, ×{event['ratio']:.3f} vs twin"
                + ("" if event["status"] == Status.WORKS.value else f" ({event['status']})")
            )

    def kept(this: Job, outcome, how: dict) -> set[str]:
        saved = salvage(this.out, how)
        return {i.key for i in this.items if i.test_id(this.mode) in saved}

    began = time.monotonic()
    failures = ctx.supervisor.run(job, f"time-{Path(job.out).stem}", handle, kept=kept)
    ctx.progress.process_ended(job.out, "time", time.monotonic() - began)
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

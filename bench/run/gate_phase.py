"""Phase 1, the gate: every variant and twin in every mode, compiled modes in two fresh processes.

Many variants share one worker process and run in forked children of it (``bench.run.forked``):
under bytecode capture each alone in a fresh child, so what another cell left behind cannot reach
it; in the other modes in shared children, where a crash is tried again alone.
After the timing phase, ``regate_alone`` re-gates alone every cell found wrong only while timed.
A compiled mode is gated by ``gate_replicas`` separate worker
processes (fresh interpreters, fresh hash seeds): one process cannot certify a cell whose capture
differs from process to process (``bench.core.verdicts``). Each worker appends its verdicts to its
own line file as they finish, so ``--resume`` gates only what is missing.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from pathlib import Path

from bench.core import records
from bench.core.rundir import CellId, Checkpoint, read_lines
from bench.core.schema import Status, Verdict
from bench.core.verdicts import ALONE
from bench.measured.shapes import CONTROL
from bench.run import gate, gate_cache, progress, shard
from bench.run.context import RunContext, mindspore_version
from bench.run.plan import Item, Job

GATE_TIMEOUT = 60.0  # a gate item (two instances, a few small steps each) taking longer is hung
GATE_SPLIT = 40  # a mode with more variants is gated by gate_jobs processes in parallel
REGATE_STEPS = 512  # a re-gate alone runs this many steps when the timed count is not known
REGATE_TIMEOUT = 300.0


def _item(ctx: RunContext, variant, mode: str, release: str, fingerprint: str) -> Item:
    twin = variant.strategy == CONTROL
    text = Path(variant.path).read_text(encoding="utf-8")
    return Item(
        strategy=variant.strategy,
        shape=variant.shape.name,
        path=variant.path,
        layout=variant.layout,
        update=not twin,
        dims=variant.shape.values,
        meaning=variant.meaning,
        intended=variant.intended,
        control=variant.control,
        key_hash=gate_cache.key(text, mode, variant.meaning, not twin, release, fingerprint),
    )


def _done(ctx: RunContext, mode: str, replica: int) -> set[str]:
    found = set()
    for path in ctx.run.gate.glob(f"{mode}.r{replica}.*.jsonl"):
        found |= {f"{r['strategy']}/{r['shape']}" for r in read_lines(path, [])}
    return found


def regate_plan(gated: list[Verdict], cells: list[dict]) -> dict[tuple, tuple[int, int]]:
    """{(strategy, shape, mode): (size, steps)}: the cells every gate process saw work but whose
    state was wrong after the timed steps of some timing process; each is re-gated alone at the
    smallest size found wrong, over as many steps as that timing process ran."""
    works = {v.key for v in gated if str(v.status) == Status.WORKS.value}
    out: dict[tuple, tuple[int, int]] = {}
    for c in cells:
        if c.get("status") != Status.INCORRECT.value:
            continue
        try:
            cell = CellId.parse(c["test"])
        except (KeyError, ValueError):
            continue
        key = (cell.strategy, cell.shape, cell.mode)
        if key not in works:
            continue
        found = re.search(r"after (\d+) timed steps", c.get("detail", ""))
        steps = int(found.group(1)) if found else REGATE_STEPS
        out[key] = min(out.get(key, (cell.size, steps)), (cell.size, steps))
    return out


def regate_alone(ctx: RunContext, gated: list[Verdict]) -> int:
    """Re-gate alone (a fresh child, replica ``ALONE``) every cell found wrong only while timed,
    so its final verdict takes the kind it shows alone (``bench.core.verdicts.timed_outcome``);
    the number of cells re-gated."""
    rec = records.Records(ctx.run.path)
    todo = regate_plan(gated, rec.cell_statuses)
    done = {v.key for v in rec.verdicts if v.replica == ALONE}
    release, fingerprint = mindspore_version(), gate_cache.gate_fingerprint(ctx.plan.workload)
    by_mode: dict[str, list[Item]] = {}
    for (strategy, shape, mode), (size, steps) in sorted(todo.items()):
        variant = ctx.variants.get(f"{strategy}/{shape}")
        if variant is None or (strategy, shape, mode) in done:
            continue
        item = _item(ctx, variant, mode, release, fingerprint)
        by_mode.setdefault(mode, []).append(
            replace(item, batch_size=size, steps=steps, key_hash="")
        )
    for mode, items in by_mode.items():
        out = ctx.run.gate_file(mode, ALONE)
        job = Job.of(
            "gate",
            ctx.plan,
            ctx.run.run_id,
            mode,
            out,
            items,
            process=ALONE,
            timeout=REGATE_TIMEOUT,
        )
        ctx.progress.line(f"gate: re-gating alone {len(items)} {mode} cell(s) found wrong timed")
        failures = ctx.supervisor.run(job, f"gate-{mode}-alone", None)
        if failures:
            lines = Checkpoint(Path(job.out))
            for f in failures:
                v = gate.verdict(f.item, ctx.plan.workload, mode, f.status, f.detail, replica=ALONE)
                lines.write(**v.to_dict())
            lines.close()
    return sum(len(i) for i in by_mode.values())


def gate_phase(ctx: RunContext) -> list[Verdict]:
    plan, start = ctx.plan, time.monotonic()
    every = [*ctx.variants.values(), *ctx.twins.values()]
    release, fingerprint = mindspore_version(), gate_cache.gate_fingerprint(plan.workload)
    cache = gate_cache.known(ctx.run, plan.workload) if plan.reuse_gate else {}
    jobs, reused = [], 0
    for mode in shard.modes(plan):
        replicas = plan.precision.gate_replicas if ctx.mode(mode).compiled else 1
        mine = [v for v in every if shard.holds(plan, v.strategy, mode)]  # a shard: its units
        items = [_item(ctx, v, mode, release, fingerprint) for v in mine]
        cached = {i.key for i in items if all((i.key_hash, r) in cache for r in range(replicas))}
        for replica in range(replicas):
            done = _done(ctx, mode, replica)
            hits = [i for i in items if i.key in cached and i.key not in done]
            if hits:
                lines = Checkpoint(ctx.run.gate / f"{mode}.r{replica}.reused.jsonl")
                for i in hits:
                    lines.write(**{**cache[(i.key_hash, replica)], "replica": replica})
                lines.close()
                reused += len(hits)
            todo = [i for i in items if i.key not in done and i.key not in cached]
            if not todo:
                continue
            parts = max(1, min(plan.gate_jobs, len(todo) // GATE_SPLIT))
            for first in range(parts):
                chunk = todo[first::parts]  # interleaved: similar cost each
                part = first
                out = ctx.run.gate_file(mode, replica, part)
                while out.exists():  # a resumed chunk: a file of its own
                    part += parts
                    out = ctx.run.gate_file(mode, replica, part)
                jobs.append(
                    Job.of(
                        "gate",
                        plan,
                        ctx.run.run_id,
                        mode,
                        out,
                        chunk,
                        process=replica,
                        timeout=min(plan.timeout, GATE_TIMEOUT),
                    )
                )
            ctx.progress.plan("gate", mode, len(todo), parts)
    counts: dict[tuple[str, int], int] = {}
    seen: set[tuple] = set()

    def one(job: Job) -> None:
        ctx.progress.process_started("gate")

        def handle(event):
            if event["event"] != "verdict":
                return
            ctx.progress.finished("gate", job.mode, event.get("seconds", 0.0))
            key = (job.mode, job.process)
            counts[key] = counts.get(key, 0) + 1
            strategy = event["key"].split("/")[0]
            first = (strategy, job.mode, event["status"]) not in seen  # new outcomes only
            seen.add((strategy, job.mode, event["status"]))
            if (event["status"] != Status.WORKS.value and first) or counts[key] % 200 == 0:
                ctx.progress.line(
                    f"gate {job.mode} r{job.process} [{counts[key]}]: {event['key']}: "
                    + event["status"]
                    + (f": {event['detail'][:90]}" if event["status"] != Status.WORKS.value else "")
                )

        name = f"gate-{job.mode}-r{job.process}-{job.out.rsplit('.p', 1)[-1][:-6]}"
        failures = ctx.supervisor.run(job, name, handle)  # a worker that died outside an item
        if failures:
            lines = Checkpoint(Path(job.out))
            for f in failures:
                v = gate.verdict(
                    f.item, plan.workload, job.mode, f.status, f.detail, replica=job.process
                )
                lines.write(**v.to_dict())
                ctx.progress.line(f"gate {job.mode}: {f.item.key}: {f.status}: {f.detail}")
            lines.close()

    if reused:
        ctx.progress.line(f"gate: {reused} verdicts of identical code reused from earlier runs")
    cost = progress.MODEL["gate"]
    jobs.sort(key=lambda j: (j.process, -len(j.items) * cost.get(j.mode, 1.0)))
    ctx.pool(jobs, one, plan.gate_jobs)
    ctx.phase_done("gate", time.monotonic() - start)
    return records.Records(ctx.run.path).verdicts

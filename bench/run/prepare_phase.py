"""Phase 2, prepare: per mode, the screen that picks each strategy's shape to time when it has
several ways of reading the state (``bench.run.select``), and the cells to time: each working
strategy against its twin, the A/A cells (the base twin against a second instance of itself: the
harness's own bias) and the layout cells (twins against the base twin). The steps in a timed
block (k) are calibrated by the first timing process that times a twin at a size."""

from __future__ import annotations

import time

from bench.core import records
from bench.core.io import read_json, write_json_atomic
from bench.core.schema import Status
from bench.measured.apis import PLATFORM
from bench.measured.shapes import CONTROL, Shape
from bench.run import bandwidth, screen_cache, select, shard
from bench.run.context import RunContext
from bench.run.plan import RACE, Item, Job, Member


def _simplicity(ctx: RunContext, verdict) -> int:
    return ctx.workload.simplicity(Shape(tuple(verdict.dims.items())), verdict.layout)


def _cost_class(ctx: RunContext, verdict) -> str:
    return ctx.workload.cost_class(verdict.dims)


def working(ctx: RunContext, verdicts, mode: str) -> dict[str, list]:
    """{strategy: its working shapes} among the shapes an answer must hold in (for the clip,
    the write after the read): a cost is compared between strategies in comparable code."""
    out = {}
    for s, ok in select.working(verdicts, mode).items():
        mine = [v for v in ok if not v.dims or ctx.workload.in_scope(Shape(tuple(v.dims.items())))]
        if mine:
            out[s] = mine
    return out


def candidates_of(verdicts, facts: dict, in_scope, mode: str) -> set[str]:
    """The strategies an answer is chosen from in ``mode`` (as ``bench.decide.answer.outcomes``
    takes them): documented for the platform measured (``facts``: the manifest's strategies)
    and correct in every shape the answer must hold in (``in_scope(Shape)``). Later stages
    settle the decisions among these, against the best of them."""
    scoped: dict[str, list[bool]] = {}
    for v in verdicts:
        if (
            v.mode == mode
            and v.status != Status.INEXPRESSIBLE
            and (not v.dims or in_scope(Shape(tuple(v.dims.items()))))
        ):
            scoped.setdefault(v.strategy, []).append(v.status == Status.WORKS)
    return {
        s
        for s, ok in scoped.items()
        if ok and all(ok) and PLATFORM in facts.get(s, {}).get("platforms", [])
    }


def candidates(ctx: RunContext, verdicts, mode: str) -> set[str]:
    return candidates_of(verdicts, ctx.manifest().strategies, ctx.workload.common, mode)


def choices(
    ctx: RunContext, verdicts, mode: str, prepared: dict, reused: dict | None = None
) -> dict[str, tuple[str, str]]:
    """{strategy: (the shape to time, why)} of every working strategy in ``mode``, chosen
    (``select.choose``) from the mode's screen in ``prepared`` (what ``prepare/<mode>.json``
    holds; a shape the harness failed to screen has no ratios and is left out), or, for a
    strategy this run did not screen, from ``reused`` (``screen_cache.reusable``: the screen of
    identical code in another run, which ``why`` names). The harness (``cells``) and
    ``findings/screen_choices.py`` both decide with this one function."""
    screen: dict[str, dict[str, list]] = {}
    for row in prepared.get("screen", []):
        if row.get("ratios"):  # a shape the harness failed to screen has none ("error")
            screen.setdefault(row["strategy"], {})[row["shape"]] = row["ratios"]
    out = {}
    for strategy, shapes_ok in sorted(working(ctx, verdicts, mode).items()):
        rows, origin = screen.get(strategy, {}), ""
        if not rows and strategy in (reused or {}):
            rows, origin = reused[strategy]
        shape, why = select.choose(
            shapes_ok, rows, lambda v: _simplicity(ctx, v), lambda v: _cost_class(ctx, v)
        )
        out[strategy] = (shape, f"{why}; {REUSED} {origin}" if origin else why)
    return out


REUSED = "screen of identical code reused from run"


def screen_origins(run, workload: str) -> list:
    """The screens a timed run's choices came from (``screen_cache.Screened``, newest first): its
    own where it screened, and each committed run a reused screen names (``REUSED`` in the
    ``why`` of ``prepare/selection.json``; a reference that reused one screens nothing itself).
    A named run that is not committed is left out."""
    from bench.core import paths

    chosen = read_json(run / "prepare" / "selection.json")["chosen"]
    ids = {r["why"].split(REUSED, 1)[1].strip() for r in chosen if REUSED in r.get("why", "")}
    folders = [run]
    for run_id in sorted(ids):
        for raw in (paths.raw_dir(paths.results_dir(workload)),
                    paths.RESULTS_DIR / "b2b" / workload / "raw"):  # fmt: skip
            found = paths.find_run(raw, run_id)
            if found is not None:
                folders.append(found)
                break
    found = [s for s in (screen_cache.read(f) for f in folders) if s is not None]
    return sorted(found, key=lambda s: s.run_id, reverse=True)


def screens(ctx: RunContext) -> list:
    """The earlier runs whose screens of identical code this run reuses
    (``screen_cache.known``): always for a tier that does not screen; for one that does, unless
    the run gates afresh (``--fresh-gate``: it measures everything again) or screens every
    shape (``--screen-all``). A screen costs about 2.5 of a default clip run's 14 minutes."""
    plan = ctx.plan
    if plan.precision.screen and (not plan.reuse_gate or plan.screen_all):
        return []
    return screen_cache.known(ctx.run, plan.workload)


def reused_screens(ctx: RunContext, verdicts, mode: str, runs: list) -> dict:
    """``screen_cache.reusable`` from ``runs`` (``screens``) for every strategy with several ways
    of reading the state in ``mode``: what this run need not screen again."""
    if not runs:
        return {}
    wanted = {
        s: [v.shape for v in classes.values()]
        for s, classes in representatives(ctx, verdicts, mode).items()
        if len(classes) > 1
    }
    if not wanted:
        return {}
    keys = {v.key: v.cache_key for v in verdicts if v.cache_key}
    return screen_cache.reusable(runs, keys, mode, wanted)


def representatives(ctx: RunContext, verdicts, mode: str) -> dict[str, dict]:
    """{strategy: {cost class: verdict of its simplest working shape}} in ``mode``."""
    return {
        s: select.representatives(ok, lambda v: _simplicity(ctx, v), lambda v: _cost_class(ctx, v))
        for s, ok in working(ctx, verdicts, mode).items()
    }


def measure_bandwidth(ctx: RunContext) -> None:
    """For workloads with a physical floor: this machine's memory bandwidth, once a run."""
    out = ctx.run.bandwidth
    if out.is_file() or not ctx.workload.floor_kernel:
        return
    ctx.progress.line("bandwidth: STREAM copy and triad, 1 MiB to 2 × the last-level cache")
    write_json_atomic(out, {"schema_version": 3, **bandwidth.measure()})


def _twin_item(ctx, key: str, size: int, role: str, control: str | None = None) -> Item:
    twin = ctx.twins[key]
    control = control or key
    return Item(
        CONTROL,
        twin.shape.name,
        twin.path,
        twin.layout,
        update=False,
        control=control,
        control_path=ctx.twins[control].path,
        role=role,
        batch_size=size,
    )


def prepare_phase(ctx: RunContext, verdicts, runs: list | None = None) -> dict:
    """Screen what this run needs: not the strategies whose screen of identical code ``runs``
    (``screens``, read once by the runner) already holds."""
    plan, start = ctx.plan, time.monotonic()
    measure_bandwidth(ctx)
    base = f"{CONTROL}/{ctx.workload.base_control}"
    jobs = []
    runs = screens(ctx) if runs is None else runs
    for mode in shard.modes(plan):  # a shard (bench.run.shard): the modes it holds
        if ctx.run.prepare_file(mode).is_file():
            continue
        ok = select.twins_working(verdicts, mode)
        reps = representatives(ctx, verdicts, mode)
        reused = reused_screens(ctx, verdicts, mode, runs)  # chosen from there (``cells``)
        several = {
            s: r for s, r in reps.items() if (len(r) > 1 or plan.screen_all) and s not in reused
        }
        if reused:
            ctx.progress.line(f"prepare {mode}: the screen of {len(reused)} strategies reused")
        if not (plan.precision.screen and several and base.split("/", 1)[1] in ok):
            continue
        size = plan.precision.screen_batch_size
        items = [_twin_item(ctx, base, size, "calibrate")]
        for strategy, classes in sorted(several.items()):
            ok_shapes = working(ctx, verdicts, mode)[strategy]
            for v in ok_shapes if plan.screen_all else list(classes.values()):
                variant = ctx.variants[f"{strategy}/{v.shape}"]
                items.append(
                    Item(
                        strategy,
                        v.shape,
                        variant.path,
                        variant.layout,
                        control=base,
                        control_path=ctx.twins[base].path,
                        role="screen",
                        batch_size=size,
                    )
                )
        jobs.append(
            Job.of("prepare", plan, ctx.run.run_id, mode, ctx.run.prepare_file(mode), items)
        )
        ctx.progress.plan("prepare", mode, len(items), 1)

    def one(job: Job) -> None:
        ctx.progress.process_started("prepare")

        def handle(event):
            if event["event"] == "start":
                ctx.progress.item_started(job.out, "prepare", job.mode)
            if event["event"] == "screen_failed":
                ctx.progress.line(f"prepare {job.mode}: {event['key']}: not screened: "
                                  f"{event['detail']}")  # fmt: skip
            if event["event"] in ("calibrated", "screened", "screen_failed"):
                ctx.progress.item_recorded(job.out)  # its time as measured

        rerun_all = lambda *_: set()  # noqa: E731 - prepare writes its file at the end
        for failure in ctx.supervisor.run(job, f"prepare-{job.mode}", handle, kept=rerun_all):
            ctx.progress.line(f"prepare {job.mode}: {failure.item.key}: {failure.status}")

    ctx.pool(jobs, one, 1)
    ctx.phase_done("prepare", time.monotonic() - start)
    return records.Records(ctx.run.path).prepare


def cells(
    ctx: RunContext, verdicts, prepared: dict, runs: list | None = None
) -> dict[str, list[Item]]:
    """Per mode, one race per size (and prepare/selection.json: which shape, and why).

    A race times, in the same rounds of one process, every working strategy in its chosen shape,
    each one's no-update twin, the base twin, a second copy of the base twin (the A/A cell) and
    the layout twins: every comparison the report makes, head to head or against a twin, is then
    paired on the same rounds (``bench.run.race``)."""
    plan, base = ctx.plan, f"{CONTROL}/{ctx.workload.base_control}"
    out, chosen = {}, []
    runs = screens(ctx) if runs is None else runs
    for mode in shard.modes(plan):  # a shard (bench.run.shard): the modes it holds
        twins_ok = select.twins_working(verdicts, mode)
        members = []
        reused = reused_screens(ctx, verdicts, mode, runs)
        picked = choices(ctx, verdicts, mode, prepared.get(mode, {}), reused)
        for strategy, (shape, why) in picked.items():
            variant = ctx.variants[f"{strategy}/{shape}"]
            twin = ctx.twins.get(variant.control)
            timed = twin is not None and variant.control.split("/", 1)[1] in twins_ok
            chosen.append(
                {
                    "mode": mode,
                    "strategy": strategy,
                    "shape": shape,
                    "why": why,
                    "control": variant.control,
                    "timed": timed,
                }
            )
            if timed:
                members.append(
                    Member(
                        strategy,
                        shape,
                        variant.path,
                        variant.layout,
                        "update",
                        variant.control,
                        twin.path,
                    )
                )
        if base.split("/", 1)[1] in twins_ok:
            members.append(_twin_member(ctx, base, "aa"))
            for twin in (
                ctx.workload.layout_twins() if plan.precision.layout_cells and ctx.full else []
            ):
                key = f"{CONTROL}/{twin.name}"
                if key != base and key in ctx.twins and twin.name in twins_ok:
                    members.append(_twin_member(ctx, key, "layout", control=base))
        elif members:
            ctx.progress.line(f"time {mode}: the base twin does not work: nothing is raced")
            members = []
        out[mode] = [race_item(ctx, base, members, n) for n in plan.batch_sizes] if members else []
    selection = ctx.run.selection
    if not selection.is_file() or read_json(selection) != {"chosen": chosen}:
        write_json_atomic(selection, {"chosen": chosen})  # derived: rewritten only if changed
    return out


def _twin_member(ctx, key: str, role: str, control: str | None = None) -> Member:
    twin, control = ctx.twins[key], control or key
    return Member(CONTROL, twin.shape.name, twin.path, twin.layout, role, control,
                  ctx.twins[control].path, update=False)  # fmt: skip


def race_item(ctx, base: str, members, size: int, rounds: int = 0) -> Item:
    """A race at ``size``: its members, and the base twin every member is also compared with."""
    return Item(RACE, RACE, "", "", update=False, control=base, control_path=ctx.twins[base].path,
                role=RACE, batch_size=size, rounds=rounds, members=tuple(members))  # fmt: skip

"""Run a benchmark: generate the variants, gate them, prepare, time. A run lives in one folder
(``bench.core.rundir``); each phase is its own module and they share a ``RunContext``:

0. generate (``context.RunContext.generate``): a variant file per strategy × shape, a twin per
   shape;
1. gate (``gate_phase``): every variant in every mode, compiled modes in two processes;
2. prepare (``prepare_phase``): k per twin and size, the shape screen, the cells to time;
3. time (``time_phase``): stage 0 for every cell, later stages for the cells still undecided.

Every file is written atomically and kept: ``--resume`` finishes an interrupted run without
measuring anything twice.
"""

from __future__ import annotations

import signal
from pathlib import Path

from bench.core import portable
from bench.core.rundir import now
from bench.core.schema import RunStatus
from bench.run.context import RunContext
from bench.run.gate_phase import gate_phase, regate_alone
from bench.run.plan import Plan
from bench.run.prepare_phase import candidates, cells, prepare_phase, screens
from bench.run.progress import fmt_duration
from bench.run.time_phase import expect_timing, time_phase


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def _workers(before: dict, now_started: dict) -> dict:
    """How the run's workers started, summed over its invocations (``--resume``)."""
    return {how: before.get(how, 0) + now_started.get(how, 0) for how in ("warm", "cold")}


def run(
    run_dir: Path, plan: Plan, argv: list[str], out=print, publish: bool = False, deadline=0.0
) -> RunStatus:
    """Gate, prepare and time ``plan`` into ``run_dir``; returns the final status. ``deadline``
    (seconds since the epoch, 0: none): the timing ends there (``time_phase``)."""
    from bench.core import verdicts as final_verdicts

    ctx = RunContext(run_dir, plan, out)
    ctx.deadline = deadline
    signal.signal(signal.SIGTERM, _raise_interrupt)  # nox and kill send SIGTERM: stop cleanly
    if hasattr(signal, "SIGBREAK"):  # Windows: Ctrl-Break (CTRL_BREAK_EVENT) stops cleanly too
        signal.signal(signal.SIGBREAK, _raise_interrupt)
    manifest = ctx.manifest()
    if not manifest.command:
        said = " ".join(["nox -s bench", *(["--", *argv] if argv else [])])
        manifest.command = portable.command(said)  # no absolute folder of this machine
        manifest.argv = portable.argv(argv)
    manifest.status, manifest.publish = RunStatus.RUNNING, publish
    manifest.invocations.append({"argv": portable.argv(argv), "at": now()})
    ctx.save(manifest)
    try:
        ctx.generate()
        if not plan.gate_only:
            expect_timing(ctx)
        gated = final_verdicts.final(gate_phase(ctx), [])
        if not plan.gate_only:
            answer_pool = {m: candidates(ctx, gated, m) for m in plan.modes}
            expect_timing(ctx, gated, answer_pool)  # the races, now that the verdicts are known
            earlier = screens(ctx)  # read once: what not to screen, then the shapes chosen
            prepared = prepare_phase(ctx, gated, earlier)
            time_phase(ctx, cells(ctx, gated, prepared, earlier), answer_pool)
            regate_alone(ctx, gated)  # a cell wrong only while timed: its kind, alone
    except KeyboardInterrupt:
        ctx.supervisor.stop_all()
        manifest = ctx.manifest()
        manifest.status = RunStatus.INTERRUPTED
        manifest.workers = _workers(manifest.workers, ctx.supervisor.started)
        ctx.save(manifest)
        return RunStatus.INTERRUPTED
    finally:
        ctx.supervisor.close()
    manifest = ctx.manifest()
    manifest.status, manifest.finished = RunStatus.COMPLETE, now()
    manifest.workers = _workers(manifest.workers, ctx.supervisor.started)
    ctx.save(manifest)
    total = sum(manifest.phases.values())
    phases = ", ".join(f"{k} {fmt_duration(v)}" for k, v in manifest.phases.items())
    out(f"run {ctx.run.run_id}: complete in {fmt_duration(total)} ({phases})")
    return RunStatus.COMPLETE

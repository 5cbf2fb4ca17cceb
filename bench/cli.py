"""``python -m bench`` (what ``nox -s bench`` runs): check the arguments, run, report.

Exit codes (decided in ``bench.core.exits``, which says what each means): 0 = as recorded;
1 = a verdict differs from the record, a strategy file was refused or a timing process crashed
(the last line says which); 2 = a bad argument; 3 = the harness failed; 130 = interrupted.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

from bench.core import paths, procs
from bench.core.args import (
    OneLineParser,
    UsageError,
    budget_minutes,
    choose,
    comma_list,
    positive_float,
    positive_int,
)
from bench.core.exits import Exit, Outcome, combine, exit_code, message, total
from bench.core.io import read_json
from bench.core.portable import portable_path
from bench.core.rundir import new_run_id
from bench.core.schema import RunStatus
from bench.measured import discovery, modes, workloads
from bench.run import shard
from bench.run.plan import TIERS, Plan


def parser() -> OneLineParser:
    p = OneLineParser(prog="nox -s bench --", description=__doc__.splitlines()[0])
    p.add_argument(
        "--workload",
        help=f"what the cell computes: {', '.join(workloads.WORKLOADS)} or all (default clip; "
        "--gate-only checks every workload unless one is named)",
    )
    p.add_argument("--strategies", type=comma_list("strategies"), help="comma list (default: all)")
    p.add_argument(
        "--shapes",
        type=comma_list("shapes"),
        help="comma list of shape names, e.g. inline-alias-after-expr (default: all)",
    )
    p.add_argument(
        "--modes", type=comma_list("modes"), help=f"comma list of {', '.join(modes.MODES)}"
    )
    p.add_argument(
        "--batch-sizes",
        type=comma_list("batch sizes", positive_int),
        help="comma list of positive integers (default: the workload's sizes, e.g. the clip's "
        + ",".join(map(str, workloads.get(paths.DEFAULT_WORKLOAD).batch_sizes))
        + "; by default its smallest, a middle and its largest; --quick: its largest; "
        "--rigorous: all of them)",
    )
    tier = p.add_mutually_exclusive_group()
    tier.add_argument(
        "--quick",
        action="store_true",
        help=f"{TIERS['quick'].gate_replicas} gate process, {TIERS['quick'].processes} timing "
        f"process per race, {TIERS['quick'].rounds} rounds, no later stage, the largest size "
        "unless --batch-sizes names others, no screen (each strategy in the "
        "shape an earlier run's screen chose for identical code, else its simplest): a fast "
        "rough pass",
    )
    tier.add_argument(
        "--rigorous",
        action="store_true",
        help=f"{TIERS['rigorous'].processes} processes per race and up to "
        f"{TIERS['rigorous'].stages} later stages, until every interval is within "
        f"±{TIERS['rigorous'].target * 100:g} %%",
    )
    p.add_argument(
        "--processes",
        type=positive_int,
        help="timing processes per race in the first stage (default "
        + "; ".join(f"{name} {t.processes}" for name, t in TIERS.items())
        + ")",
    )
    p.add_argument(
        "--cell-seconds",
        type=positive_float,
        help="seconds of blocks per pair of blocks of a race, per process (default "
        f"{TIERS['default'].cell_seconds:g})",
    )
    p.add_argument(
        "--screen-all",
        action="store_true",
        help="screen every working shape (default: one per way of reading the state)",
    )
    p.add_argument(
        "--jobs",
        type=positive_int,
        default=1,
        help="concurrent timing processes (default 1: on a 2-core machine a second timing "
        "process competes with the one being timed)",
    )
    p.add_argument("--threads", type=positive_int, default=1, help="CPU op threads (default 1)")
    p.add_argument(
        "--timeout",
        type=positive_float,
        default=300.0,
        help="seconds a worker may go without finishing an item (default 300)",
    )
    p.add_argument("--seed", type=int, default=0, help="input data and interleaving order")
    p.add_argument("--strategies-dir", type=Path, default=paths.STRATEGIES_DIR)
    p.add_argument(
        "--results-dir",
        type=Path,
        help="runs go to RESULTS_DIR/raw/<run-id>/ (default results/<workload>/)",
    )
    p.add_argument("--plots-dir", type=Path, help="default plots/<workload>/")
    p.add_argument(
        "--publish",
        action="store_true",
        help="write the reference report (results/summary.md, plots/) even for a "
        "subset or --quick run",
    )
    p.add_argument(
        "--resume",
        nargs="?",
        const="latest",
        metavar="RUN_ID",
        help="finish an interrupted run (default: the newest) instead of starting anew",
    )
    p.add_argument(
        "--gate-only",
        action="store_true",
        help="run the conformance gate only (check a new strategy), no timing",
    )
    p.add_argument("--no-report", action="store_true", help="skip writing the report")
    p.add_argument(
        "--fresh-gate",
        action="store_true",
        help="gate and screen every variant again (default: reuse the verdicts and the screen "
        "of identical code on the same MindSpore from earlier runs and the committed reference; "
        "a reused verdict or screen names the run that made it)",
    )
    p.add_argument(
        "--expected-dir",
        type=Path,
        default=None,
        help="where the expected verdicts per MindSpore release live (default expected/)",
    )
    record = p.add_mutually_exclusive_group()
    record.add_argument(
        "--record",
        action="store_true",
        help="write this run's verdicts as the expected ones for its MindSpore release "
        "(expected/mindspore-<version>.tsv; review the diff)",
    )
    record.add_argument(
        "--record-varying",
        action="store_true",
        help="keep the recorded verdicts, and mark the cells this run saw otherwise as varying",
    )
    p.add_argument(
        "--start-method",
        choices=(procs.FORK, procs.SPAWN),
        help="how a cell's isolated process starts: fork (Linux's default: fast) or spawn (the "
        f"default elsewhere: a fresh interpreter); also {procs.ENV}. With fork on Linux the "
        "worker processes fork from one warm parent too (BENCH_WARM=0: each starts cold)",
    )
    p.add_argument(
        "--shard",
        type=shard.parse,
        metavar="I/N",
        help="run only shard I of N of the gate and the timing, split by strategy × mode the "
        "same way on every machine (a timed run keeps each mode whole); merge the N runs with "
        "`nox -s merge -- RUN...`",
    )
    p.add_argument(
        "--budget",
        type=budget_minutes,
        metavar="MINUTES",
        help="end the timing this many minutes after the command starts (every workload of it "
        "together): the gate and the prepare phase always finish, no race starts after the "
        "deadline and a timing process starts no new cell; the report says what was not timed, "
        "and such a run cannot become a reference",
    )
    p.add_argument("--list", action="store_true", help="list strategies, shapes and modes")
    return p


def _check_writable(folder: Path) -> None:
    import tempfile

    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write to {str(folder)!r}: {exc.strerror or exc}") from None


def make_plan(args, work) -> Plan:
    if not args.strategies_dir.is_dir():
        raise UsageError(f"strategies folder {str(args.strategies_dir)!r} does not exist")
    names = discovery.strategy_names(args.strategies_dir)
    if not names:
        raise UsageError(f"no strategy modules in {str(args.strategies_dir)!r}")
    every_shape = sorted({s.name for lay in ("scalar", "vector") for s in work.shapes(lay)})
    tier = TIERS["quick" if args.quick else "rigorous" if args.rigorous else "default"]
    plan = Plan(
        workload=work.name,
        strategies=tuple(choose("strategy", args.strategies, names)),
        modes=tuple(choose("mode", args.modes, modes.MODE_NAMES)),
        batch_sizes=tuple(sorted(set(args.batch_sizes or tier.sizes_of(work.batch_sizes)))),
        strategies_dir=portable_path(args.strategies_dir.resolve()),  # relative in raw data
        precision=tier,
        shapes=tuple(choose("shape", args.shapes, every_shape)) if args.shapes else None,
        threads=args.threads,
        timeout=args.timeout,
        seed=args.seed,
        time_jobs=args.jobs,
        gate_only=args.gate_only,
        screen_all=args.screen_all,
    )
    changes = {"cell_seconds": args.cell_seconds, "processes": args.processes}
    return plan.with_precision(**{k: v for k, v in changes.items() if v is not None})


def is_reference(plan: Plan, work) -> bool:
    """A full run at the default tier or better: one that may replace the reference report."""
    base = make_plan(parser().parse_args(["--workload", work.name]), work)
    same = replace(plan, precision=base.precision, reuse_gate=base.reuse_gate)
    return plan.precision.tier != "quick" and same == base


def _list(args, work) -> int:
    for name in discovery.strategy_names(args.strategies_dir):
        print(f"strategy  {name}")
    for note in discovery.skipped_notes(args.strategies_dir):
        print(note)
    for layout in ("scalar", "vector"):
        for shape in work.shapes(layout):
            print(f"shape     {shape.name:32s} ({layout}) {work.describe(shape, layout)}")
    for mode in modes.MODES.values():
        print(f"mode      {mode.name:12s} {mode.description}")
    return 0


def _prepare(args, work) -> tuple[Plan, Path, Path, bool]:
    """(plan, run folder, results folder, publish?) of one workload; UsageError if bad."""
    results = (args.results_dir or paths.results_dir(work.name)).resolve()
    raw = paths.raw_dir(results)
    if args.resume:
        found = paths.runs(raw)
        if not found:
            raise UsageError(f"nothing to resume: no runs in {str(raw)!r}")
        run_dir = found[-1] if args.resume == "latest" else raw / args.resume
        if not (run_dir / "manifest.json").is_file():
            recent = ", ".join(p.name for p in found[-5:])
            raise UsageError(f"no run {args.resume!r} in {str(raw)!r} (recent: {recent})")
        manifest = read_json(run_dir / "manifest.json")
        plan = Plan.from_dict(manifest["plan"])
        publish = bool(manifest.get("publish")) or args.publish
    else:
        plan = make_plan(args, work)
        run_dir = raw / new_run_id()
        publish = args.publish or (is_reference(plan, work) and args.results_dir is None)
        plan = replace(plan, reuse_gate=not args.fresh_gate)
        if args.shard:
            try:
                shard.check(plan, args.shard)
            except ValueError as err:
                raise UsageError(str(err)) from None
            plan, publish = replace(plan, shard=args.shard), False
    _check_writable(run_dir)
    return plan, run_dir, results, publish


def _run(
    args, argv, plan: Plan, run_dir: Path, results: Path, publish: bool, outcomes, deadline=0.0
) -> int:
    where = "the reference report" if publish else f"{run_dir / 'report'}"
    if plan.shard:
        where = "none (a shard: merge the shards, then report the merged run)"
    part = f"shard {shard.name(plan.shard)} of " if plan.shard else ""
    print(
        f"run {run_dir.name}: {part}workload {plan.workload}, {len(plan.strategies)} strategies × "
        f"{len(plan.modes)} modes × batch sizes {','.join(map(str, plan.batch_sizes))}"
        f"{' (gate only)' if plan.gate_only else ''} -> {run_dir}; report: {where}",
        flush=True,
    )
    # here, not at the top: the harness imports SciPy (about 1 s), and a bad argument, --help or
    # --list answers before that
    from bench.run import runner

    status = runner.run(
        run_dir,
        plan,
        argv,
        out=lambda line: print(line, flush=True),
        publish=publish,
        deadline=deadline,
    )
    from bench.report import terminal

    code = terminal.print_summary(
        run_dir,
        record=args.record,
        folder=args.expected_dir,
        varying=args.record_varying,
        outcomes=outcomes,
    )
    if status == RunStatus.INTERRUPTED:
        hint = [] if plan.workload == paths.DEFAULT_WORKLOAD else ["--workload", plan.workload]
        if results != paths.results_dir(plan.workload).resolve():
            hint += ["--results-dir", str(results)]
        print(
            f"\ninterrupted: finished cells are kept in {run_dir}; finish the run with "
            f"`nox -s bench -- {' '.join([*hint, '--resume', run_dir.name])}`",
            file=sys.stderr,
        )
    if plan.shard and status != RunStatus.INTERRUPTED:
        print(
            f"shard {shard.name(plan.shard)} done: merge the {plan.shard[1]} shards with "
            f"`nox -s merge -- {run_dir} ...`"
        )
    if not (args.no_report or plan.gate_only or plan.shard):
        from bench.report import main as report_main

        out = ["--results-dir", str(results)]
        publish = publish and status != RunStatus.INTERRUPTED  # an unfinished run: its folder
        if publish:
            plots = (args.plots_dir or paths.plots_dir(plan.workload)).resolve()
            out += ["--plots-dir", str(plots), "--publish"]
        rendered = report_main.main([run_dir.name, *out])
        if rendered != 0:
            again = ["--workload", plan.workload, run_dir.name, *(["--publish"] if publish else [])]
            if results != paths.results_dir(plan.workload).resolve():  # a folder of one's own
                again += ["--results-dir", str(results)]
            print(
                f"bench: the report failed (exit {rendered}); every measurement is kept in "
                f"{run_dir} and no page was changed; render it again with "
                f"`nox -s report -- {' '.join(again)}`",
                file=sys.stderr,
            )
            return int(Exit.HARNESS)
    return int(exit_code(Outcome(interrupted=True))) if status == RunStatus.INTERRUPTED else code


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parser().parse_args(argv)
        # the deadline counts from the command's start, whatever the gate and prepare take
        deadline = time.time() + args.budget * 60 if args.budget else 0.0
        if args.budget and args.gate_only:
            raise UsageError("--budget ends the timing, and a --gate-only run times nothing")
        try:
            procs.use(args.start_method)  # the workers inherit it
        except procs.StartMethodError as err:
            raise UsageError(str(err)) from None
        if args.workload not in (None, "all", *workloads.WORKLOADS):
            valid = ", ".join(workloads.WORKLOADS)
            raise UsageError(f"unknown workload {args.workload!r} (valid: {valid}, all)")
        if args.workload == "all":
            if args.resume:
                raise UsageError("--resume takes one workload (--workload NAME)")
            names = list(workloads.WORKLOADS)
        elif args.workload is None:  # a --gate-only check covers every workload
            every = args.gate_only and not args.resume and not args.shapes
            names = list(workloads.WORKLOADS) if every else [paths.DEFAULT_WORKLOAD]
        else:
            names = [args.workload]
        if args.list:
            return _list(args, workloads.get(names[0]))
        if args.shard:
            options = ("resume", "record", "record_varying", "publish")
            clash = [o for o in options if getattr(args, o)]
            if clash:
                raise UsageError(
                    f"--shard and --{clash[0].replace('_', '-')} do not go together (a shard "
                    "holds part of a run: record or publish the merged run)"
                )
        runs = [_prepare(args, workloads.get(name)) for name in names]
    except UsageError as err:
        print(f"bench: error: {err}", file=sys.stderr)
        return int(exit_code(Outcome(usage_error=True)))
    from bench.run.forked import HarnessError

    codes, outcomes = [], []
    for plan, run_dir, results, publish in runs:
        try:
            codes.append(_run(args, argv, plan, run_dir, results, publish, outcomes, deadline))
        except HarnessError as err:
            print(f"bench: internal error: {err}", file=sys.stderr)
            return int(exit_code(Outcome(harness_error=True)))
        except Exception as err:  # anything else the suite did not expect is a bug of the suite
            import traceback

            traceback.print_exc()
            print(f"bench: internal error (a bug of the suite): {err!r}", file=sys.stderr)
            return int(exit_code(Outcome(harness_error=True)))
        if codes[-1] == Exit.INTERRUPTED:
            break
    if len(outcomes) > 1 and message(total(outcomes)):  # each workload printed its own line
        print(f"all {len(outcomes)} workloads: {message(total(outcomes))}")
    return int(combine(codes))

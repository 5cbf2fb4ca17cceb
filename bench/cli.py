"""``python -m bench`` (what ``nox -s bench`` runs): parse and check arguments, run, report."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from bench import discovery, modes, runner, workloads
from bench.gate import Verdict
from bench.jobs import PRECISIONS

DEFAULT_BATCH_SIZES = (1, 8, 64, 256, 1024)
DEFAULT_RESULTS = runner.ROOT / "results"
DEFAULT_PLOTS = runner.ROOT / "plots"


class UsageError(Exception):
    """A bad argument: reported in one line before any work starts."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage dump
        raise UsageError(message)


def _csv(kind, convert=str):
    def parse(text: str):
        items = [item.strip() for item in text.split(",")]
        if not text.strip() or any(not item for item in items):
            raise argparse.ArgumentTypeError(f"{kind}: empty item in {text!r}")
        return [convert(item) for item in items]

    return parse


def _positive(convert, what: str):
    """An argparse type: ``convert(text)``, which must be > 0."""

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value

    return parse


_positive_int = _positive(int, "a whole number")
_positive_float = _positive(float, "a number")


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="nox -s bench --", description=__doc__)
    p.add_argument("--strategies", type=_csv("strategies"), help="comma list (default: all)")
    p.add_argument("--modes", type=_csv("modes"), help=f"comma list of {', '.join(modes.MODES)}")
    p.add_argument(
        "--batch-sizes",
        type=_csv("batch sizes", _positive_int),
        help="comma list of positive integers (default: 1,8,64,256,1024)",
    )
    p.add_argument("--quick", action="store_true", help="one process per cell, short cells")
    p.add_argument("--processes", type=_positive_int, help="worker processes per strategy × mode")
    p.add_argument("--cell-seconds", type=_positive_float, help="measurement budget per cell")
    p.add_argument("--threads", type=_positive_int, default=1, help="CPU op threads (default 1)")
    p.add_argument(
        "--timeout",
        type=_positive_float,
        default=900.0,
        help="seconds before a worker process is killed as hung (default 900)",
    )
    p.add_argument(
        "--gate-steps",
        type=_positive_int,
        default=30,
        help="conformance steps per gate batch size (default 30)",
    )
    p.add_argument(
        "--gate-batch-sizes",
        type=_csv("gate batch sizes", _positive_int),
        help="default: the workload's (clip: 4,1024: the limit grows, then reaches the cap)",
    )
    p.add_argument(
        "--workload",
        default="clip",
        help=f"what the cell computes: {', '.join(workloads.WORKLOADS)} (default clip)",
    )
    p.add_argument("--seed", type=int, default=0, help="input data and interleaving order")
    p.add_argument("--strategies-dir", type=Path, default=discovery.STRATEGIES_DIR)
    p.add_argument(
        "--results-dir",
        type=Path,
        help="raw runs go to RESULTS_DIR/raw/<run-id>/, the summary to RESULTS_DIR "
        "(default results/, for --workload brn results/brn/)",
    )
    p.add_argument("--plots-dir", type=Path, help="default plots/ (plots/brn/ for brn)")
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
    p.add_argument("--no-report", action="store_true", help="skip writing summary.md and plots")
    p.add_argument("--list", action="store_true", help="list strategies and modes, then exit")
    return p


def _check_writable(folder: Path) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".write-test-"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write to {str(folder)!r}: {exc.strerror or exc}") from None


def _choose(kind: str, asked, valid) -> list:
    if asked is None:
        return list(valid)
    unknown = [a for a in asked if a not in valid]
    if unknown:
        raise UsageError(
            f"unknown {kind} {', '.join(map(repr, unknown))} (valid: {', '.join(valid)})"
        )
    return list(dict.fromkeys(asked))


def make_plan(args) -> runner.Plan:
    names = discovery.strategy_names(args.strategies_dir)
    if not args.strategies_dir.is_dir():
        raise UsageError(f"strategies folder {str(args.strategies_dir)!r} does not exist")
    if not names:
        raise UsageError(f"no strategy modules in {str(args.strategies_dir)!r}")
    precision = PRECISIONS["quick" if args.quick else "default"]
    plan = runner.Plan(
        strategies=_choose("strategy", args.strategies, names),
        modes=_choose("mode", args.modes, modes.MODE_NAMES),
        batch_sizes=sorted(set(args.batch_sizes or DEFAULT_BATCH_SIZES)),
        strategies_dir=str(args.strategies_dir.resolve()),
        precision=precision,
        threads=args.threads,
        timeout=args.timeout,
        seed=args.seed,
        gate_steps=args.gate_steps,
        gate_batch_sizes=list(
            args.gate_batch_sizes or workloads.get(args.workload).gate_batch_sizes
        ),
        workload=args.workload,
    )
    overrides = {"processes": args.processes, "cell_seconds": args.cell_seconds}
    return runner.with_precision(plan, **{k: v for k, v in overrides.items() if v is not None})


def _gate_summary(run_dir: Path) -> int:
    """Print every gate verdict; exit 1 if a strategy does not behave as it declares."""
    bad = 0
    for path in sorted(run_dir.glob("gate-*.json")):
        v = json.loads(path.read_text())["suite"]["verdict"]
        ok = Verdict(**v).passed
        bad += not ok
        mark = "ok  " if ok else "FAIL"
        print(f"{mark} {v['strategy']:20s} {v['mode']:13s} {v['status']:12s} {v['detail']}")
    return 1 if bad else 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args = parser().parse_args(argv)
        if args.workload not in workloads.WORKLOADS:
            valid = ", ".join(workloads.WORKLOADS)
            raise UsageError(f"unknown workload {args.workload!r} (valid: {valid})")
        suffix = () if args.workload == "clip" else (args.workload,)
        # absolute: workers run in the run's logs/ folder
        args.results_dir = (args.results_dir or DEFAULT_RESULTS.joinpath(*suffix)).resolve()
        args.plots_dir = (args.plots_dir or DEFAULT_PLOTS.joinpath(*suffix)).resolve()
        if args.list:
            for name in discovery.strategy_names(args.strategies_dir):
                print(f"strategy  {name}")
            for mode in modes.MODES.values():
                print(f"mode      {mode.name:9s} {mode.description}")
            return 0
        raw_dir = args.results_dir / "raw"
        if args.resume:
            found = runner.runs(raw_dir)
            if not found:
                raise UsageError(f"nothing to resume: no runs in {str(raw_dir)!r}")
            run_dir = found[-1] if args.resume == "latest" else raw_dir / args.resume
            if not (run_dir / "manifest.json").is_file():
                valid = ", ".join(p.name for p in found[-5:])
                raise UsageError(f"no run {args.resume!r} in {str(raw_dir)!r} (recent: {valid})")
            plan = runner.Plan.from_dict(
                json.loads((run_dir / "manifest.json").read_text())["plan"]
            )
        else:
            plan = make_plan(args)
            run_dir = raw_dir / runner.new_run_id()
        _check_writable(run_dir)
        if args.gate_only:
            args.no_report = True
        if not args.no_report:
            _check_writable(args.plots_dir)
    except UsageError as err:
        print(f"bench: error: {err}", file=sys.stderr)
        return 2

    print(
        f"run {run_dir.name}: {len(plan.strategies)} strategies × {len(plan.modes)} modes × "
        f"batch sizes {','.join(map(str, plan.batch_sizes))}, {plan.precision.processes} "
        f"process(es) per strategy × mode -> {run_dir}",
        flush=True,
    )
    status = runner.run(
        run_dir, plan, argv, out=lambda line: print(line, flush=True), gate_only=args.gate_only
    )
    if status == "interrupted":
        where = [] if args.workload == "clip" else ["--workload", args.workload]
        if args.results_dir != DEFAULT_RESULTS.joinpath(*where[1:]).resolve():
            where += ["--results-dir", str(args.results_dir)]
        print(
            f"\ninterrupted: finished cells are kept in {run_dir}; finish the run with "
            f"`nox -s bench -- {' '.join([*where, '--resume', run_dir.name])}`",
            file=sys.stderr,
        )
    if args.gate_only:
        return _gate_summary(run_dir)
    if not args.no_report:
        from bench import report, repro

        repro.write_all(run_dir, args.results_dir / "repros", Path(plan.strategies_dir))

        report.main(
            [
                run_dir.name,
                "--results-dir",
                str(args.results_dir),
                "--plots-dir",
                str(args.plots_dir),
            ]
        )
    return 130 if status == "interrupted" else 0

"""Each gated cell again, alone in a fresh Python process: does the gate's verdict hold?

Under bytecode capture a verdict was seen to depend on what ran before it in the process (issue
29), so the gate runs every bytecode cell in a forked child of its own. This check does not
trust that mechanism: it runs each cell of a finished run in a new interpreter (``python -m
bench.run.alone --one ...``: nothing imported or run before it but MindSpore), through the same
``gate.check``, and compares the signature (status and kind, or the error) with the run's final
verdict. A cell the run calls "differs between processes" accepts any outcome it saw.

    python -m bench.run.alone RUN_DIR [--modes jit_bytecode] [--jobs 2] [--out FILE]

Exit 0 when every cell agrees, 1 when one does not, 2 for bad arguments. It measures nothing,
so it may run beside other work (slower, not wrong).
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bench.core import paths, records
from bench.core import verdicts as final_verdicts
from bench.core.args import OneLineParser
from bench.core.io import write_text_atomic
from bench.core.schema import Kind, Status, Verdict, signature
from bench.measured.modes import JIT_BYTECODE, MODE_NAMES
from bench.measured.shapes import CONTROL
from bench.run.context import mindspore_version, suite_commit

CHECKED = (Status.WORKS, Status.INCORRECT, Status.RAISES, Status.CRASHED, Status.TIMEOUT)
TIMEOUT_S = 180.0


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    alone: str  # the signature seen alone
    seconds: float

    @property
    def recorded(self) -> str:
        v = self.verdict
        return signature(v.status, v.kind, v.detail)

    @property
    def agrees(self) -> bool:
        return agrees(self.recorded, self.alone)


@dataclass(frozen=True)
class Provenance:
    """Where and how a check ran, printed with its counts so a summary stands on its own."""

    command: str  # as typed, the run folder as given
    run_suite: str  # the suite commit the run was gated with (its manifest)
    suite: str  # the suite commit that ran the check
    mindspore: str
    python: str
    started: str  # UTC
    jobs: int
    wall_s: float
    planned: int  # cells the check set out to run (more than it ran when interrupted)


def agrees(recorded: str, alone: str) -> bool:
    """Whether what a cell did alone is what the run recorded: the same signature, or any
    outcome for a cell the run saw differ between its processes."""
    if recorded == f"{Status.INCORRECT}: {Kind.DIFFERS}":
        return True
    return recorded == alone


def _child(workload: str, mode: str, path: str, item: dict) -> int:  # pragma: no cover - child
    """In the fresh process: gate one cell as the gate does and print its signature."""
    from bench.measured import modes, workloads
    from bench.measured.shapes.codegen import load_variant
    from bench.run import gate
    from bench.run.plan import Item

    the_mode = modes.get(mode)
    the_mode.activate()
    found = gate.check(
        load_variant(path), workloads.get(workload), the_mode, Item(**item), replica=1
    )  # fmt: skip  (replica 1: no fullgraph diagnostic compile)
    print(json.dumps({"signature": signature(found.status, found.kind, found.detail)}))
    return 0


def _item(v: Verdict, path: Path) -> dict:
    return {
        "strategy": v.strategy,
        "shape": v.shape,
        "path": str(path),
        "layout": v.layout,
        "update": v.strategy != CONTROL,  # a no-update twin is checked against no update
        "dims": dict(v.dims),
        "meaning": v.meaning,
        "intended": v.intended,
    }


def run_alone(v: Verdict, path: Path, timeout: float = TIMEOUT_S) -> Outcome:
    """The cell of ``v`` (its variant file at ``path``) in a fresh interpreter."""
    args = [sys.executable, "-m", "bench.run.alone", "--one", v.workload, v.mode, str(path),
            json.dumps(_item(v, path))]  # fmt: skip
    start = time.monotonic()
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return Outcome(v, str(Status.TIMEOUT), time.monotonic() - start)
    took = time.monotonic() - start
    if done.returncode < 0:
        return Outcome(v, str(Status.CRASHED), took)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith('{"signature"')]
    if done.returncode or not lines:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Outcome(v, f"{Status.CRASHED}: exited with code {done.returncode}: {tail}", took)
    return Outcome(v, json.loads(lines[-1])["signature"], took)


def cells(run_dir: Path, modes: list[str], strategies: list[str] | None) -> list[Verdict]:
    """The run's final verdicts in ``modes`` that the check can run (a variant file kept)."""
    rec = records.Records(run_dir)
    final = final_verdicts.final(rec.verdicts, rec.cell_statuses)
    return [
        v
        for v in final
        if v.mode in modes
        and v.status in CHECKED
        and (not strategies or v.strategy in strategies)
        and rec.run.variant(v.strategy, v.shape).is_file()
    ]


def summary(outcomes: list[Outcome], run_id: str, modes: list[str], how: Provenance) -> str:
    bad = [o for o in outcomes if not o.agrees]
    lines = [
        f"# Each cell of run {run_id} alone in a fresh process ({', '.join(modes)})",
        "",
        f"`{how.command}`",
        "",
        f"- cells: {len(outcomes)}; agree with the gate: {len(outcomes) - len(bad)}; "
        f"disagree: {len(bad)}",
    ]
    if len(outcomes) < how.planned:
        lines.append(f"- interrupted: {len(outcomes)} of {how.planned} cells ran; the rest are "
                     "not checked")  # fmt: skip
    lines += [
        f"- wall time per cell: median {_median([o.seconds for o in outcomes]):.1f} s; "
        f"{how.wall_s / 60:.0f} min in all with --jobs {how.jobs}",
        f"- the run was gated by suite {how.run_suite or 'unknown'}; this check ran suite "
        f"{how.suite or 'unknown'}, MindSpore {how.mindspore}, Python {how.python}, "
        f"started {how.started}",
    ]
    if bad:
        lines += ["", "| cell | mode | the gate's verdict | alone |", "|---|---|---|---|"]
        lines += [
            f"| `{o.verdict.strategy}@{o.verdict.shape}` | {o.verdict.mode} | {o.recorded} | "
            f"{o.alone} |"
            for o in bad
        ]
    return "\n".join(lines) + "\n"


def _median(values: list[float]) -> float:
    s = sorted(values)
    return s[len(s) // 2] if s else float("nan")


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--one"]:
        return _child(argv[1], argv[2], argv[3], json.loads(argv[4]))
    p = OneLineParser(prog="python -m bench.run.alone", description=__doc__.splitlines()[0])
    p.add_argument("run_dir", type=Path)
    p.add_argument("--modes", default=JIT_BYTECODE)
    p.add_argument("--strategies", default="")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    unknown = [m for m in modes if m not in MODE_NAMES]
    if unknown or not modes:
        p.error(f"unknown mode(s) {unknown!r} (valid: {', '.join(MODE_NAMES)})")
    args.run_dir = paths.run_folder(args.run_dir) or args.run_dir  # an archive: its extracted copy
    if not (args.run_dir / "manifest.json").is_file():
        p.error(f"{str(args.run_dir)!r} is not a run folder (no manifest.json)")
    if args.jobs < 1:
        p.error(f"--jobs must be at least 1, got {args.jobs!r}")
    todo = cells(args.run_dir, modes, [s for s in args.strategies.split(",") if s] or None)
    if not todo:
        p.error(f"no gated cell with its variant file in {str(args.run_dir)!r} for {modes}")
    rec = records.Records(args.run_dir)
    run = rec.run
    outcomes: list[Outcome] = []
    started, clock = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), time.monotonic()
    signal.signal(signal.SIGTERM, signal.default_int_handler)

    def one(v: Verdict) -> Outcome:
        got = run_alone(v, run.variant(v.strategy, v.shape))
        outcomes.append(got)
        mark = "" if got.agrees else f"   <- the gate said {got.recorded}"
        print(f"[{len(outcomes)}/{len(todo)}] {v.strategy}@{v.shape} {v.mode}: {got.alone}{mark}",
              flush=True)  # fmt: skip
        return got

    try:
        with ThreadPoolExecutor(args.jobs) as pool:
            list(pool.map(one, todo))
    except KeyboardInterrupt:
        print("interrupted: the summary covers the cells finished so far", file=sys.stderr)
    how = Provenance(
        command=shlex.join(["python", "-m", "bench.run.alone", *argv]),
        run_suite=rec.manifest.suite_commit,
        suite=suite_commit(),
        mindspore=mindspore_version(),
        python=platform.python_version(),
        started=started,
        jobs=args.jobs,
        wall_s=time.monotonic() - clock,
        planned=len(todo),
    )
    text = summary(outcomes, run.run_id, modes, how)
    print(text)
    if args.out:
        write_text_atomic(args.out, text)
    if len(outcomes) < len(todo):
        return 130
    return 0 if all(o.agrees for o in outcomes) else 1


if __name__ == "__main__":
    os.environ.setdefault("GLOG_v", "3")  # MindSpore's warnings would drown the progress
    sys.exit(main())

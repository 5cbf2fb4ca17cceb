"""``python -m bench.check PATH.py:CellName``: check a user's Cell in every mode against eager.

Exit codes (``bench.core.exits.Exit``): 0 every mode agrees with eager, 1 a mode diverges, 2 bad
input, 3 the check itself failed (its traceback in a log file it names), 130 interrupted. Only a
finished check writes: everything goes to a staging folder beside ``--out`` that replaces it at
the end, so a bad input, a failure or Ctrl-C leaves ``--out`` as it was.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import inspect
import os
import shlex
import shutil
import sys
import tempfile
import time
import traceback
from functools import partial
from pathlib import Path

from bench.check import answers as instead
from bench.check import diff, known, repro, runs
from bench.check import kinds as K
from bench.check import report as R
from bench.check.target import BadInput, load, parse_inputs
from bench.core import procs
from bench.core.exits import Exit
from bench.core.io import write_text
from bench.core.schema import Status
from bench.measured.modes import GRAPH, JIT_AST, JIT_BYTECODE, MODES, PYNATIVE

DEFAULT_MODES = (GRAPH, JIT_AST, JIT_BYTECODE)
ORACLE_ROUNDS = 4
FAILED = ([], {})  # eager raised from that state: no answer


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python -m bench.check",
        description="Run your Cell in every MindSpore mode and diff its outputs and Parameters "
        "per step against its eager (PYNATIVE_MODE) run.",
        epilog="The file defines the Cell, make_cell() and make_inputs(step) (or give --inputs). "
        "Exit codes: 0 every mode agrees with eager, 1 a mode diverges, 2 bad input, 3 the check "
        "itself failed, 130 interrupted (nothing written but by a finished check).",
    )
    p.add_argument("target", help="PATH.py:CellName")
    p.add_argument("--steps", type=int, default=6, help="steps per run (default 6)")
    p.add_argument(
        "--inputs",
        action="append",
        metavar="SHAPE:DTYPE[,...]",
        help="the inputs instead of the file's make_inputs, e.g. 4x3x32x32:float32 (one per "
        "input, comma-separated or repeated; dtype default float32; step s draws from "
        "numpy.random.default_rng(s): floats standard normal, integers in [0, 10))",
    )
    p.add_argument(
        "--modes",
        default=",".join(DEFAULT_MODES),
        help=f"comma-separated compiled modes to check (default {','.join(DEFAULT_MODES)}); "
        "PYNATIVE_MODE always runs as the reference",
    )
    p.add_argument("--timeout", type=float, default=120.0, help="seconds without progress (120)")
    p.add_argument("--out", type=Path, help="where to write (default check-results/<CellName>/)")
    p.add_argument("--shrink", action="store_true", help="shrink the first divergence's repro")
    p.add_argument("--json", action="store_true", help="print report.json instead of a summary")
    p.add_argument(
        "--start-method",
        choices=(procs.FORK, procs.SPAWN),
        help="how each run's process starts: fork (Linux's default: fast) or spawn (the default "
        f"elsewhere: a fresh interpreter that loads your file again); also {procs.ENV}",
    )
    return p.parse_args(argv)


class Progress:
    def __init__(self, total: int):
        self.total, self.done = total, 0

    def run(self, what: str, work, timeout: float) -> dict:
        self.done += 1
        print(f"[{self.done}/{self.total}] {what} ...", file=sys.stderr, flush=True)
        start = time.monotonic()
        result = runs.isolated(work, timeout)
        status = result.get("status", "ok") if isinstance(result, dict) else "ok"
        took = time.monotonic() - start
        print(f"[{self.done}/{self.total}] {what}: {status} ({took:.1f} s)", file=sys.stderr,
              flush=True)  # fmt: skip
        return result


def _no_reference(ref: dict, steps: int) -> str | None:
    """Why the eager run cannot be the reference (bad input), or None."""
    if ref["status"] == "hangs":
        return f"the eager (PYNATIVE_MODE) run {ref['detail']}: no reference (raise --timeout?)"
    if ref["status"] == "crashes":
        return f"the eager (PYNATIVE_MODE) run {ref['detail']}: no reference"
    for n, inst in enumerate(ref["instances"]):
        error = inst["error"]
        if not error:
            continue
        who = "the second instance" if n else "the Cell"
        if error["step"] < 0:
            return f"make_cell() fails for {who}: {error['message']}"
        message = error["message"].rstrip(".")
        if error.get("type") == "make_inputs":
            return f"{message}: no inputs to check with"
        shape = "shape" in message.lower() or error.get("type") in ("ValueError", "TypeError")
        if error["step"] == 0 and n == 0 and shape:
            return f"the inputs do not fit: the eager call with make_inputs(0) raises {message}"
        return (
            f"{who} fails in PYNATIVE_MODE itself at step {error['step'] + 1}: {message}: "
            "no reference to check against"
        )
    if ref["inputs"] is None or len(ref["inputs"]) < steps:
        return "make_inputs() did not give the inputs of every step"
    return None


def _runs_of(mode: str, traces: list[dict], answers, tols) -> list[K.Run] | None:
    out = []
    for process, t in enumerate(traces, 1):
        count = 2 if process == 1 else 1
        if t["status"] != "ok":
            at = t.get("at")
            where = f" at step {at[1] + 1} of instance {at[0] + 1}" if at and at[1] >= 0 else ""
            dead = at[0] if at else 0
            for n in range(count):
                status = K.CRASHED if t["status"] == "crashes" else K.HANGS
                if n > dead:
                    out.append(K.Run(mode, process, n + 1, "not run", detail="process died"))
                elif n == dead:
                    out.append(K.Run(mode, process, n + 1, status, first_step=(at or (0, 0))[1] + 1,
                                     detail=f"{t['detail']}{where}"))  # fmt: skip
            continue
        for n, inst in enumerate(t["instances"]):
            run = diff.judge_instance(inst, answers, tols, mode, process, n + 1)
            if run is None:
                return None
            out.append(run)
    return out


def _message(detail: str) -> str:
    """The exception part of a raises detail ("step 1: RuntimeError: ...")."""
    return detail.split(": ", 1)[1] if ": " in detail else detail


def _log_traceback() -> str:
    """The current exception's traceback in a new log file; its path."""
    fd, path = tempfile.mkstemp(prefix="bench-check-", suffix=".log")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        traceback.print_exc(file=f)
    return path


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    args.argv = argv
    start = time.monotonic()
    staging = None
    try:
        out = args.out or Path("check-results") / _cell_name(args.target)
        staging = out.parent / f".{out.name}.partial-{os.getpid()}"
        code = _check(args, start, out, staging)
        _publish(staging, out)
        return code
    except BadInput as exc:
        print(f"error: {exc}", file=sys.stderr)
        return Exit.USAGE
    except KeyboardInterrupt:
        print("interrupted: nothing written", file=sys.stderr)
        return Exit.INTERRUPTED
    except procs.StartError as exc:
        print(f"error: {exc} (the environment or the check, not your Cell)", file=sys.stderr)
        return Exit.HARNESS
    except runs.HarnessError as exc:
        print(f"error: {exc} (a bug of the check, not of your Cell); its traceback: {exc.log}",
              file=sys.stderr)  # fmt: skip
        return Exit.HARNESS
    except Exception as exc:
        log = _log_traceback()
        print(f"error: the check itself failed with {type(exc).__name__}: {exc} (a bug of the "
              f"check, not of your Cell); its traceback: {log}", file=sys.stderr)  # fmt: skip
        return Exit.HARNESS
    finally:
        if staging is not None and staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def _cell_name(spec: str) -> str:
    return spec.rpartition(":")[2] or "cell"


def _publish(staging: Path, out: Path) -> None:
    """Replace ``out`` by the finished ``staging`` folder (an older report goes only then)."""
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def _check(args, start, out: Path, staging: Path) -> int:
    try:
        procs.use(args.start_method)
    except procs.StartMethodError as exc:
        raise BadInput(str(exc)) from None
    if args.steps < 1:
        raise BadInput(f"--steps must be at least 1, got {args.steps}")
    wanted = [m.strip() for m in args.modes.split(",") if m.strip()]
    for m in wanted:
        if m not in MODES or m == PYNATIVE:
            valid = ", ".join(n for n in MODES if n != PYNATIVE)
            raise BadInput(f"unknown mode {m!r} in --modes (valid: {valid})")
    target = load(args.target, parse_inputs(args.inputs or []))
    eager = MODES[PYNATIVE]
    steps = args.steps
    progress = Progress(2 + 2 * len(wanted) + 1)
    ref = progress.run(
        "PYNATIVE_MODE (eager reference, 2 instances)",
        partial(runs.traced, target, eager, steps, None, 2, False),
        args.timeout,
    )
    why = _no_reference(ref, steps)
    if why:
        raise BadInput(why)
    inputs = ref["inputs"]
    ref64 = progress.run(
        "PYNATIVE_MODE in float64 (rounding)",
        partial(runs.traced, target, eager, steps, inputs, 1, True),
        args.timeout,
    )
    r64 = ref64["instances"][0] if ref64.get("instances") else None
    if r64 is None or r64["error"] or len(r64["steps"]) < steps:
        float64 = "not run: " + (
            r64["error"]["message"] if r64 and r64["error"] else ref64.get("detail", "?")
        )
        r64 = None
    else:
        float64 = "ran (every floating Parameter and input cast to float64)"
    exact = diff.integer_valued(a for x in inputs for a in x)
    tols = diff.tolerances(ref["instances"][0], r64, exact)
    traces = {}
    for m in wanted:
        mode = MODES[m]
        traces[m] = [
            progress.run(
                f"{mode.label}, process 1 (then a second instance)",
                partial(runs.traced, target, mode, steps, inputs, 2, False),
                args.timeout,
            ),
            progress.run(
                f"{mode.label}, process 2",
                partial(runs.traced, target, mode, steps, inputs, 1, False),
                args.timeout,
            ),
        ]
    oracle = diff.Answers()
    for inst in ref["instances"]:
        oracle.add_instance(inst)
    progress.total -= 1
    for _ in range(ORACLE_ROUNDS):
        judged = {m: _runs_of(m, t, oracle, tols) for m, t in traces.items()}
        if not oracle.missing:
            break
        questions = list(oracle.missing.values())
        oracle.missing.clear()
        progress.total += 1
        got = progress.run(
            f"PYNATIVE_MODE from the observed states ({len(questions)} steps)",
            partial(runs.answered, target, questions, inputs),
            args.timeout,
        )
        got = got if isinstance(got, list) else [None] * len(questions)
        for (step, state), a in zip(questions, got):
            oracle.add(step, state, *(a or FAILED))
    if oracle.missing:  # still unanswered after the last round: eager gave no answer
        for step, state in list(oracle.missing.values()):
            oracle.add(step, state, *FAILED)
        oracle.missing.clear()
        judged = {m: _runs_of(m, t, oracle, tols) for m, t in traces.items()}
    verdicts = [K.mode_verdict(m, judged[m]) for m in wanted]
    cls = target.cls
    owner = next(k for k in cls.__mro__ if "construct" in k.__dict__)
    # a construct from a user's base class in another module (not MindSpore's own containers)
    inherited = owner.__module__ != cls.__module__ and not owner.__module__.startswith("mindspore")
    params = {n.rsplit(".", 1)[-1] for n in ref["instances"][0]["initial"]}
    found = known.constructs(target.source, params, inherited=inherited)
    if inherited:
        try:
            extra = known.constructs(inspect.getsource(owner), params)
            found.writes |= extra.writes
            found.found.update(extra.found)
        except (OSError, TypeError):
            pass
    findings = known.read_findings()
    state_kinds = instead.kinds_of(instead.written(ref["instances"][0], found.indexed))
    divergences, repro_jobs = [], []
    for v in verdicts:
        if v.verdict == K.AGREES:
            continue
        matched = []
        for k in v.kinds:
            base = [r for r in v.runs if r.status != Status.WORKS.value]
            message = next((_message(r.detail) for r in base if r.status == K.RAISES), "")
            for f in known.match(findings, v.mode, k, message, found):
                if f not in matched:
                    matched.append(f)
        relevant = dict(found.found)
        if K.SECOND_INSTANCE_ONLY in v.kinds:
            relevant["a second instance of the class"] = "built after the first one ran"
        quoted = []
        if state_kinds and (found.writes or known.SET_DATA in found.found):
            quoted = instead.quote(v.mode, state_kinds)
        write = "; ".join(f"to {q['kind_words']} ({', '.join(f'`{n}`' for n in q['parameters'])})"
                          f": {q['answer']}" for q in quoted)  # fmt: skip
        d = R.Divergence(
            v.mode,
            v.kinds,
            v.detail,
            [K.MEANINGS[k] for k in v.kinds],
            [
                R.Quote(f.title, f.link, f.lines, f.cause, f.cause_title, f.repro)
                for f in matched[:3]
            ],
            "" if matched else known.NO_MATCH,
            relevant,
            write,
            answers=quoted,
        )
        run = next((r for r in v.runs if r.status not in (K.WORKS, "not run")), None)
        if run and run.status not in (K.CRASHED, K.HANGS):
            trace = traces[v.mode][run.process - 1]["instances"][run.instance - 1]
            want = repro.first_divergence(ref["instances"][run.instance - 1], trace, tols)
            if want:
                d.repro = f"repro_{v.mode}.py"
                repro_jobs.append((d, run, want, trace))
        divergences.append(d)
    code = K.exit_code(verdicts)
    staging.mkdir(parents=True)
    regenerate = False
    if repro_jobs:
        progress.total += 1
        again = progress.run(
            "make_inputs in a fresh process (can the repro regenerate the inputs?)",
            partial(runs.regenerated, target, inputs),
            args.timeout,
        )
        regenerate = again is True
    for d, run, want, trace in repro_jobs:
        text = repro.render(
            target=args.target,
            path=str(target.path.name),
            cell=target.cell_name,
            source=target.source,
            mode=MODES[d.mode],
            second=run.instance == 2,
            inputs=inputs,
            ref=ref["instances"][run.instance - 1],
            tols=tols,
            want=want,
            why=f"{', '.join(d.kinds)}",
            observed=trace,
            first_steps=steps,
            regenerate=regenerate,
            inputs_source=target.inputs_source,
        )
        write_text(staging / d.repro, text)
    shrink_note = ""
    if args.shrink and repro_jobs:
        from bench.check import shrink

        d, run, want, _ = repro_jobs[0]
        shrink_note = shrink.shrink(
            target, MODES[d.mode], run.instance == 2, inputs, tols, want, staging, args, d.repro,
            regenerate=regenerate,
        )  # fmt: skip
    first_calls = {}
    for v in verdicts:
        timed = [r for r in v.runs if r.instance == 1 and r.first_call_s]
        if timed:
            first_calls[v.mode] = {"first": timed[0].first_call_s, "later": timed[0].later_call_s}
    eager_steps = ref["instances"][0]["steps"]
    first_calls[PYNATIVE] = {
        "first": eager_steps[0]["seconds"],
        "later": sorted(s["seconds"] for s in eager_steps[1:])[len(eager_steps[1:]) // 2]
        if len(eager_steps) > 1
        else 0.0,
    }
    rep = R.Report(
        target=args.target,
        cell=target.cell_name,
        mindspore=importlib.metadata.version("mindspore"),
        command="python -m bench.check " + shlex.join(args.argv),
        steps=steps,
        modes=[{"mode": PYNATIVE, "verdict": "reference", "kinds": [], "detail": "the eager run"}]
        + [
            {
                "mode": v.mode,
                "verdict": v.verdict,
                "kinds": v.kinds,
                "detail": v.detail,
                "runs": [r.__dict__ for r in v.runs],
            }
            for v in verdicts
        ],
        tolerances={n: t.text() for n, t in tols.items()},
        float64=float64,
        first_calls=first_calls,
        divergences=[
            d.__dict__ | {"findings": [q.__dict__ for q in d.findings]} for d in divergences
        ],
        verdict=K.DIVERGES if divergences else K.AGREES,
        exit_code=code,
        seconds=time.monotonic() - start,
        shrink=shrink_note,
        start_method=procs.chosen(),
    )
    R.write(rep, staging, links_from=out)
    if args.json:
        print((staging / "report.json").read_text(encoding="utf-8"))
    else:
        print(R.terminal(rep))
        print(f"report: {out / 'report.md'}")
    return code

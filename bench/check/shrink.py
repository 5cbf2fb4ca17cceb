"""``--shrink``: make the user's file smaller while the same divergence remains.

The predicate runs the candidate source in two children of the warm parent (forked or spawned),
eager (PYNATIVE_MODE) and the diverging mode, on the recorded inputs, and holds when the candidate's
first divergence from *its own* eager run (``repro.first_divergence``: the same step and arrays,
or the same exception type) is the original's: a candidate that merely computes something else
than the original eager values does not count (the trap of comparing against stale expected
values). The search is pysource-minimize's (removes statements and simplifies nodes of a Python
source while a predicate holds), bounded by a time budget: the best source found when it runs
out is kept.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

from bench.check import repro, runs
from bench.check.target import Target
from bench.core.io import write_text
from bench.measured.modes import MODES, PYNATIVE

BUDGET_S = 180.0  # the whole shrink; each candidate costs two child runs (~2-5 s forked)


class _OutOfTime(Exception):
    pass


def _load(path: Path, name: str) -> Target:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # GRAPH_MODE re-imports the module by name
    spec.loader.exec_module(module)
    return module


def _candidate(path: Path, name: str, cell: str, mode, inputs, second: bool, report):
    """A candidate source run in a child (eager or the diverging mode)."""
    try:
        module = _load(path, name)
    except Exception:  # the candidate does not import: not the same divergence
        return {"status": "ok", "instances": []}
    target = Target(path, cell, module)
    return runs.trace(target, mode, len(inputs), inputs, 2 if second else 1, report=report)


def _trace(path: Path, name: str, cell: str, mode, inputs, second: bool):
    """The child's work (a partial: it pickles for a spawned child)."""
    return partial(_candidate, path, name, cell, mode, inputs, second)


def _function(source: str, name: str) -> str | None:
    """A top-level function's code (normalised), None when the source has none."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return ast.unparse(node)
    return None


def shrink(
    target, mode, second, inputs, tols, want, out: Path, args, repro_name: str, regenerate=False
) -> str:
    """Shrink; write ``<repro>_min.py`` next to the repro; say what happened (for the report)."""
    source = repro.strip_main(target.source)
    stem = target.path.stem
    workdir = Path(tempfile.mkdtemp(prefix="bench-check-shrink-"))
    start = time.monotonic()
    best = {"source": source, "ref": None, "got": None, "checks": 0, "kept": 0}
    timeout = min(args.timeout, 60.0)
    params = set(tols) - {n for n in tols if n.startswith("output[")}

    def holds(candidate: str) -> bool:
        if time.monotonic() - start > BUDGET_S:
            raise _OutOfTime
        if f"class {target.cell_name}" not in candidate or "def make_cell" not in candidate:
            return False
        best["checks"] += 1
        n = best["checks"]
        name = f"{stem}_shrink{n}"
        path = workdir / f"{name}.py"
        write_text(path, candidate)
        eager = runs.isolated(
            _trace(path, name, target.cell_name, MODES[PYNATIVE], inputs, second), timeout
        )
        if eager.get("status") != "ok" or not eager["instances"]:
            return False
        ref = eager["instances"][-1]
        if ref["error"] or len(ref["steps"]) < len(inputs) or set(ref["initial"]) != params:
            return False  # the same Parameters, every step runs eagerly
        got = runs.isolated(_trace(path, name, target.cell_name, mode, inputs, second), timeout)
        if got.get("status") != "ok" or not got["instances"]:
            return False
        ok = repro.first_divergence(ref, got["instances"][-1], tols) == tuple(want)
        shown = got["instances"][-1]
        print(f"  shrink check {n}: {len(candidate)} chars: {'kept' if ok else 'no'}",
              file=sys.stderr)  # fmt: skip
        if ok and len(candidate) < len(best["source"]):
            best.update(source=candidate, ref=ref, got=shown, kept=best["kept"] + 1)
        return ok

    from pysource_minimize import minimize

    ran_out = False
    try:
        minimize(source, holds)
    except _OutOfTime:
        ran_out = True
    took = time.monotonic() - start
    if best["ref"] is None:
        return (
            f"pysource-minimize found no smaller source with the same divergence "
            f"({best['checks']} candidates, {took:.0f} s)."
        )
    text = repro.render(
        target=args.target,
        path=f"{target.path.name} (shrunk)",
        cell=target.cell_name,
        source=best["source"],
        mode=mode,
        second=second,
        inputs=inputs,
        ref=best["ref"],
        tols=tols,
        want=want,
        why="shrunk with --shrink",
        observed=best["got"],
        first_steps=len(inputs),
        regenerate=regenerate
        and _function(best["source"], "make_inputs")
        == _function(
            source, "make_inputs"
        ),  # the shrinker may have simplified make_inputs: then the inputs are embedded
        inputs_source=target.inputs_source,
    )
    name = repro_name.replace(".py", "_min.py")
    write_text(out / name, text)
    lines = (len(source.splitlines()), len(best["source"].splitlines()))
    return (
        f"pysource-minimize: {lines[0]} -> {lines[1]} lines of your file with the same divergence "
        f"({best['checks']} candidates, {took:.0f} s"
        + (f", stopped at the {BUDGET_S:.0f} s budget" if ran_out else "")
        + f"): `python {name}`"
    )

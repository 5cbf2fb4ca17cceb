"""Verdicts already known: a run reuses the gate verdict of identical code from an earlier run.

A verdict depends on the variant's code, the mode, what the code means, the MindSpore release and
the gate itself (the oracle and the workload's reference, whose source is hashed in, and how a
cell's process starts: fork or spawn). Runs in the same results folder and the committed
reference run of the workload are searched for a verdict with the same key in every replica a
mode needs; a found one is copied, marked ``reused`` with the run that gated it (a verdict reused
again keeps that origin; the report counts them).
``--fresh-gate`` gates everything. Whatever a run reuses, from a reference or from a run beside
it, was gated by a real run of the same code, gate and release, and the page names that run.
A committed run (an archive, ``bench.core.archive``) stores such a copy as a pointer to the
committed run that gated it; reading the archive writes the copy back.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from bench.core import paths, portable, procs
from bench.core.rundir import RunDir, read_lines
from bench.core.schema import SCHEMA_VERSION

ROOT = Path(__file__).resolve().parents[1]


def gate_fingerprint(workload: str) -> str:
    """The source of what judges a step: the oracle, the runtimes, the workload's reference."""
    files = [
        ROOT / "measured" / "oracle.py",
        ROOT / "measured" / "workloads" / "runtime.py",
        ROOT / "measured" / "modes.py",
        ROOT / "run" / "gate.py",
        ROOT / "run" / "forked.py",  # how cells are isolated from each other
        ROOT / "core" / "procs.py",
        *sorted((ROOT / "measured" / "workloads" / workload).glob("*.py")),
    ]
    digest = hashlib.sha256()
    # a spawned cell starts cold, a forked one from the warm worker: verdicts kept apart
    digest.update(procs.chosen().encode())
    for f in files:
        digest.update(f.read_bytes())
    return digest.hexdigest()


def key(text: str, mode: str, meaning: str, update: bool, release: str, fingerprint: str) -> str:
    blob = json.dumps([text, mode, meaning, update, release, SCHEMA_VERSION, fingerprint])
    return hashlib.sha256(blob.encode()).hexdigest()[:24]


def searched(run: RunDir, workload: str) -> list[Path]:
    """The runs whose work ``run`` may reuse: the others next to it and the workload's reference
    runs (each once, oldest first within a folder)."""
    folders = {run.path.parent, paths.raw_dir(paths.results_dir(workload))}
    here = run.path.resolve()
    found = {o.resolve(): o for f in folders for o in paths.runs(f) if o.resolve() != here}
    return list(found.values())


def keyed_records(run: Path):
    """A run's gate records that carry a cache key of this schema (the ones reuse may match)."""
    for path in RunDir(run).gate_files():
        for record in read_lines(path, []):
            if record.get("cache_key") and record.get("schema_version") == SCHEMA_VERSION:
                yield record


def known(run: RunDir, workload: str) -> dict[tuple[str, int], dict]:
    """{(key, replica): verdict record} from the other runs next to ``run`` and the reference."""
    out: dict[tuple[str, int], dict] = {}
    for other in searched(run, workload):
        for record in keyed_records(other):
            origin = record.get("reused") or other.name
            key_ = (record["cache_key"], record.get("replica", 0))
            out.setdefault(key_, {**_portable(record), "reused": origin})
    return out


def _portable(record: dict) -> dict:
    """A reused verdict as a fresh one is recorded: a crash's stack without the machine's paths
    (``portable.stack_text``; a run made before that rule, or kept outside the repository, still
    names them)."""
    found = record.get("diagnostics")
    if not (isinstance(found, dict) and isinstance(found.get("traceback"), str)):
        return record
    return {
        **record,
        "diagnostics": {**found, "traceback": portable.stack_text(found["traceback"])},
    }

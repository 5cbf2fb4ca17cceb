"""What CI's sampled conformance (``nox -s conformance_sample``, about 13 minutes) checks instead
of the full one (``nox -s conformance``, about 35): the same tests, on a sample.

- the gate: per workload the fewest shapes that hold every strategy × mode ``expected/`` records
  for it (one shape; a strategy that writes its own code is in its one shape, ``as-written``,
  which every gate gates), gated fresh and compared with ``expected/`` like the full gate
  (``gate_shapes``);
- every finding's minimal pair: both reproduction scripts of the pair each finding names, run
  like every committed script (``pair_repros``);
- ``SAMPLED`` more committed reproduction scripts, chosen from the commit's hash: the same
  scripts for the same commit on every machine, others on the next commit (``sampled_repros``);
- every committed report re-rendered from its archived run, byte for byte.

The sample is on where ``BENCH_CONFORMANCE_SAMPLE`` is set (to the commit, or ``1``: the commit
``git rev-parse HEAD`` names). The full conformance stays the check before references are made
again.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections import defaultdict
from pathlib import Path

from bench.core.paths import ROOT

ENV = "BENCH_CONFORMANCE_SAMPLE"
SAMPLED = 10  # committed scripts beyond the minimal pairs'


def enabled(environ=os.environ) -> bool:
    return bool(environ.get(ENV))


def commit(environ=os.environ) -> str:
    """The commit the sample is drawn for: ``BENCH_CONFORMANCE_SAMPLE`` if it names one, else
    ``GITHUB_SHA``, else ``git rev-parse HEAD``, else ``unknown``."""
    value = environ.get(ENV, "")
    if value and value != "1":
        return value
    if environ.get("GITHUB_SHA"):
        return environ["GITHUB_SHA"]
    try:
        done = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        )
    except OSError:
        return "unknown"
    return done.stdout.strip() or "unknown"


def _rank(seed: str, name: str) -> str:
    return hashlib.sha256(f"{seed}:{name}".encode()).hexdigest()


def gate_shapes(recorded: dict, seed: str = "") -> dict[str, list[str]]:
    """{workload: the shapes to gate (``--shapes``)}: greedily, the shape holding the most
    strategy × mode cells of ``recorded`` (``expected.read``) not yet held, until every strategy
    × mode the workload records is; shapes that hold as many are told apart by ``seed``'s hash.
    ``as-written`` is never named: a gate with ``--shapes`` gates it anyway."""
    from bench.measured.shapes import AS_WRITTEN

    cells: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
    for workload, strategy, shape, mode in recorded:
        cells[workload][shape].add((strategy, mode))
    out = {}
    for workload, shapes in sorted(cells.items()):
        written = shapes.pop(AS_WRITTEN, set())
        left, chosen = set().union(*shapes.values()) - written, []
        while left:
            best = max(sorted(shapes), key=lambda s: (len(shapes[s] & left), _rank(seed, s)))
            chosen.append(best)
            left -= shapes[best]
        out[workload] = chosen
    return out


def pair_repros(results: Path, pairs: dict[str, list[tuple]]) -> list[Path]:
    """Both scripts of every minimal pair (``pairs``: {workload: [(strategy, mode, working
    shape, failing shape)]}, the findings' ``Entry.pair``), as committed under ``results``."""
    from bench.core.rundir import verdict_name

    out = set()
    for workload, found in pairs.items():
        for strategy, mode, works, fails in found:
            for shape in (works, fails):
                out.add(
                    Path(results)
                    / workload
                    / "repros"
                    / f"{verdict_name(strategy, shape, mode)}.py"
                )
    return sorted(out)


def sampled_repros(repros: list[Path], seed: str, k: int = SAMPLED, skip=()) -> list[Path]:
    """``k`` of ``repros`` (but ``skip``), ranked by the hash of ``seed`` and their path."""
    skip = set(skip)
    rest = [p for p in repros if p not in skip]
    return sorted(sorted(rest, key=lambda p: _rank(seed, p.as_posix()))[:k])


def reference_pairs(results: Path) -> dict[str, list[tuple]]:
    """{workload: the minimal pair of each finding of the run its committed pages stand on}
    (``results/pages.json``, else the pinned reference): the runs whose scripts the pages link."""
    from bench.causes import findings
    from bench.core import pins
    from bench.decide import load, provenance
    from bench.measured import workloads

    root = pins.in_force(results)
    refs = provenance.current_runs(root, list(workloads.WORKLOADS))
    return {
        w: sorted({e.pair for e in findings.entries(load.load(run)) if e.pair})
        for w, run in refs.items()
    }

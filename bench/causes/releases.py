"""Across MindSpore releases, as data: the release runs pinned for each workload, the strategy ×
mode rows whose verdicts differ between releases, the cells that change, and per finding in how
many of its failing cells each release shows the same outcome. Verdicts, not timings: a verdict
is what a release computes for a cell, comparable across releases; a timing depends on the
run's tier and machine load as much as on the release. ``bench.report.releases`` writes the page.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bench.causes import findings
from bench.causes.findings import version_key
from bench.core import paths
from bench.core.schema import Kind, SchemaError, Status
from bench.decide import load

CONTROL = "control"


def load_releases(folder: Path, extra=(), problems: list | None = None) -> dict:
    """{workload: {MindSpore version: run}}: the pinned release runs (``results/references.json``:
    ``releases``; ``folder`` is their ``results/releases/``; a folder with nothing pinned: its
    runs), then each workload's pinned reference (it wins for its release), then ``extra``."""
    from bench.core import pins
    from bench.measured import workloads

    root = pins.in_force(Path(folder).parent)
    pinned = pins.release_runs(root)
    if pinned:  # {run folder: the release it is pinned for}
        release_of = {r: v for v, by in pinned.items() for r in by.values()}
    else:  # a release folder of one's own, nothing pinned: every run in it (the newest wins)
        release_of = {
            p: sub.parent.name
            for sub in sorted(Path(folder).glob("*/raw"))
            for p in paths.runs(sub)
        }
    references = list(pins.references(root, list(workloads.WORKLOADS)).values())
    found: dict[str, dict[str, load.RunData]] = {}
    extra = [paths.run_folder(r) or Path(r) for r in extra]  # a folder or an archive
    for run_dir in [*release_of, *references, *extra]:
        try:
            run = load.load(run_dir)
        except SchemaError as err:  # a run of an older suite: named, not compared
            if problems is not None:
                problems.append(f"{run_dir}: {err}")
            continue
        version = run.environment.get("mindspore") or release_of.get(run_dir, "unknown")
        found.setdefault(run.workload, {})[version] = run  # later (reference, extra) wins
    return {
        w: dict(sorted(by.items(), key=lambda kv: version_key(kv[0])))
        for w, by in sorted(found.items())
    }


def summary_key(rows) -> tuple:
    """What a support-matrix cell says of some verdicts, as data: "n/a" where none can be
    written, "broken" where the file is, else each verdict (status, kind or what it raised) with
    its count; the shapes are not part of it."""
    rows = rows[rows.status != Status.INEXPRESSIBLE.value]
    if rows.empty:
        return ("n/a",)
    if (rows.status == Status.BROKEN.value).all():
        return (Status.BROKEN.value,)
    said = Counter(
        (r.status, r.outcome.split(": ")[1] if ": " in r.outcome else "")
        if r.status == Status.RAISES.value
        else (r.status, r.kind if isinstance(r.kind, str) else "")
        for r in rows.itertuples()
    )
    return tuple(sorted(said.items()))


def verdict_changes(runs: dict) -> tuple[list[tuple], int]:
    """([(strategy, mode, [its verdicts in each release, or None where not run])] of the rows
    that differ, all strategy × mode rows). A row compares the shapes every release that ran
    the strategy in that mode gated (a release whose suite had fewer shapes is compared on
    those); "not run" is no change."""
    keys = sorted(
        {
            (s, m)
            for r in runs.values()
            for s, m in zip(r.verdicts.strategy, r.verdicts["mode"])
            if s != CONTROL
        }
    )
    changed = []
    for strategy, mode in keys:
        hits = []
        for run in runs.values():
            v = run.verdicts
            hits.append(v[(v.strategy == strategy) & (v["mode"] == mode)])
        ran = [h for h in hits if len(h)]
        common = set.intersection(*(set(h["shape"]) for h in ran)) if ran else set()
        cells = [h[h["shape"].isin(common)] if len(h) else None for h in hits]
        if len({summary_key(c) for c in cells if c is not None}) > 1:
            changed.append((strategy, mode, cells))
    return changed, len(keys)


def cells_changed(runs: dict) -> tuple[int, int]:
    """(cells whose verdict differs between two releases that both gated them, cells gated in
    more than one release): one cell is strategy × shape × mode."""
    seen: dict[tuple, set] = {}
    for run in runs.values():
        for r in run.verdicts.itertuples():
            if r.strategy != CONTROL:
                seen.setdefault((r.strategy, r.shape, r.mode), set()).add((id(run), r.outcome))
    several = [outs for outs in seen.values() if len(outs) > 1]
    return sum(len({o for _, o in outs}) > 1 for outs in several), len(several)


def affected(entry, run: load.RunData) -> tuple[int, int]:
    """(failing cells of ``entry`` where ``run`` shows the same outcome, its failing cells the
    run gated): an entry found on one release, checked on another cell by cell."""
    v = findings.qualified(run.verdicts)  # "stale read at the first call only" is its own bug
    outcome = dict(zip(zip(v.strategy, v["shape"], v["mode"]), v.outcome))
    # its own failing cells where it lists them, not every strategy × shape pairing
    cells = [tuple(c) for c in getattr(entry, "cells", [])] or [
        (s, shape, mode)
        for mode, shapes in entry.shapes.items()
        for shape in shapes
        for s in entry.strategies
    ]
    gated = [c for c in cells if c in outcome]
    return sum(outcome[c] == entry.outcome for c in gated), len(gated)


def comparable(entry, run: load.RunData) -> bool:
    """Whether ``run`` can show ``entry``: a difference between processes cannot be seen by a
    run that gated each cell in one process."""
    one_process = "gate_processes" in run.verdicts and run.verdicts.gate_processes.max() < 2
    return not (entry.kind == str(Kind.DIFFERS) and one_process)

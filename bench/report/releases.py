"""Across MindSpore releases: which verdicts change, and which findings each release shows.

``python -m bench.report.releases results/releases`` (``nox -s releases``) reads, per release
and workload, the run ``results/references.json`` pins in ``results/releases/<version>/raw/``
(gate-only runs: ``nox -s "bench_release(mindspore=X)" -- --gate-only``), and the pinned
reference run of each workload for the release it ran on, and writes one page. Verdicts,
not timings: a verdict is what a release computes for a cell, comparable across releases; a
timing depends on the run's tier and machine load as much as on the release.

Per workload: the strategy × mode rows whose verdicts differ between releases (each cell the
support-matrix summary, works / shapes), and per finding of the reference (``findings.entries``)
in how many of its failing cells each release shows the same outcome (``affected``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench.causes.findings import version_key
from bench.core import fmt, paths
from bench.core.args import OneLineParser, UsageError
from bench.core.io import write_text_atomic
from bench.core.pins import PinError
from bench.core.schema import Kind, SchemaError
from bench.decide import load
from bench.measured.modes import label
from bench.report.shapes_page import matrix_cell

CONTROL = "control"


def load_releases(folder: Path, extra=(), problems: list | None = None) -> dict:
    """{workload: {MindSpore version: run}}: the pinned release runs (``results/references.json``:
    ``releases``; ``folder`` is their ``results/releases/``; a folder with nothing pinned: its
    runs), then each workload's pinned reference (it wins for its release), then ``extra``."""
    from bench.core import pins

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
    candidates = list(release_of)
    references = list(pins.references(root, _workloads()).values())
    found: dict[str, dict[str, load.RunData]] = {}
    extra = [paths.run_folder(r) or Path(r) for r in extra]  # a folder or an archive
    for run_dir in [*candidates, *references, *extra]:
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


def _workloads() -> list[str]:
    from bench.measured import workloads

    return list(workloads.WORKLOADS)


def verdict_changes(runs: dict) -> tuple[list[str], int, int]:
    """(table lines of the strategy × mode rows that differ, rows that differ, all rows). A row
    compares the shapes every release that ran the strategy in that mode gated (a release
    whose suite had fewer shapes is compared on those); "not run" is no change."""
    versions = list(runs)
    keys = sorted(
        {
            (s, m)
            for r in runs.values()
            for s, m in zip(r.verdicts.strategy, r.verdicts["mode"])
            if s != CONTROL
        }
    )
    rows = []
    for strategy, mode in keys:
        hits = {}
        for version in versions:
            v = runs[version].verdicts
            hits[version] = v[(v.strategy == strategy) & (v["mode"] == mode)]
        ran = [h for h in hits.values() if len(h)]
        common = set.intersection(*(set(h["shape"]) for h in ran)) if ran else set()
        cells = [
            matrix_cell(h[h["shape"].isin(common)]) if len(h) else "not run" for h in hits.values()
        ]
        if len({c for c in cells if c != "not run"}) > 1:
            rows.append([f"`{strategy}`", label(mode), *cells])
    return (fmt.table(["strategy", "mode", *versions], rows) if rows else []), len(rows), len(keys)


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
    from bench.causes import findings

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


def affected_text(same: int, gated: int) -> str:
    if not gated:
        return "not gated"
    if same == gated:
        return f"yes ({same} of {gated})"
    return f"partly ({same} of {gated})" if same else f"no (0 of {gated})"


def _affected_in(entry, run: load.RunData) -> str:
    """``affected_text`` of one entry in one release; a difference between processes cannot be
    seen by a run that gated each cell in one process."""
    one_process = "gate_processes" in run.verdicts and run.verdicts.gate_processes.max() < 2
    if entry.kind == str(Kind.DIFFERS) and one_process:
        return "not comparable (one gate process)"
    return affected_text(*affected(entry, run))


def findings_by_release(runs: dict, measured: str) -> list[str]:
    """Table lines: each finding of the ``measured`` release's run, and per release in how many
    of its failing cells that release shows the same outcome."""
    from bench.causes import findings

    base = runs.get(measured)
    if base is None:
        return []
    rows = []
    for e in findings.entries(base):
        link = f"[{e.title}](findings.md#{e.slug})"
        rows.append([link, *(_affected_in(e, r) for r in runs.values())])
    return fmt.table(["finding (on the newest release)", *runs], rows) if rows else []


def gated_on(runs: dict, versions: list[str]) -> str:
    """Which of the releases of the page a workload was gated on, and which not."""
    have = sorted(runs, key=version_key)
    missing = [v for v in versions if v not in runs]
    text = f"Gated on MindSpore {', '.join(have)}"
    return text + (f"; not on {', '.join(missing)} (no run of this workload)." if missing else ".")


def render(by_workload: dict, problems: list) -> str:
    versions = sorted({v for runs in by_workload.values() for v in runs}, key=version_key)
    out = [
        "# Across MindSpore releases",
        "",
        f"Releases gated: {', '.join(versions)}. A workload gated on a release has every "
        "strategy × shape × mode gated there (verdicts only: a verdict is comparable across "
        "releases, a timing is not); each workload's section says which releases it was gated "
        "on. Which run each column comes from is in the provenance table at the end.",
        "",
    ]
    for workload, runs in by_workload.items():
        table, changed, total = verdict_changes(runs)
        differ, several = cells_changed(runs)
        newest = max(runs, key=version_key)
        out += [f"## {workload}", "", gated_on(runs, versions), ""]
        if len(runs) < 2:
            continue  # nothing to compare: no line would be true of other releases
        out += [
            f"{differ} of {several} cells gated on more than one release change their verdict; "
            f"{total - changed} of {total} strategy × mode rows are the same in every release.",
            "",
            *(table or ["No verdict changed between the releases gated.", ""]),
        ]
        found = findings_by_release(runs, newest)
        if found:
            out += [
                f"The findings of {newest} ([the findings page](findings.md)), per release: in "
                "how many of the entry's failing cells that release shows the same outcome.",
                "",
                *found,
            ]
    rows = [
        [v, w, f"`{r.manifest.run_id}`", r.tier, r.manifest.suite_commit or "?",
         f"`{fmt.command(r.manifest.command)}`"]
        for w, runs in by_workload.items()
        for v, r in runs.items()
    ]  # fmt: skip
    out += [
        "## Provenance",
        "",
        *fmt.table(["MindSpore", "workload", "run", "tier", "suite commit", "command"], rows),
    ]
    if problems:
        out += ["Not compared (written by an older suite):", "", *(f"- {p}" for p in problems), ""]
    return "\n".join(out) + "\n"


def write(folder: Path, extra=(), out: Path | None = None) -> dict:
    """The release runs under ``folder`` (and the run folders ``extra``), their page written to
    ``out`` (default FOLDER.md, ``results/releases.md``); {} and nothing written when there are
    none."""
    problems: list[str] = []
    runs = load_releases(folder, extra, problems)
    if runs:
        write_text_atomic(out or folder.with_suffix(".md"), render(runs, problems))
    return runs


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m bench.report.releases", description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path, help="e.g. results/releases")
    p.add_argument("--out", type=Path, help="default: FOLDER.md (results/releases.md)")
    p.add_argument("--run", action="append", default=[], type=Path, metavar="RUN_DIR",
                   help="also use this run folder (its MindSpore version wins)")  # fmt: skip
    try:
        args = p.parse_args(sys.argv[1:] if argv is None else argv)
        runs = write(args.folder, args.run, args.out)
        if not runs:
            raise UsageError(f"no runs under {str(args.folder)!r}/<version>/raw")
    except (UsageError, PinError) as err:
        print(f"releases: error: {err}", file=sys.stderr)
        return 2
    out = args.out or args.folder.with_suffix(".md")
    versions = sorted({v for r in runs.values() for v in r}, key=version_key)
    print(f"releases: wrote {out} ({len(versions)} releases: {', '.join(versions)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Across MindSpore releases: which verdicts change, and which findings each release shows.

``python -m bench.report.releases results/releases`` (``nox -s releases``) reads, per release
and workload, the run ``results/references.json`` pins in ``results/releases/<version>/raw/``
(gate-only runs: ``nox -s "bench_release(mindspore=X)" -- --gate-only``), and the pinned
reference run of each workload for the release it ran on, and writes one page
(``templates/releases.md.j2``) from what ``bench.causes.releases`` finds.

Per workload: the strategy × mode rows whose verdicts differ between releases (each cell the
support-matrix summary, works / shapes), and per finding of the reference (``findings.entries``)
in how many of its failing cells each release shows the same outcome (``affected``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench.causes import findings
from bench.causes.findings import version_key
from bench.causes.releases import (
    affected,
    cells_changed,
    comparable,
    load_releases,
    verdict_changes,
)
from bench.core import fmt
from bench.core.args import OneLineParser, UsageError
from bench.core.io import write_text_atomic
from bench.core.pins import PinError
from bench.measured.modes import label
from bench.report import templating
from bench.report.shapes_page import matrix_cell


def affected_text(same: int, gated: int) -> str:
    if not gated:
        return "not gated"
    if same == gated:
        return f"yes ({same} of {gated})"
    return f"partly ({same} of {gated})" if same else f"no (0 of {gated})"


def _affected_in(entry, run) -> str:
    if not comparable(entry, run):
        return "not comparable (one gate process)"
    return affected_text(*affected(entry, run))


def _workload(name: str, runs: dict) -> dict:
    """One workload's section: what changed between its releases, its findings per release."""
    changes, total = verdict_changes(runs)
    differ, several = cells_changed(runs)
    have = sorted(runs, key=version_key)
    base = runs[have[-1]]
    found = [
        [f"[{e.title}](findings.md#{e.slug})", *(_affected_in(e, r) for r in runs.values())]
        for e in findings.entries(base)
    ]
    rows = [
        [f"`{s}`", label(m), *(matrix_cell(c) if c is not None else "not run" for c in cells)]
        for s, m, cells in changes
    ]
    return dict(name=name, have=have, changes=rows, total=total, differ=differ,
                several=several, found=found)  # fmt: skip


def render(by_workload: dict, problems: list) -> str:
    versions = sorted({v for runs in by_workload.values() for v in runs}, key=version_key)
    sections = []
    for name, runs in by_workload.items():
        section = _workload(name, runs)
        section["not_gated"] = [v for v in versions if v not in runs]
        sections.append(section)
    provenance = [
        [v, w, f"`{r.manifest.run_id}`", r.tier, r.manifest.suite_commit or "?",
         f"`{fmt.command(r.manifest.command)}`"]
        for w, runs in by_workload.items()
        for v, r in runs.items()
    ]  # fmt: skip
    return templating.render(
        "releases.md.j2",
        versions=versions,
        workloads=sections,
        provenance=provenance,
        problems=problems,
    )


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

"""Across MindSpore releases: verdicts and update overhead per release, like compared with like.

``python -m bench.report.releases results/releases`` (``nox -s releases``) reads the newest run in
every ``results/releases/<version>/raw/`` (``nox -s "bench_release(mindspore=...)"``) and, for
the release the reference runs use, the reference run of the clip itself (``results/clip/raw``),
and writes one page. Verdicts: the support-matrix cell of every strategy × mode per release; only
the rows that change are listed. Overhead: per release with its interval; a change is marked only
between two runs of the same tier and suite commit (otherwise the difference can be the suite's).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

from scipy.stats import norm

from bench.core import paths
from bench.core.args import OneLineParser, UsageError
from bench.core.io import write_text_atomic
from bench.core.schema import SchemaError, Status
from bench.measured.modes import label
from bench.report import fmt, load
from bench.report.shapes_page import matrix_cell


def version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in version.replace("-", ".").split("."))


def load_releases(folder: Path, extra=(), problems: list | None = None) -> dict:
    """{MindSpore version: run}: the newest run per release folder, then the clip reference."""
    found = {}
    reference = paths.reference(paths.raw_dir(paths.results_dir("clip")))
    newest = [paths.reference(sub) for sub in sorted(Path(folder).glob("*/raw")) if paths.runs(sub)]
    for run_dir in [*newest, *([reference] if reference else []), *map(Path, extra)]:
        try:
            run = load.load(run_dir)
        except SchemaError as err:  # a run of an older suite: named, not compared
            if problems is not None:
                problems.append(f"{run_dir}: {err}")
            continue
        version = run.environment.get("mindspore") or run_dir.parent.parent.name
        found[version] = run
    return dict(sorted(found.items(), key=lambda kv: version_key(kv[0])))


def _like(a: load.RunData, b: load.RunData) -> bool:
    return a.tier == b.tier and a.manifest.suite_commit == b.manifest.suite_commit


def verdict_changes(runs: dict) -> tuple[list[str], int, int]:
    """(table lines of the strategy × mode rows that differ, rows that differ, all rows)."""
    versions = list(runs)
    keys = sorted(
        {(s, m) for r in runs.values() for s, m in zip(r.verdicts.strategy, r.verdicts["mode"])}
        - {(s, m) for r in runs.values() for s, m in zip(r.verdicts.strategy, r.verdicts["mode"])
           if s == "control"}
    )  # fmt: skip
    rows = []
    for strategy, mode in keys:
        cells = []
        for version in versions:
            v = runs[version].verdicts
            hit = v[(v.strategy == strategy) & (v["mode"] == mode)]
            cells.append(matrix_cell(hit) if len(hit) else "not run")
        if len(set(cells)) > 1:
            rows.append([f"`{strategy}`", label(mode), *cells])
    return (fmt.table(["strategy", "mode", *versions], rows) if rows else []), len(rows), len(keys)


def overhead(runs: dict) -> list[str]:
    versions = list(runs)
    keys = sorted({(c.id.strategy, c.id.mode, c.id.size) for r in runs.values()
                   for m in r.analysis.values() for c in m.of_role("update")})  # fmt: skip
    rows = []
    for strategy, mode, n in keys:
        line, previous = [f"`{strategy}`", label(mode), n], None
        for version in versions:
            run = runs[version]
            m = run.analysis.get(mode)
            cell = next((c for c in (m.of_role("update") if m else [])
                         if c.id.strategy == strategy and c.id.size == n), None)  # fmt: skip
            if cell is None or cell.status != Status.WORKS.value:
                line.append("–" if cell is None else "silently wrong while timed")
                previous = None
                continue
            e = cell.estimate
            text = fmt.ratio(e.ratio, *e.ratio_interval)
            if previous is not None and _like(previous[0], run):
                before = previous[1].estimate
                z = (e.log_ratio - before.log_ratio) / math.hypot(e.log_se, before.log_se)
                if 2 * norm.sf(abs(z)) < 0.05:
                    text = f"**{text}**"
            line.append(text)
            previous = (run, cell)
        rows.append(line)
    return (
        fmt.table(["strategy", "mode", "size", *versions], rows)
        if rows
        else ["No timed cells.", ""]
    )


def render(runs: dict, problems: list) -> str:
    table, changed, total = verdict_changes(runs)
    tiers = {(r.tier, r.manifest.suite_commit) for r in runs.values()}
    out = [
        "# Across MindSpore releases",
        "",
        f"Releases measured: {', '.join(runs)}. One run per release, each gated in every "
        "strategy × shape × mode; which run, tier and suite commit each column comes from is in "
        "the provenance table at the end"
        + "".join(
            f"; the {v} column is the clip's reference run"
            for v, r in runs.items()
            if r.run_dir.parent.parent.name == "clip"
        )
        + ".",
        "",
        "## Verdicts that change between releases",
        "",
        f"{total - changed} of {total} strategy × mode rows are the same in every release.",
        "",
        *(table or ["No verdict changed between the releases measured.", ""]),
        "## Update overhead per release",
        "",
        "Strategy step / its twin's step [95 % interval]. "
        + ("**Bold**: significantly different from the previous release (same tier and suite)."
           if len(tiers) == 1 else "**Bold** only between two releases measured with the same "
           "tier and suite commit (see the table below); other differences are not marked."),
        "",
        *overhead(runs),
        "## Provenance",
        "",
        *fmt.table(["MindSpore", "run", "tier", "suite commit", "command"],
                   [[v, f"`{r.manifest.run_id}`", r.tier, r.manifest.suite_commit or "?",
                     f"`{r.manifest.command}`"] for v, r in runs.items()]),
    ]  # fmt: skip
    if problems:
        out += ["Not compared (written by an older suite):", "", *(f"- {p}" for p in problems), ""]
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m bench.report.releases", description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path, help="e.g. results/releases")
    p.add_argument("--out", type=Path, help="default: FOLDER.md (results/releases.md)")
    p.add_argument("--run", action="append", default=[], type=Path, metavar="RUN_DIR",
                   help="also use this run folder (its MindSpore version wins)")  # fmt: skip
    problems: list[str] = []
    try:
        args = p.parse_args(sys.argv[1:] if argv is None else argv)
        runs = load_releases(args.folder, args.run, problems)
        if not runs:
            raise UsageError(f"no runs under {str(args.folder)!r}/<version>/raw")
    except UsageError as err:
        print(f"releases: error: {err}", file=sys.stderr)
        return 2
    out = args.out or args.folder.with_suffix(".md")
    write_text_atomic(out, render(runs, problems))
    print(f"releases: wrote {out} ({len(runs)} releases: {', '.join(runs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

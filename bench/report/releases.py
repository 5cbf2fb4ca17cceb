"""Across MindSpore releases: verdicts and update overhead per release, like compared with like.

``python -m bench.report.releases results/releases [--run RUN_DIR ...]`` reads the newest run in
every ``results/releases/<version>/raw/`` (``nox -s "bench_release(mindspore=...)"``) and writes
one page. Verdicts: the support-matrix cell (shapes that work, fail, how) of every strategy ×
mode per release, and only the rows that change are listed. Overhead: per release with its
interval; a change is marked significant only between two releases measured with the same
precision (a quick run and a full run differ in what their intervals cover).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from bench.core import paths, stats
from bench.core.args import OneLineParser, UsageError
from bench.core.io import write_text_atomic
from bench.report import fmt, load
from bench.report.matrix import _matrix_cell


def version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in version.replace("-", ".").split("."))


def load_releases(
    folder: Path, n_boot: int = stats.N_BOOTSTRAP, extra=()
) -> dict[str, load.RunData]:
    """{MindSpore version: run} from the newest run per release folder; ``extra`` runs win."""
    found = {}
    newest = [paths.runs(sub)[-1] for sub in sorted(Path(folder).glob("*/raw")) if paths.runs(sub)]
    for run_dir in [*newest, *map(Path, extra)]:
        run = load.load(run_dir, n_boot=n_boot)
        version = run.environment.get("mindspore") or run_dir.parent.parent.name
        found[version] = run
    return dict(sorted(found.items(), key=lambda kv: version_key(kv[0])))


def verdict_changes(runs: dict[str, load.RunData]) -> tuple[list[str], int, int]:
    """(table lines of the strategy × mode rows that differ, rows that differ, all rows)."""
    versions = list(runs)
    keys = sorted(
        {
            (s, m)
            for r in runs.values()
            for s, m in zip(r.verdicts.strategy, r.verdicts["mode"])
            if s != "control"
        }
    )
    rows = []
    for strategy, mode in keys:
        cells = []
        for version in versions:
            v = runs[version].verdicts
            hit = v[(v.strategy == strategy) & (v["mode"] == mode)]
            cells.append(_matrix_cell(hit) if len(hit) else "not run")
        if len(set(cells)) > 1:
            rows.append([f"`{strategy}`", fmt.mode_label(mode), *cells])
    head = ["strategy", "mode", *versions]
    return (fmt.table(head, rows) if rows else []), len(rows), len(keys)


def overhead(runs: dict[str, load.RunData], n_boot: int) -> list[str]:
    versions = list(runs)
    precision = {v: runs[v].plan.get("precision") for v in versions}
    out = []
    frames = {v: r.cells[r.cells.role == "update"] for v, r in runs.items() if len(r.cells)}
    keys = sorted(
        {(r.strategy, r.mode, r.batch_size) for f in frames.values() for r in f.itertuples()}
    )
    rows = []
    for strategy, mode, n in keys:
        line, previous = [f"`{strategy}`", fmt.mode_label(mode), n], None
        for version in versions:
            f = frames.get(version, pd.DataFrame())
            hit = (
                f[(f.strategy == strategy) & (f["mode"] == mode) & (f.batch_size == n)]
                if len(f)
                else f
            )
            if hit.empty or hit.iloc[0].status != "works":
                line.append("–" if hit.empty else str(hit.iloc[0].status))
                previous = None
                continue
            r = hit.iloc[0]
            text = fmt.ratio(r.ratio, r.ratio_low, r.ratio_high)
            if previous is not None and precision[previous[0]] == precision[version]:
                _, low, high = stats.bootstrap_difference(
                    r.ratio_groups, previous[1].ratio_groups, n_boot=n_boot
                )
                if low > 0 or high < 0:
                    text = f"**{text}**"
            line.append(text)
            previous = (version, r)
        rows.append(line)
    out += (
        fmt.table(["strategy", "mode", "N", *versions], rows) if rows else ["No timed cells.", ""]
    )
    return out


def _older_suite(runs: dict[str, load.RunData]) -> list[str]:
    """A warning when some runs were written by the suite before code shapes (schema 1)."""
    old = [v for v, r in runs.items() if r.written_schema < 2]
    if not old:
        return []
    return [
        f"> **MindSpore {', '.join(old)}: runs of an earlier version of this suite** (result "
        "schema 1: one code shape per strategy, no PYNATIVE_BLOCKING mode). Their verdicts hold "
        "for that one shape; a difference against a newer run can be the suite's, not "
        "MindSpore's. `nox -t releases` reruns every release with the current suite.",
        "",
    ]


def render(runs: dict[str, load.RunData], n_boot: int = stats.N_BOOTSTRAP) -> str:
    table, changed, total = verdict_changes(runs)
    precisions = {str(r.plan.get("precision")) for r in runs.values()}
    same = len(precisions) == 1
    out = [
        "# Across MindSpore releases",
        "",
        f"Releases measured: {', '.join(runs)}. One run per release; every verdict comes from "
        "that release's own gate (every strategy × shape × mode).",
        "",
        *_older_suite(runs),
        "## Verdicts that change between releases",
        "",
        f"{total - changed} of {total} strategy × mode rows are the same in every release "
        "(cells count the shapes that work or fail, as in each run's support matrix).",
        "",
        *(table or ["No verdict changed between the releases measured.", ""]),
        "## Update overhead per release",
        "",
        "Strategy step / paired no-update step with its 95 % interval (each release's chosen "
        "shape). "
        + (
            "**Bold** = significantly different from the previous release."
            if same
            else "The runs differ in precision (see Provenance), so no change is marked "
            "significant; compare like with like by running every release with the same options."
        ),
        "",
        *overhead(runs, n_boot),
        "## Provenance",
        "",
    ]
    for version, run in runs.items():
        env, m = run.environment, run.manifest
        out.append(
            f"- MindSpore {version}: run `{m.run_id}` ({m.status}), {env.get('cpu')}, Python "
            f"{env.get('python')}, commit {str(env.get('commit') or '?')[:10]}, result schema "
            f"{run.written_schema}, command "
            f"`{m.command}`, precision {m.plan.get('precision')}"
        )
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m bench.report.releases", description=__doc__.splitlines()[0])
    p.add_argument("folder", type=Path, help="e.g. results/releases")
    p.add_argument("--out", type=Path, help="default: FOLDER.md (results/releases.md)")
    p.add_argument("--bootstrap", type=int, default=stats.N_BOOTSTRAP, metavar="N")
    p.add_argument(
        "--run",
        action="append",
        default=[],
        type=Path,
        metavar="RUN_DIR",
        help="also use this run folder (its MindSpore version wins)",
    )
    try:
        args = p.parse_args(sys.argv[1:] if argv is None else argv)
        runs = load_releases(args.folder, args.bootstrap, args.run)
        if not runs:
            raise UsageError(f"no runs under {str(args.folder)!r}/<version>/raw")
    except UsageError as err:
        print(f"releases: error: {err}", file=sys.stderr)
        return 2
    out = args.out or args.folder.with_suffix(".md")
    write_text_atomic(out, render(runs, args.bootstrap))
    print(f"releases: wrote {out} ({len(runs)} releases: {', '.join(runs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

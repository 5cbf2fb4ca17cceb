"""``python -m bench.report [RUN_ID ...]`` (``nox -s report``): write a run's report.

A run's report goes into the run folder (``<results>/raw/<run-id>/report/``: summary.md,
shapes.md, results.csv, plots/, repros/), so a subset run never touches the reference report.
``--publish`` writes it as the reference instead: ``<results>/summary.md``, ``shapes.md``,
``results.csv``, ``repros/`` and the plots in ``--plots-dir``. Several run ids: results.csv holds
them all (column run_id), the pages describe the last one.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pandas as pd

from bench.core import paths, stats
from bench.core.args import OneLineParser, UsageError
from bench.core.io import write_text_atomic
from bench.core.schema import SchemaError
from bench.measured import workloads
from bench.report import load, matrix, plots, repro, summary
from bench.report.load import RAW


def find_run(name, raw: Path) -> Path:
    """The run folder ``name`` (a run id under ``raw``, or a path); the newest if None."""
    found = paths.runs(raw)
    if name is None and found:
        return found[-1]
    for candidate in [] if name is None else [Path(raw) / name, Path(name)]:
        if (candidate / "manifest.json").is_file():
            return candidate
    recent = ", ".join(p.name for p in found[-5:]) or "none"
    what = "no runs" if name is None else f"no run {name!r}"
    raise UsageError(f"{what} in {str(raw)!r} (recent: {recent})")


def parser() -> OneLineParser:
    p = OneLineParser(prog="python -m bench.report", description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="*", metavar="RUN_ID", help="run id or folder (default: newest)")
    p.add_argument("--workload", default=paths.DEFAULT_WORKLOAD, help="default clip")
    p.add_argument("--results-dir", type=Path, help="default results/ (results/<workload>/)")
    p.add_argument(
        "--plots-dir", type=Path, help="with --publish; default plots/ (plots/<workload>/)"
    )
    p.add_argument("--publish", action="store_true", help="write the reference report")
    p.add_argument(
        "--bootstrap",
        type=int,
        default=stats.N_BOOTSTRAP,
        metavar="N",
        help=f"bootstrap resamples per interval (default {stats.N_BOOTSTRAP})",
    )
    return p


def _related(results: Path, here: Path) -> list[str]:
    root = paths.RESULTS_DIR
    pages = {
        "Adaptive-clip workload": root / "summary.md",
        "Batch Renormalization workload": root / "brn" / "summary.md",
        "Across MindSpore releases": root / "releases.md",
    }
    return [
        f"- [{title}]({Path(os.path.relpath(path, here)).as_posix()})"
        for title, path in pages.items()
        if path.is_file() and path.resolve() != (here / "summary.md").resolve()
    ]


def write(
    run_dirs: list[Path], results: Path, plots_dir: Path | None, publish: bool, n_boot: int
) -> Path:
    runs = [load.load(d, n_boot=n_boot) for d in run_dirs]
    run = runs[-1]
    here = results if publish else Path(run.run_dir) / "report"
    plots_dir = (plots_dir or paths.plots_dir(run.workload)) if publish else here / "plots"
    frames = [r.cells.drop(columns=list(RAW)).assign(run_id=r.manifest.run_id) for r in runs]
    csv = pd.concat(frames, ignore_index=True)
    write_text_atomic(here / "results.csv", csv.to_csv(index=False))
    verdicts = pd.concat([r.verdicts.assign(run_id=r.manifest.run_id) for r in runs])
    write_text_atomic(here / "verdicts.csv", verdicts.drop(columns=["dims"]).to_csv(index=False))
    links = repro.write_all(run, here / "repros")
    images = plots.write_all(run, plots_dir)
    rel = [Path(os.path.relpath(p, here)).as_posix() for p in images]
    work = workloads.get(run.workload)
    dims = {d.name: d for layout in ("scalar", "vector") for d in work.dimensions(layout)}
    help_lines = {
        name: f"`{name}`: " + "; ".join(f"`{v}` = {m}" for v, m in d.meanings)
        for name, d in dims.items()
    }
    shapes_md = matrix.shapes_page(run, help_lines, links["shapes"])
    write_text_atomic(here / "shapes.md", shapes_md)
    title = f"Updating a MindSpore Parameter: {work.title}"
    pages = {"shapes": "shapes.md", "related": _related(results, here)}
    text = summary.render(run, title, rel, links, pages, n_boot)
    if len(runs) > 1:
        text += (
            "\nresults.csv also holds the runs "
            + ", ".join(f"`{r.manifest.run_id}`" for r in runs[:-1])
            + " (column `run_id`).\n"
        )
    write_text_atomic(here / "summary.md", text)
    return here


def main(argv=None) -> int:
    try:
        args = parser().parse_args(sys.argv[1:] if argv is None else argv)
        if args.workload not in workloads.WORKLOADS:
            raise UsageError(
                f"unknown workload {args.workload!r} (valid: {', '.join(workloads.WORKLOADS)})"
            )
        results = (args.results_dir or paths.results_dir(args.workload)).resolve()
        run_dirs = [find_run(name, paths.raw_dir(results)) for name in args.runs or [None]]
    except UsageError as err:
        print(f"report: error: {err}", file=sys.stderr)
        return 2
    try:
        here = write(run_dirs, results, args.plots_dir, args.publish, args.bootstrap)
    except SchemaError as err:
        print(f"report: error: {err}", file=sys.stderr)
        return 2
    print(f"report: wrote {here / 'summary.md'} (with shapes.md, results.csv, plots, repros)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``python -m bench.report [RUN_ID ...]`` (``nox -s report``): write a run's report.

A run's report goes into the run folder (``<results>/raw/<run-id>/report/``), so a subset run
never touches the reference report. ``--publish`` writes it as the reference instead:
``results/<workload>/`` (summary.md, shapes.md, results.csv, verdicts.csv, the repro scripts the
findings link to) and ``plots/<workload>/``, then the pages across workloads from the newest run
of every workload (``results/summary.md``, ``results/findings.md``, ``plots/answer.png``,
``plots/correctness.png`` and README's answer block). ``--all`` re-renders every workload's
reference and those pages from the committed raw data.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bench.core import paths
from bench.core.args import OneLineParser, UsageError
from bench.core.io import write_text_atomic
from bench.core.schema import SchemaError
from bench.measured import workloads
from bench.measured.modes import MODES
from bench.report import (
    answer,
    instances,
    load,
    overview,
    overview_plots,
    plots,
    readme,
    repro,
    shapes_page,
    summary,
)

README = paths.ROOT / "README.md"


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
    p.add_argument("--results-dir", type=Path, help="default results/<workload>/")
    p.add_argument("--plots-dir", type=Path, help="with --publish; default plots/<workload>/")
    p.add_argument("--publish", action="store_true", help="write the reference report")
    p.add_argument("--all", action="store_true", help="re-render every workload's reference report")
    return p


def _rel(path: Path, here: Path) -> str:
    return Path(os.path.relpath(path, here)).as_posix()


def kind_answers(run, results: Path, others: dict | None = None, publish: bool = True):
    """The answer of ``run``'s kind of state its pages lead with: decided over ``run`` and the
    reference runs of the other workloads of that kind (``others``, or read from the results
    folder ``results`` belongs to), as README and results/summary.md decide it."""
    kind = answer.kind_of(run.work)
    if others is None:
        others = overview.reference_runs(Path(results).parent)
    mine = {w: r for w, r in others.items() if answer.kind_of(r.work) == kind}
    mine[run.workload] = run
    mine = {w: mine[w] for w in workloads.WORKLOADS if w in mine}
    choices = {m: answer.kind_answer(mine, kind, m)[0] for m in run.modes}
    here = results if publish else Path(run.run_dir) / "report"
    page = _rel(Path(results).parent / "summary.md", here)
    shown = [m for m in run.modes if m in MODES and not MODES[m].diagnostic]  # README's modes
    code = {m: f"{page}#{readme.anchor(kind, m)}" for m in shown} if publish else {}
    return summary.KindAnswers(kind, tuple(mine), choices, code)


def picks(kind) -> dict:
    """{mode: the strategy a workload's plots mark as the answer}: its kind's answer, as README
    and every page give it."""
    return {m: c.strategy for m, c in kind.choices.items()}


def write(
    run_dir: Path, results: Path, plots_dir: Path | None, publish: bool, others: dict | None = None
) -> Path:
    """One workload's report; returns the folder it went to. ``others``: {workload: RunData} of
    the reference runs (read from the results folder when not given)."""
    run = load.load(run_dir)
    kind = kind_answers(run, results, others, publish)
    here = results if publish else Path(run.run_dir) / "report"
    plots_dir = (plots_dir or paths.plots_dir(run.workload)) if publish else here / "plots"
    write_text_atomic(here / "results.csv", run.cells.to_csv(index=False))
    verdicts = run.verdicts.drop(columns=["dims"])
    write_text_atomic(here / "verdicts.csv", verdicts.to_csv(index=False))
    links = repro.write(run, overview.repro_rows(run), here / "repros")
    images = plots.write_all(run, plots_dir, picks(kind))
    write_text_atomic(here / "shapes.md", shapes_page.shapes_page(run, links))
    title = f"Updating a MindSpore Parameter: {run.work.title}"
    pages = {
        "The answer across workloads": "../summary.md",
        "Findings": "../findings.md",
        "Every code shape": "shapes.md",
    }
    if not publish:
        pages = {"Every code shape": "shapes.md"}
    text = summary.render(run, title, [_rel(p, here) for p in images], links, pages, kind)
    write_text_atomic(here / "summary.md", text)
    return here


def write_overview(results: Path = paths.RESULTS_DIR, plots_root: Path = paths.PLOTS_DIR) -> None:
    """The pages across workloads, from the newest run of every workload."""
    runs = overview.reference_runs(results)
    if not runs:
        return
    links = {w: f"{w}/summary.md" for w in runs}
    answers = readme.kind_answers(runs)
    overview_plots.answer_figure(runs, answers, plots_root / "answer.png")
    overview_plots.correctness_figure(runs, plots_root / "correctness.png")
    write_text_atomic(results / "summary.md", overview.summary_page(runs, links))
    repro_links = {}
    for w, run in runs.items():
        repro_links[w] = {
            (
                r["strategy"],
                r["shape"],
                r["mode"],
            ): f"repros/{repro.script_name(r['strategy'], r['shape'], r['mode'])}"
            for r in overview.repro_rows(run)
            if (
                results / w / "repros" / repro.script_name(r["strategy"], r["shape"], r["mode"])
            ).is_file()
        }
    write_text_atomic(results / "findings.md", overview.findings_page(runs, repro_links))
    write_text_atomic(results / "instances.md", instances.render(runs))
    if results.resolve() == paths.RESULTS_DIR.resolve() and README.is_file():
        readme.write(README, readme.blocks(runs, answers))


def main(argv=None) -> int:
    try:
        args = parser().parse_args(sys.argv[1:] if argv is None else argv)
        if args.workload not in workloads.WORKLOADS:
            raise UsageError(
                f"unknown workload {args.workload!r} (valid: {', '.join(workloads.WORKLOADS)})"
            )
        names = list(workloads.WORKLOADS) if args.all else [args.workload]
        jobs = []
        for name in names:
            results = (
                args.results_dir if args.results_dir and not args.all else paths.results_dir(name)
            ).resolve()
            raw = paths.raw_dir(results)
            if args.all and not paths.runs(raw):
                continue
            if args.all:
                jobs.append((paths.reference(raw), results))
                continue
            for run_name in args.runs or [None]:
                jobs.append((find_run(run_name, raw), results))
    except UsageError as err:
        print(f"report: error: {err}", file=sys.stderr)
        return 2
    publish = args.publish or args.all
    try:
        others = None
        if args.all and jobs:  # every reference once, for the kinds' answers
            others = overview.reference_runs(jobs[0][1].parent)
        for run_dir, results in jobs:
            plots_dir = None if args.all else args.plots_dir
            here = write(run_dir, results, plots_dir, publish, others)
            print(f"report: wrote {here / 'summary.md'} (with shapes.md, CSVs, plots, repros)")
        if publish:
            root = jobs[0][1].parent if jobs else paths.RESULTS_DIR
            write_overview(root, paths.PLOTS_DIR if root == paths.RESULTS_DIR else root / "plots")
            print(f"report: wrote {root / 'summary.md'} and {root / 'findings.md'}")
    except SchemaError as err:
        print(f"report: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""``python -m bench.report [RUN_ID ...]`` (``nox -s report``): write a run's report.

Every page stands on a run named in one place, never on "the newest run":

- no run named: the pinned reference of ``--workload`` (``results/references.json``), its
  report written into its own run folder (``--publish``: as its workload's pages);
- ``RUN_ID``: that run, into ``<results>/raw/<run-id>/report/`` (a subset or quick run never
  touches the committed pages); ``--publish`` writes it in place of its workload's pages
  (``results/<workload>/``, ``plots/<workload>/``), renders the other workloads of its kind of
  state again over it, and the pages across workloads (``results/summary.md``, ``findings.md``,
  ``instances.md``, the two overview plots); each page not on its pinned run says so and what
  its run lacks; ``results/pages.json`` names the run of every workload's pages;
- ``--all``: every pinned reference and the pages across workloads, and README's blocks;
- ``--pin RUN_ID``: makes a complete, full run its workload's reference, then ``--all``.

Only ``--all`` and ``--pin`` write README.md. A report is written whole or not at all: every
write is held until the end (``io.staged``), so a failure leaves every page as it was (exit 3).
Bad input (a run that is not there, a run of another workload, an incomplete run to publish or
pin): exit 2, nothing written.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from bench.causes import causes, repro
from bench.core import io, paths, pins
from bench.core.archive import ArchiveError
from bench.core.args import OneLineParser, UsageError
from bench.core.io import write_text_atomic
from bench.core.schema import RunStatus, SchemaError
from bench.decide import answer, load, provenance
from bench.measured import workloads
from bench.measured.modes import MODES
from bench.report import instances, overview, overview_plots, plots, readme, shapes_page, summary

README = paths.ROOT / "README.md"


def parser() -> OneLineParser:
    p = OneLineParser(prog="python -m bench.report", description=__doc__.splitlines()[0])
    p.add_argument(
        "runs", nargs="*", metavar="RUN_ID", help="run id or folder (default: the pinned one)"
    )
    p.add_argument("--workload", help="default: the named run's, else clip")
    p.add_argument("--results-dir", type=Path, help="default results/<workload>/")
    p.add_argument("--plots-dir", type=Path, help="with --publish; default plots/<workload>/")
    p.add_argument("--publish", action="store_true", help="write the run as its workload's pages")
    p.add_argument("--all", action="store_true", help="render every pinned reference and README")
    p.add_argument("--pin", metavar="RUN_ID", help="make a full run its workload's reference")
    return p


def _rel(path: Path, here: Path) -> str:
    return Path(os.path.relpath(path, here)).as_posix()


def kind_answers(run, results: Path, others: dict | None = None, publish: bool = True):
    """The answer of ``run``'s kind of state its pages lead with: decided over ``run`` and the
    runs the other workloads' pages of that kind stand on (``others``, or read from the results
    folder ``results`` belongs to), as README and results/summary.md decide it."""
    kind = answer.kind_of(run.work)
    if others is None:
        others = provenance.reference_runs(Path(results).parent)
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


def _under_title(text: str, lines: list[str]) -> str:
    """``text`` with ``lines`` after its first line, the page's title (a notice every reader
    sees first); ``text`` as it is when there are none."""
    if not lines:
        return text
    head, _, rest = text.partition("\n")
    return "\n".join([head, "", *lines]) + rest


def write(
    run_dir: Path,
    results: Path,
    plots_dir: Path | None,
    publish: bool,
    others: dict | None = None,
    stands: provenance.Stands | None = None,
) -> Path:
    """One workload's report; returns the folder it went to. ``others``: {workload: RunData} of
    the runs the other pages stand on (read from the results folder when not given);
    ``stands``: the run's provenance, whose notice heads the page when it is not pinned."""
    run = run_dir if isinstance(run_dir, load.RunData) else load.load(run_dir)
    kind = kind_answers(run, results, others, publish)
    here = results if publish else Path(run.run_dir) / "report"
    plots_dir = (plots_dir or paths.plots_dir(run.workload)) if publish else here / "plots"
    write_text_atomic(here / "results.csv", run.cells.to_csv(index=False))
    # one row per verdict; each step's outcome (``steps``, most of the bytes) stays in the run
    verdicts = run.verdicts.drop(columns=["dims", "steps"])
    write_text_atomic(here / "verdicts.csv", verdicts.to_csv(index=False))
    links = repro.write(run, repro.repro_rows(run), here / "repros")
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
    text = _under_title(text, readme.regated_notice({run.workload: run}))
    if stands is not None and not stands.pinned:
        pinned = pins.read(paths.RESULTS_DIR).references.get(run.workload)
        text = _under_title(text, provenance.notice(stands, pinned))
    write_text_atomic(here / "summary.md", text)
    return here


def write_overview(
    runs: dict,
    results: Path = paths.RESULTS_DIR,
    plots_root: Path = paths.PLOTS_DIR,
    stands: dict | None = None,
    with_readme: bool = False,
) -> None:
    """The pages across workloads from ``runs`` ({workload: RunData}, the runs the workloads'
    pages stand on); README's blocks too when ``with_readme`` (the pinned references only)."""
    if not runs:
        return
    links = {w: f"{w}/summary.md" for w in runs}
    answers = readme.kind_answers(runs)
    if overview_plots.answer_figure(runs, answers, plots_root / "answer.png") is None:
        print("report: the answer figure has nothing to draw (no timed run): not drawn")
    overview_plots.correctness_figure(runs, plots_root / "correctness.png")
    page = overview.summary_page(runs, links)
    page = _under_title(page, readme.regated_notice(runs))
    away = [s for s in (stands or {}).values() if not s.pinned]
    if away:
        pinned = pins.read(paths.RESULTS_DIR).references
        notes = [line for s in away for line in provenance.notice(s, pinned.get(s.workload))]
        page = _under_title(page, notes)
    write_text_atomic(results / "summary.md", page)
    repro_links = {}
    for w, run in runs.items():
        repro_links[w] = {
            (
                r["strategy"],
                r["shape"],
                r["mode"],
            ): f"repros/{repro.script_name(r['strategy'], r['shape'], r['mode'])}"
            for r in repro.repro_rows(run)
            if io.exists(
                results / w / "repros" / repro.script_name(r["strategy"], r["shape"], r["mode"])
            )
        }
    found = causes.of_runs(runs)  # once: the findings page, causes.json and README's block
    write_text_atomic(results / "findings.md", overview.findings_page(runs, repro_links, found))
    write_text_atomic(  # what the check tool names a user's divergence after
        results / causes.CAUSES_FILE, causes.to_json(found, runs, repro_links)
    )
    write_text_atomic(results / "instances.md", instances.render(runs))
    if stands:
        write_text_atomic(results / provenance.PAGES, provenance.pages_json(stands))
    if with_readme:  # the pinned references: what README and the decisions file stand on
        from bench.decide import decisions

        made = decisions.decide(runs, answers)
        write_text_atomic(results / "decisions.json", decisions.to_json(made, runs))
        if README.is_file():
            readme.write(README, readme.blocks(runs, answers, found=found))
        _write_releases(results / "releases")


def _write_releases(folder: Path) -> None:
    """``releases.md`` names the pinned references in its newest release's rows: rendered with
    them (a new pin left it stale until ``nox -s releases`` ran)."""
    from bench.report import releases

    if folder.is_dir():
        releases.write(folder)


def _checked(run_dir: Path, workload: str | None) -> load.RunData:
    """The run, loaded; UsageError if it is of another workload than the one asked for."""
    run = load.load(run_dir)
    if workload is not None and run.workload != workload:
        raise UsageError(f"run {run_dir.name!r} is a {run.workload} run, not {workload}")
    return run


def _pin(run_id: str) -> tuple[pins.Pins, str]:
    """The pins with ``run_id`` as its workload's reference; UsageError unless it is a
    complete, full run of a workload in results/<workload>/raw/."""
    from bench.run.plan import Plan

    found = [
        (w, r)
        for w in workloads.WORKLOADS
        if (r := paths.find_run(paths.raw_dir(paths.results_dir(w)), run_id)) is not None
    ]
    if not found:
        raise UsageError(f"no run {run_id!r} in results/<workload>/raw/ to pin")
    workload, run_dir = found[0]
    run = _checked(run_dir, workload)
    why = provenance.why_not_pinnable(
        Plan.from_dict(run.plan),
        run.manifest.status,
        provenance.default_plan(workload),
        run.manifest.budget,
    )
    if why:
        raise UsageError(f"run {run_id!r} cannot be {workload}'s reference: {why}")
    old = pins.read()
    return pins.Pins({**old.references, workload: run_id}, old.releases), workload


def _plan_jobs(args) -> tuple[list, bool, pins.Pins | None]:
    """([(RunData, results folder)], publish?, new pins or None); UsageError on bad input."""
    if args.pin:
        if args.runs or args.publish or args.all:
            raise UsageError("--pin takes one run and no other run, --publish or --all")
        new, _ = _pin(args.pin)
        refs = pins.references(workloads=list(workloads.WORKLOADS)) | {
            w: paths.find_run(paths.raw_dir(paths.results_dir(w)), i)
            for w, i in new.references.items()
        }
        return [(_checked(r, w), paths.results_dir(w)) for w, r in refs.items()], True, new
    if args.all:
        if args.runs or args.results_dir:
            raise UsageError("--all renders the pinned references: it takes no run or folder")
        refs = pins.references(workloads=list(workloads.WORKLOADS))
        if not refs:
            raise UsageError(f"no pinned reference in {pins.file()}")
        return [(_checked(r, w), paths.results_dir(w)) for w, r in refs.items()], True, None
    workload = args.workload or paths.DEFAULT_WORKLOAD
    results = (args.results_dir or paths.results_dir(workload)).resolve()
    raw = paths.raw_dir(results)
    if not args.runs:
        if args.results_dir:
            raise UsageError(f"name a run of {str(raw)!r} to render (no run is chosen for you)")
        ref = pins.reference(workload)
        if ref is None:
            raise UsageError(f"no pinned {workload} reference in {pins.file()}: name a run")
        return [(_checked(ref, workload), results)], args.publish, None
    jobs = []
    for name in args.runs:
        where = [(raw, results)]
        if args.workload is None and args.results_dir is None:  # the run says whose it is
            where = [(paths.raw_dir(paths.results_dir(w)), paths.results_dir(w)) for w in
                     workloads.WORKLOADS]  # fmt: skip
        hits = [(f, r) for rw, r in where if (f := paths.find_run(rw, name)) is not None]
        run_dir, home = hits[0] if hits else (paths.named_run(name, raw), results)
        jobs.append((_checked(run_dir, args.workload), home.resolve()))
    if args.publish:
        if len(jobs) > 1:
            raise UsageError("--publish takes one run")
        run = jobs[0][0]
        if run.manifest.status != RunStatus.COMPLETE:
            raise UsageError(
                f"run {run.manifest.run_id!r} is {RunStatus(run.manifest.status).value}, not "
                "complete: finish it with `nox -s bench -- --resume` before publishing it"
            )
    return jobs, args.publish, None


def _render(jobs, publish: bool, new_pins, args) -> None:
    """Write every page of ``jobs`` (inside the caller's ``io.staged`` block)."""
    if not publish:
        for run, results in jobs:
            here = write(run, results, None, False)
            print(f"report: wrote {here / 'summary.md'} (with shapes.md, CSVs, plots, repros)")
        return
    whole = bool(args.all or args.pin)
    pinned = (new_pins or pins.read()).references
    if whole:
        current = {run.workload: run for run, _ in jobs}
    elif Path(jobs[0][1]).resolve() != paths.results_dir(jobs[0][0].workload).resolve():
        run, results = jobs[0]  # a results folder of one's own: its pages only, plots beside
        others = {w: load.load(r) for w, r in provenance.current_runs().items()}
        plots_dir = args.plots_dir or Path(results) / "plots"
        here = write(run, results, plots_dir, True, others)
        print(f"report: wrote {here / 'summary.md'} (with shapes.md, CSVs, plots, repros)")
        return
    else:
        run, results = jobs[0]
        current = {
            w: load.load(r)
            for w, r in provenance.current_runs(Path(results).parent).items()
            if w != run.workload
        }
        kind = answer.kind_of(run.work)
        mine = [w for w, r in current.items() if answer.kind_of(r.work) == kind]
        current[run.workload] = run
        for w in mine:  # their pages lead with the kind's answer, decided over this run too
            pin = pins.reference(w, Path(results).parent)
            current[w] = load.load(pin) if pin is not None else current[w]
        current = {w: current[w] for w in workloads.WORKLOADS if w in current}
        jobs = [(current[w], Path(results).parent / w) for w in [*mine, run.workload]]
    defaults: dict = {}
    stands = {}
    for w, r in current.items():
        if r.manifest.run_id != pinned.get(w):
            defaults[w] = defaults.get(w) or provenance.default_plan(w)
        stands[w] = provenance.stands_for(r, pinned.get(w), defaults.get(w))
    for run, results in jobs:
        plots_dir = args.plots_dir if (args.plots_dir and not whole) else None
        if plots_dir is not None and run.workload != jobs[-1][0].workload:
            plots_dir = None
        here = write(run, results, plots_dir, True, current, stands[run.workload])
        print(f"report: wrote {here / 'summary.md'} (with shapes.md, CSVs, plots, repros)")
    root = Path(jobs[-1][1]).parent
    committed = root.resolve() == paths.RESULTS_DIR.resolve()
    plots_root = paths.PLOTS_DIR if committed else root / "plots"
    write_overview(current, root, plots_root, stands, with_readme=whole)
    if new_pins is not None:
        pins.write(new_pins)
    print(f"report: wrote {root / 'summary.md'} and {root / 'findings.md'}")


def main(argv=None) -> int:
    try:
        args = parser().parse_args(sys.argv[1:] if argv is None else argv)
        if args.workload is not None and args.workload not in workloads.WORKLOADS:
            raise UsageError(
                f"unknown workload {args.workload!r} (valid: {', '.join(workloads.WORKLOADS)})"
            )
        jobs, publish, new_pins = _plan_jobs(args)
    except (UsageError, pins.PinError, SchemaError, ArchiveError) as err:
        print(f"report: error: {err}", file=sys.stderr)
        return 2
    try:
        with io.staged():
            _render(jobs, publish, new_pins, args)
    except (pins.PinError, SchemaError, ArchiveError) as err:
        print(f"report: error: {err} (no page was changed)", file=sys.stderr)
        return 2
    except Exception as err:  # a bug of the suite: nothing was written
        import traceback

        traceback.print_exc()
        print(
            f"report: internal error (a bug of the suite): {err!r}; no page was changed",
            file=sys.stderr,
        )
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())

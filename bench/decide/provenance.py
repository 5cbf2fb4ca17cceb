"""Which run a page stands on, and what that run lacks against a full default run of its
workload: the pure rules behind ``nox -s report``'s choices (tested with hand-made plans).

``results/pages.json`` names the run each workload's pages were rendered from (the pinned
reference, or a run published in its place); the pages across workloads read the same runs, so
a page and the overview never stand on different runs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from bench.core import paths, pins
from bench.core.schema import RunStatus

PAGES = "pages.json"
SCHEMA_VERSION = 1


def default_plan(workload: str):
    """The plan of ``nox -s bench -- --workload W`` with this checkout's strategies."""
    from bench.cli import make_plan, parser
    from bench.measured import workloads

    return make_plan(parser().parse_args(["--workload", workload]), workloads.get(workload))


def lacks(
    plan, status: str, default, mindspore: str = "", pinned_mindspore: str = "", budget=None
) -> list[str]:
    """What a run of ``plan`` (ended with ``status``, on MindSpore ``mindspore``, with the
    manifest's ``budget`` record) lacks against the full run ``default`` (and the pinned
    reference's MindSpore), in short phrases, most important first; [] for a complete full run."""
    out = []
    if str(status) != RunStatus.COMPLETE.value:
        out.append(f"it did not finish (status {RunStatus(status).value})")
    if budget and budget.get("reached"):
        out.append(
            f"its --budget ended the timing: {budget['untimed']} of {budget['races']} races "
            f"not timed, {budget['short']} timed in fewer than {budget['processes']} processes"
        )
    if mindspore and pinned_mindspore and mindspore != pinned_mindspore:
        out.append(f"another release: MindSpore {mindspore}, the reference's {pinned_mindspore}")
    if plan.gate_only:
        out.append("no timings (a gate-only run): no costs")
    elif plan.precision.tier == "quick":
        out.append("the --quick tier: one timing process, wider intervals")
    for what, mine, full in (
        ("strategies", plan.strategies, default.strategies),
        ("modes", plan.modes, default.modes),
        ("sizes", plan.batch_sizes, default.batch_sizes),
    ):
        missing = [str(x) for x in full if x not in set(mine)]
        if missing:
            out.append(f"{what} not run: {', '.join(missing)}")
    if plan.shapes is not None:
        out.append(f"only {len(plan.shapes)} shape(s): {', '.join(plan.shapes)}")
    return out


def why_not_pinnable(plan, status: str, default, budget=None) -> str | None:
    """Why a run cannot become its workload's reference (None: it can): only a complete, full
    run at the default tier or better that its --budget (if any) did not cut short."""
    missing = lacks(plan, status, default, budget=budget)
    return "; ".join(missing) if missing else None


@dataclass(frozen=True)
class Stands:
    """The run one workload's pages stand on."""

    workload: str
    run: str  # run id
    pinned: bool  # the run results/references.json names
    lacks: tuple = ()

    def to_dict(self) -> dict:
        return {"run": self.run, "pinned": self.pinned, "lacks": list(self.lacks)}


def notice(stands: Stands, pinned_id: str | None) -> list[str]:
    """The lines a page carries when its run is not the pinned reference (none when it is)."""
    if stands.pinned:
        return []
    ref = f"the pinned reference `{pinned_id}`" if pinned_id else "no pinned reference"
    lines = [f"> **Not the reference.** This page stands on run `{stands.run}`, not on {ref}."]
    if stands.lacks:
        lines.append(f"> It lacks: {'; '.join(stands.lacks)}.")
    lines.append("> `nox -s report -- --all` renders the pinned references again.")
    return [*lines, ""]


@dataclass(frozen=True)
class Regated:
    """A cell whose verdict in a run is not what the current gate records for the run's
    MindSpore release (``expected/``): the run was gated by an older gate (its workloads or
    oracle changed since) and is not made again yet."""

    key: tuple  # (workload, strategy, shape, mode)
    then: str  # the run's verdict (a signature)
    now: str  # the current record's


def regated(verdicts: dict, recorded: dict) -> list[Regated]:
    """The cells of a run (``verdicts``: {key: signature}) whose verdict the current record
    (``recorded``: {key: signature}, an expected file) does not accept, sorted; cells with no
    line in the record are not compared."""
    from bench.core import expected

    return [
        Regated(k, v, recorded[k])
        for k, v in sorted(verdicts.items())
        if k in recorded and not expected.accepts(recorded[k], v)
    ]


def run_regated(run) -> list[Regated]:
    """``regated`` of a loaded run against the expected file of its MindSpore release, once a
    run (README, the summary and the run's own page all ask)."""
    from bench.core import expected
    from bench.core.schema import signature

    if "regated" in run.memo:
        return list(run.memo["regated"])
    release = str(run.environment.get("mindspore", ""))
    found = []
    if release and not run.verdicts.empty:
        recorded = expected.read(expected.path_for(release))
        mine = {
            (run.workload, r.strategy, r.shape, r.mode): signature(r.status, r.kind, r.detail)
            for r in run.verdicts.itertuples()
            if r.status not in {str(s) for s in expected.NOT_RECORDED}
        }
        found = regated(mine, recorded)
    run.memo["regated"] = found
    return list(found)


def regated_lines(found: dict[str, list[Regated]], cells: dict[str, int], release: str) -> list:
    """README's and the pages' lines on references the current gate judges otherwise
    (``found``: {workload: its Regated}, ``cells``: {workload: its verdicts}); [] when none.
    The most frequent changes first, each with its strategies."""
    found = {w: f for w, f in found.items() if f}
    if not found:
        return []
    parts = []
    for w, rows in sorted(found.items()):
        changes: dict[tuple, dict[str, int]] = {}
        for r in rows:
            change = (short_signature(r.then), short_signature(r.now))
            by = changes.setdefault(change, {})
            by[r.key[1]] = by.get(r.key[1], 0) + 1
        top = sorted(changes.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))[:2]
        said = "; ".join(
            f"{then} → {now}: "
            + ", ".join(f"`{s}`" for s in sorted(by)[:4])
            + (f" and {len(by) - 4} more" if len(by) > 4 else "")
            for (then, now), by in top
        )
        parts.append(f"{w}: {len(rows)} of {cells.get(w, len(rows))} verdicts ({said})")
    return [
        "> **Gated again since these references were made.** The current gate (its workloads "
        f"and oracle) records other verdicts for MindSpore {release} "
        f"(`{_expected_file(release)}`) than these runs show: "
        + "; ".join(parts)
        + ". The answers and costs below are the references'; the references are made again "
        "with `nox -s bench`, then `nox -s report -- --pin RUN_ID`.",
        "",
    ]


def short_signature(signature: str) -> str:
    """A signature in a few words: a raise by its exception type."""
    if signature.startswith("raises: "):
        return signature.split(":", 2)[0] + ": " + signature.split(":", 2)[1].strip()
    return signature.removeprefix("incorrect: ")


def _expected_file(release: str) -> str:
    from bench.core import expected

    return f"expected/{expected.path_for(release).name}"


def read_pages(root: Path = paths.RESULTS_DIR) -> dict[str, str]:
    """{workload: run id} of ``results/pages.json`` ({} if absent or unreadable)."""
    try:
        data = json.loads((Path(root) / PAGES).read_text(encoding="utf-8"))
        return {w: v["run"] for w, v in data.get("workloads", {}).items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def pages_json(stands: dict[str, Stands]) -> str:
    data = {
        "schema_version": SCHEMA_VERSION,
        "workloads": {w: stands[w].to_dict() for w in sorted(stands)},
    }
    return json.dumps(data, indent=1) + "\n"


def current_runs(root: Path = paths.RESULTS_DIR, workloads=None) -> dict[str, Path]:
    """{workload: run folder} the committed pages stand on: each workload's run in
    ``pages.json`` while it is still there, else its pinned reference."""
    from bench.measured import workloads as known

    names = list(workloads or known.WORKLOADS)
    out = pins.references(root, names)
    for w, run_id in read_pages(root).items():
        if w in names:
            found = paths.find_run(paths.raw_dir(Path(root) / w), run_id)
            if found is not None:
                out[w] = found
    return {w: out[w] for w in names if w in out}


def stands_for(run, pinned_id: str | None, default=None) -> Stands:
    """The ``Stands`` of a loaded run (``default``: the workload's full plan, computed if None)."""
    from bench.run.plan import Plan

    run_id = run.manifest.run_id
    if run_id == pinned_id:
        return Stands(run.workload, run_id, True)
    default = default or default_plan(run.workload)
    plan = Plan.from_dict(run.plan)
    theirs = ""
    try:
        ref = pins.reference(run.workload) if pinned_id else None
        if ref is not None:
            manifest = json.loads((ref / "manifest.json").read_text(encoding="utf-8"))
            theirs = str((manifest.get("environment") or {}).get("mindspore", ""))
    except (pins.PinError, OSError, ValueError):
        pass  # no pinned release to compare with: nothing said
    mine = str(run.environment.get("mindspore", ""))
    found = lacks(plan, run.manifest.status, default, mine, theirs, run.manifest.budget)
    return Stands(run.workload, run_id, False, tuple(found))


def reference_runs(results: Path = paths.RESULTS_DIR) -> dict:
    """{workload: RunData} of the pinned reference of each workload (``results/references.json``
    of the results folder ``results``, else the committed one): README's and the check tool's
    answers stand on these, whatever runs a user made since."""
    from bench.decide.load import load
    from bench.measured import workloads

    root = pins.in_force(results)
    found = pins.references(root, list(workloads.WORKLOADS))
    return {name: load(run) for name, run in found.items()}


def page_runs(results: Path = paths.RESULTS_DIR) -> dict:
    """{workload: RunData} of the runs the committed pages stand on (``results/pages.json``:
    a run published in place of a reference, else the pinned reference)."""
    from bench.decide.load import load

    return {w: load(r) for w, r in current_runs(results).items()}


__all__ = [
    "Regated",
    "Stands",
    "current_runs",
    "default_plan",
    "lacks",
    "notice",
    "page_runs",
    "pages_json",
    "read_pages",
    "reference_runs",
    "regated",
    "regated_lines",
    "run_regated",
    "short_signature",
    "stands_for",
    "why_not_pinnable",
]

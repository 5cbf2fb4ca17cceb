"""The pages across workloads: ``results/summary.md`` (the answer per mode that holds in every
workload) and ``results/findings.md`` (every divergence of every workload), rendered from the
runs each workload's pages stand on (``page_runs``; the pinned references: ``reference_runs``);
README's blocks are ``readme``."""

from __future__ import annotations

import math
import re
from pathlib import Path

from bench.causes import causes, findings
from bench.core import fmt, paths
from bench.core.schema import NETWORK_ONLY, SECOND_ONLY, THIRD_ONLY, Status
from bench.decide import answer, between_runs, calibration
from bench.decide.load import RunData, load
from bench.measured import workloads
from bench.measured.modes import MODE_NAMES, MODES, label
from bench.report import costs, readme, words


def reference_runs(results: Path = paths.RESULTS_DIR) -> dict[str, RunData]:
    """{workload: RunData} of the pinned reference of each workload (``results/references.json``
    of the results folder ``results``, else the committed one): README's and the check tool's
    answers stand on these, whatever runs a user made since."""
    from bench.core import pins

    root = pins.in_force(results)
    found = pins.references(root, list(workloads.WORKLOADS))
    return {name: load(run) for name, run in found.items()}


def page_runs(results: Path = paths.RESULTS_DIR) -> dict[str, RunData]:
    """{workload: RunData} of the runs the committed pages stand on (``results/pages.json``:
    a run published in place of a reference, else the pinned reference)."""
    from bench.decide import provenance

    return {w: load(r) for w, r in provenance.current_runs(results).items()}


def _modes(runs: dict[str, RunData]) -> list[str]:
    seen = {m for r in runs.values() for m in r.modes}
    return [m for m in MODES if m in seen]


def summary_page(runs: dict[str, RunData], links: dict[str, str]) -> str:
    """results/summary.md (``templates/summary.md.j2``)."""
    from bench.report import templating

    text = templating.render(
        "summary.md.j2",
        original_report=words.ORIGINAL_REPORT,
        answers=readme.answers_block(runs, readme.kind_answers(runs), results=""),
        kinds=_kinds(runs),
        findings=_findings_list(runs),
        candidates=_candidates(runs),
        calibration=_calibration(runs),
        workloads=[(workloads.get(w).title, p) for w, p in links.items()],
        provenance=_provenance(runs),
    )
    text = words.link_first(text)
    sizes = words.size_terms(r.work for r in runs.values())
    return text + "\n## Glossary\n\n" + "\n".join(words.glossary(text, sizes)) + "\n"


def _calibration(runs) -> list[str]:
    """Per mode: how many A/A 95 % intervals contain 1 (all workloads, then each), the sizes a
    bias makes undetermined, and each workload's between-process spread (τ, Cochran's Q, p)."""
    cover, spread = [], []
    for mode in _modes(runs):
        mine = {w: r for w, r in runs.items() if mode in r.modes}
        found = {w: calibration.aa_coverage(r).get(mode, (0, 0)) for w, r in mine.items()}
        inside, total = (sum(x[i] for x in found.values()) for i in (0, 1))
        share = f"{inside}/{total} ({inside / total:.0%})" if total else "no A/A cell"
        cells = []
        for w, r in runs.items():
            if w not in mine:
                cells.append("–")
                continue
            cell = f"{found[w][0]}/{found[w][1]}"
            sizes = calibration.undetermined_sizes(r, mode)
            if sizes:
                at = ", ".join(f"{r.symbol}={n}" for n in sizes)
                cell += f"; decisions undetermined at {at}"
            cells.append(cell)
        cover.append([label(mode), share, *cells])
        spread.append(
            [label(mode), *(costs.spread(r, mode) if w in mine else "–" for w, r in runs.items())]
        )
    names = list(runs)
    return [
        "## How far the timings can be trusted",
        "",
        "*A/A* cells time the base twin against a second copy of itself, so their true ratio is "
        "1: about 95 % of their 95 % intervals should contain it (target: at least "
        f"{calibration.AA_TARGET:.0%}). A size whose A/A interval lies wholly outside ± the margin "
        "turns every decision of that mode at that size undetermined.",
        "",
        *fmt.table(["mode", "A/A intervals containing 1, all workloads", *names], cover),
        "The spread between processes, per mode and workload: τ is the between-process standard "
        "deviation of a process's value around its cell's (Paule–Mandel, over every cell timed "
        "in two processes). Cochran's Q and its p stand beside it: a small p means processes "
        "disagree more than their rounds explain. Every interval is widened by τ.",
        "",
        *fmt.table(["mode", *names], spread),
        *_between_runs(),
    ]


KIND_OF_CELL = {"update": "a write's cost", "layout": "a layout twin"}  # between_runs.ROLES


def _between_runs() -> list[str]:
    """The variance between runs added to the costs (``between_runs``), from its file."""
    found = between_runs.read()
    if not found:
        return []
    rows = [
        [label(m), KIND_OF_CELL.get(role, role), f"±{math.sqrt(t2):.1%}", f"{df:.0f}"]
        for (m, role), (t2, df) in sorted(found.items(), key=lambda kv: MODE_NAMES.index(kv[0][0]))
    ]
    return [
        "",
        "The spread between runs: τ between back-to-back runs of this machine, added to the "
        "intervals of that kind of cell ([between_runs.json](between_runs.json), from the "
        "pairs listed there). The comparisons between candidates are not widened: none was "
        "contradicted between runs.",
        "",
        *fmt.table(["mode", "interval of", "τ between runs", "pairs"], rows),
    ]


def _kinds(runs) -> list[str]:
    seen = [k for run in runs.values() for k in run.verdicts.kind]
    cols = [Status.WORKS.label, *words.kind_columns(seen), Status.RAISES.label, "crashes", "hangs"]
    rows = []
    for mode in _modes(runs):
        counts: dict[str, int] = {}
        total = 0
        for run in runs.values():
            v = run.verdicts
            v = v[
                (v["mode"] == mode)
                & (v.strategy != "control")
                & ~v.status.isin([Status.INEXPRESSIBLE.value, Status.BROKEN.value])
            ]
            total += len(v)
            for r in v.itertuples():
                key = r.kind if r.status == Status.INCORRECT.value else r.label
                counts[key] = counts.get(key, 0) + 1
        rows.append([label(mode), *(str(counts.get(c, 0)) for c in cols), str(total)])
    return [
        "Strategy × shape cells of the four workloads:",
        "",
        *fmt.table(["mode", *cols, "cells"], rows),
    ]


def _findings_list(runs) -> list[str]:
    out = []
    for w, run in runs.items():
        for e in findings.entries(run):
            out.append(
                f"- {w}: [{e.title}](findings.md#{e.slug}) — "
                f"{', '.join(map(label, e.modes))}" + (" (eager)" if e.eager else "")
            )
    if not out:
        return []
    return [
        "Every divergence, with expected vs observed, a minimal pair and a reproduction "
        "script, is an entry of [the findings](findings.md):",
        "",
        *out,
        "",
    ]


def _candidates(runs) -> list[str]:
    out = []
    for mode in _modes(runs):
        said = {w: answer.outcomes(r, mode) for w, r in runs.items() if mode in r.modes}
        names = sorted({s for found in said.values() for s in found})
        cols = list(said)
        facts = {s: f for r in runs.values() for s, f in r.manifest.strategies.items()}
        rows = [
            [
                f"`{s}`",
                *(said[w].get(s, answer.CANNOT) for w in cols),
                ", ".join(facts.get(s, {}).get("platforms", [])) or "not documented",
            ]
            for s in names
        ]
        out += [f"**{label(mode)}**", "", *fmt.table(["strategy", *cols, "documented"], rows)]
    return [
        "Each strategy in each workload. Where it is correct in every shape the answer must hold "
        "in: its cost against that workload's fastest candidate, by the margin (*fastest*, "
        "*equivalent*, *faster*, *slower* or *undetermined*). Strategies that are not candidates "
        "are compared too, so a faster undocumented API shows. Otherwise: the first shape where "
        "it is not correct.",
        "",
        *out,
    ]


def _provenance(runs) -> list[str]:
    rows = [
        [
            w,
            f"`{r.manifest.run_id}`",
            r.tier,
            f"`{fmt.command(r.manifest.command)}`",
            f"`{r.manifest.suite_commit or '?'}`",
            f"{sum(r.manifest.phases.values()) / 60:.1f} min"
            + (
                f" ({len(r.manifest.invocations)} invocations: resumed after an interruption; "
                "the phase cut short is not counted)"
                if len(r.manifest.invocations) > 1
                else ""
            ),
            f"{r.load.get('max', 0):.2f}" if r.load else "–",
        ]
        for w, r in runs.items()
    ]
    return [
        "## Where these numbers come from",
        "",
        *fmt.table(
            [
                "workload",
                "run",
                "tier",
                "command",
                "suite commit",
                "wall time",
                "others' CPU while timing (max)",
            ],
            rows,
        ),
    ]


def findings_page(runs: dict[str, RunData], repro_links: dict[str, dict], found=None) -> str:
    """results/findings.md (``templates/findings.md.j2``): its root causes (``found``:
    ``causes.of_runs(runs)`` already computed), then one entry per divergence."""
    from bench.report import templating

    found = causes.of_runs(runs) if found is None else found
    entries = [
        _entry(run, e, repro_links.get(w, {}), w)
        for w, run in runs.items()
        for e in findings.entries(run)
    ]
    text = templating.render(
        "findings.md.j2", table=causes.table(found, causes.reduced()), entries=entries
    )
    return text + "\n## Glossary\n\n" + "\n".join(words.glossary(text)) + "\n"


def entry_view(run: RunData, e: findings.Entry, links: dict, w: str) -> dict:
    """What an entry of the findings page says, as data (``templates/findings_entry.md.j2``):
    per mode its failing shapes (counted, and covered by at most four patterns), what the code
    means, what ran (``observed``), its minimal pair with both scripts or its own script, and
    what each mode's documentation says."""
    ex, v = e.example, run.verdicts
    where = []
    for m, failing in e.shapes.items():
        every = set(v[(v["mode"] == m) & v.strategy.isin(e.strategies)]["shape"])
        where.append((m, len(failing), findings.cover(set(failing), every)[:4]))
    pair = None
    if e.pair:
        s, mode, good, bad = e.pair
        pair = {"strategy": s, "mode": mode, "good": good, "bad": bad,
                "good_link": links.get((s, good, mode)), "bad_link": links.get((s, bad, mode)),
                "breaks": e.pair_breaks}  # fmt: skip
    return {
        "anchor": e.slug,
        "workload": w,
        "title": e.title,
        "mindspore": e.mindspore,
        "eager": e.eager,
        "where": where,
        "strategies": e.strategies,
        "calls": e.calls,
        "kind": e.kind,
        "silent": e.outcome.startswith(Status.INCORRECT.value),
        "reading": run.work.readings.get(ex.get("meaning")),
        "observed": observed(ex),
        "pair": pair,
        "link": links.get((ex.get("strategy"), ex.get("shape"), ex.get("mode"))),
        "documented": e.documented_by_mode,
    }


def _entry(run: RunData, e: findings.Entry, links: dict, w: str) -> list[str]:
    from bench.report import templating

    text = templating.render(
        "findings_entry.md.j2",
        e=entry_view(run, e, links, w),
        second=SECOND_ONLY,
        third=THIRD_ONLY,
        network=NETWORK_ONLY,
    )
    return text.split("\n")


ERROR = re.compile(r"\b([A-Z]\w*(?:Error|Exception|Interrupt)): (.*)$")
STATE = re.compile(r": (?=[\w.\[\]]+ = )")


def observed(ex: dict) -> list[str]:
    """The example's detail as a bullet: MindSpore's own error message as code, and one
    sub-bullet per state it names (a detail lists them with "; " after the step)."""
    detail = fmt.cell(ex.get("detail", ""))[:400]
    head, *states = detail.split("; ")
    first = STATE.split(head, maxsplit=1)
    if len(first) == 2:
        head, states = f"{first[0]}:", [first[1], *states]
    error = ERROR.search(head)
    if error:
        message = error.group(2).replace("`", "'")
        head = head[: error.start()] + f"`{error.group(1)}: {message}`"
    where = f"`{ex.get('strategy')}` `{ex.get('shape')}` {label(ex.get('mode'))}"
    return [f"- **observed** in {where}: {head}", *(f"  - {part}" for part in states)]


def repro_rows(run: RunData, splits=None) -> list[dict]:
    """The verdict rows whose scripts the findings link to (each entry's example and pair, and
    the example of each part a split cause takes of it: ``causes.parts``; ``splits``: default
    the committed ones)."""
    v = run.verdicts
    rows = []
    splits = causes.read_splits() if splits is None else splits
    apis = causes.apis_of([run])
    for whole in findings.entries(run):
        keys = []
        for e, _ in [(whole, False), *causes.parts(whole, apis, splits)]:
            key = (e.example.get("strategy"), e.example.get("shape"), e.example.get("mode"))
            if key not in keys:
                keys.append(key)
        e = whole
        if e.pair:
            keys += [(e.pair[0], e.pair[2], e.pair[1]), (e.pair[0], e.pair[3], e.pair[1])]
        for s, shape, mode in keys:
            hit = v[(v.strategy == s) & (v["shape"] == shape) & (v["mode"] == mode)]
            if len(hit):
                rows.append(hit.iloc[0].to_dict())
    return rows

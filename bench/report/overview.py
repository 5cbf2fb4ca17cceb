"""The pages across workloads: ``results/summary.md`` (the answer per mode that holds in every
workload) and ``results/findings.md`` (every divergence of every workload), rendered from the
runs each workload's pages stand on (``provenance.page_runs``; the pinned references:
``provenance.reference_runs``);
README's blocks are ``readme``."""

from __future__ import annotations

import math
import re

from bench.causes import causes, findings
from bench.core import fmt
from bench.core.schema import NETWORK_ONLY, SECOND_ONLY, THIRD_ONLY, Status
from bench.decide import answer, between_runs, calibration
from bench.decide.load import RunData
from bench.measured import workloads
from bench.measured.modes import MODE_NAMES, MODES, label
from bench.report import costs, readme, words


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
        entries=[(w, e) for w, run in runs.items() for e in findings.entries(run)],
        candidates=_candidates(runs),
        names=list(runs),
        calibration=_calibration(runs),
        between_runs=_between_runs(),
        workloads=[(workloads.get(w).title, p) for w, p in links.items()],
        provenance=_provenance(runs),
    )
    text = words.link_first(text)
    sizes = words.size_terms(r.work for r in runs.values())
    return text + "\n## Glossary\n\n" + "\n".join(words.glossary(text, sizes)) + "\n"


def _calibration(runs) -> tuple[list, list]:
    """Per mode: how many A/A 95 % intervals contain 1 (all workloads, then each), the sizes a
    bias makes undetermined; and each workload's between-process spread (τ, Cochran's Q, p)."""
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
    return cover, spread


KIND_OF_CELL = {"update": "a write's cost", "layout": "a layout twin"}  # between_runs.ROLES


def _between_runs() -> list[list[str]]:
    """The variance between runs added to the costs (``between_runs``), from its file."""
    found = sorted(between_runs.read().items(), key=lambda kv: MODE_NAMES.index(kv[0][0]))
    return [
        [label(m), KIND_OF_CELL.get(role, role), f"±{math.sqrt(t2):.1%}", f"{df:.0f}"]
        for (m, role), (t2, df) in found
    ]


def _kinds(runs) -> tuple[list[str], list[list[str]]]:
    """(the columns, per mode the count of strategy × shape cells of each verdict)."""
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
    return ["mode", *cols, "cells"], rows


def _candidates(runs) -> list[tuple[str, list]]:
    """Per mode, each strategy's outcome in each workload and where it is documented."""
    out = []
    for mode in _modes(runs):
        said = {w: answer.outcomes(r, mode) for w, r in runs.items() if mode in r.modes}
        names = sorted({s for found in said.values() for s in found})
        facts = {s: f for r in runs.values() for s, f in r.manifest.strategies.items()}
        rows = [
            [
                f"`{s}`",
                *(said[w].get(s, answer.CANNOT) for w in said),
                ", ".join(facts.get(s, {}).get("platforms", [])) or "not documented",
            ]
            for s in names
        ]
        out.append((mode, ["strategy", *said, "documented"], rows))
    return out


def _provenance(runs) -> list[list[str]]:
    return [
        [
            w,
            f"`{r.manifest.run_id}`",
            r.tier,
            f"`{fmt.command(r.manifest.command)}`",
            f"`{r.manifest.suite_commit or '?'}`",
            f"{sum(r.manifest.phases.values()) / 60:.1f} min",
            len(r.manifest.invocations),
            f"{r.load.get('max', 0):.2f}" if r.load else "–",
        ]
        for w, r in runs.items()
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

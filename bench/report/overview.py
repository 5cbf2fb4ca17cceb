"""The pages across workloads: ``results/summary.md`` (the answer per mode that holds in every
workload) and ``results/findings.md`` (every divergence of every workload), rendered from the
runs each workload's pages stand on (``page_runs``; the pinned references: ``reference_runs``);
README's blocks are ``readme``."""

from __future__ import annotations

import math
import re
from pathlib import Path

from bench.core import paths
from bench.core.schema import NETWORK_ONLY, SECOND_ONLY, THIRD_ONLY, Status
from bench.measured import workloads
from bench.measured.modes import MODE_NAMES, MODES, label
from bench.report import answer, between_runs, causes, costs, findings, fmt, readme, words
from bench.report.load import RunData, load


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
    from bench.report import provenance

    return {w: load(r) for w, r in provenance.current_runs(results).items()}


def _modes(runs: dict[str, RunData]) -> list[str]:
    seen = {m for r in runs.values() for m in r.modes}
    return [m for m in MODES if m in seen]


def summary_page(runs: dict[str, RunData], links: dict[str, str]) -> str:
    """results/summary.md."""
    out = [
        "# Updating a MindSpore Parameter inside `construct`: what to write in each mode",
        "",
        f"The problem (the original report): {words.ORIGINAL_REPORT}. This suite writes every "
        "way to update a Parameter in every *code shape* users write (where the write sits, "
        "how the state is read). It checks each one in every execution mode against what its "
        "code means. It times the correct ones against each other and against the same step "
        "without the write.",
        "",
        "## The answer",
        "",
        "Per kind of state, the answer is the simplest *candidate* whose whole step is "
        "*equivalent* in every workload of that kind. Equivalent: timed head to head, no other "
        "candidate is faster than it by more than the *margin*, with 95 % confidence. "
        "*Undetermined*: an interval straddles the margin; more rounds would tell. What it adds "
        "is its step minus its *no-update twin*'s (the same code without the write). Beside it "
        "stand the candidates not shown slower: the data cannot rank them apart. The tests run "
        "each snippet as printed (tests/ms/test_snippets.py). The glossary defines each word in "
        "italics.",
        "",
        *readme.answers_block(runs, readme.kind_answers(runs), results=""),
        "",
        "![the answer per mode](../plots/answer.png)",
        "",
        "## Correctness by kind, every workload",
        "",
        *_kinds(runs),
        "![correctness by API and mode](../plots/correctness.png)",
        "",
        *_findings_list(runs),
        "## What each candidate does in each workload",
        "",
        *_candidates(runs),
        *_calibration(runs),
        "## Per workload",
        "",
        *(f"- [{workloads.get(w).title}]({p})" for w, p in links.items()),
        "",
        *_provenance(runs),
    ]
    text = words.link_first("\n".join(out))
    sizes = words.size_terms(r.work for r in runs.values())
    return text + "\n## Glossary\n\n" + "\n".join(words.glossary(text, sizes)) + "\n"


def _calibration(runs) -> list[str]:
    """Per mode: how many A/A 95 % intervals contain 1 (all workloads, then each), the sizes a
    bias makes undetermined, and each workload's between-process spread (τ, Cochran's Q, p)."""
    cover, spread = [], []
    for mode in _modes(runs):
        mine = {w: r for w, r in runs.items() if mode in r.modes}
        found = {w: costs.aa_coverage(r).get(mode, (0, 0)) for w, r in mine.items()}
        inside, total = (sum(x[i] for x in found.values()) for i in (0, 1))
        share = f"{inside}/{total} ({inside / total:.0%})" if total else "no A/A cell"
        cells = []
        for w, r in runs.items():
            if w not in mine:
                cells.append("–")
                continue
            cell = f"{found[w][0]}/{found[w][1]}"
            sizes = costs.undetermined_sizes(r, mode)
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
        f"{costs.AA_TARGET:.0%}). A size whose A/A interval lies wholly outside ± the margin "
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
    """results/findings.md: its root causes (``found``: ``causes.of_runs(runs)`` already
    computed), then one entry per divergence."""
    found = causes.of_runs(runs) if found is None else found
    out = [
        "# Findings: where a mode computes something the code does not mean",
        "",
        "Each entry says:",
        "",
        "- what diverges, and where;",
        "- what the code means under eager semantics (expected), and what ran (observed);",
        "- one minimal pair: two shapes one change apart, with a script for each side;",
        "- what MindSpore's documentation says.",
        "",
        "`python <script>` prints REPRODUCED when it sees exactly what the gate saw. "
        "A script runs the checks the gate ran for its outcome: a second and a third instance "
        "under bytecode capture, and two instances as the layers of one network in every "
        "compiled mode. A crash or a hang is seen in a child process and named by its check.",
        "",
        'Under `jit(capture_mode="bytecode")` the same code can behave differently from one '
        "process to the next. The *differs between processes* entries' scripts run the cell "
        "in several fresh processes. `nox -s conformance` runs each committed script alone, "
        "once, and fails on a script that does not reproduce. Each script names the run it was "
        "written from.",
        "",
        "## Root causes",
        "",
        "The entries below, grouped by what triggers them and how they go wrong. A trigger is "
        "one construct, or the APIs the failing strategies call. Over every workload and mode, "
        "most cells (strategy × shape × mode) first; each links to its entries.",
        "",
        *causes.table(found, causes.reduced()),
        "",
    ]
    for w, run in runs.items():
        for e in findings.entries(run):
            out += _entry(run, e, repro_links.get(w, {}), w)
    text = "\n".join(out)
    return text + "\n## Glossary\n\n" + "\n".join(words.glossary(text)) + "\n"


def _entry(run: RunData, e: findings.Entry, links: dict, w: str) -> list[str]:
    ex, v = e.example, run.verdicts
    parts = []
    for m, failing in e.shapes.items():
        every = set(v[(v["mode"] == m) & v.strategy.isin(e.strategies)]["shape"])
        globs = findings.cover(set(failing), every)[:4]
        many = "s" if len(failing) > 1 else ""
        parts.append(
            f"{label(m)}: {len(failing)} shape{many} ({', '.join(f'`{g}`' for g in globs)})"
        )
    where = "; ".join(parts)
    reading = run.work.readings.get(ex.get("meaning"))
    if not e.outcome.startswith(Status.INCORRECT.value):
        expected = "the step runs (as it does eagerly)"
    else:
        expected = (
            f"the output computed with {reading}, and every write" if reading else ("every write")
        )
    lines = [
        f'<a id="{e.slug}"></a>',
        "",
        f"## {w}: {e.title}",
        "",
        f"- **MindSpore {e.mindspore}**, workload `{w}`, "
        + ("an eager mode: " if e.eager else "")
        + where,
        f"- **strategies**: {', '.join(f'`{s}`' for s in e.strategies)}",
        *([f"- **when**: {when(e)}"] if e.calls and e.calls != "at every call" else []),
        f"- **expected** (the code's meaning): {expected}",
        *observed(ex),
    ]
    if e.pair:
        s, mode, good, bad = e.pair
        a, b = links.get((s, good, mode)), links.get((s, bad, mode))
        cmd = f": `python results/{w}/{a}` / `python results/{w}/{b}`" if a and b else ""
        lines.append(
            f"- **minimal pair** ({label(mode)}, `{s}`): `{good}` works, `{bad}` does not{cmd}"
        )
        if e.pair_breaks:
            lines.append(
                f"- **graph breaks** (bytecode capture): {e.pair_breaks[0]} in the "
                f"working shape, {e.pair_breaks[1]} in the failing one"
            )
    else:
        link = links.get((ex.get("strategy"), ex.get("shape"), ex.get("mode")))
        if link:
            lines.append(f"- **reproduce**: `python results/{w}/{link}`")
    said = e.documented_by_mode
    if len(said) == 1:
        lines += [f"- **documented**: {next(iter(said.values()))}", ""]
    else:
        lines += ["- **documented**:", *(f"  - {m}: {text}" for m, text in said.items()), ""]
    return lines


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


def when(e: findings.Entry) -> str:
    """At which calls, or in which instance of the class, an entry's cells go wrong."""
    where = {
        SECOND_ONLY: "a second instance built after it in the same process",
        THIRD_ONLY: "the second works too; a third built after them in the same process",
        NETWORK_ONLY: "two of its instances as the layers of one network (its construct "
        "compiled as a whole)",
    }.get(e.calls)
    if where:
        return f"the first instance of the class works; {where} shows the {e.kind or 'failure'}"
    later = "are right" if e.calls.endswith("only") else "too"
    return f"{e.kind} {e.calls} of each instance (the other calls {later})"


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

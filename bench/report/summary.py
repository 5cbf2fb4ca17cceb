"""A workload's summary.md: the answer first, then correctness by kind, then the details (pure
functions: RunData -> Markdown)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from bench.core.schema import KINDS, Status
from bench.measured.apis import PLATFORM
from bench.measured.modes import MODES, label
from bench.report import answer, costs, findings, fmt, phrases, shapes_page, words
from bench.report.load import RunData


def provenance_line(run: RunData) -> str:
    env, m = run.environment, run.manifest
    load = run.load
    quiet = (
        f"the rest of the machine used {load['max']:.2f} CPU at most while timing"
        if load
        else "no timing"
    )
    if load and load["max"] > 0.1:
        quiet = f"**measured while the rest of the machine used up to {load['max']:.2f} CPU**"
    return (
        f"Run `{m.run_id}` ({m.status}, {run.tier} tier) · MindSpore {env.get('mindspore', '?')} "
        f"on {env.get('cpu', '?')} ({env.get('cpu_count', '?')} CPUs) · {str(m.started)[:10]} · "
        f"`{m.command}` · {quiet} · [provenance](#provenance)"
    )


def correct_everywhere(run: RunData, strategy: str, mode: str) -> str:
    v = run.verdicts
    rows = v[
        (v.strategy == strategy) & (v["mode"] == mode) & (v.status != Status.INEXPRESSIBLE.value)
    ]
    works = int((rows.status == Status.WORKS.value).sum())
    if works == len(rows):
        return f"yes, in all {len(rows)} shapes" if len(rows) > 1 else "yes, in its one shape"
    bad = rows[rows.status != Status.WORKS.value]
    kinds = Counter(shapes_page.phrase(r) for r in bad.itertuples())
    what = ", ".join(f"{k} in {n}" for k, n in kinds.most_common())
    return f"in {works} of {len(rows)} shapes ({what}; none in {run.work.scope_text})"


def answer_table(run: RunData) -> list[str]:
    rows = []
    for mode in run.modes:
        c = answer.workload_choice(run, mode)
        if c.strategy is None:
            rows.append([label(mode), f"*{c.why}*", "–", "–", "–"])
            continue
        facts = run.manifest.strategies.get(c.strategy, {})
        shape = next(
            (
                x["shape"]
                for x in run.selection
                if x["mode"] == mode and x["strategy"] == c.strategy
            ),
            "",
        )
        code = phrases.code_for(run, c.strategy, shape).replace("\n", "; ")  # one table cell
        what = f"`{code}`" + ("" if c.decided else f" — *{c.why}*")
        if facts.get("doc_note"):
            what += f" ({facts['doc_note']})"
        cost = phrases.cost_phrase(run, mode, c.strategy)
        p = f"; P(fastest) {c.p_fastest:.2f}" if c.p_fastest == c.p_fastest else ""
        others = answer.alternatives(c)
        rows.append(
            [label(mode), what, cost + p, correct_everywhere(run, c.strategy, mode), others]
        )
    head = [
        "mode",
        "write this",
        "what it adds (vs the same step without the write)",
        "correct in every shape?",
        "alternatives (equivalent; undetermined)",
    ]
    return fmt.table(head, rows)


def by_kind(run: RunData) -> list[str]:
    v = run.verdicts
    v = v[
        (v.strategy != "control")
        & ~v.status.isin([Status.INEXPRESSIBLE.value, Status.BROKEN.value])
    ]
    cols = [Status.WORKS.label, *(str(k) for k in KINDS), Status.RAISES.label, "crashes", "hangs"]
    rows = []
    for mode in run.modes:
        mine = v[v["mode"] == mode]
        counts = Counter(
            r.kind if r.status == Status.INCORRECT.value else r.label for r in mine.itertuples()
        )
        rows.append(
            [
                label(mode) + (" (eager)" if MODES[mode].eager else ""),
                *(str(counts.get(c, 0)) for c in cols),
                str(len(mine)),
            ]
        )
    head = ["mode", *cols, "cells"]
    return fmt.table(head, rows)


def _intent(run: RunData) -> list[str]:
    v = run.verdicts
    mine = v[(v.strategy != "control") & ~v.intended & (v.status != Status.INEXPRESSIBLE.value)]
    if mine.empty:
        return []
    shapes = sorted(set(mine["shape"]))
    return [
        f"**Code that means something other than the cell's intent.** In {len(shapes)} shapes "
        f"(e.g. `{min(shapes, key=len)}`) the read taken before the write is the Parameter "
        "itself or a view an in-place write updates, so the code means the *new* value; each "
        "is judged against that meaning. A read that keeps the old value is a copy "
        "(`lim = self.limit.copy()`, the `copy` shapes).",
        "",
    ]


def _errors(run: RunData) -> list[str]:
    v = run.verdicts
    rows = v[v.status == Status.RAISES.value]
    out = []
    for outcome, g in rows.groupby("outcome"):
        where = sorted({f"`{r.strategy}` {label(r.mode)}" for r in g.itertuples()})
        out += [
            f"- **{outcome.split(': ', 1)[-1]}** ({len(g)} shapes: {', '.join(where)}):",
            "",
            "  ```",
            f"  {g.iloc[0].detail}",
            "  ```",
            "",
        ]
    return out or ["No strategy raised an error.", ""]


def _provenance(run: RunData) -> list[str]:
    env, m = run.environment, run.manifest
    p = run.plan.get("precision", {})
    facts = [
        ["run", f"`{m.run_id}` ({m.status}), started {m.started}, finished {m.finished or '–'}"],
        ["wall time per phase", ", ".join(f"{k} {v:.0f} s" for k, v in m.phases.items()) or "–"],
        ["command", f"`{m.command}`"],
        [
            "tier",
            f"{p.get('tier')}: {p.get('processes')} processes × {p.get('rounds')} rounds "
            f"per cell, then up to {p.get('stages')} stages for open decisions",
        ],
        ["machine", f"{env.get('cpu')}, {env.get('cpu_count')} CPUs, {env.get('platform')}"],
        [
            "machine load while timing",
            f"median {run.load.get('median', 0):.2f}, max "
            f"{run.load.get('max', 0):.2f} CPUs of others"
            if run.load
            else "–",
        ],
        [
            "versions",
            f"Python {env.get('python')}, MindSpore {env.get('mindspore')}, NumPy "
            f"{env.get('numpy')}, pytest-benchmark {env.get('pytest_benchmark')}",
        ],
        ["suite commit", m.suite_commit or "–"],
        ["margin", run.margin.describe()],
    ]
    return [
        *fmt.table(["", ""], facts),
        "Step times are throughput: a block of k steps synchronized once at its end. Each "
        "round times a block of the strategy and one of its twin in ABBA order, both after "
        "the same untimed state copy; a cell's value is the weighted mean of its processes' "
        "median per-round log-ratio, with a random-effects 95 % interval whose between-"
        "process variance is pooled over the mode's cells.",
        "",
    ]


def render(run: RunData, title: str, plots: list[str], links: dict, pages: dict) -> str:
    out = [
        f"# {title}",
        "",
        provenance_line(run),
        "",
        " · ".join(f"[{t}]({p})" for t, p in pages.items()),
        "",
    ]
    out += ["## The answer", "", *answer_table(run)]
    out += [
        f"*Write this*: among the *candidates* (correct APIs documented for the {PLATFORM}), the "
        "simplest whose added time is equivalent to the fastest candidate's "
        f"(within {run.margin.describe()}, 95 % confidence) at every size; undetermined where "
        "the data cannot tell. *Correct*: computes "
        "what the code means, in every code shape, in every gate process and after every timed "
        "step.",
        "",
    ]
    entries = findings.entries(run)
    out += ["## Correctness by kind", "", "Strategy × shape cells per mode:", "", *by_kind(run)]
    out += _intent(run)
    if entries:
        out += [
            "What diverges (one line per finding; expected vs observed, minimal pair and "
            "repro in [the findings](../findings.md)):",
            "",
        ]
        for e in entries:
            modes = ", ".join(map(label, e.modes))
            names = ", ".join(f"`{s}`" for s in e.strategies)
            out.append(
                f"- [{e.title}](../findings.md#{e.slug}): {names} in {modes}"
                + (" (eager mode)" if e.eager else "")
            )
        out.append("")
    out += ["## Details", "", "### Support matrix", "", *shapes_page.support(run)]
    out += ["### What it costs", "", *costs.per_mode(run)]
    for head, lines in (
        ("Twins checked", costs.twins(run)),
        ("Calibration (A/A)", costs.calibration(run)),
        ("Against the memory-bandwidth floor", costs.big_state(run)),
        ("Layout", costs.layout(run)),
        ("Shape screen", costs.screen(run)),
        ("First call", costs.first_call(run)),
    ):
        if lines:
            out += [f"### {head}", "", *lines]
    out += ["### Errors", "", *_errors(run), "### Provenance", "", *_provenance(run)]
    out += ["### Plots", "", *(f"![{Path(p).stem}]({p})" for p in plots), ""]
    missing = [f"- problem: {p}" for p in run.problems] or ["- none"]
    out += ["### Missing cells and problems", "", *missing, ""]
    text = "\n".join(out)
    return text + "\n## Glossary\n\n" + "\n".join(words.glossary(text)) + "\n"

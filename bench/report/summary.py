"""A workload's summary.md: the answer first, then correctness by kind, then the details (pure
functions: RunData -> Markdown)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench.core.schema import Status
from bench.measured.modes import MODES, label
from bench.report import answer, costs, findings, fmt, phrases, shapes_page, words
from bench.report.load import RunData


def provenance_line(run: RunData) -> str:
    """Where the run comes from, one fact a line."""
    env, m = run.environment, run.manifest
    load = run.load
    quiet = (
        f"The rest of the machine used {load['max']:.2f} CPU at most while timing"
        if load
        else "No timing"
    )
    if load and load["max"] > 0.1:
        quiet = f"**Measured while the rest of the machine used up to {load['max']:.2f} CPU**"
    reused = reused_gate(run)
    return "\n".join(
        [
            f"- Run `{m.run_id}` ({m.status}, {run.tier} tier), {str(m.started)[:10]}.",
            f"- MindSpore {env.get('mindspore', '?')} on {env.get('cpu', '?')} "
            f"({env.get('cpu_count', '?')} CPUs).",
            f"- Command: `{fmt.command(m.command)}`.",
            *([f"- {reused}."] if reused else []),
            f"- {quiet}. [Provenance](#provenance).",
        ]
    )


def reused_gate(run: RunData) -> str:
    """How many verdicts the run copied from earlier runs of identical code ("" when none)."""
    if "reused" not in run.verdicts:
        return ""
    came = run.verdicts.reused.fillna("")
    if not (came != "").any():
        return ""
    origins = ", ".join(f"`{r}`" for r in sorted(set(came[came != ""])))
    return f"{int((came != '').sum())} of {len(came)} verdicts reused from {origins}"


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


@dataclass(frozen=True)
class KindAnswers:
    """The answer of a workload's kind of state (``answer.kind_answer``), per mode: what every
    page leads with; ``workloads``: the workloads it was decided over; ``code``: {mode: the link
    to the answer's tested snippet} (empty where none is published)."""

    kind: str
    workloads: tuple[str, ...]
    choices: dict
    code: dict = field(default_factory=dict)


def not_slower_here(run: RunData, mode: str, strategy: str | None) -> str:
    """The other candidates this workload does not show slower than another (not a ranking:
    which of them measured fastest changes from run to run)."""
    from bench.report.readme import NOT_SLOWER

    found = answer.outcomes(run, mode)
    names = sorted(s for s, o in found.items() if o in NOT_SLOWER and s != strategy)
    return ", ".join(f"`{s}`" for s in names) or "none"


def alone_note(run: RunData, mode: str, kind_pick: str | None, workloads) -> str:
    """Where this workload's data alone would pick another strategy than the kind's answer, say
    so: "in this workload alone, `X` is as fast" ("" where they agree)."""
    mine = answer.workload_choice(run, mode).strategy
    if mine is None or mine == kind_pick:
        return ""
    said = answer.outcomes(run, mode).get(mine, "")
    how = (
        f"is as fast ({said} here)"
        if said in (answer.FASTEST, answer.EQUIVALENT, answer.FASTER)
        else f"would be the pick ({said} here)"
    )
    return (
        f"In this workload alone, `{mine}` {how}; the answer is the kind's, which must hold in "
        f"every workload of the kind ({', '.join(workloads)})"
    )


def answer_table(run: RunData, kind: KindAnswers) -> list[str]:
    rows = []
    for mode in run.modes:
        c = kind.choices.get(mode)
        if c is None or c.strategy is None:
            why = c.why if c else "no answer for this mode"
            note = alone_note(run, mode, None, kind.workloads)
            rows.append([label(mode), f"*{why}*" + (f" — *{note}*" if note else ""), *"–" * 4])
            continue
        facts = run.manifest.strategies.get(c.strategy, {})
        link = kind.code.get(mode)
        what = f"`{c.strategy}`" + (f" ([the code, as the tests run it]({link}))" if link else "")
        if not c.decided:
            what += f" — *not decided: {c.short or c.why}*"
        if facts.get("doc_note"):
            what += f" ({facts['doc_note']})"
        note = alone_note(run, mode, c.strategy, kind.workloads)
        if note:
            what += f" — *{note}*"
        crossing = phrases.crossover_words(
            run.symbol, c.strategy, answer.crossovers(run, mode, c.strategy)
        )
        if crossing:
            what += f" — *{crossing}*"
        rows.append(
            [
                label(mode),
                what,
                phrases.cost_phrase(run, mode, c.strategy),
                not_slower_here(run, mode, c.strategy),
                correct_everywhere(run, c.strategy, mode),
                answer.alternatives(c),
            ]
        )
    head = [
        "mode",
        f"write this (the answer to {answer.KINDS[kind.kind]}, over {', '.join(kind.workloads)})",
        "what it adds here (vs the same step without the write)",
        "the other candidates not shown slower here",
        "correct in every shape here?",
        "alternatives (equivalent; undetermined)",
    ]
    return fmt.table(head, rows)


def by_kind(run: RunData) -> list[str]:
    v = run.verdicts
    v = v[
        (v.strategy != "control")
        & ~v.status.isin([Status.INEXPRESSIBLE.value, Status.BROKEN.value])
    ]
    kinds = words.kind_columns(v.kind[v.status == Status.INCORRECT.value])
    cols = [Status.WORKS.label, *kinds, Status.RAISES.label, "crashes", "hangs"]
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


def _span(values) -> str:
    lo, hi = min(values), max(values)
    return f"{lo}" if lo == hi else f"{lo}–{hi}"


def what_ran(run: RunData) -> str:
    """Per mode, the processes per timed cell and the rounds per process the timing records
    hold (what ran, not what the tier planned)."""
    parts = []
    for mode in run.modes:
        m = run.analysis.get(mode)
        cells = list(m.cells.values()) if m else []
        rounds = [len(t.step_s) for c in cells for t in c.timings]
        if not rounds:
            continue
        procs = [c.processes for c in cells]
        parts.append(
            f"{label(mode)}: {_span(procs)} processes per cell, {_span(rounds)} rounds per "
            f"process ({len(cells)} cells)"
        )
    return "; ".join(parts) or "nothing timed"


def _shards(m) -> list[list[str]]:
    """A run merged from shards (``nox -s merge``): which runs, each on which machine (its wall
    times per phase are the shards' summed)."""
    merged = (m.shard or {}).get("merged")
    if not merged:
        return []
    parts = [
        f"`{s['run']}` ({s['shard']}: {len(s.get('holds', []))} strategy × mode cells, "
        f"{s.get('environment', {}).get('cpu_count', '?')} CPUs, "
        f"{', '.join(f'{k} {v:.0f} s' for k, v in s.get('phases', {}).items())})"
        for s in merged
    ]
    return [[f"merged from {len(merged)} shards (phases summed)", "; ".join(parts)]]


def _provenance(run: RunData) -> list[str]:
    env, m = run.environment, run.manifest
    p = run.plan.get("precision", {})
    facts = [
        ["run", f"`{m.run_id}` ({m.status}), started {m.started}, finished {m.finished or '–'}"],
        ["wall time per phase", ", ".join(f"{k} {v:.0f} s" for k, v in m.phases.items()) or "–"],
        *_shards(m),
        ["command", f"`{fmt.command(m.command)}`"],
        [
            "tier (planned)",
            f"{p.get('tier')}: {p.get('processes')} processes × {p.get('rounds')} rounds "
            f"per cell, then up to {p.get('stages')} stages for open decisions",
        ],
        ["what ran (from the timing records)", what_ran(run)],
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
        "Step times are throughput: a block of k steps synchronized once at its end. A race "
        "times a block of every candidate, of each one's twin, of the base twin and of its A/A "
        "copy, in the same rounds of one process. The rounds go forward then backward "
        "(A B … B A). A process's value is the 20 % trimmed mean of its per-round log-ratios. "
        "Processes combine with the mode's between-process variance (Paule–Mandel) into a "
        "t-interval on Welch–Satterthwaite degrees of freedom (`bench/core/cellstats.py`). Runs "
        "older than the races time each strategy against its own twin only.",
        "",
    ]


def render(
    run: RunData,
    title: str,
    plots: list[str],
    links: dict,
    pages: dict,
    kind: KindAnswers | None = None,
) -> str:
    """The workload's page; ``kind``: the answer of its kind of state it leads with (default:
    decided over this run alone)."""
    if kind is None:
        kind = KindAnswers(
            answer.kind_of(run.work),
            (run.workload,),
            {
                m: answer.kind_answer({run.workload: run}, answer.kind_of(run.work), m)[0]
                for m in run.modes
            },
        )
    sym, size = words.size_term(run.work)
    out = [
        f"# {title}",
        "",
        provenance_line(run),
        "",
        " · ".join(f"[{t}]({p})" for t, p in pages.items()),
        "",
    ]
    out += [
        "## The answer",
        "",
        f"Per mode, the answer to {answer.KINDS[kind.kind]}, decided over "
        f"{', '.join(kind.workloads)}. It is the simplest *candidate* whose whole step is "
        "*equivalent* in each of them. Equivalent: timed head to head, no other candidate is "
        f"faster than it by more than the *margin* ({run.margin.describe()}), with 95 % "
        "confidence. *Undetermined*: an interval straddles the margin; more rounds would tell. "
        "What it adds is its step minus its *no-update twin*'s (the same code without the "
        f"write), at each size *{sym}* ({size}). The candidates *not shown slower* are those "
        "the data cannot rank apart from it. *Correct*: it computes what the code means in "
        "every code shape, in every gate process and after every timed step.",
        "",
        *answer_table(run, kind),
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
    text = words.link_first("\n".join(out))
    sizes = words.size_terms([run.work])
    return text + "\n## Glossary\n\n" + "\n".join(words.glossary(text, sizes)) + "\n"

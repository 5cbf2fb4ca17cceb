"""A workload's summary.md: the answer first, then correctness by kind, then the details (pure
functions: RunData -> Markdown)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from bench.causes import findings
from bench.core import fmt
from bench.core.schema import Status
from bench.decide import answer
from bench.decide.load import RunData
from bench.measured.modes import MODES, label
from bench.report import costs, shapes_page, words


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


def correct_counts(run: RunData, strategy: str, mode: str) -> tuple[int, int, tuple]:
    """(shapes it works in, shapes it can be written in, ((what goes wrong, shapes), ...) most
    common first) of ``strategy`` in ``mode`` here."""
    v = run.verdicts
    rows = v[
        (v.strategy == strategy) & (v["mode"] == mode) & (v.status != Status.INEXPRESSIBLE.value)
    ]
    works = int((rows.status == Status.WORKS.value).sum())
    bad = rows[rows.status != Status.WORKS.value]
    kinds = Counter(shapes_page.phrase(r) for r in bad.itertuples())
    return works, len(rows), tuple(kinds.most_common())


@dataclass(frozen=True)
class KindAnswers:
    """The answer of a workload's kind of state (``answer.kind_answer``), per mode: what every
    page leads with; ``workloads``: the workloads it was decided over; ``code``: {mode: the link
    to the answer's tested snippet} (empty where none is published)."""

    kind: str
    workloads: tuple[str, ...]
    choices: dict
    code: dict = field(default_factory=dict)


@dataclass(frozen=True)
class AnswerRow:
    """One mode's row of a workload page's answer table, as data (its words are
    ``templates/workload_answer.md.j2``'s): the kind's answer (``write``, None: none, and
    ``no_choice`` when the mode has no answer at all), why it is not decided, its tested code's
    ``link``, the strategy file's ``doc_note``; ``alone``: (strategy, its outcome here) where
    this workload alone would pick another; its ``crossings`` here (``answer.Crossover``), its
    ``costs`` at every size timed here (``decisions.Cost``), the other candidates ``not_slower``
    here, the shapes it ``works`` in of ``shapes`` and what goes wrong in the rest (``fails``),
    the ``equivalent`` and ``undetermined`` alternatives."""

    mode: str
    write: str | None
    reason: answer.Reason = field(default_factory=answer.Reason)
    no_choice: bool = False
    decided: bool = True
    link: str = ""
    doc_note: str = ""
    alone: tuple = ()
    crossings: tuple = ()
    costs: tuple = ()
    not_slower: tuple = ()
    works: int = 0
    shapes: int = 0
    fails: tuple = ()
    equivalent: tuple = ()
    undetermined: tuple = ()


def not_slower_here(run: RunData, mode: str, strategy: str | None) -> tuple[str, ...]:
    """The other candidates this workload does not show slower than another (not a ranking:
    which of them measured fastest changes from run to run)."""
    from bench.decide.decisions import NOT_SLOWER

    found = answer.outcomes(run, mode)
    return tuple(sorted(s for s, o in found.items() if o in NOT_SLOWER and s != strategy))


def alone_pick(run: RunData, mode: str, kind_pick: str | None) -> tuple:
    """(strategy, its outcome here) where this workload's data alone would pick another
    strategy than the kind's answer; () where they agree."""
    mine = answer.workload_choice(run, mode).strategy
    if mine is None or mine == kind_pick:
        return ()
    return (mine, answer.outcomes(run, mode).get(mine, ""))


def answer_rows(run: RunData, kind: KindAnswers) -> list[AnswerRow]:
    from bench.decide import decisions

    rows = []
    for mode in run.modes:
        c = kind.choices.get(mode)
        if c is None or c.strategy is None:
            rows.append(AnswerRow(mode, None, c.reason if c else answer.Reason(), c is None,
                                  alone=alone_pick(run, mode, None)))  # fmt: skip
            continue
        facts = run.manifest.strategies.get(c.strategy, {})
        works, shapes, fails = correct_counts(run, c.strategy, mode)
        rows.append(
            AnswerRow(
                mode,
                c.strategy,
                c.reason,
                decided=bool(c.decided),
                link=kind.code.get(mode, ""),
                doc_note=facts.get("doc_note", ""),
                alone=alone_pick(run, mode, c.strategy),
                crossings=tuple(answer.crossovers(run, mode, c.strategy)),
                costs=decisions.costs_at(run, mode, c.strategy, run.workload, "all"),
                not_slower=not_slower_here(run, mode, c.strategy),
                works=works,
                shapes=shapes,
                fails=fails,
                equivalent=tuple(c.equivalent),
                undetermined=tuple(c.undetermined),
            )
        )
    return rows


def answer_table(run: RunData, kind: KindAnswers) -> list[str]:
    """The answer table of the workload's page (``templates/workload_answer.md.j2``)."""
    from bench.report import templating

    text = templating.render(
        "workload_answer.md.j2",
        data=answer_rows(run, kind),
        kind=kind.kind,
        workloads=kind.workloads,
        symbol=run.symbol,
        scope=run.work.scope_text,
        as_fast=(answer.FASTEST, answer.EQUIVALENT, answer.FASTER),
    )
    return text.split("\n")


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
    """The workload's page (``templates/workload.md.j2``); ``kind``: the answer of its kind of
    state it leads with (default: decided over this run alone)."""
    from bench.report import templating

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
    sections = (
        ("Twins checked", costs.twins(run)),
        ("Calibration (A/A)", costs.calibration_table(run)),
        ("Against the memory-bandwidth floor", costs.big_state(run)),
        ("Layout", costs.layout(run)),
        ("Shape screen", costs.screen(run)),
        ("First call", costs.first_call(run)),
    )
    rendered = templating.render(
        "workload.md.j2",
        title=title,
        provenance_line=provenance_line(run),
        pages=pages,
        kind=kind.kind,
        workloads=kind.workloads,
        margin=run.margin.describe(),
        symbol=sym,
        size=size,
        answer_lines=answer_table(run, kind),
        by_kind=by_kind(run),
        intent=_intent(run),
        entries=findings.entries(run),
        support=shapes_page.support(run),
        per_mode=costs.per_mode(run),
        sections=sections,
        errors=_errors(run),
        provenance=_provenance(run),
        plots=plots,
        problems=run.problems,
    )
    text = words.link_first(rendered)
    sizes = words.size_terms([run.work])
    return text + "\n## Glossary\n\n" + "\n".join(words.glossary(text, sizes)) + "\n"

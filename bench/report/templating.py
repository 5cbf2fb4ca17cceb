"""Pages from data: Jinja2 templates (``bench/report/templates/``) over typed records.

A template holds a page's words; the records (``decisions.Decision``, ``answer.Reason``) hold
only codes, names and numbers. The filters turn one datum into its words: an API as a user
writes it, a mode's label, a cost with its interval. Undefined names fail (``StrictUndefined``),
so a template cannot print an empty hole where a field was renamed.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from bench.measured.apis import PLATFORM

TEMPLATES = Path(__file__).parent / "templates"


def _kind_what(kind: str) -> str:
    from bench.decide.answer import KINDS

    return KINDS[kind].split(" every step")[0]


def _mode_label(mode: str) -> str:
    from bench.measured.modes import label

    return label(mode)


def _api(failure, among=()) -> str:
    """A failure's API as a user writes it (``ops.Assign``), with the strategy's name where
    ``among`` (the avoid-list it stands in) names that API more than once."""
    from bench.decide.decisions import shared_apis

    name = f"`{(failure.api or failure.strategy).removeprefix('mindspore.')}`"
    if failure.api and failure.api in shared_apis(among):
        return f"{name} as `{failure.strategy}`"
    return name


def _written(decision) -> str:
    return f"`{(decision.api or decision.write).removeprefix('mindspore.')}`"


def _cost_text(cost, mode: str) -> str:
    """A decision's ``Cost`` at its size, with the size's name and workload."""
    from bench.report import phrases

    if not cost.timed:
        return phrases.NOT_TIMED
    return f"{phrases.cost_words(cost, mode)} at {cost.size:,} ({cost.size_term}; {cost.workload})"


def _costs_text(costs, mode: str, symbol: str) -> str:
    """Costs at several sizes, each at ``symbol``=size; an invalid twin at every size said once;
    why a step can be faster than without its write said after the first size where it is."""
    from bench.report import phrases

    if not costs or not costs[0].timed:
        return phrases.NOT_TIMED
    if len(costs) > 1 and all(c.twin_invalid for c in costs):
        return f"{phrases.TWIN_INVALID} at any size"
    out = [f"{phrases.cost_words(c, mode)} at {symbol}={c.size}" for c in costs]
    for i, text in enumerate(out):
        if phrases.FASTER_THAN_WITHOUT in text:
            out[i] = f"{text} ({phrases.WHY_FASTER})"
            break
    return "; ".join(out)


def _bound_text(bound) -> str:
    from bench.report.readme import bound_words

    return bound_words(bound)


def _crossing_text(decision) -> str:
    """Where another candidate's step is shorter than the written API's at some sizes, in each
    workload of the kind (``phrases.crossover_words``), capitalised."""
    from bench.measured import workloads
    from bench.report import phrases

    parts = []
    for w in decision.workloads:
        mine = [c for c in decision.crossings if c.workload == w]
        said = phrases.crossover_words(workloads.get(w).size_symbol, decision.write, mine)
        if said:
            parts.append(said if len(decision.workloads) == 1 else f"in {w}, {said}")
    text = "; ".join(parts)
    return text[:1].upper() + text[1:]


def _crossover_text(crossings, symbol: str, strategy: str) -> str:
    """One workload's crossings (``answer.Crossover``) in words (``phrases.crossover_words``)."""
    from bench.report import phrases

    return phrases.crossover_words(symbol, strategy, crossings)


def _md_table(head, rows) -> str:
    """A GFM table (``fmt.table``: every cell escaped), ending with a blank line."""
    from bench.core import fmt

    return "\n".join(fmt.table(list(head), [list(r) for r in rows]))


def _kind_full(kind: str) -> str:
    from bench.decide.answer import KINDS

    return KINDS[kind]


def _workload_short(name: str) -> str:
    """A workload's title up to its colon or parenthesis ("Batch Renormalization")."""
    from bench.measured import workloads

    return workloads.get(name).title.split(":")[0].split(" (")[0]


def reason_words(reason) -> str:
    """Why an answer is not decided (``answer.Reason``), in words: ``templates/reason.md.j2``."""
    return render("reason.md.j2", r=reason, platform=PLATFORM)


def _size_term(name: str) -> tuple[str, str]:
    from bench.measured import workloads
    from bench.report import words

    return words.size_term(workloads.get(name))


def _is_distribution(mode: str) -> bool:
    from bench.report import phrases

    return phrases.distribution(mode)


@cache
def env() -> Environment:
    e = Environment(
        loader=FileSystemLoader(TEMPLATES),
        undefined=StrictUndefined,
        autoescape=False,  # Markdown, not HTML
        keep_trailing_newline=False,
        extensions=["jinja2.ext.do"],
    )
    e.filters.update(
        kind_what=_kind_what,
        mode_label=_mode_label,
        api=_api,
        written=_written,
        cost_text=_cost_text,
        costs_text=_costs_text,
        bound_text=_bound_text,
        crossing_text=_crossing_text,
        kind_full=_kind_full,
        workload_short=_workload_short,
        size_term=_size_term,
        is_distribution=_is_distribution,
        reason_words=reason_words,
        crossover_text=_crossover_text,
        md_table=_md_table,
        code=lambda name: f"`{name}`",
        sized=lambda sizes, symbol: ", ".join(f"{symbol}={n}" for n in sizes),
        stem=lambda path: Path(path).stem,
    )
    from bench.decide.calibration import AA_TARGET
    from bench.report import phrases
    from bench.run.select import ALPHA, TIE

    e.globals.update(
        queue_drain=phrases.QUEUE_DRAIN[0].upper() + phrases.QUEUE_DRAIN[1:],
        rounds_quartiles=phrases.ROUNDS_QUARTILES,
        quartile_rounds=phrases.QUARTILE_ROUNDS,
        faster_than_without=phrases.FASTER_THAN_WITHOUT,
        why_faster=phrases.WHY_FASTER,
        aa_target=AA_TARGET,
        tie=TIE,
        alpha=ALPHA,
    )
    return e


def render(name: str, **data) -> str:
    """The template ``name`` rendered with ``data``."""
    return env().get_template(name).render(**data)

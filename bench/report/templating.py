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

TEMPLATES = Path(__file__).parent / "templates"


def _kind_what(kind: str) -> str:
    from bench.report.answer import KINDS

    return KINDS[kind].split(" every step")[0]


def _mode_label(mode: str) -> str:
    from bench.measured.modes import label

    return label(mode)


def _api(failure, among=()) -> str:
    """A failure's API as a user writes it (``ops.Assign``), with the strategy's name where
    ``among`` (the avoid-list it stands in) names that API more than once."""
    from bench.report.decisions import shared_apis

    name = f"`{(failure.api or failure.strategy).removeprefix('mindspore.')}`"
    if failure.api and failure.api in shared_apis(among):
        return f"{name} as `{failure.strategy}`"
    return name


def _written(decision) -> str:
    return f"`{(decision.api or decision.write).removeprefix('mindspore.')}`"


def _cost_text(cost, mode: str) -> str:
    """A decision's ``Cost`` in the pages' words (``phrases.cost``): the added time with its
    interval at the size, or why there is none."""
    from bench.report import phrases

    if not cost.timed:
        return phrases.NOT_TIMED
    if cost.twin_invalid:
        text = phrases.TWIN_INVALID
    else:
        text = phrases.cost(
            cost.added_s, cost.low_s, cost.high_s, ratio=cost.ratio, why=False, step_s=cost.step_s
        )
        if phrases.distribution(mode) and cost.quartiles:
            spread = phrases.quartiles(*cost.quartiles, cost.rounds)
            text += f"; {spread}" if spread else ""
    return f"{text} at {cost.size:,} ({cost.size_term}; {cost.workload})"


@cache
def env() -> Environment:
    e = Environment(
        loader=FileSystemLoader(TEMPLATES),
        undefined=StrictUndefined,
        autoescape=False,  # Markdown, not HTML
        keep_trailing_newline=False,
    )
    e.filters.update(
        kind_what=_kind_what,
        mode_label=_mode_label,
        api=_api,
        written=_written,
        cost_text=_cost_text,
    )
    from bench.report import phrases

    e.globals["queue_drain"] = phrases.QUEUE_DRAIN[0].upper() + phrases.QUEUE_DRAIN[1:]
    return e


def render(name: str, **data) -> str:
    """The template ``name`` rendered with ``data``."""
    return env().get_template(name).render(**data)

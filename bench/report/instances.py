"""Where users live: a later instance of a class, a network of its layers, the first call.

One table per workload from its reference run (``bench.decide.instances.counts``), written into
``results/instances.md`` by ``bench.report.main`` through ``templates/instances.md.j2``.
"""

from __future__ import annotations

from bench.decide.instances import CHECKS, counts
from bench.decide.load import RunData
from bench.measured.modes import label
from bench.report import templating


def _cell(ran: int, only: int) -> str:
    return "not run" if not ran else f"{only} of {ran}"


def table(run: RunData) -> tuple[list[str], list[list[str]]]:
    """(the head, a row per mode: each check's "failing there only of ran", first calls)."""
    rows = []
    for mode in run.modes:
        c = counts(run, mode)
        rows.append(
            [label(mode), *(_cell(*c[key]) for key, _, _ in CHECKS),
             f"{c['first_calls'][1]} of {c['first_calls'][0]}"]
        )  # fmt: skip
    head = ["mode", *(f"fails in {what} only" for _, _, what in CHECKS)]
    return [*head, "silent failures at the first call(s) only"], rows


def render(runs: dict[str, RunData]) -> str:
    tables = [(w, run.manifest.run_id, *table(run)) for w, run in runs.items()]
    return templating.render("instances.md.j2", tables=tables)

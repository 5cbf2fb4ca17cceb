"""Where users live: a later instance of a class, a network of its layers, the first call.

One table per workload from its reference run: per mode, how many working cells the gate ran
again as a second and a third instance of the same class in the same process (under bytecode
capture, where later instances were seen to stop writing) and as two layers of one network
(every compiled mode), how many of them fail there only, and how many silent failures show at
the first call(s) only. Written into ``results/instances.md`` by ``bench.report.main``; every
number is a count of the run's final verdicts.
"""

from __future__ import annotations

import re

from bench.core import fmt
from bench.core.schema import NETWORK_ONLY, SECOND_ONLY, THIRD_ONLY, Status
from bench.decide.load import RunData
from bench.measured.modes import label

CHECKS = (
    ("second_instance", SECOND_ONLY, "a second instance"),
    ("third_instance", THIRD_ONLY, "a third instance"),
    ("network", NETWORK_ONLY, "two layers of one network"),
)
FIRST_CALLS = re.compile(r"^at the first (call|\d+ calls) only$")


def _ran(record: str) -> bool:
    return bool(record) and not record.startswith("not checked")


def counts(run: RunData, mode: str) -> dict:
    """{check: (cells it ran on, cells failing there only)} and first-call-only failures."""
    v = run.verdicts[(run.verdicts["mode"] == mode) & (run.verdicts.strategy != "control")]
    out = {}
    for key, qualifier, _ in CHECKS:
        ran = v[key].fillna("").map(_ran) if key in v else v.strategy.map(lambda _: False)
        only = v.detail.fillna("").str.startswith(qualifier)
        out[key] = (int((ran | only).sum()), int(only.sum()))  # a crash there records nothing
    silent = v[v.status == Status.INCORRECT.value]
    out["first_calls"] = (
        len(silent),
        int(silent.calls.fillna("").map(FIRST_CALLS.match).map(bool).sum()),
    )
    return out


def _cell(ran: int, only: int) -> str:
    return "not run" if not ran else f"{only} of {ran}"


def table(run: RunData) -> list[str]:
    rows = []
    for mode in run.modes:
        c = counts(run, mode)
        rows.append(
            [label(mode), *(_cell(*c[key]) for key, _, _ in CHECKS),
             f"{c['first_calls'][1]} of {c['first_calls'][0]}"]
        )  # fmt: skip
    head = [
        "mode",
        *(f"fails in {what} only" for _, _, what in CHECKS),
        "silent failures at the first call(s) only",
    ]
    return fmt.table(head, rows)


def render(runs: dict[str, RunData]) -> str:
    out = [
        "# A later instance, a network of layers, the first call",
        "",
        "A network has many layers of one class, and a layer runs many times: that the first "
        "instance is right at every call proves little. After a cell works, the gate runs it "
        "again as a second and then a third instance of the same class in the same process. It "
        "does so under bytecode capture, where later instances were seen to stop writing "
        "(`findings/bytecode_parameter_tuple.py` shows one reason: a later instance can run the "
        "first one's graph). In every compiled mode it also runs the cell as two layers of one "
        "network whose `construct` is compiled or captured as a whole. Each cell below: the "
        "cells failing there only, of the working cells the check ran on. The last column: of "
        "the silent failures, those at the first call(s) only (a later call is right: another "
        "bug than a failure at every call). Each is an entry of [the findings](findings.md).",
        "",
    ]
    for w, run in runs.items():
        out += [f"## {w}", "", f"Run `{run.manifest.run_id}`.", "", *table(run)]
    return "\n".join(out) + "\n"

"""Where users live, as counts: per mode, how many working cells the gate ran again as a second
and a third instance of the same class in the same process and as two layers of one network,
how many of them fail there only, and how many silent failures show at the first call(s) only.
Every number is a count of the run's final verdicts; ``bench.report.instances`` writes them."""

from __future__ import annotations

import re

from bench.core.schema import NETWORK_ONLY, SECOND_ONLY, THIRD_ONLY, Status
from bench.decide.load import RunData

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

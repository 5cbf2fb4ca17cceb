"""The workloads: what the measured cell computes. One package each, registered here."""

from __future__ import annotations

from bench.measured.workloads.brn import WORKLOAD as BRN
from bench.measured.workloads.clip import WORKLOAD as CLIP
from bench.measured.workloads.ema import WORKLOAD as EMA
from bench.measured.workloads.kvcache import WORKLOAD as KVCACHE
from bench.measured.workloads.template import Workload

WORKLOADS: dict[str, Workload] = {w.name: w for w in (CLIP, BRN, KVCACHE, EMA)}


class BlindWorkload(ValueError):
    """A workload whose checked steps could not show a bug (``Runtime.observability``)."""


_KEPT: set[str] = set()


def get(name: str) -> Workload:
    """The workload ``name``, refused (``BlindWorkload``) when it breaks the observability
    contract: a verdict is only as good as the steps that could have shown the bug."""
    try:
        work = WORKLOADS[name]
    except KeyError:
        raise ValueError(f"unknown workload {name!r} (valid: {', '.join(WORKLOADS)})") from None
    if name not in _KEPT:
        problems = work.observability()
        if problems:
            raise BlindWorkload(
                f"workload {name!r} breaks the observability contract: " + "; ".join(problems)
            )
        _KEPT.add(name)
    return work


__all__ = ["WORKLOADS", "BlindWorkload", "Workload", "get"]

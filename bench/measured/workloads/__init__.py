"""The workloads: what the measured cell computes. One package each, registered here."""

from __future__ import annotations

from bench.measured.workloads.brn import WORKLOAD as BRN
from bench.measured.workloads.clip import WORKLOAD as CLIP
from bench.measured.workloads.ema import WORKLOAD as EMA
from bench.measured.workloads.kvcache import WORKLOAD as KVCACHE
from bench.measured.workloads.template import Workload

WORKLOADS: dict[str, Workload] = {w.name: w for w in (CLIP, BRN, KVCACHE, EMA)}


def get(name: str) -> Workload:
    try:
        return WORKLOADS[name]
    except KeyError:
        raise ValueError(f"unknown workload {name!r} (valid: {', '.join(WORKLOADS)})") from None


__all__ = ["WORKLOADS", "Workload", "get"]

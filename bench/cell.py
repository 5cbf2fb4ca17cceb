"""Imports kept for strategy files written before ``bench.strategy``: ``ClipCell`` is the neutral
:class:`bench.strategy.Strategy` (the clip's state comes from the workload), and the clip's
host-side helpers for strategies that write ``self.limit`` from the host."""

from bench.measured.workloads.clip.cell import LAYOUTS, read_limit, write_limit
from bench.strategy import Strategy as ClipCell

__all__ = ["LAYOUTS", "ClipCell", "read_limit", "write_limit"]

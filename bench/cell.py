"""What a strategy file imports: the clip cell's base class and its host-side helpers."""

from bench.measured.workloads.clip.cell import LAYOUTS, ClipCell, read_limit, write_limit

__all__ = ["LAYOUTS", "ClipCell", "read_limit", "write_limit"]

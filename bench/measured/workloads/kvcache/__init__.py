"""The KV cache: one row written per step into a (B, H, T, D) cache, for T from 128 to 8192.

Code shapes (dimensions, simplest value first):

- ``rows``: the write of one ``row`` with the strategy's ``write_row(param, index, row)`` (index
  ops, slice writes: only strategies that define it), or a ``full`` rewrite of the cache through
  its ``write(param, value)`` (the new cache computed with ``ops.where``);
- ``write``: pasted ``inline``, through the strategy's ``helper`` method, or inside ``depend``
  (``t = ops.depend(t, <write>)``, so the read waits for the write).

The no-update twin computes the same new value (for a full rewrite, the whole new cache) and skips
only the write; what a strategy adds per step is the cost of its write, compared with the bytes a
write must move (``bytes_moved``) at the memory bandwidth this run measured. The read comes after
the write in every shape, so the code means (and the cell intends) a read that sees the new row.
"""

from __future__ import annotations

from bench.measured.oracle import AFTER
from bench.measured.shapes import Dimension, Shape
from bench.measured.shapes.codegen import Emit
from bench.measured.workloads.kvcache import spec
from bench.measured.workloads.kvcache.runtime import KVCacheRuntime
from bench.measured.workloads.template import Workload

ROWS = Dimension(
    "rows",
    (
        ("row", "the strategy's write_row(param, index, row) writes the one row"),
        ("full", "a full rewrite: write(param, ops.where(at t, row, cache))"),
    ),
)
WRITE = Dimension(
    "write",
    (
        ("inline", "the write's own code pasted into construct"),
        ("helper", "construct calls the strategy's method (write_row or write)"),
        ("depend", "t = ops.depend(t, <write>): the read waits for the write"),
    ),
)


class KVCacheWorkload(KVCacheRuntime, Workload):
    state_kind = "rows"  # the kind of state its answer is for (bench.report.answer.KINDS)
    title = "a KV cache: one row of a (1, 4, T, 64) float32 cache written per step, T = 128…8192"
    floor_kernel = "copy"
    batch_sizes = (128, 512, 2048, 8192)
    reserved = frozenset({"row", "t", "out", "new"})
    template_imports = (
        "from mindspore import ops",
        "from bench.measured.workloads.kvcache.cell import KVCache, full_row_mask",
    )
    cost_dims = ("rows",)
    base_control = "cache-row"
    code_names = {"write_row": ("self.cache", "t", "row"), "write": ("self.cache", "new")}
    intent = AFTER  # the read after the write sees this step's row

    def dimensions(self, layout: str):
        return (ROWS, WRITE)

    def twin(self, shape: Shape, layout: str) -> Shape:
        return Shape((("layout", "cache"), ("rows", shape.values.get("rows", "row"))))

    def layout_twins(self) -> list[Shape]:
        return [Shape((("layout", "cache"), ("rows", "full")))]

    def construct_source(self, shape: Shape, emit: Emit) -> str:
        v = shape.values
        lines = []
        if v["rows"] == "row":
            lines += emit.write(
                v["write"], "self.cache", ("t", "row"), anchor="t", method="write_row"
            )
        else:
            lines.append("new = ops.where(full_row_mask(self.positions, t), row, self.cache)")
            lines += emit.write(v["write"], "self.cache", "new", anchor="t")
        lines += ["out = self.read(t)", "return out"]
        return "    def construct(self, row, t):\n" + "".join(f"        {ln}\n" for ln in lines)

    def forward_source(self) -> str:
        return "    def construct(self, row, t):\n        out = self.read(t)\n        return out\n"

    def base_classes(self, strategy_class: str) -> str:
        return f"KVCache, {strategy_class}"

    def control_base(self) -> str:
        return "KVCache"

    def bytes_moved(self, shape_values: dict, size: int) -> int | None:
        """What a step's write must move: a row (written), or the whole cache (read + written)."""
        if shape_values.get("rows") == "row":
            return spec.row_bytes()
        if shape_values.get("rows") == "full":
            return 2 * spec.cache_bytes(size)
        return None


WORKLOAD = KVCacheWorkload()

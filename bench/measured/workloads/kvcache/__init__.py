"""The KV cache: one row written per step into a (B, H, T, D) cache, for T from 128 to 8192.

Code shapes (dimensions, simplest value first):

- ``rows``: the write of one ``row`` with the strategy's ``write_row(param, index, row)`` (index
  ops, slice writes: only strategies that define it), or a ``full`` rewrite of the cache through
  its ``write(param, value)`` (the new cache computed with ``ops.where``);
- ``write``: pasted ``inline``, through the strategy's ``helper`` method, or inside ``depend``
  (``t = ops.depend(t, <write>)``, so the read waits for the write).

The no-update twin only reads; what a strategy adds per step is the cost of its write, compared
with the bytes a write must move (``bytes_moved``) at the memory bandwidth this run measured.
"""

from __future__ import annotations

import numpy as np

from bench.measured.shapes import Dimension, Emit, Shape
from bench.measured.workloads.base import Expected, Workload
from bench.measured.workloads.kvcache import spec

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


class KVCacheWorkload(Workload):
    name = "kvcache"
    title = "a KV cache: one row of a (1, 4, T, 64) float32 cache written per step, T = 128…8192"
    size_label = "cache length T"
    size_symbol = "T"
    floor_kernel = "copy"
    batch_sizes = (128, 512, 2048, 8192)
    gate_schedule = ((8, 11),)  # T = 8: t advances, wraps around, overwrites
    rtol, atol = 1e-6, 1e-6
    state_names = spec.KV_STATE
    reserved = frozenset({"row", "t", "out", "new"})
    template_imports = (
        "from mindspore import ops",
        "from bench.measured.workloads.kvcache.cell import KVCache, full_row_mask",
    )
    control_imports = ()
    cost_dims = ("rows",)
    base_control = "cache-rows"

    def dimensions(self, layout: str):
        return (ROWS, WRITE)

    def control_shape(self, shape: Shape, layout: str) -> Shape:
        return Shape((("layout", "cache"), ("read", "rows")))

    def construct_source(self, shape: Shape, emit: Emit) -> str:
        v = shape.values
        lines = []
        if not emit.control:
            if v["rows"] == "row":
                lines += emit.write(
                    v["write"], "self.cache", ("t", "row"), anchor="t", method="write_row"
                )
            else:
                lines.append("new = ops.where(full_row_mask(self.positions, t), row, self.cache)")
                lines += emit.write(v["write"], "self.cache", "new", anchor="t")
        lines += ["out = self.read(t)", "return out"]
        return "    def construct(self, row, t):\n" + "".join(f"        {ln}\n" for ln in lines)

    def base_classes(self, strategy_class: str) -> str:
        return f"KVCache, {strategy_class}"

    def control_base(self) -> str:
        return "KVCache"

    # -- running ------------------------------------------------------------------------------
    def build(self, variant_class, size=None):
        cell = variant_class(size or self.gate_schedule[0][0])
        return cell, dict(cell.parameters_and_names())

    def make_inputs(self, size: int, seed: int, small: bool = False) -> tuple:
        return spec.make_row(0), spec.position(size, size // 2)  # one row, at T // 2

    def reference(self, size, steps, seed, update=True, small=False):
        cache = np.zeros((spec.B, spec.H, size, spec.D), np.float32)
        for i in range(steps):
            row, t = spec.make_row(seed + i), spec.position(size, i)
            before = cache.copy()
            if update:
                out = spec.write_and_read(cache, row, int(t[0]))
            else:
                out = (
                    cache[:, :, t[0] : t[0] + 1]
                    + cache[:, :, (t[0] - 1) % size : (t[0] - 1) % size + 1]
                )
            yield Expected((row, t), out.copy(), {"cache": before}, {"cache": cache.copy()})

    def probe(self, params: dict):
        return params["cache"]

    def final_state(self, params: dict, size: int) -> dict:
        cache = params["cache"].asnumpy()
        t = size // 2
        return {"row_at_t": [float(cache[:, :, t].sum())], "everything": [float(cache.sum())]}

    def after_steps(self, steps: int, size: int, update: bool = True) -> dict:
        row = float(spec.make_row(0).sum()) if update and steps else 0.0
        return {"row_at_t": [row], "everything": [row]}

    def bytes_moved(self, shape_values: dict, size: int) -> int | None:
        """What a step's write must move: a row (written), or the whole cache (read + written)."""
        if shape_values.get("rows") == "row":
            return spec.row_bytes()
        if shape_values.get("rows") == "full":
            return 2 * spec.cache_bytes(size)
        return None

    def driver(self) -> str:
        return (
            "from bench.measured.workloads.kvcache.repro import reproduce\n\n"
            "if __name__ == '__main__':\n"
            "    reproduce(Variant, sys.argv[1] if len(sys.argv) > 1 else MODE)\n"
        )


WORKLOAD = KVCacheWorkload()

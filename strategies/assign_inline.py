"""`ops.assign` with the whole step written inline in `construct`, as in the original report.

Same update as `assign.py`; only the code's shape differs. Under `jit(capture_mode="bytecode")`
that shape matters: the inline assign is dropped and the Parameter silently stays at 1.0.
"""

from mindspore import ops

from bench.cell import ClipCell

WORKLOADS = ("clip",)
DESCRIPTION = "ops.assign(self.limit, ops.minimum(...)) written inline in construct"
EXPECTED_FAILURES = {"jit_bytecode": "Parameter unchanged"}


class Cell(ClipCell):
    layout = "scalar"

    def construct(self, x):
        out = ops.clip_by_value(x, -self.limit, self.limit)
        ops.assign(self.limit, ops.minimum(self.limit + self.inc_step * x.shape[0], self.max_limit))
        return out

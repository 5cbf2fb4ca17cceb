"""The adaptive-clip cell's state in MindSpore: the limit and the update rule.

A variant is ``class Variant(ClipState, Cell)``: the strategy's ``Cell`` says how a value is
written, this class holds the state, and the generated ``construct`` (one per code shape) clips
and writes. ``ClipState.construct`` is the shape ``helper-param-after-arg``; the shape
``helper-param-after-arg-base`` inherits it from here, another module (which matters under
bytecode capture).
"""

from __future__ import annotations

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops

from bench.measured.workloads.clip.spec import INC_STEP, INITIAL_LIMIT, MAX_LIMIT
from bench.strategy import LAYOUTS


class ClipState(nn.Cell):
    """Clip the input to ``[-limit, limit]``; ``layout`` comes from the strategy's cell (or the
    generated twin's class): this class must not set it, it comes first in a variant's bases."""

    def __init__(self):
        super().__init__()  # the strategy's __init__ too (e.g. an ops.Assign() it keeps)
        initial = np.full(LAYOUTS[self.layout], INITIAL_LIMIT, dtype=np.float32)
        self.limit = Parameter(Tensor(initial), name="limit", requires_grad=False)
        self.inc_step = Tensor(INC_STEP, ms.float32)
        self.max_limit = Tensor(MAX_LIMIT, ms.float32)

    def construct(self, x):
        out = ops.clip_by_value(x, -self.limit, self.limit)
        self.write(self.limit, self.next_limit(x))
        return out

    def next_limit(self, x):
        """The new limit, ``min(limit + inc_step * N, max_limit)``, as a tensor of the layout."""
        return ops.minimum(self.limit + self.inc_step * x.shape[0], self.max_limit)

    def after_step(self, out, x):
        return out


def read_limit(cell) -> np.float32:
    """The Parameter's current value as a float32 scalar (waits for pending work)."""
    return np.float32(cell.limit.asnumpy().reshape(-1)[0])


def write_limit(cell, value) -> None:
    """Set the Parameter from the host, keeping its layout."""
    cell.limit.set_data(Tensor(np.full(LAYOUTS[cell.layout], value, dtype=np.float32)))

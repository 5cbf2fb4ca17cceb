"""The adaptive-clip cell in MindSpore: the base class every strategy file subclasses.

A strategy overrides :meth:`ClipCell.write`, "how do I write this value into this Parameter?",
and sets ``layout`` when it needs a 1-element vector instead of a 0-d Parameter. The harness does
not call this class's ``construct``: it generates one subclass per code shape (``bench.measured.
shapes``) whose ``construct`` places the write inline, through ``self.write``, or in an
``ops.depend``, and reads the limit in the shape's way. The base class writes nothing.
"""

from __future__ import annotations

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops

from bench.measured.workloads.clip.spec import INC_STEP, INITIAL_LIMIT, MAX_LIMIT

# layout -> shape of the limit Parameter. `layout` picks the no-update control a strategy is
# timed against: the control has the same layout and reads the limit the same way.
LAYOUTS = {"scalar": (), "vector": (1,)}


class ClipCell(nn.Cell):
    """Clip the input to ``[-limit, limit]``, then let the strategy update ``self.limit``."""

    layout = "scalar"

    def __init__(self):
        super().__init__()
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

    def write(self, param, value):
        """Write ``value`` into the Parameter ``param``. The base class does not."""

    def after_step(self, out, x):
        """Host-side work after each call, outside the graph. Returns the step's output."""
        return out


def read_limit(cell) -> np.float32:
    """The Parameter's current value as a float32 scalar (waits for pending work)."""
    return np.float32(cell.limit.asnumpy().reshape(-1)[0])


def write_limit(cell, value) -> None:
    """Set the Parameter from the host, keeping its layout."""
    cell.limit.set_data(Tensor(np.full(LAYOUTS[cell.layout], value, dtype=np.float32)))

"""The adaptive-clip cell in MindSpore: the forward and the update rule, shared by every strategy.

A strategy subclasses :class:`ClipCell` and overrides :meth:`ClipCell.write`, "how do I write
this value into this Parameter?" (and ``layout`` when it needs a 1-element vector instead of a 0-d
Parameter). Every workload (the clip here, Batch Renormalization in ``bench/brn.py``) writes its
state through ``write``, called straight from ``construct``. A strategy that only makes sense for
the clip says ``WORKLOADS = ("clip",)``. The base class, which writes nothing, is the control.
"""

from __future__ import annotations

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops

from bench.spec import INC_STEP, INITIAL_LIMIT, MAX_LIMIT

LAYOUTS = {"scalar": (), "vector": (1,)}  # 0-d Parameter, or a 1-element vector (for index ops)


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
        """Write ``value`` into the Parameter ``param``. The base class (the control) does not."""

    def after_step(self, out, x):
        """Host-side work after each call, outside the graph. Returns the step's output."""
        return out

    def state_probe(self):
        """The Parameter a step writes last: reading it waits for the step's writes."""
        return self.limit


class ScalarControl(ClipCell):
    """No update, 0-d Parameter."""

    layout = "scalar"


class VectorControl(ClipCell):
    """No update, 1-element vector Parameter."""

    layout = "vector"


CONTROLS = {"scalar": ScalarControl, "vector": VectorControl}


def control_for(layout: str) -> type[ClipCell]:
    """The no-update control with the given Parameter layout (same forward code)."""
    return CONTROLS[layout]


def read_limit(cell: ClipCell) -> np.float32:
    """The Parameter's current value as a float32 scalar (waits for pending work)."""
    return np.float32(cell.limit.asnumpy().reshape(-1)[0])


def write_limit(cell: ClipCell, value) -> None:
    """Set the Parameter from the host, keeping its layout."""
    cell.limit.set_data(Tensor(np.full(LAYOUTS[cell.layout], value, dtype=np.float32)))

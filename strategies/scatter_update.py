"""An `ops.ScatterUpdate()` primitive updating every row of a vector Parameter."""

import mindspore as ms
from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = (
    "self.scatter_update = ops.ScatterUpdate() in __init__; "
    "self.scatter_update(param, arange(len), value); needs a vector Parameter"
)
API = "mindspore.ops.ScatterUpdate"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "vector"

    def __init__(self):
        super().__init__()
        self.scatter_update = ops.ScatterUpdate()

    def write(self, param, value):
        self.scatter_update(param, ops.arange(param.shape[0], dtype=ms.int32), value)

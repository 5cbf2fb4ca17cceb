"""An `ops.InplaceUpdateV2()` primitive updating every row of a vector Parameter."""

import mindspore as ms
from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = (
    "self.inplace_update = ops.InplaceUpdateV2() in __init__; "
    "self.inplace_update(param, arange(len), value); needs a vector Parameter"
)
API = "mindspore.ops.InplaceUpdateV2"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "vector"

    def __init__(self):
        super().__init__()
        self.inplace_update = ops.InplaceUpdateV2()

    def write(self, param, value):
        self.inplace_update(param, ops.arange(param.shape[0], dtype=ms.int32), value)

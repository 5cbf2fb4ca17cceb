"""`ops.scatter_nd_update` of every index into a vector Parameter."""

import mindspore as ms
from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = "ops.scatter_nd_update(param, arange(len)[:, None], value); needs a vector Parameter"
API = "mindspore.ops.scatter_nd_update"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "vector"

    def write(self, param, value):
        indices = ops.arange(param.shape[0], dtype=ms.int32).reshape((-1, 1))
        ops.scatter_nd_update(param, indices, value)

"""`ops.index_add` of the delta into a vector Parameter (the maintainers' KV-cache idiom)."""

import mindspore as ms
from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = "ops.index_add(param, arange(len), value - param, 0); needs a vector Parameter"
API = "mindspore.ops.index_add"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "vector"

    def write(self, param, value):
        ops.index_add(param, ops.arange(param.shape[0], dtype=ms.int32), value - param, 0)

    def write_row(self, param, index, row):  # the KV cache: one row at index of axis 2
        ops.index_add(param, index, row - ops.gather(param, index, 2), 2)

"""`Tensor.index_copy_` of every index of axis 0 into a vector Parameter."""

import mindspore as ms
from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = "param.index_copy_(0, arange(len), value); needs a vector Parameter"
API = "mindspore.Tensor.index_copy_"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "vector"

    def write(self, param, value):
        param.index_copy_(0, ops.arange(param.shape[0], dtype=ms.int32), value)

    def write_row(self, param, index, row):  # the KV cache: one row at index of axis 2
        param.index_copy_(2, index, row)

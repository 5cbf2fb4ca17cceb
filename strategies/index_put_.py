"""`Tensor.index_put_` of every index of axis 0 into a vector Parameter (`param[idx] = value`)."""

import mindspore as ms
from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = "param.index_put_((arange(len),), value); needs a vector Parameter"
API = "mindspore.Tensor.index_put_"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "vector"

    def write(self, param, value):
        param.index_put_((ops.arange(param.shape[0], dtype=ms.int32),), value)

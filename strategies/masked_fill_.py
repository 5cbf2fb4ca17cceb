"""`Tensor.masked_fill_` with an all-true mask: every element of the Parameter takes the value."""

import mindspore
from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = "param.masked_fill_(all-true mask, value) with a 0-d value"
API = "mindspore.Tensor.masked_fill_"  # the documented MindSpore API the write uses
WORKLOADS = ("clip",)  # fills one value: not a per-channel vector (BRN), a cache or an EMA


class Cell(Strategy):
    layout = "scalar"

    def write(self, param, value):
        param.masked_fill_(ops.ones_like(param, dtype=mindspore.bool_), value)

"""`Tensor.fill_` with a 0-d tensor: `param.fill_(value)`; one value for every element."""

from bench.strategy import Strategy

DESCRIPTION = "param.fill_(value) with a 0-d value"
API = "mindspore.Tensor.fill_"  # the documented MindSpore API the write uses
WORKLOADS = ("clip",)  # fills one value: not a per-channel vector (BRN), a cache or an EMA


class Cell(Strategy):
    layout = "scalar"

    def write(self, param, value):
        param.fill_(value)

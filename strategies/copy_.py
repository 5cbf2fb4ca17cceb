"""`Tensor.copy_`: `param.copy_(value)`."""

from bench.strategy import Strategy

DESCRIPTION = "param.copy_(value)"
API = "mindspore.Tensor.copy_"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "scalar"

    def write(self, param, value):
        param.copy_(value)

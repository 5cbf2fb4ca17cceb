"""`Tensor.add_` of the delta: `param.add_(value - param)` (PyTorch's in-place add)."""

from bench.strategy import Strategy

DESCRIPTION = "param.add_(value - param)"
API = "mindspore.Tensor.add_"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "scalar"

    def write(self, param, value):
        param.add_(value - param)

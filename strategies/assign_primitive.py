"""An `ops.Assign()` primitive created in `__init__` and called for the write."""

from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = "self.assign_op = ops.Assign() in __init__; self.assign_op(param, value)"
API = "mindspore.ops.Assign"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "scalar"

    def __init__(self):
        super().__init__()
        self.assign_op = ops.Assign()

    def write(self, param, value):
        self.assign_op(param, value)

"""`ops.assign_add` of the delta: `ops.assign_add(param, value - param)`."""

from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = "ops.assign_add(param, value - param)"
API = "mindspore.ops.assign_add"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "scalar"  # or "vector": a 1-element Parameter, for index ops

    def write(self, param, value):
        ops.assign_add(param, value - param)

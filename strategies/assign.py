"""`ops.assign(param, value)`: the maintainers' answer to the GRAPH_MODE `set_data` error."""

from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = "ops.assign(param, value)"
API = "mindspore.ops.assign"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "scalar"

    def write(self, param, value):
        ops.assign(param, value)

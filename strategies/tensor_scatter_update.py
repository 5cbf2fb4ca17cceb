"""Functional `ops.tensor_scatter_update`, rebound: `self.limit = ops.tensor_scatter_update(..)`."""

import mindspore as ms
from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = "self.limit = ops.tensor_scatter_update(self.limit, [[0]], value)"
API = "mindspore.ops.tensor_scatter_update"  # the documented MindSpore API the write uses
WORKLOADS = ("clip",)  # rebinding needs the attribute's name, as strategies/rebind.py


class Cell(Strategy):
    layout = "vector"

    def write(self, param, value):
        self.limit = ops.tensor_scatter_update(param, ops.zeros((1, 1), ms.int32), value)

"""`ops.scatter_nd_update` of index [[0]] in a 1-element Parameter."""

import numpy as np
from mindspore import Tensor, ops

from bench.cell import ClipCell

DESCRIPTION = "ops.scatter_nd_update(self.limit, [[0]], new) on a 1-element Parameter"


class Cell(ClipCell):
    layout = "vector"

    def update(self, x):
        ops.scatter_nd_update(self.limit, Tensor(np.zeros((1, 1), np.int32)), self.next_limit(x))

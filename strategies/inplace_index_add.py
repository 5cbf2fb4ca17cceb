"""`ops.inplace_index_add` of the delta into a 1-element Parameter."""

import numpy as np
from mindspore import Tensor, ops

from bench.cell import ClipCell

DESCRIPTION = "ops.inplace_index_add(self.limit, [0], new - limit, 0) on a 1-element Parameter"


class Cell(ClipCell):
    layout = "vector"

    def update(self, x):
        ops.inplace_index_add(
            self.limit, Tensor(np.zeros(1, np.int32)), self.next_limit(x) - self.limit, 0
        )

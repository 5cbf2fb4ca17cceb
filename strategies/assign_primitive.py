"""An `ops.Assign()` primitive created in `__init__` and called inside `construct`."""

from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "self.assign_op = ops.Assign() in __init__; self.assign_op(self.limit, new)"


class Cell(ClipCell):
    layout = "scalar"

    def __init__(self):
        super().__init__()
        self.assign_op = ops.Assign()

    def update(self, x):
        self.assign_op(self.limit, self.next_limit(x))

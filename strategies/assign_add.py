"""`ops.assign_add` of the delta inside `construct`."""

from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "ops.assign_add(self.limit, new - limit) inside construct"


class Cell(ClipCell):
    layout = "scalar"

    def update(self, x):
        ops.assign_add(self.limit, self.next_limit(x) - self.limit)

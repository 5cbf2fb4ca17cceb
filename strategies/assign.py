"""`ops.assign` inside `construct`: the maintainers' answer to the GRAPH_MODE `set_data` error."""

from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "ops.assign(self.limit, new) inside construct"


class Cell(ClipCell):
    layout = "scalar"

    def update(self, x):
        ops.assign(self.limit, self.next_limit(x))

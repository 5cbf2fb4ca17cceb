"""`Tensor.copy_`: `self.limit.copy_(new)` inside `construct`."""

from bench.cell import ClipCell

DESCRIPTION = "self.limit.copy_(new) inside construct"


class Cell(ClipCell):
    layout = "scalar"

    def update(self, x):
        self.limit.copy_(self.next_limit(x))

"""Rebinding the attribute: `self.limit = new` inside `construct`."""

from bench.cell import ClipCell

DESCRIPTION = "self.limit = new inside construct"


class Cell(ClipCell):
    layout = "scalar"

    def update(self, x):
        self.limit = self.next_limit(x)

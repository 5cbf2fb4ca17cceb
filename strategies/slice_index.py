"""Slice assignment of element 0: `self.limit[0] = new[0]` on a 1-element Parameter."""

from bench.cell import ClipCell

DESCRIPTION = "self.limit[0] = new[0] on a 1-element Parameter"


class Cell(ClipCell):
    layout = "vector"

    def update(self, x):
        self.limit[0] = self.next_limit(x)[0]

"""Rebinding the attribute: `self.limit = new` inside `construct`."""

from bench.cell import ClipCell

DESCRIPTION = "self.limit = new inside construct"
WORKLOADS = ("clip",)


class Cell(ClipCell):
    layout = "scalar"

    def write(self, param, value):
        self.limit = value  # rebinding needs the attribute's name: this only fits the clip

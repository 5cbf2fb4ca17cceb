"""Slice assignment of element 0: `param[0] = value[0]` on a 1-element Parameter."""

from bench.strategy import Strategy

DESCRIPTION = "param[0] = value[0] on a 1-element Parameter"
API = "mindspore.Tensor.__setitem__"  # index assignment (the Tensor index-support guide)
WORKLOADS = ("clip",)  # writes element 0 only: not a whole per-channel vector


class Cell(Strategy):
    layout = "vector"

    def write(self, param, value):
        param[0] = value[0]

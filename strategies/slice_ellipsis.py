"""Slice assignment of the whole Parameter: `param[...] = value`."""

from bench.strategy import Strategy

DESCRIPTION = "param[...] = value"
API = "mindspore.Tensor.__setitem__"  # index assignment (the Tensor index-support guide)


class Cell(Strategy):
    layout = "scalar"

    def write(self, param, value):
        param[...] = value

    def write_row(self, param, index, row):  # the KV cache: one row at index of axis 2
        param[:, :, index] = row

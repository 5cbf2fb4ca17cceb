"""`Parameter.set_data` in the cell: the original report. Fails to compile in graphs."""

from bench.strategy import Strategy

DESCRIPTION = "param.set_data(value)"
API = "mindspore.Parameter.set_data"  # the documented MindSpore API the write uses


class Cell(Strategy):
    layout = "scalar"

    def write(self, param, value):
        param.set_data(value)

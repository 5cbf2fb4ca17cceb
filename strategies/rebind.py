"""Rebinding the attribute: `self.limit = value` (MindSpore turns it into a Parameter write)."""

from bench.strategy import Strategy

DESCRIPTION = "self.limit = value"
API = "mindspore.Parameter.set_data"  # Cell.__setattr__ turns the rebinding into set_data
WORKLOADS = ("clip",)  # overrides construct or after_step, or writes self.limit by name


class Cell(Strategy):
    layout = "scalar"

    def write(self, param, value):
        self.limit = value  # rebinding needs the attribute's name: this only fits the clip

"""Host-side update: `construct` only reads the limit; the host writes the next one after a step."""

from bench.cell import write_limit
from bench.spec import INITIAL_LIMIT, next_limit
from bench.strategy import Strategy

DESCRIPTION = (
    "construct only reads; the host computes the next limit and calls set_data after each step"
)
API = "mindspore.Parameter.set_data"  # the documented MindSpore API the write uses
WORKLOADS = ("clip",)  # overrides construct or after_step, or writes self.limit by name


class Cell(Strategy):
    layout = "scalar"

    def __init__(self):
        super().__init__()
        self.host_limit = INITIAL_LIMIT  # host mirror: no device read to compute the next one

    def after_step(self, out, x):
        self.host_limit = next_limit(self.host_limit, x.shape[0])
        write_limit(self, self.host_limit)
        return out

"""Functional state: `construct` returns the new limit too; the caller writes it back."""

from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = "construct returns (out, new); the caller does cell.limit.set_data(new)"
API = "mindspore.Parameter.set_data"  # the documented MindSpore API the write uses
WORKLOADS = ("clip",)  # overrides construct or after_step, or writes self.limit by name


class Cell(Strategy):
    layout = "scalar"

    def construct(self, x):
        return ops.clip_by_value(x, -self.limit, self.limit), self.next_limit(x)

    def after_step(self, result, x):
        out, new = result
        self.limit.set_data(new)
        return out

"""Functional state: `construct` returns the new limit too; the caller writes it back."""

from mindspore import ops

from bench.cell import ClipCell

WORKLOADS = ("clip",)
DESCRIPTION = "construct returns (out, new); the caller does cell.limit.set_data(new)"

# An AST-jit graph keeps its own copy of the Parameter and does not see the caller's set_data.
EXPECTED_FAILURES = {"jit_ast": "wrong output"}


class Cell(ClipCell):
    layout = "scalar"

    def construct(self, x):
        return ops.clip_by_value(x, -self.limit, self.limit), self.next_limit(x)

    def after_step(self, result, x):
        out, new = result
        self.limit.set_data(new)
        return out

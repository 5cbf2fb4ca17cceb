"""Host-side update: `construct` only reads the limit; the host writes the next one after a step."""

from bench.cell import ClipCell, write_limit
from bench.spec import INITIAL_LIMIT, next_limit

WORKLOADS = ("clip",)
DESCRIPTION = (
    "construct reads only; the host computes the next limit and calls set_data after each step"
)

# An AST-jit graph keeps its own copy of the Parameter and does not see the host's set_data.
EXPECTED_FAILURES = {"jit_ast": "wrong output"}


class Cell(ClipCell):
    layout = "scalar"

    def __init__(self):
        super().__init__()
        self.host_limit = (
            INITIAL_LIMIT  # host mirror: no device read needed to compute the next one
        )

    def after_step(self, out, x):
        self.host_limit = next_limit(self.host_limit, x.shape[0])
        write_limit(self, self.host_limit)
        return out

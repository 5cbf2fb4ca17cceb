"""Slice assignment of element 0: `self.limit[0] = new[0]` on a 1-element Parameter."""

from bench.cell import ClipCell

DESCRIPTION = "param[0] = new[0] on a 1-element Parameter"
WORKLOADS = ("clip",)  # element 0 only: not a whole per-channel vector
# Under jit(capture_mode="bytecode") the write, made in a helper method, is dropped: no error.
EXPECTED_FAILURES = {"jit_bytecode": "Parameter unchanged"}


class Cell(ClipCell):
    layout = "vector"

    def write(self, param, value):
        param[0] = value[0]

"""An `ops.Assign()` primitive created in `__init__` and called inside `construct`."""

from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "self.assign_op = ops.Assign() in __init__; self.assign_op(param, new)"

# Under jit(capture_mode="bytecode") the write, made in a helper method, is dropped: no error.
EXPECTED_FAILURES = {"jit_bytecode": "Parameter unchanged"}


class Cell(ClipCell):
    layout = "scalar"

    def __init__(self):
        super().__init__()
        self.assign_op = ops.Assign()

    def write(self, param, value):
        self.assign_op(param, value)

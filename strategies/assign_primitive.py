"""An `ops.Assign()` primitive created in `__init__` and called for the write."""

from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "self.assign_op = ops.Assign() in __init__; self.assign_op(param, value)"
API = "mindspore.ops.Assign"  # the documented MindSpore API the write uses
# What does not work, as the gate finds it (`--gate-only` prints these lines to paste):
EXPECTED_FAILURES = {
    "brn/helper-param-method-base/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/*-*-before-*/*": "incorrect: wrong output",
    "clip/helper-param-after-arg-base/jit_bytecode": "incorrect: Parameter unchanged",
}


class Cell(ClipCell):
    layout = "scalar"

    def __init__(self):
        super().__init__()
        self.assign_op = ops.Assign()

    def write(self, param, value):
        self.assign_op(param, value)

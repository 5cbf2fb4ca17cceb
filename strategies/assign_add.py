"""`ops.assign_add` of the delta: `ops.assign_add(param, value - param)`."""

from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "ops.assign_add(param, value - param)"
API = "mindspore.ops.assign_add"  # the documented MindSpore API the write uses
# What does not work, as the gate finds it (`--gate-only` prints these lines to paste):
EXPECTED_FAILURES = {
    "brn/helper-param-method-base/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/*-*-before-*/*": "incorrect: wrong output",
    "clip/helper-param-after-arg-base/jit_bytecode": "incorrect: Parameter unchanged",
}


class Cell(ClipCell):
    layout = "scalar"  # or "vector": a 1-element Parameter, for index ops

    def write(self, param, value):
        ops.assign_add(param, value - param)

"""`Tensor.copy_`: `param.copy_(value)`."""

from bench.cell import ClipCell

DESCRIPTION = "param.copy_(value)"
API = "mindspore.Tensor.copy_"  # the documented MindSpore API the write uses
# What does not work, as the gate finds it (`--gate-only` prints these lines to paste):
EXPECTED_FAILURES = {
    "brn/helper-*-*/graph": "incorrect: Parameter unchanged",
    "brn/helper-*-*/jit_ast": "incorrect: Parameter unchanged",
    "brn/helper-*-*/jit_bytecode": "incorrect: Parameter unchanged",
    "brn/inline-*-*/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/*-*-before-*/graph": "incorrect: wrong output",
    "clip/*-*-before-*/jit_ast": "incorrect: wrong output",
    "clip/*-*-before-*/pynative": "incorrect: wrong output",
    "clip/*-*-before-*/pynative_blocking": "incorrect: wrong output",
    "clip/depend-*-before-*/jit_bytecode": "incorrect: wrong output",
    "clip/helper-*-before-*/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/helper-param-after-arg-base/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/inline-*-before-*/jit_bytecode": "incorrect: Parameter unchanged",
    "ema/helper/graph": "incorrect: Parameter unchanged",
    "ema/helper/jit_ast": "incorrect: Parameter unchanged",
}


class Cell(ClipCell):
    layout = "scalar"

    def write(self, param, value):
        param.copy_(value)

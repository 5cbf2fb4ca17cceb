"""Slice assignment of element 0: `param[0] = value[0]` on a 1-element Parameter."""

from bench.cell import ClipCell

DESCRIPTION = "param[0] = value[0] on a 1-element Parameter"
WORKLOADS = ("clip",)  # writes element 0 only: not a whole per-channel vector
# What does not work, as the gate finds it (`--gate-only` prints these lines to paste):
EXPECTED_FAILURES = {
    "clip/*-*-before-*/pynative": "incorrect: wrong output",
    "clip/*-*-before-*/pynative_blocking": "incorrect: wrong output",
    "clip/*-alias-before-*/graph": "incorrect: wrong output",
    "clip/*-alias-before-*/jit_ast": "incorrect: wrong output",
    "clip/helper-alias-before-arg/jit_bytecode": "incorrect: wrong output",
    "clip/helper-alias-before-expr/jit_bytecode": "incorrect: wrong output",
    "clip/helper-alias-before-method/jit_bytecode": "incorrect: wrong output",
    "clip/helper-param-after-arg-base/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/helper-view-before-arg/jit_bytecode": "incorrect: wrong output",
    "clip/helper-view-before-expr/jit_bytecode": "incorrect: wrong output",
    "clip/inline-alias-before-arg/jit_bytecode": "incorrect: wrong output",
    "clip/inline-alias-before-expr/jit_bytecode": "incorrect: wrong output",
    "clip/inline-alias-before-method/jit_bytecode": "incorrect: wrong output",
    "clip/inline-view-before-expr/jit_bytecode": "incorrect: wrong output",
}


class Cell(ClipCell):
    layout = "vector"

    def write(self, param, value):
        param[0] = value[0]

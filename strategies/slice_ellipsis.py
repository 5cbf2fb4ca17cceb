"""Slice assignment of the whole Parameter: `param[...] = value`."""

from bench.cell import ClipCell

DESCRIPTION = "param[...] = value"
# What does not work, as the gate finds it (`--gate-only` prints these lines to paste):
EXPECTED_FAILURES = {
    "brn/*/graph": "incorrect: Parameter unchanged",
    "brn/*/jit_ast": "incorrect: Parameter unchanged",
    "brn/helper-param-construct/jit_bytecode": "crashed",
    "brn/helper-param-method/jit_bytecode": "crashed",
    "brn/helper-param-method-base/jit_bytecode": "incorrect: Parameter unchanged",
    "brn/inline-*-*/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/*/graph": "incorrect: Parameter unchanged",
    "clip/*/jit_ast": "incorrect: Parameter unchanged",
    "clip/*-*-before-*/pynative": "incorrect: wrong output",
    "clip/*-*-before-*/pynative_blocking": "incorrect: wrong output",
    "clip/helper-*-*-expr/jit_bytecode": "crashed",
    "clip/helper-*-*-method/jit_bytecode": "crashed",
    "clip/helper-alias-before-arg/jit_bytecode": "incorrect: wrong output",
    "clip/helper-param-after-arg-base/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/inline-*-after-*/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/inline-alias-before-arg/jit_bytecode": "incorrect: wrong output",
    "clip/inline-alias-before-expr/jit_bytecode": "incorrect: wrong output",
    "clip/inline-alias-before-method/jit_bytecode": "incorrect: wrong output",
    "ema/*/graph": "incorrect: Parameter unchanged",
    "ema/*/jit_ast": "incorrect: Parameter unchanged",
    "ema/helper/jit_bytecode": "crashed",
    "ema/inline/jit_bytecode": "incorrect: Parameter unchanged",
    "kvcache/full-*/graph": "incorrect: wrong output",
    "kvcache/full-*/jit_ast": "incorrect: wrong output",
    "kvcache/full-helper/jit_bytecode": "crashed",
    "kvcache/full-inline/jit_bytecode": "incorrect: wrong output",
    "kvcache/row-*/jit_bytecode": "timeout",
}


class Cell(ClipCell):
    layout = "scalar"

    def write(self, param, value):
        param[...] = value

    def write_row(self, param, index, row):  # the KV cache: one row at index of axis 2
        param[:, :, index] = row

"""`ops.assign(param, value)`: the maintainers' answer to the GRAPH_MODE `set_data` error."""

from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "ops.assign(param, value)"
API = "mindspore.ops.assign"  # the documented MindSpore API the write uses
# What does not work, as the gate finds it (`--gate-only` prints these lines to paste):
EXPECTED_FAILURES = {
    "brn/depend-*-*/jit_bytecode": "incorrect: Parameter unchanged",
    "brn/helper-param-construct/jit_bytecode": "crashed",
    "brn/helper-param-method/jit_bytecode": "crashed",
    "brn/helper-param-method-base/jit_bytecode": "incorrect: Parameter unchanged",
    "brn/inline-*-*/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/*-*-before-*/graph": "incorrect: wrong output",
    "clip/*-*-before-*/jit_ast": "incorrect: wrong output",
    "clip/*-*-before-*/pynative": "incorrect: wrong output",
    "clip/*-*-before-*/pynative_blocking": "incorrect: wrong output",
    "clip/depend-alias-after-expr/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/depend-alias-after-method/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/depend-alias-before-expr/jit_bytecode": "incorrect: wrong output",
    "clip/depend-param-after-expr/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/depend-param-after-method/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/helper-*-*-expr/jit_bytecode": "crashed",
    "clip/helper-*-*-method/jit_bytecode": "crashed",
    "clip/helper-alias-before-arg/jit_bytecode": "incorrect: wrong output",
    "clip/helper-param-after-arg-base/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/inline-alias-after-expr/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/inline-alias-before-arg/jit_bytecode": "incorrect: wrong output",
    "clip/inline-alias-before-expr/jit_bytecode": "incorrect: wrong output",
    "clip/inline-alias-before-method/jit_bytecode": "incorrect: wrong output",
    "clip/inline-param-after-expr/jit_bytecode": "incorrect: Parameter unchanged",
    "ema/depend/jit_bytecode": "incorrect: Parameter unchanged",
    "ema/helper/jit_bytecode": "crashed",
    "ema/inline/jit_bytecode": "incorrect: Parameter unchanged",
    "kvcache/full-depend/jit_bytecode": "incorrect: wrong output",
    "kvcache/full-helper/jit_bytecode": "crashed",
    "kvcache/full-inline/jit_bytecode": "incorrect: wrong output",
}


class Cell(ClipCell):
    layout = "scalar"

    def write(self, param, value):
        ops.assign(param, value)

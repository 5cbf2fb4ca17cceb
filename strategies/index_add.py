"""`ops.index_add` of the delta into a vector Parameter (the maintainers' KV-cache idiom)."""

import mindspore as ms
from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "ops.index_add(param, arange(len), value - param, 0); needs a vector Parameter"
API = "mindspore.ops.index_add"  # the documented MindSpore API the write uses
# What does not work, as the gate finds it (`--gate-only` prints these lines to paste):
EXPECTED_FAILURES = {
    "brn/helper-param-method-base/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/*-*-before-*/pynative": "incorrect: wrong output",
    "clip/*-*-before-*/pynative_blocking": "incorrect: wrong output",
    "clip/depend-alias-before-arg/graph": "incorrect: wrong output",
    "clip/depend-alias-before-arg/jit_ast": "incorrect: wrong output",
    "clip/depend-alias-before-arg/jit_bytecode": "incorrect: wrong output",
    "clip/depend-alias-before-expr/graph": "incorrect: wrong output",
    "clip/depend-alias-before-expr/jit_ast": "incorrect: wrong output",
    "clip/depend-alias-before-expr/jit_bytecode": "incorrect: wrong output",
    "clip/depend-alias-before-method/graph": "incorrect: wrong output",
    "clip/depend-alias-before-method/jit_ast": "incorrect: wrong output",
    "clip/depend-alias-before-method/jit_bytecode": "incorrect: wrong output",
    "clip/depend-view-before-arg/graph": "incorrect: wrong output",
    "clip/depend-view-before-arg/jit_ast": "incorrect: wrong output",
    "clip/depend-view-before-arg/jit_bytecode": "incorrect: wrong output",
    "clip/depend-view-before-expr/graph": "incorrect: wrong output",
    "clip/depend-view-before-expr/jit_ast": "incorrect: wrong output",
    "clip/depend-view-before-expr/jit_bytecode": "incorrect: wrong output",
    "clip/depend-view-before-method/graph": "incorrect: wrong output",
    "clip/depend-view-before-method/jit_ast": "incorrect: wrong output",
    "clip/depend-view-before-method/jit_bytecode": "incorrect: wrong output",
    "clip/helper-alias-before-arg/graph": "incorrect: wrong output",
    "clip/helper-alias-before-arg/jit_ast": "incorrect: wrong output",
    "clip/helper-alias-before-arg/jit_bytecode": "incorrect: wrong output",
    "clip/helper-alias-before-expr/graph": "incorrect: wrong output",
    "clip/helper-alias-before-expr/jit_ast": "incorrect: wrong output",
    "clip/helper-alias-before-expr/jit_bytecode": "incorrect: wrong output",
    "clip/helper-alias-before-method/graph": "incorrect: wrong output",
    "clip/helper-alias-before-method/jit_ast": "incorrect: wrong output",
    "clip/helper-alias-before-method/jit_bytecode": "incorrect: wrong output",
    "clip/helper-param-after-arg-base/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/inline-alias-before-arg/graph": "incorrect: wrong output",
    "clip/inline-alias-before-arg/jit_ast": "incorrect: wrong output",
    "clip/inline-alias-before-arg/jit_bytecode": "incorrect: wrong output",
    "clip/inline-alias-before-expr/graph": "incorrect: wrong output",
    "clip/inline-alias-before-expr/jit_ast": "incorrect: wrong output",
    "clip/inline-alias-before-expr/jit_bytecode": "incorrect: wrong output",
    "clip/inline-alias-before-method/graph": "incorrect: wrong output",
    "clip/inline-alias-before-method/jit_ast": "incorrect: wrong output",
    "clip/inline-alias-before-method/jit_bytecode": "incorrect: wrong output",
}


class Cell(ClipCell):
    layout = "vector"

    def write(self, param, value):
        ops.index_add(param, ops.arange(param.shape[0], dtype=ms.int32), value - param, 0)

    def write_row(self, param, index, row):  # the KV cache: one row at index of axis 2
        ops.index_add(param, index, row - ops.gather(param, index, 2), 2)

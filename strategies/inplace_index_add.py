"""`ops.inplace_index_add` of the delta into a vector Parameter."""

import mindspore as ms
from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "ops.inplace_index_add(param, arange(len), new - param, 0); needs a vector Parameter"

# Under jit(capture_mode="bytecode") the write, made in a helper method, is dropped: no error.
EXPECTED_FAILURES = {"jit_bytecode": "Parameter unchanged"}


class Cell(ClipCell):
    layout = "vector"

    def write(self, param, value):
        ops.inplace_index_add(param, ops.arange(param.shape[0], dtype=ms.int32), value - param, 0)

"""`ops.scatter_nd_update` of every index into a vector Parameter."""

import mindspore as ms
from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "ops.scatter_nd_update(param, arange(len)[:, None], new); needs a vector Parameter"

# Under jit(capture_mode="bytecode") the write, made in a helper method, is dropped: no error.
EXPECTED_FAILURES = {"jit_bytecode": "Parameter unchanged"}


class Cell(ClipCell):
    layout = "vector"

    def write(self, param, value):
        indices = ops.arange(param.shape[0], dtype=ms.int32).reshape((-1, 1))
        ops.scatter_nd_update(param, indices, value)

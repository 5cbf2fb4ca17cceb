"""`ops.assign` inside `construct`: the maintainers' answer to the GRAPH_MODE `set_data` error."""

from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "ops.assign(param, new) inside construct"

# Under jit(capture_mode="bytecode") the write, made in a helper method, is dropped: no error.
EXPECTED_FAILURES = {"jit_bytecode": "Parameter unchanged"}


class Cell(ClipCell):
    layout = "scalar"

    def write(self, param, value):
        ops.assign(param, value)

"""`ops.assign_add` of the delta inside `construct`."""

from mindspore import ops

from bench.cell import ClipCell

DESCRIPTION = "ops.assign_add(param, new - param) inside construct"
# Declared failures, "<mode>" or "<workload>/<mode>" -> regex of the error or the gate's finding:
# under jit(capture_mode="bytecode") the write, made in a helper method, is dropped: no error.
EXPECTED_FAILURES = {"jit_bytecode": "Parameter unchanged"}


class Cell(ClipCell):
    layout = "scalar"  # or "vector": a 1-element Parameter (for index ops)

    def write(self, param, value):
        ops.assign_add(param, value - param)

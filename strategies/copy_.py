"""`Tensor.copy_`: `param.copy_(new)` inside `construct`."""

from bench.cell import ClipCell

DESCRIPTION = "param.copy_(new) inside construct"
# Through write(), called for several Parameters (Batch Renormalization), the graph copies into a
# temporary: the Parameters silently keep their values. The clip's single call works.
EXPECTED_FAILURES = {
    "brn/graph": "Parameter unchanged",
    "brn/jit_ast": "Parameter unchanged",
    "jit_bytecode": "Parameter unchanged",  # the write, in a helper method, is dropped
}


class Cell(ClipCell):
    layout = "scalar"

    def write(self, param, value):
        param.copy_(value)

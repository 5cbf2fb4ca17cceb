"""Slice assignment of the whole Parameter: `param[...] = new`."""

from bench.cell import ClipCell

DESCRIPTION = "param[...] = new inside construct"

# Runs, but the graph drops the write: the Parameter silently stays at 1.0.
EXPECTED_FAILURES = {
    "graph": "Parameter unchanged",
    "jit_ast": "Parameter unchanged",
    "jit_bytecode": "Parameter unchanged",
}


class Cell(ClipCell):
    layout = "scalar"

    def write(self, param, value):
        param[...] = value

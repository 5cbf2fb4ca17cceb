"""Slice assignment of the whole Parameter: `self.limit[...] = new`."""

from bench.cell import ClipCell

DESCRIPTION = "self.limit[...] = new inside construct"

# Runs, but the graph drops the write: the Parameter silently stays at 1.0.
EXPECTED_FAILURES = {"graph": "Parameter unchanged", "jit_ast": "Parameter unchanged"}


class Cell(ClipCell):
    layout = "scalar"

    def update(self, x):
        self.limit[...] = self.next_limit(x)

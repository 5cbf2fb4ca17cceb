"""`Parameter.set_data` inside `construct`: the original report. Fails to compile in graphs."""

from bench.cell import ClipCell

DESCRIPTION = "self.limit.set_data(new) inside construct"
COMPILE_ERROR = r"the 'Parameter' object's method 'set_data' is not supported in 'construct'"
EXPECTED_FAILURES = {"graph": COMPILE_ERROR, "jit_ast": COMPILE_ERROR}


class Cell(ClipCell):
    layout = "scalar"

    def update(self, x):
        self.limit.set_data(self.next_limit(x))

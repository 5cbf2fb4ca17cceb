"""`Parameter.set_data` inside `construct`: the original report. PYNATIVE only."""

from bench.cell import ClipCell

DESCRIPTION = "self.limit.set_data(new) inside construct"
EXPECTED_FAILURES = {
    "graph": r"the 'Parameter' object's method 'set_data' is not supported in 'construct'",
}


class Cell(ClipCell):
    layout = "scalar"

    def update(self, x):
        self.limit.set_data(self.next_limit(x))

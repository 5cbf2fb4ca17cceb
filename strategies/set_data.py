"""`Parameter.set_data` inside `construct`: the original report. Fails to compile in graphs."""

from bench.cell import ClipCell

DESCRIPTION = "param.set_data(new) inside construct"
COMPILE_ERROR = r"the 'Parameter' object's method 'set_data' is not supported in 'construct'"
EXPECTED_FAILURES = {
    "graph": COMPILE_ERROR,
    "jit_ast": COMPILE_ERROR,
    "jit_bytecode": "'Tensor' object has no attribute 'set_data'",
}


class Cell(ClipCell):
    layout = "scalar"

    def write(self, param, value):
        param.set_data(value)

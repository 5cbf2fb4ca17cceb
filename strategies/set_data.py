"""`Parameter.set_data` in the cell: the original report. Fails to compile in graphs."""

from bench.cell import ClipCell

DESCRIPTION = "param.set_data(value)"
API = "mindspore.Parameter.set_data"  # the documented MindSpore API the write uses
# What does not work, as the gate finds it (`--gate-only` prints these lines to paste):
EXPECTED_FAILURES = {
    "brn/*/jit_bytecode": "AttributeError: 'Tensor' object has no attribute 'set_data'",
    "brn/*/graph": "RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'",
    "brn/*/jit_ast": "RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'",
    "clip/*/jit_bytecode": "AttributeError: 'Tensor' object has no attribute 'set_data'",
    "clip/*/graph": "RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'",
    "clip/*/jit_ast": "RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'",
    "clip/*-*-before-*/pynative": "incorrect: wrong output",
    "clip/*-*-before-*/pynative_blocking": "incorrect: wrong output",
    "ema/*/graph": "RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'",
    "ema/*/jit_ast": "RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'",
    "kvcache/*/jit_bytecode": "AttributeError: 'Tensor' object has no attribute 'set_data'",
    "kvcache/*/graph": "RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'",
    "kvcache/*/jit_ast": "RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'",
}


class Cell(ClipCell):
    layout = "scalar"

    def write(self, param, value):
        param.set_data(value)

"""Rebinding the attribute: `self.limit = value` (MindSpore turns it into a Parameter write)."""

from bench.cell import ClipCell

DESCRIPTION = "self.limit = value"
WORKLOADS = ("clip",)  # overrides construct or after_step, or writes self.limit by name
# What does not work, as the gate finds it (`--gate-only` prints these lines to paste):
EXPECTED_FAILURES = {
    "clip/*-*-before-*/jit_bytecode": "incorrect: Parameter unchanged",
    "clip/*-*-before-*/graph": "incorrect: wrong output",
    "clip/*-*-before-*/jit_ast": "incorrect: wrong output",
    "clip/*-*-before-*/pynative": "incorrect: wrong output",
    "clip/*-*-before-*/pynative_blocking": "incorrect: wrong output",
}


class Cell(ClipCell):
    layout = "scalar"

    def write(self, param, value):
        self.limit = value  # rebinding needs the attribute's name: this only fits the clip

"""Progress lines with an ETA for the whole run, from the first line on.

Before anything is measured, the ETA comes from a cost model: seconds per item for each phase
and mode, measured on a 2-core machine of the kind this suite runs on (see README, "How long").
As items finish, the observed rate of each phase and mode replaces the model's.
"""

from __future__ import annotations

import math
import time

from bench.measured.modes import GRAPH, JIT_AST, JIT_BYTECODE, PYNATIVE, PYNATIVE_BLOCKING

# Seconds per item, measured on this machine: gate (one variant, all its steps, compile
# included), prepare (one calibration or screened shape), time (one cell in one process).
MODEL = {
    "gate": {
        GRAPH: 0.28,
        PYNATIVE: 0.06,
        PYNATIVE_BLOCKING: 0.05,
        JIT_AST: 0.28,
        JIT_BYTECODE: 0.35,
    },
    "prepare": {
        GRAPH: 0.6,
        PYNATIVE: 0.8,
        PYNATIVE_BLOCKING: 0.5,
        JIT_AST: 0.6,
        JIT_BYTECODE: 0.6,
    },
    "time": {
        GRAPH: 0.9,
        PYNATIVE: 2.0,
        PYNATIVE_BLOCKING: 1.0,
        JIT_AST: 0.9,
        JIT_BYTECODE: 1.0,
    },
}
PROCESS_START = 6.0  # importing MindSpore, pinning threads, warming up


def fmt_duration(seconds: float) -> str:
    if math.isnan(seconds):
        return "…"
    seconds = max(0, round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s"


class Progress:
    """Counts items per (phase, mode) and prints lines with elapsed time and the run's ETA."""

    def __init__(self, out=print, parallel: dict | None = None):
        self.out = out
        self.start = time.monotonic()
        self.todo: dict[tuple[str, str], int] = {}
        self.done: dict[tuple[str, str], int] = {}
        self.spent: dict[tuple[str, str], float] = {}
        self.processes: dict[str, int] = {}
        self.parallel = parallel or {}

    def plan(self, phase: str, mode: str, items: int, processes: int = 1) -> None:
        """Announce ``items`` more items of a phase (the ETA counts them from now on)."""
        key = (phase, mode)
        self.todo[key] = self.todo.get(key, 0) + items
        self.processes[phase] = self.processes.get(phase, 0) + processes

    def finished(self, phase: str, mode: str, seconds: float) -> None:
        key = (phase, mode)
        self.done[key] = self.done.get(key, 0) + 1
        self.spent[key] = self.spent.get(key, 0.0) + seconds

    def process_started(self, phase: str) -> None:
        self.processes[phase] = max(0, self.processes.get(phase, 0) - 1)

    def eta(self) -> float:
        left = 0.0
        for key, todo in self.todo.items():
            remaining = todo - self.done.get(key, 0)
            if remaining <= 0:
                continue
            done = self.done.get(key, 0)
            rate = self.spent[key] / done if done >= 3 else MODEL[key[0]].get(key[1], 1.0)
            left += remaining * rate / self.parallel.get(key[0], 1)
        for phase, n in self.processes.items():
            left += n * PROCESS_START / self.parallel.get(phase, 1)
        return left

    def line(self, text: str) -> None:
        elapsed = time.monotonic() - self.start
        self.out(f"[{fmt_duration(elapsed)} · ETA {fmt_duration(self.eta())}] {text}")

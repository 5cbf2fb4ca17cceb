"""Paired blocks: a subject cell and its no-update twin, timed in alternation at the same state.

Every number the suite prints comes from here. The rules:

- A *block* is k consecutive steps of one cell, synchronized once, at its end (``asnumpy`` of the
  step's output and of the Parameter the step writes last: ``mindspore.runtime.synchronize()``
  does nothing on the CPU). The clock stops after that synchronization, so no dispatched work
  leaks out of a timed block. This is throughput, what a training loop sees; k is chosen so a
  block of the twin lasts at least ``block_seconds`` and is then fixed per twin and size for the
  whole run.
- Each subject block is paired with a twin block run right before or right after it, in ABBA
  order (subject-twin, twin-subject, ...), so a drift or an order effect cancels within each
  pair of rounds instead of only on average.
- Before *every* block, of either cell, the same untimed step gives it the subject's state
  (``Runtime.sync_state``, then a read that waits for it): the clip's cost depends on its limit,
  and a preparation done for one cell only would bias the pair.
- Both cells step through the same :class:`Stepper`, so the only difference inside the clock is
  the update itself. GC is off for both.
"""

from __future__ import annotations

import gc
import time
from contextlib import contextmanager

import numpy as np

from bench.measured.oracle import run_step
from bench.run.plan import Precision

TIMER = time.perf_counter


class Stepper:
    """A prepared cell. Each call runs one step; the last call of an armed block synchronizes."""

    def __init__(self, workload, variant_class, mode, inputs: tuple, size: int | None = None):
        self.workload = workload
        self.cell, self.params = workload.build(variant_class, size)
        self.step = mode.prepare(self.cell)
        self.inputs = inputs
        self.probe = workload.probe(self.params)
        self.left = 0
        self.steps = 0
        self.arm(1)
        start = TIMER()
        self()
        self.first_call_s = TIMER() - start  # graph compilation, or the first dispatch

    def arm(self, k: int) -> None:
        """The next ``k`` calls form a block: the k-th one synchronizes."""
        self.left = k

    def __call__(self) -> None:
        out = run_step(self.step, self.cell, self.inputs)
        self.steps += 1
        self.left -= 1
        if self.left == 0:
            (out[0] if isinstance(out, tuple) else out).asnumpy()
            self.probe.asnumpy()

    def timed_block(self, k: int) -> float:
        self.arm(k)
        start = TIMER()
        for _ in range(k):
            self()
        return TIMER() - start

    def warm_up(self, seconds: float, min_steps: int = 3) -> int:
        start, steps = TIMER(), 0
        while steps < min_steps or TIMER() - start < seconds:
            self.timed_block(1)
            steps += 1
        return steps


@contextmanager
def gc_off():
    """GC disabled for the blocks of both cells (pytest-benchmark only does it for its target)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def most_steps(seconds: float, per_step: float) -> int:
    """The largest power of two of steps of ``per_step`` seconds that last at most ``seconds``
    (at least one step): the steps of a block that must stay within a limit."""
    return 2 ** int(np.log2(max(1.0, seconds / max(per_step, 1e-9))))


def calibrate(
    stepper: Stepper,
    block_seconds: float,
    min_steps: int = 1,
    max_block: float = 0.25,
    max_k: int = 4096,
) -> tuple[int, float]:
    """Smallest power of two k whose block takes at least ``block_seconds``, and at least
    ``min_steps`` unless that block would exceed ``max_block``; returns (k, block time)."""
    k = 1
    if min_steps > 1:  # start where the block must be anyway, unless one step is already long
        one = stepper.timed_block(1)
        if one * min_steps <= max_block:
            k = 2 ** int(np.ceil(np.log2(min_steps)))
    while True:
        elapsed = stepper.timed_block(k)
        if elapsed >= block_seconds or k >= max_k:
            break
        k *= 2 if elapsed * 4 > block_seconds else 4
    if k < min_steps:
        per_step = elapsed / k
        cap = most_steps(max_block, per_step)
        k = max(k, min(min_steps, cap))
        elapsed = stepper.timed_block(k)
    return k, elapsed


def shorter(
    k: int,
    subject: Stepper,
    block_seconds: float,
    min_steps: int = 1,
    max_block: float = np.inf,
    min_block: float = 0.0,
) -> int:
    """Steps per block for a subject whose step is slower than its twin's: the smallest power of
    two up to ``k`` whose block still lasts ``block_seconds``, and at least ``min_steps`` (the
    mode's: PYNATIVE's blocks must drain the eager queue) unless that block would exceed
    ``max_block`` (as ``calibrate``): then the most steps whose block stays within it. The floor
    is there so a block outlasts the queue's drains (~4 ms slices); a block of 8 steps of 160 ms
    already does, and 64 of them made blocks of 10 s (a third of the clip's PYNATIVE timing).
    ``min_block`` (the race's base twin's block, which the floor made long enough): the floor
    is then the fewest steps whose block lasts that long, when they are fewer than the mode's
    (a 20 ms step: 2 steps match 64 of a 0.6 ms twin; 64 of them made 1.3 s blocks)."""
    one = subject.timed_block(1)  # one step's latency: at most its block share, so a guess
    need = 2 ** int(np.ceil(np.log2(max(1.0, block_seconds / max(one, 1e-9)))))
    floor = 2 ** int(np.ceil(np.log2(max(1, min_steps))))
    if min_block > 0:
        floor = min(floor, 2 ** int(np.ceil(np.log2(max(1.0, min_block / max(one, 1e-9))))))
    if one * floor > max_block:
        floor = most_steps(max_block, one)
    short = max(need, floor)
    while short < k and subject.timed_block(short) < max(block_seconds, min_block):
        short *= 2  # checked, as calibrate does
    return int(min(k, short))


MAX_SUBJECT_BLOCK = Precision.max_block_seconds  # the default tier's (seconds): a subject far
# slower than its twin gets a smaller k


def cap(k: int, subject: Stepper, control: Stepper, most: float = MAX_SUBJECT_BLOCK) -> int:
    """``k`` (calibrated on the twin), made smaller when the subject's block of k steps would
    last more than ``most`` seconds (the tier's ``max_block_seconds``) and 20 blocks of the twin
    (a host-side update against the bare forward can be thousands of times slower: one block
    would outlast the timeout)."""
    one, twin = subject.timed_block(1), control.timed_block(1)
    if one * k <= max(most, 20 * twin * k):
        return k
    return most_steps(most, one)


def rounds_for(seconds: float, round_s: float, low: int, high: int) -> int:
    return int(min(max(np.ceil(seconds / max(round_s, 1e-9)), low), high))


def abba(rounds: int, start: int = 0) -> list[str]:
    """Where each round's twin block goes: ``after``, ``before``, ``after``, ... (ABBA)."""
    return ["after" if (i + start) % 2 == 0 else "before" for i in range(rounds)]


class Pair:
    """A subject and its twin, and the paired twin blocks of a run of rounds."""

    def __init__(
        self, subject: Stepper, control: Stepper, k: int, positions: list[str], subject_k: int = 0
    ):
        self.subject, self.control, self.k = subject, control, k
        self.subject_k = subject_k or k  # the screen's slow subjects: shorter blocks (``shorter``)
        self.positions = positions  # per round: the twin block "before" or "after" it
        self.control_s: list[float] = []
        self.ended = 0  # rounds ended so far

    def _ready(self, cell: Stepper) -> None:
        """The same untimed preparation before every block: the twin gets the subject's state
        (as in a race, the subject keeps its own: writing a Parameter into itself can fail, e.g.
        once an in-place slice write left it a view in PYNATIVE_MODE), then a read."""
        if cell is not self.subject:
            self.subject.workload.sync_state(self.subject.params, cell.params)
        cell.probe.asnumpy()

    def control_block(self) -> None:
        self._ready(self.control)
        self.control_s.append(self.control.timed_block(self.k) / self.k)

    def _subject_next(self) -> None:
        self._ready(self.subject)
        self.subject.arm(self.subject_k)

    def begin(self) -> None:
        """Before the first subject block."""
        if self.positions and self.positions[0] == "before":
            self.control_block()
        self._subject_next()

    def end_round(self, *_) -> None:
        """After a subject block: its twin if "after", the next round's if "before"."""
        r = self.ended
        self.ended += 1
        if r >= len(self.positions):
            return  # pytest-benchmark's extra call after the last round
        if self.positions[r] == "after":
            self.control_block()
        if r + 1 < len(self.positions) and self.positions[r + 1] == "before":
            self.control_block()
        self._subject_next()

    def run_own_clock(self) -> list[float]:
        """The rounds without pytest-benchmark (the screen): subject per-step times."""
        times = []
        self.begin()
        for _ in self.positions:
            start = TIMER()
            for _ in range(self.subject_k):
                self.subject()
            times.append((TIMER() - start) / self.subject_k)
            self.end_round()
        return times

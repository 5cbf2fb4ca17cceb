"""What running a workload needs: its reference, state, inputs and one tolerance.

The part of a workload that the gate, the timed cells and the reproduction scripts share (the
shape template is ``template.py``). NumPy only at import time, so a reproduction script can carry
it. ``expect`` is the reference of one step *under the code's meaning* (``bench.measured.oracle``):
given the state the cell had when the step began, what the step outputs and what it writes.
"""

from __future__ import annotations

import numpy as np

from bench.measured.oracle import BEFORE, Expected

# A stale read must change at least this many of a step's output elements beyond the tolerance
# (and this fraction of them): more than rounding can, so it cannot pass the oracle by chance.
MIN_CHANGED, MIN_CHANGED_FRACTION = 8, 0.005


class Runtime:
    """The running interface every workload implements."""

    name: str
    size_label = "batch size"  # what the size a cell is timed at means
    size_symbol = "N"
    size_unit = ""  # e.g. "elements"
    gate_schedule: tuple[tuple[int, int], ...] = ()  # (size, steps) the gate runs
    rtol: float = 1e-5
    atol: float = 1e-6
    readings: dict = {}  # reading ("before" / "after") -> what it means for this workload
    trains = False  # its state class has a training loop (``before_step``) run before each step
    # The gradient the gate checks (``bench.measured.gradient``): of L = sum(y * cotangent)
    # with respect to construct's first argument (named ``grad_input``) and these trainable
    # Parameters (attribute names); () (the default): no gradient is checked, the step is the
    # cell's plain call.
    grad_weights: tuple[str, ...] = ()
    # the learning rate of plain SGD (``nn.SGD``) on those weights after each step's gradient:
    # the network trains as a training loop's does (0: the weights stay as built)
    train_lr = 0.0
    grad_input = "x"
    gradient_words = ""  # how the reference gradient is defined, in words (a note names it)

    # -- the reference ------------------------------------------------------------------------
    def make_inputs(self, size: int, seed: int, small: bool = False) -> tuple:
        """construct's arguments for one step at ``size``, as NumPy arrays."""
        raise NotImplementedError

    def initial_state(self, size: int) -> dict:
        raise NotImplementedError

    def expect(self, size: int, seed: int, state: dict, meaning: str, update: bool = True):
        """The gate's step ``seed`` at ``size`` from ``state`` (small inputs): an Expected."""
        raise NotImplementedError

    def loop_state(self, size: int, step: int) -> dict:
        """The Parameters a training loop sets before checked step ``step`` (from 1), as the
        NumPy reference runs the loop: {} for a workload without one."""
        return {}

    def observability(self, schedule=None) -> list[str]:
        """The observability contract, from the NumPy reference alone (no MindSpore): at every
        checked step of ``schedule`` (the gate's), run from the initial state as the code
        means, (a) the state the step writes differs from the state before it, so a dropped
        write shows; (b) where the workload reads its state, the output under the other
        reading differs from the code's in at least ``MIN_CHANGED`` elements (and
        ``MIN_CHANGED_FRACTION`` of them) beyond the tolerance, so a stale or early read
        shows. The problems, one line each naming the step and size ([]: kept)."""
        problems = []
        for size, count in schedule or self.gate_schedule:
            state = self.initial_state(size)
            for i in range(1, count + 1):
                where = f"step {i} ({self.size_symbol}={size})"
                want = self.expect(size, i - 1, state, BEFORE)
                for name, after in want.after.items():
                    old = np.asarray(state[name]).reshape(-1)
                    if self.matches(np.asarray(after).reshape(-1), old):
                        problems.append(f"{where}: {name} does not change (a dropped write hides)")
                for reading, other in want.other.items():
                    base, alt = np.asarray(want.output), np.asarray(other)
                    if base.shape != alt.shape:
                        continue
                    apart = int(np.sum(~np.isclose(alt, base, self.rtol, self.atol)))
                    need = max(MIN_CHANGED, int(np.ceil(MIN_CHANGED_FRACTION * base.size)))
                    if apart < need:
                        problems.append(
                            f"{where}: the output read {reading} the write differs from the "
                            f"code's in {apart} of {base.size} elements (at least {need} needed)"
                        )
                state = {k: np.asarray(v).reshape(-1) for k, v in want.after.items()}
        return problems

    def cotangent(self, inputs: tuple) -> np.ndarray:
        """The cotangent g of the gate's loss L = sum(y * g) for a step on ``inputs`` (NumPy),
        a function of the inputs alone (the gate's step sees nothing else)."""
        raise NotImplementedError

    def matches(self, got, want) -> bool:
        """The one tolerance of this workload: gate, timed check and repro all use it."""
        got, want = np.asarray(got), np.asarray(want)
        return got.shape == want.shape and bool(np.allclose(got, want, self.rtol, self.atol))

    def describe_output(self, out, expected: Expected) -> str:
        """The values an output shows it used, in words (``""`` when nothing can be said)."""
        return ""

    # -- the cell -----------------------------------------------------------------------------
    def build(self, variant_class, size: int | None = None):
        """A fresh cell and the Parameters it starts with (observed by identity, not by name)."""
        cell = variant_class()
        return cell, dict(cell.parameters_and_names())

    @property
    def read_names(self) -> tuple[str, ...]:
        """The Parameters a step's reference reads: the state, and those a training loop sets,
        which the reference takes as they are (the weights the gate trains, ``grad_weights``
        with ``train_lr``; an EMA's weights: its own list)."""
        return (*self.state_names, *(self.grad_weights if self.train_lr else ()))

    def observe(self, params: dict) -> dict:
        """The state (float32 arrays) read from the Parameters a cell started with."""
        return {n: params[n].asnumpy().astype(np.float32).reshape(-1) for n in self.read_names}

    def probe(self, params: dict):
        """The Parameter a step writes last: reading it waits for the step's writes."""
        raise NotImplementedError

    def sync_state(self, source: dict, target: dict) -> None:
        """Give ``target`` (a cell's Parameters) the state of ``source`` where the step's cost
        depends on it; done the same way before every timed block, subject's and twin's."""

    # -- the timed cells' final check -----------------------------------------------------------
    def after_steps(self, steps: int, size: int, update: bool = True) -> dict:
        """A summary of the state after ``steps`` full-size steps (closed form)."""
        raise NotImplementedError

    def final_state(self, params: dict, size: int) -> dict:
        """The same summary, read from a cell's Parameters."""
        return {k: np.asarray(v).reshape(-1).tolist() for k, v in self.observe(params).items()}

    def final_matches(self, final: dict, want: dict) -> bool:
        """The timed check: the final summary against ``after_steps`` (a looser tolerance, as
        hundreds of float32 steps accumulate rounding)."""
        return all(
            np.allclose(np.asarray(final[k]).reshape(-1), np.asarray(v).reshape(-1), 1e-4, 1e-5)
            for k, v in want.items()
        )

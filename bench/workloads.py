"""Workloads: what the cell computes, its NumPy reference, and how its state is observed.

A workload turns a strategy's cell class into something to gate and time. ``clip`` is the
adaptive-clip cell of the original report; ``brn`` is Batch Renormalization, whose state the
strategy writes through the same ``write(param, value)``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from bench import brn_spec, spec


@dataclass(frozen=True)
class Expected:
    """One reference step: input, output, and the state before and after."""

    input: np.ndarray
    output: np.ndarray
    before: dict[str, np.ndarray]
    after: dict[str, np.ndarray]
    hint: str = ""


@dataclass(frozen=True)
class Workload:
    name: str
    description: str
    gate_batch_sizes: tuple[int, ...]
    rtol: float
    atol: float

    def inexpressible(self, strategy) -> str | None:
        """Why ``strategy`` cannot express this workload's updates, or None if it can."""
        if strategy.workloads is not None and self.name not in strategy.workloads:
            return (
                f"it declares WORKLOADS = {strategy.workloads!r} (no general write(param, value))"
            )
        return None


class Clip(Workload):
    def build(self, strategy):
        return strategy.cell_class()

    def build_control(self, layout: str):
        from bench.cell import control_for

        return control_for(layout)()

    def make_input(self, n: int, seed: int) -> np.ndarray:
        return spec.make_input(n, seed)

    def reference(self, n, steps, seed, update=True) -> Iterator[Expected]:
        inputs = (spec.make_input(n, seed + i) for i in range(steps))
        for ref in spec.reference(inputs, spec.INITIAL_LIMIT, update=update):
            yield Expected(
                ref.input,
                ref.output,
                {"limit": ref.limit_before},
                {"limit": ref.limit_after},
                f"clip limit should be {ref.limit_before:.6g}",
            )

    def observe(self, cell) -> dict[str, np.ndarray]:
        from bench.cell import read_limit

        return {"limit": read_limit(cell)}

    def copy_state(self, source, target) -> None:
        """Give the control the subject's limit: the clip's cost depends on it."""
        from bench.cell import read_limit, write_limit

        write_limit(target, read_limit(source))

    def after_steps(self, steps: int, n: int, update: bool = True) -> dict[str, np.ndarray]:
        limit = np.float32(spec.INITIAL_LIMIT)
        for _ in range(steps if update else 0):
            limit = spec.next_limit(limit, n)
            if limit >= spec.MAX_LIMIT:
                break
        return {"limit": limit}


class BatchRenormalization(Workload):
    def build(self, strategy):
        from bench.brn import brn_cell

        return brn_cell(strategy.cell_class)()

    def build_control(self, layout: str):
        from bench.brn import brn_cell
        from bench.cell import control_for

        return brn_cell(control_for(layout))()

    def make_input(self, n: int, seed: int) -> np.ndarray:
        return brn_spec.make_input(n, seed)

    def reference(self, n, steps, seed, update=True) -> Iterator[Expected]:
        gamma = np.ones(brn_spec.CHANNELS, np.float32)
        beta = np.zeros(brn_spec.CHANNELS, np.float32)
        state = brn_spec.State.initial()
        for i in range(steps):
            x = brn_spec.make_input(n, seed + i)
            y, after, _ = brn_spec.train_step(x, gamma, beta, state, update=update)
            yield Expected(x, y, state.as_dict(), after.as_dict())
            state = after

    def observe(self, cell) -> dict[str, np.ndarray]:
        return cell.state()

    def copy_state(self, source, target) -> None:
        """Nothing to copy: the step's cost does not depend on the state's values."""

    def after_steps(self, steps: int, n: int, update: bool = True) -> dict[str, np.ndarray]:
        step = steps if update else 0
        r_max, d_max = brn_spec.schedule(step)
        return {"step": np.float32(step), "r_max": r_max, "d_max": d_max}


WORKLOADS = {
    "clip": Clip(
        "clip", "the adaptive-clip cell of the original report", (4, 1024), rtol=1e-5, atol=1e-6
    ),
    "brn": BatchRenormalization(
        "brn",
        "Batch Renormalization (r_max, d_max, moving statistics updated every step)",
        (4, 64),
        rtol=1e-4,
        atol=1e-4,
    ),
}


def get(name: str) -> Workload:
    try:
        return WORKLOADS[name]
    except KeyError:
        raise ValueError(f"unknown workload {name!r} (valid: {', '.join(WORKLOADS)})") from None

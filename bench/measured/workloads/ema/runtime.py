"""Running the EMA of a network's weights: the reference of a step, inputs, tolerance."""

from __future__ import annotations

import numpy as np

from bench.measured.oracle import Expected
from bench.measured.workloads.ema.spec import (
    EVENT_WORDS,
    RELOAD,
    SET_DATA,
    WEIGHT_NAMES,
    ema_after,
    ema_update,
    event,
    initial,
    replaced,
    shapes_for,
    weights_at,
)
from bench.measured.workloads.runtime import Runtime


class EMARuntime(Runtime):
    name = "ema"
    size_label = "weight elements E"
    size_symbol = "E"
    size_unit = "elements"
    # 10 calls: SGD steps, a checkpoint reload before call 5, set_data before call 8 (spec)
    gate_schedule = ((2_000, 10),)
    # MindSpore's SGD and NumPy's agree to 6e-8 on these weights (2.10.0, CPU, 10 steps)
    rtol, atol = 1e-5, 1e-6
    readings = {}
    trains = True  # EMA.before_step: an SGD step, or the weights replaced (spec.event)
    state_names = ("ema0", "ema1", "ema2", "ema3")  # one EMA Parameter per weight
    # the network's weights as the training loop leaves them: the reference of a step reads
    # them (the EMA is judged against the weights there are, whatever the optimizer did)
    read_names = (*state_names, *WEIGHT_NAMES)

    def make_inputs(self, size: int, seed: int, small: bool = False) -> tuple:
        return (np.zeros((1,), np.float32),)

    def initial_state(self, size: int) -> dict:
        _, emas = initial(shapes_for(size))
        return {f"ema{i}": e.reshape(-1) for i, e in enumerate(emas)}

    def expect(self, size, seed, state, meaning, update=True):
        shapes = shapes_for(size)
        checked = seed + 1  # the checked step, from 1: the weights after its training event
        emas = [np.asarray(state[f"ema{i}"], np.float32).reshape(s) for i, s in enumerate(shapes)]
        # the weights the cell has now, where they were read; else the NumPy training loop's
        now = state if all(n in state for n in WEIGHT_NAMES) else self.loop_state(size, checked)
        weights = [np.asarray(now[n], np.float32).reshape(s) for n, s in zip(WEIGHT_NAMES, shapes)]
        after = ema_update(emas, weights) if update else emas
        first = replaced(checked)
        outdated = {}
        if update and first:  # a copy of the weights' memory from before the first replacement
            old = ema_update(emas, weights_at(shapes, first - 1))
            outdated = {f"ema{i}": e.reshape(-1) for i, e in enumerate(old)}
        x = np.zeros((1,), np.float32)
        return Expected(
            (x,),
            x,
            {f"ema{i}": e.reshape(-1) for i, e in enumerate(after)},
            outdated=outdated,
            event=EVENT_WORDS.get(event(checked), ""),
        )

    def loop_state(self, size: int, step: int) -> dict:
        """The weights during checked step ``step`` as the NumPy training loop has them."""
        now = weights_at(shapes_for(size), step)
        return {n: w.reshape(-1) for n, w in zip(WEIGHT_NAMES, now)}

    def observability(self, schedule=None) -> list[str]:
        """The runtime's contract, and: the weights change before every checked step."""
        problems = super().observability(schedule)
        for size, count in schedule or self.gate_schedule:
            done = {event(i) for i in range(1, count + 1)}
            for replacement in (RELOAD, SET_DATA):
                if replacement not in done:
                    problems.append(
                        f"{self.size_symbol}={size}: no {replacement} within the {count} "
                        "checked calls (a copy of the weights' old memory would pass)"
                    )
            shapes = shapes_for(size)
            for i in range(1, count + 1):
                now, then = weights_at(shapes, i), weights_at(shapes, i - 1)
                if all(np.allclose(a, b, self.rtol, self.atol) for a, b in zip(now, then)):
                    problems.append(
                        f"step {i} ({self.size_symbol}={size}): the weights do not change"
                    )
        return problems

    def build(self, variant_class, size=None):
        cell = variant_class(size or self.gate_schedule[0][0])
        return cell, dict(cell.parameters_and_names())

    def probe(self, params: dict):
        return params[self.state_names[-1]]  # written last

    def final_state(self, params: dict, size: int) -> dict:
        emas = [params[n].asnumpy() for n in self.state_names]
        return {"ema_mean": [float(np.mean(np.concatenate([e.ravel() for e in emas])))]}

    def after_steps(self, steps: int, size: int, update: bool = True) -> dict:
        weights, _ = initial(shapes_for(size))
        mean = float(np.mean(np.concatenate([w.ravel() for w in weights])))
        return {"ema_mean": [ema_after(steps if update else 0, mean)]}


RUNTIME = EMARuntime()

"""Running the EMA of weights: the reference of a step from any EMAs, inputs, tolerance."""

from __future__ import annotations

import numpy as np

from bench.measured.oracle import Expected
from bench.measured.workloads.ema.spec import ema_after, initial, shapes_for, step
from bench.measured.workloads.runtime import Runtime


class EMARuntime(Runtime):
    name = "ema"
    size_label = "weight elements E"
    size_symbol = "E"
    size_unit = "elements"
    gate_schedule = ((2_000, 4),)
    rtol, atol = 1e-5, 1e-6
    readings = {}

    @property
    def state_names(self):  # one EMA Parameter per weight of the small CNN
        return tuple(f"ema{i}" for i in range(10))

    def make_inputs(self, size: int, seed: int, small: bool = False) -> tuple:
        return (np.zeros((1,), np.float32),)

    def initial_state(self, size: int) -> dict:
        _, emas = initial(shapes_for(size))
        return {f"ema{i}": e.reshape(-1) for i, e in enumerate(emas)}

    def expect(self, size, seed, state, meaning, update=True):
        weights, _ = initial(shapes_for(size))
        emas = [
            np.asarray(state[f"ema{i}"], np.float32).reshape(w.shape) for i, w in enumerate(weights)
        ]
        after = step(emas, weights) if update else emas
        x = np.zeros((1,), np.float32)
        return Expected((x,), x, {f"ema{i}": e.reshape(-1) for i, e in enumerate(after)})

    def build(self, variant_class, size=None):
        cell = variant_class(size or self.gate_schedule[0][0])
        return cell, dict(cell.parameters_and_names())

    def probe(self, params: dict):
        return params[self.state_names[-1]]  # written last

    def final_state(self, params: dict, size: int) -> dict:
        emas = [v.asnumpy() for k, v in sorted(params.items()) if k.startswith("ema")]
        return {"ema_mean": [float(np.mean(np.concatenate([e.ravel() for e in emas])))]}

    def after_steps(self, steps: int, size: int, update: bool = True) -> dict:
        weights, _ = initial(shapes_for(size))
        mean = float(np.mean(np.concatenate([w.ravel() for w in weights])))
        return {"ema_mean": [ema_after(steps if update else 0, mean)]}


RUNTIME = EMARuntime()

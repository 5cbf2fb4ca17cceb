"""Running the KV cache: the reference of a step from any cache, inputs, tolerance."""

from __future__ import annotations

import numpy as np

from bench.measured.oracle import AFTER, BEFORE, Expected
from bench.measured.workloads.kvcache.spec import KV_STATE, B, D, H, make_row, position
from bench.measured.workloads.runtime import Runtime


def _read(cache: np.ndarray, t: int) -> np.ndarray:
    length = cache.shape[2]
    return cache[:, :, t : t + 1] + cache[:, :, (t - 1) % length : (t - 1) % length + 1]


class KVCacheRuntime(Runtime):
    name = "kvcache"
    size_label = "cache length T"
    size_symbol = "T"
    size_unit = "positions"
    gate_schedule = ((8, 11),)  # T = 8: t advances, wraps around, overwrites
    rtol, atol = 1e-6, 1e-6
    state_names = KV_STATE
    readings = {
        BEFORE: "the cache from before this step's row was written",
        AFTER: "the cache with this step's row",
    }

    def make_inputs(self, size: int, seed: int, small: bool = False) -> tuple:
        if small:  # the gate: row `seed`, written at position `seed` (it advances and wraps)
            return make_row(seed), position(size, seed)
        return make_row(0), position(size, size // 2)  # timed: one row, at T // 2

    def initial_state(self, size: int) -> dict:
        return {"cache": np.zeros(B * H * size * D, np.float32)}

    def expect(self, size, seed, state, meaning, update=True):
        row, t = self.make_inputs(size, seed, small=True)
        cache = np.asarray(state["cache"], np.float32).reshape(B, H, size, D)
        outputs = {BEFORE: _read(cache, int(t[0]))}
        after = cache.copy()
        if update:
            after[:, :, int(t[0]) : int(t[0]) + 1] = row
        outputs[AFTER] = _read(after, int(t[0]))
        other = {k: v for k, v in outputs.items() if k != meaning}
        return Expected((row, t), outputs[meaning], {"cache": after.reshape(-1)}, other)

    def build(self, variant_class, size=None):
        cell = variant_class(size or self.gate_schedule[0][0])
        return cell, dict(cell.parameters_and_names())

    def probe(self, params: dict):
        return params["cache"]

    def final_state(self, params: dict, size: int) -> dict:
        cache = params["cache"].asnumpy()
        t = size // 2
        return {"row_at_t": [float(cache[:, :, t].sum())], "everything": [float(cache.sum())]}

    def after_steps(self, steps: int, size: int, update: bool = True) -> dict:
        row = float(make_row(0).sum()) if update and steps else 0.0
        return {"row_at_t": [row], "everything": [row]}


RUNTIME = KVCacheRuntime()

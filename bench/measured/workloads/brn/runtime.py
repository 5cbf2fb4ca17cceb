"""Running Batch Renormalization: the reference of a step from any state, inputs, tolerance."""

from __future__ import annotations

import numpy as np

from bench.measured.oracle import AFTER, BEFORE, Expected
from bench.measured.workloads.brn.spec import (
    BRN_STATE,
    CHANNELS,
    TRAIN_LR,
    State,
    cotangent,
    grads,
    make_batch,
    schedule,
    train_step,
)
from bench.measured.workloads.runtime import Runtime

GAMMA = np.ones(CHANNELS, np.float32)
BETA = np.zeros(CHANNELS, np.float32)


def _state(values: dict) -> State:
    def one(name):
        return np.float32(np.asarray(values[name]).reshape(-1)[0])

    return State(
        np.asarray(values["moving_mean"], np.float32).reshape(-1),
        np.asarray(values["moving_var"], np.float32).reshape(-1),
        one("r_max"),
        one("d_max"),
        one("step"),
    )


class BRNRuntime(Runtime):
    name = "brn"
    # r_max and d_max ramp over 8 steps (RAMP_STEPS) and reach their end at the last checked
    # call: every state Parameter changes at every call (the observability contract)
    gate_schedule = ((16, 8),)
    rtol, atol = 1e-4, 1e-4
    state_names = BRN_STATE
    grad_weights = ("gamma", "beta")  # the gate checks d L / d x, d gamma, d beta every step
    train_lr = TRAIN_LR  # and trains gamma and beta with nn.SGD on them after each step
    gradient_words = "r and d held constant"
    readings = {
        BEFORE: "the statistics and bounds from before the step's writes",
        AFTER: "the statistics and bounds the step writes",
    }

    def make_inputs(self, size: int, seed: int, small: bool = False) -> tuple:
        return (make_batch(size, seed, (4, 4) if small else (32, 32)),)

    def initial_state(self, size: int) -> dict:
        return {
            k: np.asarray(v, np.float32).reshape(-1) for k, v in State.initial().as_dict().items()
        }

    def expect(self, size, seed, state, meaning, update=True):
        (x,) = self.make_inputs(size, seed, small=True)
        old = _state(state)
        # gamma and beta as the optimizer left them (read), else as built
        gamma = np.asarray(state.get("gamma", GAMMA), np.float32).reshape(-1)
        beta = np.asarray(state.get("beta", BETA), np.float32).reshape(-1)
        y_old, new, _ = train_step(x, gamma, beta, old, update=update)
        y_new, _, _ = train_step(x, gamma, beta, new, update=False)
        outputs = {BEFORE: y_old, AFTER: y_new}
        after = {k: np.asarray(v, np.float32).reshape(-1) for k, v in new.as_dict().items()}
        other = {k: v for k, v in outputs.items() if k != meaning}
        read = new if meaning == AFTER else old  # the state the output is computed from
        grad = grads(x, gamma, beta, read, cotangent(x))
        return Expected((x,), outputs[meaning], after, other, grad)

    def cotangent(self, inputs: tuple) -> np.ndarray:
        return cotangent(inputs[0])

    def probe(self, params: dict):
        return params["d_max"]

    def after_steps(self, steps: int, size: int, update: bool = True):
        step = steps if update else 0
        r_max, d_max = schedule(step)
        return {
            "step": np.asarray([step], np.float32),
            "r_max": np.asarray([r_max], np.float32),
            "d_max": np.asarray([d_max], np.float32),
        }


RUNTIME = BRNRuntime()

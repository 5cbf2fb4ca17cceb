"""Batch Renormalization (Ioffe, 2017), specified once in NumPy: the reference for the BRN workload.

Training step on an N x C x H x W batch, statistics per channel over (N, H, W):

    mu_B, var_B = batch mean and (biased) variance;  sigma_B = sqrt(var_B + EPS)
    sigma = sqrt(moving_var + EPS)
    r = clip(sigma_B / sigma, 1 / r_max, r_max)          (constants for gradients)
    d = clip((mu_B - moving_mean) / sigma, -d_max, d_max)
    y = gamma * ((x - mu_B) / sigma_B * r + d) + beta

then the state is updated with the values of this step: moving_mean += MOMENTUM * (mu_B -
moving_mean), likewise moving_var with var_B; step += 1; r_max and d_max follow the schedule of the
new step (r_max ramps 1 -> 3, d_max 0 -> 5 over ``ramp_steps``). Inference uses the moving
statistics. All in float32 (the statistics in float64, then rounded, which float32 matches to
the tolerances the gate uses).

The gradient the gate checks (``grads``) is that of L = sum(y * g) for a cotangent g, with r and d
constants (``stop_gradient``, as the paper defines them).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, replace

import numpy as np

CHANNELS = 3
EPS = 1e-5
MOMENTUM = 0.1
TRAIN_LR = 0.01  # the gate trains gamma and beta by SGD at this rate (nn.SGD), every step
RAMP_STEPS = 8  # r_max and d_max reach their end at the gate's last checked call (its 8th)
R_MAX_END, D_MAX_END = 3.0, 5.0
AXES = (0, 2, 3)
BRN_STATE = ("moving_mean", "moving_var", "r_max", "d_max", "step")  # written every step
DTYPE = np.float32
# Per-channel scale and shift of the input, so batch and moving statistics differ and r, d clip.
INPUT_SCALE = np.array([1.0, 2.0, 0.5], DTYPE).reshape(1, CHANNELS, 1, 1)
INPUT_SHIFT = np.array([0.5, -1.0, 2.0], DTYPE).reshape(1, CHANNELS, 1, 1)


def schedule(step, ramp_steps: int = RAMP_STEPS) -> tuple[np.float32, np.float32]:
    """(r_max, d_max) after ``step`` steps."""
    frac = min(float(step) / ramp_steps, 1.0)
    return DTYPE(1.0 + (R_MAX_END - 1.0) * frac), DTYPE(D_MAX_END * frac)


def make_batch(batch_size: int, seed: int = 0, spatial=(32, 32)) -> np.ndarray:
    """An N x C x H x W float32 batch with per-channel scale and shift."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch_size, CHANNELS, *spatial), dtype=DTYPE)
    return (x * INPUT_SCALE + INPUT_SHIFT).astype(DTYPE)


@dataclass(frozen=True)
class State:
    moving_mean: np.ndarray
    moving_var: np.ndarray
    r_max: np.float32
    d_max: np.float32
    step: np.float32

    @classmethod
    def initial(cls) -> State:
        r_max, d_max = schedule(0)
        return cls(np.zeros(CHANNELS, DTYPE), np.ones(CHANNELS, DTYPE), r_max, d_max, DTYPE(0.0))

    def as_dict(self) -> dict[str, np.ndarray]:
        return {k: np.asarray(getattr(self, k), DTYPE) for k in self.__dataclass_fields__}


def _channel(v):
    return np.asarray(v).reshape(1, -1, 1, 1)


def train_step(x, gamma, beta, state: State, ramp_steps: int = RAMP_STEPS, update: bool = True):
    """(y, new state, cache for backward) of one training step."""
    x64 = x.astype(np.float64)
    mean, var = x64.mean(axis=AXES), x64.var(axis=AXES)
    sigma_b = np.sqrt(var + EPS)
    sigma = np.sqrt(state.moving_var.astype(np.float64) + EPS)
    r = np.clip(sigma_b / sigma, 1.0 / state.r_max, state.r_max)
    d = np.clip((mean - state.moving_mean) / sigma, -state.d_max, state.d_max)
    xhat = (x64 - _channel(mean)) / _channel(sigma_b) * _channel(r) + _channel(d)
    y = (_channel(gamma) * xhat + _channel(beta)).astype(DTYPE)
    if not update:
        return y, state, (xhat, r, sigma_b)
    step = DTYPE(state.step + 1)
    r_max, d_max = schedule(step, ramp_steps)
    new = replace(
        state,
        moving_mean=(state.moving_mean + MOMENTUM * (mean - state.moving_mean)).astype(DTYPE),
        moving_var=(state.moving_var + MOMENTUM * (var - state.moving_var)).astype(DTYPE),
        r_max=r_max,
        d_max=d_max,
        step=step,
    )
    return y, new, (xhat, r, sigma_b)


def param_grads(dy, cache) -> tuple[np.ndarray, np.ndarray]:
    """d loss / d gamma and d loss / d beta, given d loss / d y."""
    xhat = cache[0]
    dy = dy.astype(np.float64)
    return (dy * xhat).sum(axis=AXES).astype(DTYPE), dy.sum(axis=AXES).astype(DTYPE)


def infer(x, gamma, beta, state: State) -> np.ndarray:
    """Inference: normalize with the moving statistics."""
    sigma = np.sqrt(state.moving_var.astype(np.float64) + EPS)
    xhat = (x - _channel(state.moving_mean)) / _channel(sigma)
    return (_channel(gamma) * xhat + _channel(beta)).astype(DTYPE)


def cotangent(x: np.ndarray) -> np.ndarray:
    """The fixed random cotangent g of the gate's loss L = sum(y * g) for the input ``x`` (of the
    shape of y): standard normal, seeded by x's bytes, so the step's seed (which made x) fixes it
    and the gate's step, which only sees x, draws the same g as the reference."""
    data = np.ascontiguousarray(x, DTYPE)
    return np.random.default_rng(zlib.crc32(data.tobytes())).standard_normal(x.shape, dtype=DTYPE)


def grads(x, gamma, beta, state: State, dy) -> dict[str, np.ndarray]:
    """d L / d x, d L / d gamma and d L / d beta of a training step from ``state``, given
    ``dy`` = d L / d y, with r and d constants (Ioffe 2017, section 3: "treated as constants
    for the purposes of gradient computation"), derived by hand:

        x_n = (x - mu_B) / sigma_B,  xhat = r * x_n + d,  y = gamma * xhat + beta
        dL/dbeta = sum dy,  dL/dgamma = sum dy * xhat          (sums over N, H, W per channel)
        dxhat = dy * gamma
        dL/dx = r / sigma_B * (dxhat - mean(dxhat) - x_n * mean(dxhat * x_n))

    the batch-norm gradient scaled by r: mu_B and sigma_B = sqrt(var_B + EPS) are functions of
    x (d sigma_B / d x_i = (x_i - mu_B) / (m sigma_B), m = N H W), r and d are not. Float64
    inside, float32 out."""
    del beta  # y is affine in beta: its gradient does not depend on it
    _, _, (xhat, r, sigma_b) = train_step(x, gamma, np.zeros_like(gamma), state, update=False)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=AXES)
    xn = (x64 - _channel(mean)) / _channel(sigma_b)
    dy = dy.astype(np.float64)
    dxhat = dy * _channel(np.asarray(gamma, np.float64))
    dx = _channel(r / sigma_b) * (
        dxhat
        - dxhat.mean(axis=AXES, keepdims=True)
        - xn * (dxhat * xn).mean(axis=AXES, keepdims=True)
    )
    return {
        "x": dx.astype(DTYPE),
        "gamma": (dy * xhat).sum(axis=AXES).astype(DTYPE),
        "beta": dy.sum(axis=AXES).astype(DTYPE),
    }

"""Batch Renormalization in MindSpore: the state and the math once (``spec.py`` is its NumPy twin).

A variant class is ``class Variant(BatchRenorm, Cell)`` with ``construct`` rendered per code
shape (``bench.measured.workloads.brn``), so every state write is the strategy's own code, pasted
inline, called as its ``write`` method, or wrapped in ``ops.depend``.
"""

from __future__ import annotations

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops

from bench.measured.workloads.brn.spec import (
    BRN_STATE,
    CHANNELS,
    D_MAX_END,
    EPS,
    MOMENTUM,
    R_MAX_END,
    RAMP_STEPS,
    schedule,
)
from bench.strategy import LAYOUTS


def _param(name, value, shape, trainable=False):
    return Parameter(Tensor(np.full(shape, value, np.float32)), name=name, requires_grad=trainable)


class BatchRenorm(nn.Cell):
    """Training-mode Batch Renormalization of N x C x H x W input (mixed with a strategy cell).

    ``layout`` comes from the strategy's cell (or the generated control's class)."""

    def __init__(self, ramp_steps: int = RAMP_STEPS):
        super().__init__()  # the strategy's __init__ too (e.g. an ops.Assign() it keeps)
        one = LAYOUTS[self.layout]  # r_max, d_max and step: 0-d, or (1,) for index-based writes
        r_max, d_max = schedule(0, ramp_steps)
        self.gamma = _param("gamma", 1.0, (CHANNELS,), trainable=True)
        self.beta = _param("beta", 0.0, (CHANNELS,), trainable=True)
        self.moving_mean = _param("moving_mean", 0.0, (CHANNELS,))
        self.moving_var = _param("moving_var", 1.0, (CHANNELS,))
        self.r_max = _param("r_max", r_max, one)
        self.d_max = _param("d_max", d_max, one)
        self.step = _param("step", 0.0, one)
        self.ramp_steps = Tensor(float(ramp_steps), ms.float32)
        self.momentum = Tensor(MOMENTUM, ms.float32)
        self.eps = Tensor(EPS, ms.float32)
        self.r_span = Tensor(R_MAX_END - 1.0, ms.float32)
        self.d_end = Tensor(D_MAX_END, ms.float32)

    def construct(self, x):
        """The shape ``helper-param-method-base``: variants inherit it from this module."""
        mean = x.mean(axis=(0, 2, 3))
        centered = x - mean.reshape((1, -1, 1, 1))
        var = (centered * centered).mean(axis=(0, 2, 3))
        sigma_b = ops.sqrt(var + self.eps)
        sigma = ops.sqrt(self.moving_var + self.eps)
        r = ops.stop_gradient(ops.clip_by_value(sigma_b / sigma, 1.0 / self.r_max, self.r_max))
        d = (mean - self.moving_mean) / sigma
        d = ops.stop_gradient(ops.clip_by_value(d, -self.d_max, self.d_max))
        xhat = centered / sigma_b.reshape((1, -1, 1, 1)) * r.reshape((1, -1, 1, 1))
        xhat = xhat + d.reshape((1, -1, 1, 1))
        y = self.gamma.reshape((1, -1, 1, 1)) * xhat + self.beta.reshape((1, -1, 1, 1))
        self.update_state(ops.stop_gradient(mean), ops.stop_gradient(var))
        return y

    def update_state(self, mean, var):
        step = self.step + 1.0
        frac = ops.minimum(step / self.ramp_steps, 1.0)
        self.write(self.moving_mean, self.moving_mean + self.momentum * (mean - self.moving_mean))
        self.write(self.moving_var, self.moving_var + self.momentum * (var - self.moving_var))
        self.write(self.step, step)
        self.write(self.r_max, 1.0 + self.r_span * frac)
        self.write(self.d_max, self.d_end * frac)

    def after_step(self, out, x):
        return out

    def state(self) -> dict[str, np.ndarray]:
        """The state as NumPy float32 (waits for pending work)."""
        return {n: getattr(self, n).asnumpy().astype(np.float32).reshape(-1) for n in BRN_STATE}

    def infer(self, x):
        """Inference mode: normalize with the moving statistics (no state change)."""
        sigma = ops.sqrt(self.moving_var + self.eps).reshape((1, -1, 1, 1))
        xhat = (x - self.moving_mean.reshape((1, -1, 1, 1))) / sigma
        return self.gamma.reshape((1, -1, 1, 1)) * xhat + self.beta.reshape((1, -1, 1, 1))

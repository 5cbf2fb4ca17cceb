"""Batch Renormalization as a PYNATIVE_MODE user writes it: the running statistics and the
r_max / d_max bounds are updated with ``Parameter.set_data`` inside ``construct`` (like the
original report). Check it: ``nox -s check -- examples/brn_pynative.py:BatchRenorm``."""

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops


class BatchRenorm(nn.Cell):
    def __init__(self, features=8, momentum=0.1, eps=1e-5):
        super().__init__()
        self.momentum, self.eps = momentum, eps
        self.gamma = Parameter(Tensor(np.ones(features, np.float32)), name="gamma")
        self.beta = Parameter(Tensor(np.zeros(features, np.float32)), name="beta")
        self.moving_mean = Parameter(Tensor(np.zeros(features, np.float32)), requires_grad=False)
        self.moving_var = Parameter(Tensor(np.ones(features, np.float32)), requires_grad=False)
        self.r_max = Parameter(Tensor(1.0, ms.float32), requires_grad=False)
        self.d_max = Parameter(Tensor(0.0, ms.float32), requires_grad=False)

    def construct(self, x):
        mean = x.mean(axis=0)
        var = ((x - mean) ** 2).mean(axis=0)
        std = ops.sqrt(var + self.eps)
        running_std = ops.sqrt(self.moving_var + self.eps)
        r = ops.clip_by_value(ops.stop_gradient(std / running_std), 1 / self.r_max, self.r_max)
        d = ops.clip_by_value(
            ops.stop_gradient((mean - self.moving_mean) / running_std), -self.d_max, self.d_max
        )
        out = self.gamma * ((x - mean) / std * r + d) + self.beta
        self.moving_mean.set_data(self.moving_mean + self.momentum * (mean - self.moving_mean))
        self.moving_var.set_data(self.moving_var + self.momentum * (var - self.moving_var))
        self.r_max.set_data(ops.minimum(self.r_max + 0.5, 3.0))
        self.d_max.set_data(ops.minimum(self.d_max + 1.25, 5.0))
        return out


def make_cell():
    return BatchRenorm()


def make_inputs(step):
    rng = np.random.default_rng(step)
    return (rng.standard_normal((16, 8)).astype(np.float32) * 2 + 0.5,)

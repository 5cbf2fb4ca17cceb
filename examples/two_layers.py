"""A small net of two Batch Renormalization layers (the suite's GRAPH_MODE answer, ``ops.Assign()``)
in a ``SequentialCell``: two instances of one class in one process. Check it:
``nox -s check -- examples/two_layers.py:TwoLayers``."""

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
        self.assign_op = ops.Assign()

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
        self.assign_op(
            self.moving_mean, self.moving_mean + self.momentum * (mean - self.moving_mean)
        )
        self.assign_op(self.moving_var, self.moving_var + self.momentum * (var - self.moving_var))
        self.assign_op(self.r_max, ops.minimum(self.r_max + 0.5, 3.0))
        self.assign_op(self.d_max, ops.minimum(self.d_max + 1.25, 5.0))
        return out


class TwoLayers(nn.SequentialCell):
    def __init__(self):
        super().__init__([BatchRenorm(8), nn.ReLU(), BatchRenorm(8)])


def make_cell():
    return TwoLayers()


def make_inputs(step):
    rng = np.random.default_rng(step)
    return (rng.standard_normal((16, 8)).astype(np.float32) * 2 + 0.5,)

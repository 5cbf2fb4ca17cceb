"""An EMA of a layer's weights with each write inside ``ops.depend`` (``x = ops.depend(x,
ops.assign_add(ema, new - ema))``), as a layer of a network has it: a network has many layers of
one class. Under ``jit(capture_mode="bytecode")`` the first instance of the class writes and
every later instance never does (DESIGN.md); the check builds a second instance in its first
process and shows it. Measured here: two such layers inside one net whose ``construct`` is
captured as a whole both write; it is a layer compiled on its own (its ``construct`` captured,
as the check does and as ``@jit`` on the layer's ``construct`` does) whose second instance
drops its writes. Check it: ``nox -s check -- examples/ema_layers.py:WeightEma``."""

import numpy as np
from mindspore import Parameter, ParameterTuple, Tensor, nn, ops


class WeightEma(nn.Cell):
    def __init__(self, shapes=((8, 4), (4,)), decay=0.5):
        super().__init__()
        rng = np.random.default_rng(0)
        self.weights = ParameterTuple(
            [
                Parameter(Tensor(rng.standard_normal(s).astype(np.float32)), name=f"w{i}",
                          requires_grad=False)
                for i, s in enumerate(shapes)
            ]
        )  # fmt: skip
        self.emas = ParameterTuple(
            [
                Parameter(Tensor(np.zeros(s, np.float32)), name=f"ema{i}", requires_grad=False)
                for i, s in enumerate(shapes)
            ]
        )
        self.decay = decay

    def construct(self, x):
        for ema, w in zip(self.emas, self.weights):
            new = self.decay * ema + (1 - self.decay) * w
            x = ops.depend(x, ops.assign_add(ema, new - ema))
        return x


def make_cell():
    return WeightEma()


def make_inputs(step):
    return (np.full((2,), step, np.float32),)

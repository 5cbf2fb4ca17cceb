"""The EMA of a model's weights in MindSpore: the state; a variant adds the loop of writes.

A variant class is ``class Variant(EMA, Cell)``: ``construct(x)`` loops over the (ema, weight)
pairs and writes ``DECAY * ema + (1 - DECAY) * w`` into each EMA with the strategy's code.
"""

from __future__ import annotations

import mindspore as ms
from mindspore import Parameter, ParameterTuple, Tensor, nn

from bench.measured.workloads.ema.spec import DECAY, initial, shapes_for


class EMA(nn.Cell):
    """Weights and their EMAs as ParameterTuples; ``layout`` comes from the strategy's cell."""

    def __init__(self, size: int = 1000):
        super().__init__()
        weights, emas = initial(shapes_for(size))
        self.weights = ParameterTuple(
            [Parameter(Tensor(w), name=f"w{i}", requires_grad=False) for i, w in enumerate(weights)]
        )
        self.emas = ParameterTuple(
            [Parameter(Tensor(e), name=f"ema{i}", requires_grad=False) for i, e in enumerate(emas)]
        )
        self.decay = Tensor(DECAY, ms.float32)
        self.rest = Tensor(1.0 - DECAY, ms.float32)

    def after_step(self, out, x):
        return out

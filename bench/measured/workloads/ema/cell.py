"""The EMA of a network's weights in MindSpore: the network, its training loop, the EMAs.

A variant class is ``class Variant(EMA, Cell)``: ``construct(x)`` loops over the (ema, weight)
pairs and writes ``DECAY * ema + (1 - DECAY) * w`` into each EMA with the strategy's code.
``before_step`` is the training loop between two EMA updates (``spec.event``): one optimizer
step of the network, or a checkpoint loaded, or every weight set from the host. The harness calls
it before every checked step; the timed steps do not train. After a replacement the training cell
is built again, as a loop that resumes from a checkpoint does: in PYNATIVE_MODE a training cell
built before the weights were replaced no longer moves them
(``findings/reload_while_training.py``), and the weights must change at every checked call.
"""

from __future__ import annotations

import mindspore as ms
from mindspore import Parameter, ParameterTuple, Tensor, nn

from bench.measured.workloads.ema.spec import (
    CHECKPOINT_SEED,
    DECAY,
    LR,
    RELOAD,
    SET_DATA,
    SET_DATA_SEED,
    batch,
    event,
    initial,
    shapes_for,
)


class EMA(nn.Cell):
    """A two-layer network (its weights, trained), and an EMA Parameter per weight."""

    def __init__(self, size: int = 1000):
        super().__init__()
        shapes = shapes_for(size)
        (w1, b1, w2, b2), emas = initial(shapes)
        hidden, inputs = shapes[0]
        self.net = nn.SequentialCell(
            nn.Dense(inputs, hidden, Tensor(w1), Tensor(b1), activation="relu"),
            nn.Dense(hidden, shapes[2][0], Tensor(w2), Tensor(b2)),
        )
        self.weights = ParameterTuple(list(self.net.trainable_params()))
        self.emas = ParameterTuple(
            [Parameter(Tensor(e), name=f"ema{i}", requires_grad=False) for i, e in enumerate(emas)]
        )
        self.decay = Tensor(DECAY, ms.float32)
        self.rest = Tensor(1.0 - DECAY, ms.float32)
        self.shapes = shapes
        self.calls = 0  # checked steps so far: before_step numbers them from 1

    def before_step(self):
        """The training loop before the next step: an SGD step, or the weights replaced."""
        self.calls += 1
        done = event(self.calls)
        if done == RELOAD:
            values = initial(self.shapes, CHECKPOINT_SEED)[0]
            checkpoint = {
                p.name: Parameter(Tensor(v), name=p.name) for p, v in zip(self.weights, values)
            }
            ms.load_param_into_net(self.net, checkpoint)
            self.__dict__.pop("_trainer", None)  # resumed: the training cell is built again
        elif done == SET_DATA:
            for p, v in zip(self.weights, initial(self.shapes, SET_DATA_SEED)[0]):
                p.set_data(Tensor(v))
            self.__dict__.pop("_trainer", None)
        else:
            trainer = self.__dict__.get("_trainer")
            if trainer is None:  # kept out of the Cell's attributes: construct never sees it
                loss = nn.WithLossCell(self.net, nn.MSELoss())
                trainer = nn.TrainOneStepCell(loss, nn.SGD(self.net.trainable_params(), LR))
                object.__setattr__(self, "_trainer", trainer)
            x, y = batch()
            trainer(Tensor(x), Tensor(y))

    def after_step(self, out, x):
        return out

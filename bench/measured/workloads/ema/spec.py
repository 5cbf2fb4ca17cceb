"""An EMA of the weights of a network in training, in NumPy: the reference of the ema workload.

The network is two dense layers (``nn.Dense(IN, h, activation="relu")`` then ``nn.Dense(h,
OUT)``, biases included), its hidden width h scaled so its weights total about E elements (E from
1e4 to 1e7). Before every checked step the training loop changes the weights, as a user's loop
does between EMA updates (``EVENTS``):

- one step of plain SGD (``nn.SGD``, learning rate ``LR``, through ``nn.TrainOneStepCell``) on a
  mean-squared-error loss over a fixed batch: the weights move every step;
- at step ``RELOAD`` a checkpoint is loaded instead (``load_param_into_net`` of other weights);
- at step ``SET_DATA`` every weight is set from the host instead (``Parameter.set_data``).

Then the step: ``ema = DECAY * ema + (1 - DECAY) * w`` for every (EMA, weight) pair, with the
weights as they are now. A host copy that follows the weights' old memory after a reload is what
``outdated`` computes: the EMA of the weights from before the first replacement.
The timed steps do not train (the update's cost is what is timed): ``ema_after`` is their
closed form, with the weights the network is built with.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

DECAY = 0.9
DTYPE = np.float32
EMA_BYTES_PER_ELEMENT = 3 * 4  # read ema, read w, write ema (float32)
IN, OUT, BATCH = 16, 4, 8  # the network's input and output widths, the training batch
LR = 0.1  # plain SGD
TRAIN, RELOAD, SET_DATA = "train", "load_param_into_net", "set_data"
RELOAD_STEP, SET_DATA_STEP = 5, 8  # the steps before which the weights are replaced
CHECKPOINT_SEED, SET_DATA_SEED, DATA_SEED = 7, 8, 1
WEIGHT_NAMES = ("net.0.weight", "net.0.bias", "net.1.weight", "net.1.bias")  # MindSpore's names


def event(step: int) -> str:
    """What the training loop does to the weights before checked step ``step`` (from 1)."""
    return {RELOAD_STEP: RELOAD, SET_DATA_STEP: SET_DATA}.get(step, TRAIN)


EVENT_WORDS = {
    RELOAD: "a checkpoint reload (load_param_into_net)",
    SET_DATA: "set_data of every weight",
}


def elements(shapes) -> int:
    return int(sum(np.prod(s) for s in shapes))


def shapes_for(total: int) -> list[tuple[int, ...]]:
    """The weight shapes of the network whose weights come closest to ``total`` elements
    (MindSpore's Dense weight is (out, in))."""
    hidden = max(1, round((total - OUT) / (IN + 1 + OUT)))
    return [(hidden, IN), (hidden,), (OUT, hidden), (OUT,)]


def initial(shapes, seed: int = 0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(weights, EMAs) at the start: weights scaled by their fan-in, EMAs at zero."""
    rng = np.random.default_rng(seed)
    weights = []
    for s in shapes:
        fan_in = s[1] if len(s) == 2 else s[0]
        weights.append((rng.standard_normal(s, dtype=DTYPE) / np.sqrt(fan_in)).astype(DTYPE))
    return weights, [np.zeros(s, DTYPE) for s in shapes]


def batch() -> tuple[np.ndarray, np.ndarray]:
    """The training batch (inputs, targets): fixed, so the loss never reaches zero soon."""
    rng = np.random.default_rng(DATA_SEED)
    return (
        rng.standard_normal((BATCH, IN), dtype=DTYPE),
        rng.standard_normal((BATCH, OUT), dtype=DTYPE),
    )


def sgd_step(weights: list[np.ndarray]) -> list[np.ndarray]:
    """One step of SGD on ``mean((relu(x w1' + b1) w2' + b2 - y) ** 2)``, in float32."""
    x, y = batch()
    w1, b1, w2, b2 = weights
    h = x @ w1.T + b1
    a = np.maximum(h, 0)
    p = a @ w2.T + b2
    dp = (DTYPE(2) * (p - y) / DTYPE(p.size)).astype(DTYPE)
    dh = (dp @ w2) * (h > 0)
    grads = [dh.T @ x, dh.sum(0), dp.T @ a, dp.sum(0)]
    return [(w - DTYPE(LR) * g).astype(DTYPE) for w, g in zip(weights, grads)]


@lru_cache(maxsize=64)
def _weights_at(shapes: tuple, step: int) -> tuple:
    if step == 0:
        return tuple(initial(list(shapes))[0])
    done = event(step)
    if done == RELOAD:
        return tuple(initial(list(shapes), CHECKPOINT_SEED)[0])
    if done == SET_DATA:
        return tuple(initial(list(shapes), SET_DATA_SEED)[0])
    return tuple(sgd_step(list(_weights_at(shapes, step - 1))))


def weights_at(shapes, step: int) -> list[np.ndarray]:
    """The weights during checked step ``step`` (from 1; 0: as built): after its event."""
    return list(_weights_at(tuple(map(tuple, shapes)), step))


def replaced(step: int) -> int:
    """The first step (<= ``step``) before which the weights were replaced from outside (0:
    none yet): a copy of the old memory holds the weights of the step before it."""
    return next((k for k in range(1, step + 1) if event(k) != TRAIN), 0)


def ema_update(emas: list[np.ndarray], weights: list[np.ndarray]) -> list[np.ndarray]:
    d = DTYPE(DECAY)
    return [(d * e + (DTYPE(1) - d) * w).astype(DTYPE) for e, w in zip(emas, weights)]


def ema_after(steps: int, weights_mean: float) -> float:
    """The mean of every EMA after ``steps`` steps from zero with fixed weights (the timed
    steps): (1 - DECAY**steps) * mean(w)."""
    return (1.0 - DECAY**steps) * weights_mean

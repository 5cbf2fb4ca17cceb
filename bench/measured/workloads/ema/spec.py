"""An exponential moving average of a model's weights, in NumPy: the reference of the ema workload.

The state is one EMA Parameter per weight of a small CNN (3 convolutions 3×3 and 2 dense layers,
biases included), its width scaled so the weights total about E elements (E from 1e4 to 1e7).
Each step: ``ema = DECAY * ema + (1 - DECAY) * w`` for every pair; the weights do not change.
"""

from __future__ import annotations

import numpy as np

DECAY = 0.9
DTYPE = np.float32
EMA_BYTES_PER_ELEMENT = 3 * 4  # read ema, read w, write ema (float32)


def cnn_shapes(width: int) -> list[tuple[int, ...]]:
    """Weight shapes of a small CNN of the given width (8×8 feature map before the dense layers)."""
    c1, c2, c3, h = width, 2 * width, 4 * width, 8 * width
    return [
        (c1, 3, 3, 3),
        (c1,),
        (c2, c1, 3, 3),
        (c2,),
        (c3, c2, 3, 3),
        (c3,),
        (h, c3 * 8 * 8),
        (h,),
        (10, h),
        (10,),
    ]


def elements(shapes) -> int:
    return int(sum(np.prod(s) for s in shapes))


def shapes_for(total: int) -> list[tuple[int, ...]]:
    """The CNN whose weights come closest to ``total`` elements."""
    width = min(range(1, 2048), key=lambda w: abs(elements(cnn_shapes(w)) - total))
    return cnn_shapes(width)


def initial(shapes, seed: int = 0) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """(weights, EMAs) at the start: standard normal weights, EMAs at zero."""
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(s, dtype=DTYPE) for s in shapes]
    return weights, [np.zeros(s, DTYPE) for s in shapes]


def step(emas: list[np.ndarray], weights: list[np.ndarray]) -> list[np.ndarray]:
    d = DTYPE(DECAY)
    return [(d * e + (DTYPE(1) - d) * w).astype(DTYPE) for e, w in zip(emas, weights)]


def ema_after(steps: int, weights_mean: float) -> float:
    """The mean of every EMA after ``steps`` steps from zero: (1 - DECAY**steps) * mean(w)."""
    return (1.0 - DECAY**steps) * weights_mean

"""The adaptive-clip cell, specified once, and its NumPy reference (no MindSpore needed).

Each step: ``out = clip(x, -limit, limit)`` with the *current* limit, then
``limit = min(limit + INC_STEP * N, MAX_LIMIT)`` where N is the batch size. All in float32,
as in the original report (``../shared/seed/``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np

INITIAL_LIMIT = 1.0
INC_STEP = 1e-4
MAX_LIMIT = 3.0
FEATURE_SHAPE = (3, 32, 32)  # input is N x 3 x 32 x 32 float32, as in the original report
INPUT_SCALE = 2.0  # the input's standard deviation: the clip is active over the whole 1..3 range
DTYPE = np.float32


def make_input(batch_size: int, seed: int = 0, features=FEATURE_SHAPE) -> np.ndarray:
    """A normal N x 3 x 32 x 32 float32 batch of standard deviation ``INPUT_SCALE``: wider than
    the report's standard normal, so that a limit between 1 and 3 clips a share of it that
    changes with the limit (a stale limit shows in the output)."""
    rng = np.random.default_rng(seed)
    return (rng.standard_normal((batch_size, *features), dtype=DTYPE) * DTYPE(INPUT_SCALE)).astype(
        DTYPE
    )


def next_limit(limit, batch_size: int):
    """The update rule, in float32: ``min(limit + INC_STEP * N, MAX_LIMIT)``."""
    grown = DTYPE(limit) + DTYPE(INC_STEP) * DTYPE(batch_size)
    return np.minimum(grown, DTYPE(MAX_LIMIT)).astype(DTYPE)


@dataclass(frozen=True)
class ReferenceStep:
    input: np.ndarray
    limit_before: np.float32
    output: np.ndarray
    limit_after: np.float32


def reference(
    inputs: Iterable[np.ndarray], limit: float = INITIAL_LIMIT, update: bool = True
) -> Iterator[ReferenceStep]:
    """Expected output and limit after every step; ``update=False`` for a no-update control."""
    current = DTYPE(limit)
    for x in inputs:
        out = np.clip(x, -current, current)
        after = next_limit(current, x.shape[0]) if update else current
        yield ReferenceStep(x, current, out, after)
        current = after

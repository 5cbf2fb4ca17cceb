"""A KV cache, specified once in NumPy: the reference for the kvcache workload.

The state is a (B, H, T, D) float32 cache, zeros at first. Each step gets a new row (B, H, 1, D)
and a position t (an int32 tensor of shape (1,), so one compiled graph serves every t), writes the
row at position t of the time axis, and returns the rows at t and at t - 1 (mod T) summed: a read
that depends on what this step and the one before wrote. The cache length T is the state size
the workload sweeps.
"""

from __future__ import annotations

import numpy as np

B, H, D = 1, 4, 64  # one row = B * H * D floats = 1 KiB
DTYPE = np.float32
KV_STATE = ("cache",)


def make_row(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((B, H, 1, D), dtype=DTYPE)


def position(length: int, step: int) -> np.ndarray:
    """The position written at ``step``: t advances and wraps."""
    return np.asarray([step % length], np.int32)


def write_and_read(cache: np.ndarray, row: np.ndarray, t: int) -> np.ndarray:
    """Write ``row`` at ``t`` (in place) and return the step's output."""
    length = cache.shape[2]
    cache[:, :, t : t + 1] = row
    return cache[:, :, t : t + 1] + cache[:, :, (t - 1) % length : (t - 1) % length + 1]


def row_bytes() -> int:
    return B * H * D * np.dtype(DTYPE).itemsize


def cache_bytes(length: int) -> int:
    return row_bytes() * length

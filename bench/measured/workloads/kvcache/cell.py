"""The KV cache in MindSpore: the state and the read; a variant adds the write of its shape.

A variant class is ``class Variant(KVCache, Cell)``: ``construct(row, t)`` writes the row with the
strategy's ``write_row(param, index, row)`` (a row at ``index`` of axis 2) or, for strategies that
only have ``write(param, value)``, a full rewrite of the cache, then reads (``self.read``).
"""

from __future__ import annotations

import numpy as np
from mindspore import Parameter, Tensor, nn, ops

from bench.measured.workloads.kvcache.spec import B, D, H


class KVCache(nn.Cell):
    """A (B, H, T, D) cache Parameter; ``layout`` comes from the strategy's cell."""

    def __init__(self, size: int = 8):
        super().__init__()
        zeros = np.zeros((B, H, size, D), np.float32)
        self.cache = Parameter(Tensor(zeros), name="cache", requires_grad=False)
        self.positions = Tensor(np.arange(size, dtype=np.int32))
        self.length = Tensor(np.asarray([size], np.int32))
        self.back = Tensor(np.asarray([size - 1], np.int32))

    def read(self, t):
        """The rows at t and at t - 1 (mod T), summed."""
        previous = ops.floor_mod(t + self.back, self.length)
        return ops.gather(self.cache, t, 2) + ops.gather(self.cache, previous, 2)

    def after_step(self, out, inputs):
        return out


def full_row_mask(positions, t):
    """True at position t, as (1, 1, T, 1): where a full rewrite puts the new row."""
    return ops.equal(positions, t).reshape((1, 1, -1, 1))

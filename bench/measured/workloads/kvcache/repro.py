"""The reproduction driver of a KV-cache variant: a few steps vs the NumPy twin."""

from __future__ import annotations

import mindspore as ms
import numpy as np
from mindspore import Tensor

from bench.measured.modes import MODES
from bench.measured.workloads.kvcache.spec import B, D, H, make_row, position, write_and_read


def reproduce(variant_class, mode: str, steps: int = 10, length: int = 8) -> str:
    """Run ``steps`` steps (t wraps at ``length``) in ``mode``; print the first difference."""
    ms.set_device("CPU")
    MODES[mode].activate()
    cell = variant_class(length)
    cache_param = dict(cell.parameters_and_names())["cache"]
    step = MODES[mode].prepare(cell)
    cache = np.zeros((B, H, length, D), np.float32)
    print(f"MindSpore {ms.__version__}, mode {mode}")
    for i in range(steps):
        row, t = make_row(i), position(length, i)
        want = write_and_read(cache, row, int(t[0]))
        try:
            out = cell.after_step(step(Tensor(row), Tensor(t)), (row, t)).asnumpy()
            got = cache_param.asnumpy()
        except Exception as exc:  # the error is the finding
            message = (str(exc).strip().splitlines() or [""])[0]
            print(f"step {i}: expected no error, observed {type(exc).__name__}: {message}")
            return _finding("REPRODUCED: raises")
        print(
            f"step {i} (t={t[0]}): cache max |error| {np.max(np.abs(got - cache)):.3g}, "
            f"output max |error| {np.max(np.abs(out - want)):.3g}"
        )
        if not np.allclose(got, cache):
            return _finding("REPRODUCED: the cache is not updated as expected, and nothing raised")
        if not np.allclose(out, want):
            return _finding("REPRODUCED: wrong output")
    return _finding("NOT REPRODUCED: every step matched")


def _finding(text: str) -> str:
    print(text)
    return text

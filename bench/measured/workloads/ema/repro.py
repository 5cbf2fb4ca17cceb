"""The reproduction driver of an EMA variant: a few steps vs the NumPy twin."""

from __future__ import annotations

import mindspore as ms
import numpy as np
from mindspore import Tensor

from bench.measured.modes import MODES
from bench.measured.workloads.ema.spec import initial, shapes_for, step


def reproduce(variant_class, mode: str, steps: int = 3, size: int = 2000) -> str:
    """Run ``steps`` EMA steps in ``mode``; print the first EMA that differs."""
    ms.set_device("CPU")
    MODES[mode].activate()
    cell = variant_class(size)
    params = dict(cell.parameters_and_names())
    run = MODES[mode].prepare(cell)
    weights, emas = initial(shapes_for(size))
    x = np.zeros((1,), np.float32)
    print(f"MindSpore {ms.__version__}, mode {mode}")
    for i in range(1, steps + 1):
        emas = step(emas, weights)
        try:
            cell.after_step(run(Tensor(x)), Tensor(x))
            got = [params[f"ema{j}"].asnumpy() for j in range(len(emas))]
        except Exception as exc:  # the error is the finding
            message = (str(exc).strip().splitlines() or [""])[0]
            print(f"step {i}: expected no error, observed {type(exc).__name__}: {message}")
            return _finding("REPRODUCED: raises")
        for j, (g, e) in enumerate(zip(got, emas)):
            if not np.allclose(g, e, rtol=1e-5, atol=1e-6):
                print(f"step {i}: ema{j} max |error| {np.max(np.abs(g - e)):.3g}")
                return _finding(
                    "REPRODUCED: the EMA is not updated as expected, and nothing raised"
                )
        print(f"step {i}: every EMA matches")
    return _finding("NOT REPRODUCED: every step matched")


def _finding(text: str) -> str:
    print(text)
    return text

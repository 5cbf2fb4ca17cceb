"""The reproduction driver of a clip variant: a few steps in one mode, compared with NumPy."""

from __future__ import annotations

import mindspore as ms
import numpy as np
from mindspore import Tensor

from bench.measured.modes import MODES
from bench.measured.workloads.clip.spec import INITIAL_LIMIT, make_input, next_limit


def reproduce(variant_class, mode: str, steps: int = 3, batch: int = 4) -> str:
    """Run ``steps`` steps in ``mode``; print expected vs observed and the finding."""
    ms.set_device("CPU")
    MODES[mode].activate()
    cell = variant_class()
    limit_param = dict(cell.parameters_and_names())["limit"]
    step = MODES[mode].prepare(cell)
    limit = np.float32(INITIAL_LIMIT)
    print(f"MindSpore {ms.__version__}, mode {mode}")
    for i in range(1, steps + 1):
        x = make_input(batch, seed=i)
        try:
            out = cell.after_step(step(Tensor(x)), Tensor(x)).asnumpy()
            observed = float(limit_param.asnumpy().reshape(-1)[0])
        except Exception as exc:
            message = (str(exc).strip().splitlines() or [""])[0]
            print(f"step {i}: expected no error, observed {type(exc).__name__}: {message}")
            return _finding("REPRODUCED: raises")
        expected_out, limit = np.clip(x, -limit, limit), next_limit(limit, batch)
        out_error = float(np.max(np.abs(out - expected_out)))
        print(
            f"step {i}: limit expected {limit:.6f}, observed {observed:.6f}; "
            f"output max |error| {out_error:.3g}"
        )
        if out_error > 1e-5:
            return _finding("REPRODUCED: wrong output (the clip did not use the current limit)")
        if not np.isclose(observed, limit, rtol=1e-5, atol=1e-6):
            return _finding(
                "REPRODUCED: the Parameter is not updated as expected, and nothing raised"
            )
    return _finding("NOT REPRODUCED: every step matched")


def _finding(text: str) -> str:
    print(text)
    return text

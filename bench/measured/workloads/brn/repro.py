"""The reproduction driver of a Batch Renormalization variant: a few steps vs the NumPy twin."""

from __future__ import annotations

import mindspore as ms
import numpy as np
from mindspore import Tensor

from bench.measured.modes import MODES
from bench.measured.workloads.brn.spec import BRN_STATE, CHANNELS, State, make_batch, train_step


def reproduce(variant_class, mode: str, steps: int = 3, batch: int = 4) -> str:
    """Run ``steps`` training steps in ``mode``; print the first difference and the finding."""
    ms.set_device("CPU")
    MODES[mode].activate()
    cell = variant_class()
    params = dict(cell.parameters_and_names())
    step = MODES[mode].prepare(cell)
    gamma, beta = np.ones(CHANNELS, np.float32), np.zeros(CHANNELS, np.float32)
    state = State.initial()
    print(f"MindSpore {ms.__version__}, mode {mode}")
    for i in range(1, steps + 1):
        x = make_batch(batch, seed=i, spatial=(4, 4))
        want, state, _ = train_step(x, gamma, beta, state)
        try:
            out = cell.after_step(step(Tensor(x)), Tensor(x)).asnumpy()
            got = {n: params[n].asnumpy().reshape(-1) for n in BRN_STATE}
        except Exception as exc:
            message = (str(exc).strip().splitlines() or [""])[0]
            print(f"step {i}: expected no error, observed {type(exc).__name__}: {message}")
            return _finding("REPRODUCED: raises")
        if not np.allclose(out, want, rtol=1e-4, atol=1e-4):
            print(f"step {i}: output max |error| {np.max(np.abs(out - want)):.3g}")
            return _finding("REPRODUCED: wrong output")
        for name, expected in state.as_dict().items():
            want_state = np.reshape(expected, -1)
            print(
                f"step {i}: {name} expected {np.round(want_state, 5)}, "
                f"observed {np.round(got[name], 5)}"
            )
            if not np.allclose(got[name], want_state, rtol=1e-4, atol=1e-4):
                return _finding(
                    f"REPRODUCED: {name} is not updated as expected, and nothing raised"
                )
    return _finding("NOT REPRODUCED: every step matched")


def _finding(text: str) -> str:
    print(text)
    return text

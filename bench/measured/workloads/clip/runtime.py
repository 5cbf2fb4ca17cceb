"""Running the clip: the reference of a step under the code's meaning, the state, the inputs."""

from __future__ import annotations

import numpy as np

from bench.measured.oracle import AFTER, BEFORE, Expected
from bench.measured.workloads.clip.spec import (
    FEATURE_SHAPE,
    INITIAL_LIMIT,
    MAX_LIMIT,
    make_input,
    next_limit,
)
from bench.measured.workloads.runtime import Runtime


class ClipRuntime(Runtime):
    name = "clip"
    # N = 2048 grows the limit by 0.2048 a step: it grows at every one of the 10 checked calls
    # and reaches the cap (3.0) at the last one, the cap's own step (its ``Expected.event``);
    # a stale or dropped limit shows at every call (the observability contract). A small input
    # (N x 1 x 2 x 2) keeps the gate cheap.
    gate_schedule = ((2048, 10),)
    rtol, atol = 1e-5, 1e-6
    state_names = ("limit",)
    readings = {
        BEFORE: "the limit from before the write",
        AFTER: "the limit the write stores",
    }

    def observability(self, schedule=None) -> list[str]:
        """The runtime's contract, and: the cap is reached at the last checked call of each
        size, not before (the step where the cap is exercised, labelled as such)."""
        problems = super().observability(schedule)
        for size, count in schedule or self.gate_schedule:
            limit = np.float32(INITIAL_LIMIT)
            for i in range(1, count + 1):
                limit = next_limit(limit, size)
                capped = bool(limit >= np.float32(MAX_LIMIT))
                if capped != (i == count):
                    problems.append(
                        f"step {i} ({self.size_symbol}={size}): the limit "
                        + ("reaches the cap before the last call" if capped else "is not capped")
                        + f" (cap {MAX_LIMIT}, limit {limit:.6g})"
                    )
        return problems

    def make_inputs(self, size: int, seed: int, small: bool = False) -> tuple:
        return (make_input(size, seed, (1, 2, 2) if small else FEATURE_SHAPE),)

    def initial_state(self, size: int) -> dict:
        return {"limit": np.asarray([INITIAL_LIMIT], np.float32)}

    def expect(self, size, seed, state, meaning, update=True):
        (x,) = self.make_inputs(size, seed, small=True)
        old = np.float32(np.asarray(state["limit"]).reshape(-1)[0])
        new = next_limit(old, size) if update else old
        outputs = {BEFORE: np.clip(x, -old, old), AFTER: np.clip(x, -new, new)}
        other = {k: v for k, v in outputs.items() if k != meaning}
        after = {"limit": np.asarray([new], np.float32)}
        capped = bool(new >= np.float32(MAX_LIMIT) > old)
        event = f"the limit reaches its cap ({MAX_LIMIT})" if capped else ""
        return Expected((x,), outputs[meaning], after, other, event=event)

    def describe_output(self, out, expected) -> str:
        x = expected.inputs[0]
        high = out[x > out + self.atol]
        low = out[x < out - self.atol]
        if not (high.size or low.size):
            return ""
        lo = f"{float(-low.max()):.6g}" if low.size else "?"
        hi = f"{float(high.min()):.6g}" if high.size else "?"
        return f"the clip used [-{lo}, {hi}]"

    def probe(self, params: dict):
        return params["limit"]

    def sync_state(self, source: dict, target: dict) -> None:
        """The clip's cost depends on the limit (how many elements are clipped): the twin runs
        at its subject's limit. Written with an eager ``ops.assign`` (in place): after a host
        ``set_data`` a function compiled by ``jit(capture_mode="ast")`` keeps reading and writing
        the Parameter's old storage (findings/set_data_after_jit.py)."""
        from mindspore import Tensor, ops

        value = source["limit"].asnumpy().reshape(-1)[0]
        ops.assign(target["limit"], Tensor(np.full(target["limit"].shape, value, np.float32)))

    def after_steps(self, steps: int, size: int, update: bool = True) -> dict:
        limit = np.float32(INITIAL_LIMIT)
        for _ in range(steps if update else 0):
            limit = next_limit(limit, size)
            if limit >= MAX_LIMIT:
                break
        return {"limit": np.asarray([limit], np.float32)}


RUNTIME = ClipRuntime()

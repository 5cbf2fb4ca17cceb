"""The conformance gate: run a strategy in a mode and compare every step with the NumPy reference.

"It didn't raise" proves nothing: some update APIs run and leave the Parameter unchanged. So the
output *and* the Parameter are checked after every step. Only a strategy × mode that passes is
timed; every other outcome is a result in its own right (see ``STATUSES``).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

import numpy as np

from bench.spec import INITIAL_LIMIT, make_input, reference

GATE_BATCH_SIZES = (4, 1024)  # the limit grows slowly at 4 and reaches the cap (3.0) at 1024
GATE_STEPS = 30
RTOL, ATOL = 1e-5, 1e-6  # float32: the update may be computed as limit + (new - limit)

STATUSES = {
    "works": "matches the reference at every step",
    "unsupported": "raises an error that the strategy declares for this mode",
    "incorrect": "runs without error but the output or the Parameter is wrong",
    "broken": "raises an error it does not declare",
    "unexpected-success": "declares an error for this mode but runs correctly",
    "crashed": "the measuring process died",
    "timeout": "the measuring process did not finish in time",
    "missing": "no result: the run was interrupted before this cell",
}


@dataclass(frozen=True)
class Verdict:
    strategy: str
    mode: str
    status: str
    detail: str = ""
    declared: bool = False  # the strategy's EXPECTED_FAILURES announces this failure

    @property
    def passed(self) -> bool:
        """True when the strategy behaves as it declares (works, or fails as declared)."""
        return self.status == "works" or (
            self.status in ("unsupported", "incorrect") and self.declared
        )

    def as_dict(self) -> dict:
        return asdict(self)


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {line}"


def run_step(step, cell, x):
    """One step as the harness runs it: call the (prepared) cell, then its host-side hook."""
    return cell.after_step(step(x), x)


def check(strategy, mode, batch_sizes=GATE_BATCH_SIZES, steps=GATE_STEPS, seed=0) -> Verdict:
    """Gate ``strategy`` (a discovery.Strategy) in ``mode`` (a modes.Mode)."""
    import mindspore as ms

    from bench.cell import read_limit

    expected_error = strategy.expected_failures.get(mode.name)

    def verdict(status, detail=""):
        failed = status in ("unsupported", "incorrect")
        declared = bool(failed and expected_error and re.search(expected_error, detail))
        return Verdict(strategy.name, mode.name, status, detail, declared)

    def raised(where, exc):
        if expected_error and re.search(expected_error, str(exc)):
            return verdict("unsupported", first_line(exc))
        return verdict("broken", f"{where}: {first_line(exc)}")

    mode.activate()
    for n in batch_sizes:
        try:
            cell = strategy.cell_class()
            step = mode.prepare(cell)
        except Exception as exc:
            return raised(f"building the cell (batch {n})", exc)
        inputs = (make_input(n, seed + i) for i in range(steps))
        expected_steps = reference(inputs, INITIAL_LIMIT, update=not strategy.control)
        for i, ref in enumerate(expected_steps, start=1):
            x = ms.Tensor(ref.input)
            try:
                out = run_step(step, cell, x).asnumpy()
                limit = read_limit(cell)
            except Exception as exc:
                return raised(f"step {i} at batch {n}", exc)
            where = f"step {i} at batch {n}"
            if out.shape != ref.output.shape or not np.allclose(out, ref.output, RTOL, ATOL):
                err = np.max(np.abs(out - ref.output)) if out.shape == ref.output.shape else "shape"
                return verdict(
                    "incorrect",
                    f"wrong output at {where}: max |error| = {err:.3g} "
                    f"(clip limit should be {ref.limit_before:.6g})",
                )
            if not np.isclose(limit, ref.limit_after, RTOL, ATOL):
                kind = "Parameter unchanged" if limit == ref.limit_before else "Parameter wrong"
                return verdict(
                    "incorrect",
                    f"{kind} after {where}: limit = {limit:.6g}, expected {ref.limit_after:.6g} "
                    f"(|error| = {abs(limit - ref.limit_after):.3g})",
                )
    if expected_error:
        return verdict(
            "unexpected-success", f"declared to fail with /{expected_error}/ but it works"
        )
    return verdict("works", f"{steps} steps at batch sizes {', '.join(map(str, batch_sizes))}")

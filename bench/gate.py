"""The conformance gate: run a strategy in a mode and compare every step with the NumPy reference.

"It didn't raise" proves nothing: some update APIs run and leave the Parameter unchanged. So the
output *and* the Parameter are checked after every step. Only a strategy × mode that passes is
timed; every other outcome is a result in its own right (see ``STATUSES``).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

import numpy as np

GATE_STEPS = 30  # clip: the limit grows slowly at batch 4 and reaches the cap (3.0) at 1024

STATUSES = {
    "works": "matches the reference at every step",
    "unsupported": "raises an error that the strategy declares for this mode",
    "incorrect": "runs without error but the output or the Parameter is wrong",
    "broken": "raises an error it does not declare",
    "unexpected-success": "declares an error for this mode but runs correctly",
    "inexpressible": "the strategy cannot express this workload's state updates",
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


def _describe(value) -> str:
    value = np.asarray(value).reshape(-1)
    return f"{value[0]:.6g}" if value.size == 1 else np.array2string(value, precision=5)


def check(strategy, mode, batch_sizes=None, steps=GATE_STEPS, seed=0, workload="clip") -> Verdict:
    """Gate ``strategy`` (a discovery.Strategy) in ``mode`` (a modes.Mode) on a workload."""
    import mindspore as ms

    from bench import workloads

    work = workloads.get(workload)
    batch_sizes = batch_sizes or work.gate_batch_sizes
    expected_error = strategy.expected_failure(work.name, mode.name)

    def verdict(status, detail=""):
        failed = status in ("unsupported", "incorrect")
        declared = bool(failed and expected_error and re.search(expected_error, detail))
        return Verdict(strategy.name, mode.name, status, detail, declared)

    def raised(where, exc):
        if expected_error and re.search(expected_error, str(exc)):
            return verdict("unsupported", first_line(exc))
        return verdict("broken", f"{where}: {first_line(exc)}")

    reason = work.inexpressible(strategy)
    if reason:
        return verdict("inexpressible", f"cannot express the {work.name} workload: {reason}")
    mode.activate()
    for n in batch_sizes:
        try:
            cell = work.build(strategy)
            step = mode.prepare(cell)
        except Exception as exc:
            return raised(f"building the cell (batch {n})", exc)
        for i, ref in enumerate(work.reference(n, steps, seed, not strategy.control), start=1):
            where = f"step {i} at batch {n}"
            try:
                out = run_step(step, cell, ms.Tensor(ref.input)).asnumpy()
                state = work.observe(cell)
            except Exception as exc:
                return raised(where, exc)
            if out.shape != ref.output.shape or not np.allclose(
                out, ref.output, work.rtol, work.atol
            ):
                err = np.max(np.abs(out - ref.output)) if out.shape == ref.output.shape else "shape"
                hint = f" ({ref.hint})" if ref.hint else ""
                detail = f"wrong output at {where}: max |error| = {err:.3g}{hint}"
                return verdict("incorrect", detail)
            for name, want in ref.after.items():
                got = np.asarray(state[name], np.float32).reshape(np.shape(want))
                if np.allclose(got, want, work.rtol, work.atol):
                    continue
                same = np.array_equal(got, np.asarray(ref.before[name], np.float32))
                kind = "Parameter unchanged" if same else "Parameter wrong"
                error = np.max(np.abs(got - want))
                return verdict(
                    "incorrect",
                    f"{kind} after {where}: {name} = {_describe(got)}, expected "
                    f"{_describe(want)} (|error| = {error:.3g})",
                )
    if expected_error:
        return verdict(
            "unexpected-success", f"declared to fail with /{expected_error}/ but it works"
        )
    return verdict("works", f"{steps} steps at batch sizes {', '.join(map(str, batch_sizes))}")

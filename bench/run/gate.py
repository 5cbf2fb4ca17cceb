"""The conformance gate: run a variant in a mode and compare every step with the NumPy reference.

"It didn't raise" proves nothing: some update APIs run and leave the Parameter unchanged. So the
output *and* the state are checked after every step, the state read from the Parameter objects
the cell was built with (a Parameter replaced by another object is not an update of it). Only a
variant that works is timed; every other outcome is a result in its own right
(``bench.core.schema.Status``).
"""

from __future__ import annotations

import re

import numpy as np

from bench.core.schema import Status, Verdict


def first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    line = text.splitlines()[0] if text else ""
    return f"{type(exc).__name__}: {line}"


def run_step(step, cell, inputs: tuple):
    """One step as the harness runs it: call the (prepared) cell, then its host-side hook
    (which gets the input, or the tuple of inputs of a workload that has several)."""
    return cell.after_step(step(*inputs), inputs[0] if len(inputs) == 1 else inputs)


def _describe(value) -> str:
    value = np.asarray(value).reshape(-1)
    return f"{value[0]:.6g}" if value.size == 1 else np.array2string(value, precision=5)


def check(variant_class, workload, mode, update: bool = True, seed: int = 0) -> tuple[Status, str]:
    """(status, detail) of ``variant_class`` over the workload's gate schedule in ``mode``.

    ``update=False`` checks a generated control against the no-update reference."""
    import mindspore as ms

    mode.activate()
    for n, steps in workload.gate_schedule:
        try:
            cell, params = workload.build(variant_class, n)
            step = mode.prepare(cell)
        except Exception as exc:
            return Status.RAISES, f"building the cell: {first_line(exc)}"
        refs = workload.reference(n, steps, seed, update=update, small=True)
        for i, ref in enumerate(refs, start=1):
            where = f"step {i} at batch {n}"
            try:
                tensors = tuple(ms.Tensor(a) for a in ref.inputs)
                out = run_step(step, cell, tensors).asnumpy()
                state = workload.observe(params)
            except Exception as exc:
                return Status.RAISES, f"{where}: {first_line(exc)}"
            if out.shape != ref.output.shape or not np.allclose(
                out, ref.output, workload.rtol, workload.atol
            ):
                err = np.max(np.abs(out - ref.output)) if out.shape == ref.output.shape else "shape"
                hint = f" ({ref.hint})" if ref.hint else ""
                return Status.INCORRECT, f"wrong output at {where}: max |error| = {err:.3g}{hint}"
            for name, want in ref.after.items():
                got = np.asarray(state[name], np.float32).reshape(np.shape(want))
                if np.allclose(got, want, workload.rtol, workload.atol):
                    continue
                same = np.array_equal(got, np.asarray(ref.before[name], np.float32))
                kind = "Parameter unchanged" if same else "Parameter wrong"
                error = np.max(np.abs(got - want))
                return (
                    Status.INCORRECT,
                    f"{kind} after {where}: {name} = {_describe(got)}, expected "
                    f"{_describe(want)} (|error| = {error:.3g})",
                )
    schedule = ", ".join(
        f"{steps} at {workload.size_label} {n}" for n, steps in workload.gate_schedule
    )
    return Status.WORKS, f"steps {schedule}"


def verdict(item, workload: str, mode: str, status, detail: str, seconds=0.0) -> Verdict:
    """The Verdict of ``item`` (a plan.Item), with its strategy's declaration applied."""
    status = Status(status)
    finding = f"{status}: {detail}" if detail else str(status)
    declared = bool(status.failed and item.expected and re.search(item.expected, finding))
    return Verdict(
        workload=workload,
        strategy=item.strategy,
        shape=item.shape,
        mode=mode,
        status=status,
        detail=detail,
        dims=dict(item.dims),
        expected=item.expected,
        declared=declared,
        layout=item.layout,
        seconds=round(seconds, 3),
    )

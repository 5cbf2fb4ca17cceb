"""A mode run inside an isolated process (``bench.core.procs``): forked from the warm parent
(MindSpore imported, the user's module loaded, no op run yet), as ``bench.run.forked`` does, or
spawned (the user's module loaded again in the child); MindSpore's context is process-global, so
each child selects its own mode. A child reports the step it starts over a pipe (so a crash or a
hang names its step) and leaves its trace in a pickle file.

A trace: ``{"status": "ok" | "crashes" | "hangs", "detail", "at": (instance, step) it was on,
"instances": [{"initial": {param: array}, "steps": [{"out": [array], "after": {param: array},
"seconds"}], "error": None | {"step", "message"}}]}``.
"""

from __future__ import annotations

import os
import pickle
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bench.core import procs

SEED = 0
HARNESS = procs.HARNESS  # a child's exit code when the check itself failed (traceback: a log)
INTERRUPTED = procs.INTERRUPTED  # a child's exit code when Ctrl-C reached it


class HarnessError(RuntimeError):
    """The check itself failed (a bug of bench.check, not of the user's Cell): exit 3."""

    def __init__(self, message: str, log: str = ""):
        super().__init__(message)
        self.log = log


def _seed():
    import mindspore as ms

    np.random.seed(SEED)
    ms.set_seed(SEED)


def flatten(out) -> list:
    if isinstance(out, (tuple, list)):
        return [a for o in out for a in flatten(o)]
    if hasattr(out, "asnumpy"):
        return [out.asnumpy()]
    return [np.asarray(out)]


def state(cell) -> dict:
    return {name: p.asnumpy().copy() for name, p in cell.parameters_and_names()}


def as_numpy_inputs(value) -> tuple:
    if not isinstance(value, (tuple, list)):
        value = (value,)
    out = []
    for v in value:
        out.append(v.asnumpy() if hasattr(v, "asnumpy") else np.asarray(v))
    return tuple(out)


def to_float64(cell) -> None:
    """Replace every floating Parameter by a float64 one (set_data keeps the old dtype), in the
    Cell's own table and in the ParameterTuples a ``construct`` may iterate."""
    import mindspore as ms

    for _, sub in cell.cells_and_names():
        replaced = {}
        for key, p in list(sub._params.items()):
            data = p.asnumpy()
            if data.dtype.kind == "f":
                replaced[id(p)] = sub._params[key] = ms.Parameter(
                    ms.Tensor(data.astype(np.float64)), name=p.name, requires_grad=p.requires_grad
                )
        for key, value in list(vars(sub).items()):
            if isinstance(value, ms.ParameterTuple) and any(id(p) in replaced for p in value):
                vars(sub)[key] = ms.ParameterTuple([replaced.get(id(p), p) for p in value])


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0] if text else ''}".rstrip(": ")


def trace(target, mode, steps, inputs=None, instances=1, float64=False, report=lambda i, s: None):
    """Run ``instances`` instances of the user's Cell one after the other in ``mode`` (in this
    process), each over ``steps`` steps of ``inputs`` (a list of tuples of arrays; None: ask
    ``make_inputs(step)`` and record what it returns in the trace's ``inputs``)."""
    import mindspore as ms

    mode.activate()
    out = {"status": "ok", "detail": "", "instances": [], "inputs": None}
    recorded = []
    for n in range(instances):
        inst = {"initial": {}, "steps": [], "error": None}
        out["instances"].append(inst)
        report(n, -1)
        try:
            _seed()
            cell = target.make_cell()
            if float64:
                to_float64(cell)
            inst["initial"] = state(cell)
            call = mode.prepare(cell)
        except Exception as exc:
            inst["error"] = {"step": -1, "message": _first_line(exc)}
            continue
        for i in range(steps):
            report(n, i)
            try:
                arrays = inputs[i] if inputs is not None else None
                if arrays is None:
                    try:
                        arrays = as_numpy_inputs(target.make_inputs(i))
                    except Exception as exc:
                        message = f"make_inputs({i}) raises {_first_line(exc)}"
                        inst["error"] = {"step": i, "message": message, "type": "make_inputs"}
                        break
                    recorded.append(arrays)
                if float64:
                    arrays = tuple(a.astype(np.float64) if a.dtype.kind == "f" else a
                                   for a in arrays)  # fmt: skip
                tensors = tuple(ms.Tensor(a) for a in arrays)
                start = time.perf_counter()
                result = flatten(call(*tensors))
                seconds = time.perf_counter() - start
                inst["steps"].append({"out": result, "after": state(cell), "seconds": seconds})
            except Exception as exc:
                inst["error"] = {"step": i, "message": _first_line(exc), "type": type(exc).__name__}
                break
        if recorded and out["inputs"] is None:
            out["inputs"] = recorded
            inputs = recorded
    return out


def inputs_again(target, inputs) -> bool:
    """Whether ``make_inputs``, called in a fresh process right after the seeds are set (as the
    repro does), gives the recorded ``inputs`` bit for bit: then the repro regenerates them."""
    _seed()
    for i, recorded in enumerate(inputs):
        try:
            got = as_numpy_inputs(target.make_inputs(i))
        except Exception:
            return False
        if len(got) != len(recorded) or not all(
            g.dtype == r.dtype and g.shape == r.shape and g.tobytes() == r.tobytes()
            for g, r in zip(got, recorded)
        ):
            return False
    return True


def answer(target, queries: list[tuple[int, dict]], inputs) -> list:
    """Eager (PYNATIVE) answers: for each (step, state before it), the outputs and the state
    after that step from that state; None where eager raises."""
    import mindspore as ms

    ms.set_context(mode=ms.PYNATIVE_MODE)
    _seed()
    cell = target.make_cell()
    params = dict(cell.parameters_and_names())
    out = []
    for step, before in queries:
        try:
            for name, value in before.items():
                params[name].set_data(ms.Tensor(value))
            result = flatten(cell(*(ms.Tensor(a) for a in inputs[step])))
            out.append((result, state(cell)))
        except Exception:
            out.append(None)
    return out


def traced(target, mode, steps, inputs, instances, float64, report):
    """``trace`` with its options in order (``functools.partial`` of it pickles for a spawned
    child; ``isolated`` passes ``report`` last)."""
    return trace(target, mode, steps, inputs, instances, float64, report)


def answered(target, queries, inputs, report):
    """``answer`` as a child's work (``report`` unused)."""
    return answer(target, queries, inputs)


def regenerated(target, inputs, report):
    """``inputs_again`` as a child's work (``report`` unused)."""
    return inputs_again(target, inputs)


@dataclass
class _Child:
    """What the child runs: ``work(report)``, its result pickled to ``result``, a failure of the
    check itself to ``log`` (picklable when ``work`` is: a spawned child gets it that way)."""

    work: Callable
    result: str
    log: str

    def __call__(self) -> int:  # pragma: no cover - runs in the child
        def report(instance, step):
            procs.send(f"{instance} {step}")

        try:
            result = self.work(report)
            with open(self.result, "wb") as f:
                pickle.dump(result, f)
        except KeyboardInterrupt:
            return INTERRUPTED
        except BaseException:
            with open(self.log, "w", encoding="utf-8") as f:
                traceback.print_exc(file=f)
            return HARNESS
        return 0


def isolated(work, timeout: float) -> dict:
    """``work(report)`` in a child process (``bench.core.procs``: forked, or spawned: then
    ``work`` must pickle, e.g. a ``functools.partial`` of ``traced``); its return value, or how
    the child ended. A child that fails inside the check (not inside the user's code: ``trace``
    catches that) writes its traceback to a log file and this raises ``HarnessError`` naming it;
    Ctrl-C (in the parent or the child) kills the child and raises ``KeyboardInterrupt``; a
    spawned child that cannot start raises ``procs.StartError``."""
    fd, path = tempfile.mkstemp(prefix="bench-check-", suffix=".pkl")
    os.close(fd)
    log = path[: -len(".pkl")] + ".log"
    at = [None]

    def on_line(line: str) -> None:
        inst, step = (int(x) for x in line.split())
        at[0] = (inst, step)

    try:
        ended = procs.run(_Child(work, path, log), on_line, timeout)
        at = at[0]
        if ended.timed_out:
            return {"status": "hangs", "detail": f"hangs: no progress for {timeout:g} s",
                    "at": at, "instances": []}  # fmt: skip
        if ended.signal:
            return {"status": "crashes", "detail": ended.how(), "at": at, "instances": []}
        if ended.code == INTERRUPTED:
            raise KeyboardInterrupt
        if ended.code == HARNESS:
            raise HarnessError("the check itself failed in a child process", log)
        if ended.code:
            return {"status": "crashes", "detail": ended.how(), "at": at, "instances": []}
        with open(path, "rb") as f:
            result = pickle.load(f)
        if isinstance(result, dict):
            result.setdefault("at", at)
        return result
    finally:
        os.unlink(path)

"""Per-step judgement of a mode's run against eager MindSpore (pure NumPy: no MindSpore).

Each step is judged against what eager (PYNATIVE) computes *from the state the cell really had*
before that step (an ``Answers`` table filled by the eager oracle process), so a write dropped
once is not counted again as a wrong value in every later step. What a step shows:

- the output: ``ok``; ``stale`` when it equals what eager computes from an earlier step's state
  (the whole state, or one Parameter's previous value); otherwise ``other``;
- each Parameter: ``ok``, ``unchanged`` (eager writes it, the mode kept the value it had before
  the step: a dropped write) or ``other`` (a wrong value).

Comparison: exact where every input is integer-valued and so is eager's value of the array (no
rounding can happen), otherwise ``|mode - eager| <= atol + rtol * |eager|`` with ``rtol`` and
``atol`` from the dtype (``DTYPE_TOL``), ``atol`` raised to 4x the rounding error of the float32
eager run itself, measured against a float64 eager run of the same cell where it allows (the
method of PyTorch's accuracy minifier: a difference as large as eager's own rounding is not a
divergence).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field

import numpy as np

from bench.check import kinds as K
from bench.core.schema import Status

# (rtol, atol) per dtype: a few units in the last place of each format's significand.
DTYPE_TOL = {
    "float16": (1e-3, 1e-4),
    "bfloat16": (1e-2, 1e-3),
    "float32": (1e-5, 1e-6),
    "float64": (1e-12, 1e-14),
}
ROUNDING_FACTOR = 4.0  # atol >= this x eager float32's own error against eager float64
# A float64 run further from the float32 one than this fraction of the values' magnitude computes
# something else (a Parameter its float64 copy did not replace, say one inside a ParameterTuple
# that construct iterates): that is not rounding, and it must not widen the tolerance (seen: an
# EMA's atol raised to 9.15 hid a second instance that never writes).
MAX_ROUNDING = 1e-2


@dataclass(frozen=True)
class Tol:
    exact: bool
    rtol: float = 0.0
    atol: float = 0.0
    why: str = ""

    def text(self) -> str:
        if self.exact:
            return f"exact ({self.why})"
        return f"rtol {self.rtol:g}, atol {self.atol:.3g} ({self.why})"


def integer_valued(arrays) -> bool:
    """Every array integer-typed, boolean, or float with integral finite values."""
    for value in arrays:
        a = np.asarray(value)
        if a.dtype.kind in "iub":
            continue
        if a.dtype.kind != "f" or not np.all(np.isfinite(a)) or not np.all(a == np.round(a)):
            return False
    return True


def tolerance(
    dtype: str, values, exact_inputs: bool, rounding: float | None, scale: float | None = None
) -> Tol:
    """The tolerance of one array (an output or a Parameter) over a run: ``values`` are eager's
    values of it at every step, ``rounding`` the largest |float32 eager - float64 eager| seen
    (None when no float64 run), ``scale`` the largest magnitude of its values (default: from
    ``values``); a ``rounding`` above ``MAX_ROUNDING`` of ``scale`` is not used."""
    kind = np.dtype(dtype).kind if dtype != "bfloat16" else "f"
    if kind in "iub":
        return Tol(True, why=f"{dtype}")
    if exact_inputs and integer_valued(values):
        return Tol(True, why="integer-valued inputs and values")
    rtol, atol = DTYPE_TOL.get(dtype, DTYPE_TOL["float32"])
    if rounding is None:
        return Tol(False, rtol, atol, f"{dtype}; no float64 eager run")
    if scale is None:
        scale = max((float(np.max(np.abs(v))) for v in values if np.size(v)), default=0.0)
    if rounding > MAX_ROUNDING * scale:
        why = (
            f"{dtype}; the float64 eager run departs by {rounding:.3g} (over {MAX_ROUNDING:g} of "
            f"the values' magnitude {scale:.3g}: not rounding, not used)"
        )
        return Tol(False, rtol, atol, why)
    if ROUNDING_FACTOR * rounding > atol:
        why = f"{dtype}; {ROUNDING_FACTOR:g}x eager float32's error vs float64 ({rounding:.3g})"
        return Tol(False, rtol, ROUNDING_FACTOR * rounding, why)
    return Tol(False, rtol, atol, f"{dtype}; float64 eager run agrees within it")


def matches(got, want, tol: Tol) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    if got.shape != want.shape:
        if got.size != want.size:
            return False
        got = got.reshape(want.shape)
    if tol.exact:
        return bool(np.array_equal(got, want))
    return bool(
        np.allclose(got.astype(np.float64), want.astype(np.float64), tol.rtol, tol.atol, True)
    )


def out_name(k: int) -> str:
    return f"output[{k}]"


def describe(value) -> str:
    value = np.asarray(value).reshape(-1)
    if value.size == 1:
        return f"{float(value[0]):.6g}"
    return f"mean {float(np.mean(value)):.6g} over {value.size}"


def difference(name: str, got, want) -> str:
    """One array against eager's, in words."""
    got, want = np.asarray(got), np.asarray(want)
    if got.size != want.size:
        return f"{name} has shape {got.shape}, eager gives {want.shape}"
    if want.size == 1:
        return f"{name} = {describe(got)}, eager gives {describe(want)}"
    delta = np.abs(got.reshape(want.shape).astype(np.float64) - want.astype(np.float64))
    return (
        f"{name} differs from eager in {int(np.count_nonzero(delta))} of {want.size} elements, "
        f"by up to {float(np.max(delta)):.3g}"
    )


def state_key(step: int, state: dict) -> str:
    h = hashlib.sha1(str(step).encode())
    for name in sorted(state):
        a = np.ascontiguousarray(state[name])
        h.update(f"{name}|{a.dtype}|{a.shape}|".encode())
        h.update(a.tobytes())
    return h.hexdigest()


class Answers:
    """What eager computes for (step, state before it): filled from the eager run and from the
    oracle process; ``get`` records every question it cannot answer yet (``missing``)."""

    def __init__(self):
        self.table: dict[str, tuple] = {}
        self.missing: dict[str, tuple[int, dict]] = {}

    def add(self, step: int, state: dict, out: list, after: dict) -> None:
        self.table[state_key(step, state)] = (out, after)

    def get(self, step: int, state: dict):
        key = state_key(step, state)
        if key in self.table:
            return self.table[key]
        self.missing[key] = (step, state)
        return None

    def add_instance(self, inst: dict) -> None:
        before = inst["initial"]
        for i, s in enumerate(inst["steps"]):
            self.add(i, before, s["out"], s["after"])
            before = s["after"]


@dataclass
class StepDiff:
    step: int  # 1-based
    output: str = "ok"  # ok | stale | other
    stale_from: int = 0  # stale: eager from the state before this step (1-based)
    stale_what: str = ""  # the whole state, or one Parameter
    state: dict = field(default_factory=dict)  # name -> unchanged | other (only the wrong)
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.output == "ok" and not self.state

    def kinds(self) -> list[str]:
        out = []
        if "unchanged" in self.state.values():
            out.append(K.WRITE_DROPPED)
        if "other" in self.state.values():
            out.append(K.WRONG_VALUE)
        if self.output == "stale":
            out.append(K.STALE_READ)
        elif self.output == "other":
            out.append(K.WRONG_OUTPUT)
        return out


def _outputs_match(got: list, want: list, tols: dict) -> bool:
    return len(got) == len(want) and all(
        matches(g, w, tols.get(out_name(k), Tol(False, *DTYPE_TOL["float32"])))
        for k, (g, w) in enumerate(zip(got, want))
    )


def stale_candidates(i: int, history: list[dict]) -> list[tuple[int, str, dict]]:
    """(step j 1-based, what, state) to try for a stale read at step i (0-based): one
    Parameter at its value from before the previous step, then the whole state from before each
    earlier step, newest first."""
    if i == 0:
        return []
    now, prev = history[i], history[i - 1]
    out = []
    for name in sorted(now):
        if not np.array_equal(now[name], prev[name]):
            out.append((i, f"`{name}` from before step {i}", {**now, name: prev[name]}))
    for j in range(i - 1, -1, -1):
        out.append((j + 1, f"the whole state from before step {j + 1}", history[j]))
    return out


def judge_step(i, before, step, expected, tols, history, answers) -> StepDiff | None:
    """One step (0-based ``i``) of a mode against eager from ``before``; None when an answer is
    missing (then ``answers.missing`` says which)."""
    want_out, want_after = expected
    d = StepDiff(i + 1)
    if not want_out and not want_after:  # eager raises from the state this mode had
        d.output = "other"
        d.note = "eager raises when run from the state this mode had before the step"
        return d
    notes = []
    if not _outputs_match(step["out"], want_out, tols):
        d.output = "other"
        pending = False
        for j, what, state in stale_candidates(i, history):
            got = answers.get(i, state)
            if got is None:
                pending = True
                continue
            if _outputs_match(step["out"], got[0], tols):
                d.output, d.stale_from, d.stale_what = "stale", j, what
                break
        if pending and d.output == "other":
            return None
        shown = (
            ", ".join(
                difference(out_name(k), g, w)
                for k, (g, w) in enumerate(zip(step["out"], want_out))
                if not matches(g, w, tols.get(out_name(k), Tol(False, *DTYPE_TOL["float32"])))
            )
            or f"{len(step['out'])} outputs, eager gives {len(want_out)}"
        )
        if d.output == "stale":
            shown += f": that is eager's output with {d.stale_what}"
        notes.append(shown)
    for name, want in want_after.items():
        tol = tols.get(name, Tol(False, *DTYPE_TOL["float32"]))
        got = step["after"].get(name)
        if got is not None and matches(got, want, tol):
            continue
        writes = not matches(want, before[name], tol)
        unchanged = got is not None and writes and np.array_equal(got, before[name])
        d.state[name] = "unchanged" if unchanged else "other"
        if got is None:
            notes.append(f"`{name}` is missing")
        elif unchanged:
            notes.append(f"`{name}` kept {describe(got)}, eager writes {describe(want)} "
                         "(the write was dropped)")  # fmt: skip
        else:
            notes.append(difference(f"`{name}`", got, want))
    d.note = "; ".join(notes)
    return d


def judge_instance(inst: dict, answers: Answers, tols: dict, mode: str, process: int,
                   instance: int) -> K.Run | None:  # fmt: skip
    """The run of one instance: None while an answer is missing."""
    run = K.Run(mode, process, instance, K.WORKS)
    before = inst["initial"]
    history = []
    diffs = []
    complete = True
    for i, s in enumerate(inst["steps"]):
        history.append(before)
        expected = answers.get(i, before)
        if expected is None:
            complete = False
        else:
            d = judge_step(i, before, s, expected, tols, history, answers)
            if d is None:
                complete = False
            else:
                diffs.append(d)
        before = s["after"]
    if not complete:
        return None
    seconds = [s.get("seconds", 0.0) for s in inst["steps"]]
    if seconds:
        run.first_call_s = seconds[0]
        run.later_call_s = float(np.median(seconds[1:])) if len(seconds) > 1 else 0.0
    run.steps = [asdict(d) for d in diffs]
    bad = [d for d in diffs if not d.ok]
    run.bad_steps = [d.step for d in bad]
    if bad:
        run.status = Status.INCORRECT.value
        run.kinds = [k for k in K.ORDER if any(k in d.kinds() for d in bad)]
        run.first_step = bad[0].step
        run.detail = f"{', '.join(bad[0].kinds())} at step {bad[0].step}: {bad[0].note}"
        if len(bad) > 1:
            run.detail += f" (and {len(bad) - 1} more of {len(diffs)} steps)"
    error = inst.get("error")
    if error:
        where = f"step {error['step'] + 1}" if error["step"] >= 0 else "building the cell"
        if not bad:
            run.status, run.first_step = K.RAISES, error["step"] + 1
            run.detail = f"{where}: {error['message']}"
        else:
            run.detail += f"; then raises at {where}: {error['message']}"
    return run


def tolerances(ref: dict, ref64: dict | None, exact_inputs: bool) -> dict[str, Tol]:
    """The tolerance of every output and Parameter, from the eager run (and its float64 twin)."""
    steps = ref["steps"]
    out: dict[str, Tol] = {}
    names = [out_name(k) for k in range(len(steps[0]["out"]))] if steps else []
    names += list(ref["initial"])

    def values(name, inst):
        if name.startswith("output["):
            k = int(name[7:-1])
            return [s["out"][k] for s in inst["steps"]]
        return [inst["initial"][name]] + [s["after"][name] for s in inst["steps"]]

    for name in names:
        vals = values(name, ref)
        rounding = None
        if ref64 is not None:
            try:
                vals64 = values(name, ref64)
                rounding = max(
                    float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
                    if np.size(a)
                    else 0.0
                    for a, b in zip(vals, vals64)
                )
            except (KeyError, IndexError, ValueError):
                rounding = None
        dtype = str(np.asarray(vals[0]).dtype) if vals else "float32"
        out[name] = tolerance(dtype, vals, exact_inputs, rounding)
    return out

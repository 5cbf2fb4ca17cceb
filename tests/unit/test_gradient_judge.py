"""The gate's gradient check without MindSpore: BRN's reference gradients in ``expect``, a wrong
gradient judged as its own kind (hand-made arrays), where it stands among the kinds, and what
the workloads that check no gradient keep."""

from __future__ import annotations

import numpy as np
import pytest

from bench.causes import standalone
from bench.causes.inline import InlineError
from bench.core.schema import KINDS, Kind, signature
from bench.measured import gradient
from bench.measured.oracle import BEFORE, Step, calls, judge, judge_gradient, verdict
from bench.measured.workloads.brn import spec
from bench.measured.workloads.brn.runtime import RUNTIME as BRN
from bench.measured.workloads.brn.runtime import _state
from bench.measured.workloads.clip.runtime import RUNTIME as CLIP
from bench.report import words

N = 16


def _expected(index=1, state=None):
    state = state or BRN.initial_state(N)
    return state, BRN.expect(N, index - 1, state, BEFORE)


def _step(grads, index=1, out=None):
    """A step whose output and state are the reference's, with ``grads`` observed."""
    state, want = _expected(index)
    s = judge(BRN, want, state, want.output if out is None else out, want.after, N, index)
    return judge_gradient(BRN, want.grads, grads, s)


def test_brn_expects_the_gradient_with_r_and_d_from_the_state_the_output_reads():
    state, want = _expected()
    (x,) = want.inputs
    ref = spec.grads(
        x, np.ones(3, np.float32), np.zeros(3, np.float32), _state(state), spec.cotangent(x)
    )
    assert set(want.grads) == {"x", "gamma", "beta"} and BRN.grad_weights == ("gamma", "beta")
    for name, value in ref.items():
        np.testing.assert_array_equal(want.grads[name], value)
    assert np.array_equal(BRN.cotangent(want.inputs), spec.cotangent(x))


def test_the_reference_gradient_passes():
    _, want = _expected()
    s = _step(dict(want.grads))
    assert s.ok and not s.grads and s.kinds(BEFORE) == []


def test_a_gradient_through_r_is_a_wrong_gradient_and_says_where():
    _, want = _expected()
    got = dict(want.grads, x=want.grads["x"] * np.float32(1.01) + np.float32(0.01))
    s = _step(got)
    assert not s.ok and s.output == "ok" and not s.state
    assert s.grads == {"x": "other"} and s.kinds(BEFORE) == [Kind.WRONG_GRADIENT]
    assert "the gradient with respect to x differs from the reference (r and d held constant)" in (
        s.note
    )
    assert f"of {want.grads['x'].size} elements" in s.note


def test_a_missing_or_misshapen_gradient_is_wrong():
    _, want = _expected()
    s = _step({"x": want.grads["x"], "gamma": np.zeros(4, np.float32)})
    assert s.grads == {"gamma": "other", "beta": "other"}
    assert "gamma: shape (4,)" in s.note and "beta: none" in s.note


def test_a_wrong_output_comes_before_a_wrong_gradient():
    assert KINDS.index(Kind.WRONG_GRADIENT) == KINDS.index(Kind.WRONG_OUTPUT) + 1
    assert KINDS[-1] is Kind.DIFFERS and Kind.WRONG_GRADIENT.meaning
    _, want = _expected()
    s = _step({}, out=want.output + 1)
    assert s.kinds(BEFORE) == [Kind.WRONG_OUTPUT, Kind.WRONG_GRADIENT]
    found = verdict([s], BEFORE, "N")
    assert found.kind == str(Kind.WRONG_OUTPUT) and found.kinds[-1] == str(Kind.WRONG_GRADIENT)


def test_a_verdict_of_wrong_gradients_from_the_second_call_on():
    state = BRN.initial_state(N)
    steps = []
    for i in range(1, 5):
        want = BRN.expect(N, i - 1, state, BEFORE)
        s = judge(BRN, want, state, want.output, want.after, N, i)
        got = dict(want.grads)
        if i > 1:
            got["gamma"] = got["gamma"] + np.float32(0.5)
        steps.append(judge_gradient(BRN, want.grads, got, s))
        state = want.after
    found = verdict(steps, BEFORE, "N")
    assert signature(found.status, found.kind, found.detail) == "incorrect: wrong gradient"
    assert found.detail.startswith("wrong gradient at step 2 (N=16): the gradient with respect")
    assert calls(found.steps, found.kind, BEFORE) == "from call 2 on"


class _Mode:
    def prepare(self, cell):
        return ("prepared", cell)


def test_a_workload_that_checks_no_gradient_is_stepped_as_before():
    assert CLIP.grad_weights == ()
    assert gradient.prepare(CLIP, _Mode(), "cell") == ("prepared", "cell")
    assert gradient.during(("prepared", "cell")) == ""
    s = Step(size=N, step=1)
    gradient.check(("prepared", "cell"), [None], [s])  # a plain step: nothing judged
    assert s.ok and s.note == ""


def _fake_step(last):
    step = object.__new__(gradient.GradientStep)  # its MindSpore half is not needed here
    step.runtime, step.last = BRN, last
    return step


def test_in_a_network_each_layer_has_its_weights_and_the_input_the_sum():
    _, want = _expected()
    x = 2 * want.grads["x"]  # the network's input gradient: both layers' summed
    layers = [{"gamma": want.grads["gamma"], "beta": want.grads["beta"]} for _ in range(2)]
    records = [Step(size=N, step=1), Step(size=N, step=1)]
    gradient.check(_fake_step({"x": x, "weights": layers}), [want, want], records)
    assert all(r.ok for r in records)
    layers[1] = dict(layers[1], beta=layers[1]["beta"] + 1)
    records = [Step(size=N, step=1), Step(size=N, step=1)]
    gradient.check(_fake_step({"x": want.grads["x"], "weights": layers}), [want, want], records)
    assert records[0].grads == {"the network's x": "other"}
    assert records[1].grads == {"layer 2's beta": "other"}
    assert "the gradient with respect to layer 2's beta" in records[1].note


def test_a_raise_in_a_step_with_its_gradient_keeps_its_signature():
    detail = f"step 3 (N=16){gradient.DURING}: RuntimeError: Failed to compile in GRAPH_MODE"
    assert (
        signature("raises", "", detail) == "raises: RuntimeError: Failed to compile in GRAPH_MODE"
    )
    assert standalone._raise(detail) == "raises: RuntimeError"


def test_no_script_claims_to_reproduce_a_wrong_gradient():
    row = {"workload": "brn", "mode": "graph", "status": "incorrect", "kind": "wrong gradient"}
    with pytest.raises(InlineError, match="checks no gradient"):
        standalone.script("", row, "t", "2.10.0", "n")


def test_a_table_counts_wrong_gradients_only_where_a_cell_shows_one():
    assert str(Kind.WRONG_GRADIENT) not in words.kind_columns(["stale read", ""])
    cols = words.kind_columns(["wrong gradient"])
    assert cols == [str(k) for k in KINDS if k is not Kind.OUTDATED]
    every = words.kind_columns(["wrong gradient", str(Kind.OUTDATED)])
    assert every == [str(k) for k in KINDS]

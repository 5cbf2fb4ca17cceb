"""The check's per-step judgement (no MindSpore): hand-made traces, hand-made answers."""

from __future__ import annotations

import numpy as np
import pytest

from bench.check import diff
from bench.check import kinds as K

F32 = diff.Tol(False, 1e-5, 1e-6, "float32")
EXACT = diff.Tol(True, why="test")


def a(*values):
    return np.asarray(values, np.float32)


def inst(initial, steps):
    return {"initial": {"p": a(initial)}, "steps": steps, "error": None}


def step(out, p, seconds=0.01):
    return {"out": [a(*out)], "after": {"p": a(p)}, "seconds": seconds}


def eager_answers():
    """Eager semantics of a toy cell: out = x * p_after, p += 1 (x = 1 every step)."""
    answers = diff.Answers()
    for i in range(4):
        for p in (0.0, 1.0, 2.0, 3.0, 4.0):
            answers.add(i, {"p": a(p)}, [a(p + 1)], {"p": a(p + 1)})
    return answers


TOLS = {"output[0]": F32, "p": F32}


@pytest.mark.parametrize(
    "values, exact",
    [
        ([np.arange(3, dtype=np.int32)], True),
        ([a(1.0, 2.0, -3.0)], True),
        ([a(1.5)], False),
        ([a(np.inf)], False),
        ([a(1.0), np.array([True])], True),
    ],
)
def test_integer_valued(values, exact):
    assert diff.integer_valued(values) is exact


@pytest.mark.parametrize(
    "dtype, values, exact_inputs, rounding, want",
    [
        ("int32", [np.int32(3)], False, None, (True, 0, 0)),
        ("float32", [a(1.0), a(2.0)], True, None, (True, 0, 0)),
        ("float32", [a(1.5)], True, None, (False, 1e-5, 1e-6)),
        ("float32", [a(1.5)], False, 1e-3, (False, 1e-5, 4e-3)),
        ("float32", [a(1.5)], False, 1e-9, (False, 1e-5, 1e-6)),
        ("float16", [a(1.5)], False, None, (False, 1e-3, 1e-4)),
    ],
)
def test_tolerance_from_dtype_inputs_and_rounding(dtype, values, exact_inputs, rounding, want):
    t = diff.tolerance(dtype, values, exact_inputs, rounding)
    assert (t.exact, t.rtol, t.atol) == pytest.approx(want)
    assert t.why


@pytest.mark.parametrize(
    "got, want, tol, ok",
    [
        (a(1.0), a(1.0), EXACT, True),
        (a(1.0), a(1.0 + 1e-6), EXACT, False),
        (a(1.0), a(1.0 + 1e-6), F32, True),
        (a(1.0), a(1.001), F32, False),
        (a(1.0, 2.0), a(1.0, 2.0, 3.0), F32, False),
        (a(1.0, 2.0).reshape(2, 1), a(1.0, 2.0), F32, True),  # a view of the same values
    ],
)
def test_matches(got, want, tol, ok):
    assert diff.matches(got, want, tol) is ok


def test_a_run_that_follows_eager_works():
    trace = inst(0.0, [step([1.0], 1.0), step([2.0], 2.0), step([3.0], 3.0)])
    run = diff.judge_instance(trace, eager_answers(), TOLS, "graph", 1, 1)
    assert run.status == K.WORKS and run.kinds == [] and run.bad_steps == []


def test_a_dropped_write_is_counted_once_and_named():
    # the write of step 2 is dropped (p stays 1); step 3 is judged from p=1: correct again
    trace = inst(0.0, [step([1.0], 1.0), step([2.0], 1.0), step([2.0], 2.0)])
    run = diff.judge_instance(trace, eager_answers(), TOLS, "graph", 1, 1)
    assert run.status == "incorrect"
    assert run.kinds == [K.WRITE_DROPPED]
    assert run.bad_steps == [2] and run.first_step == 2
    assert "`p` kept 1, eager writes 2" in run.detail


def test_a_wrong_value_is_not_a_dropped_write():
    trace = inst(0.0, [step([1.0], 7.0)])
    run = diff.judge_instance(trace, eager_answers(), TOLS, "graph", 1, 1)
    assert run.kinds == [K.WRONG_VALUE]


def test_an_output_from_an_earlier_state_is_a_stale_read_naming_the_step():
    # step 3 (from p=2) outputs 2: what eager gives from the state before step 2 (p=1)
    trace = inst(0.0, [step([1.0], 1.0), step([2.0], 2.0), step([2.0], 3.0)])
    run = diff.judge_instance(trace, eager_answers(), TOLS, "graph", 1, 1)
    assert run.kinds == [K.STALE_READ]
    (bad,) = [s for s in run.steps if s["output"] != "ok"]
    assert bad["output"] == "stale" and bad["stale_from"] == 2
    assert "before step 2" in bad["stale_what"]


def test_an_unexplained_output_is_a_wrong_output():
    trace = inst(0.0, [step([1.0], 1.0), step([9.0], 2.0)])
    run = diff.judge_instance(trace, eager_answers(), TOLS, "graph", 1, 1)
    assert run.kinds == [K.WRONG_OUTPUT]


def test_a_missing_answer_is_asked_for_not_guessed():
    answers = diff.Answers()
    trace = inst(0.0, [step([1.0], 1.0)])
    assert diff.judge_instance(trace, answers, TOLS, "graph", 1, 1) is None
    ((i, state),) = answers.missing.values()
    assert i == 0 and state["p"] == a(0.0)


def test_a_state_eager_cannot_run_from_is_a_wrong_output_not_a_pass():
    answers = eager_answers()
    answers.add(1, {"p": a(7.0)}, [], {})  # eager raised from p=7
    trace = inst(0.0, [step([1.0], 7.0), step([8.0], 8.0)])
    run = diff.judge_instance(trace, answers, TOLS, "graph", 1, 1)
    assert run.bad_steps == [1, 2]
    assert "eager raises" in run.steps[1]["note"]


def test_an_error_on_the_first_step_is_raises_with_its_message():
    trace = inst(0.0, [])
    trace["error"] = {"step": 0, "message": "RuntimeError: no set_data", "type": "RuntimeError"}
    run = diff.judge_instance(trace, eager_answers(), TOLS, "graph", 1, 1)
    assert run.status == K.RAISES and run.first_step == 1
    assert run.detail == "step 1: RuntimeError: no set_data"


def test_first_call_and_later_calls_are_timed_apart():
    trace = inst(0.0, [step([1.0], 1.0, 2.0), step([2.0], 2.0, 0.1), step([3.0], 3.0, 0.3)])
    run = diff.judge_instance(trace, eager_answers(), TOLS, "graph", 1, 1)
    assert run.first_call_s == 2.0 and run.later_call_s == pytest.approx(0.2)


def test_tolerances_come_from_the_float64_run():
    ref = inst(0.0, [step([1.5], 1.5)])
    ref64 = {
        "initial": {"p": np.float64([0.0])},
        "steps": [{"out": [np.float64([1.5 + 1e-3])], "after": {"p": np.float64([1.5])}}],
    }
    tols = diff.tolerances(ref, ref64, exact_inputs=False)
    assert tols["output[0]"].atol == pytest.approx(4e-3)
    assert tols["p"].atol == 1e-6


@pytest.mark.parametrize(
    "rounding, scale, atol, used",
    [
        (1e-3, 1.5, 4e-3, True),  # well within 1 % of the values: rounding, widens atol
        (2.29, 2.3, 1e-6, False),  # as large as the values: another computation, not used
        (0.05, 1.0, 1e-6, False),  # above 1 %
        (1e-3, 0.0, 1e-6, False),  # values all zero: any departure is not rounding
    ],
)
def test_a_float64_run_far_from_the_float32_one_does_not_widen_the_tolerance(
    rounding, scale, atol, used
):
    t = diff.tolerance("float32", [a(scale)], False, rounding)
    assert t.atol == pytest.approx(atol)
    assert ("not used" in t.why) is not used

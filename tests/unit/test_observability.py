"""The observability contract (issue 50): every checked step of every workload can show a bug.

A verdict is only as good as the steps that could have shown the bug: a state that stops
changing (a cap reached inside the window) or a stale value that gives the same output makes
"right at the later calls" mean nothing. The contract is checked from the NumPy references
alone, when a workload is loaded; these tests run it per workload and break it on purpose.
"""

from __future__ import annotations

import numpy as np
import pytest

from bench.measured import workloads
from bench.measured.oracle import AFTER, BEFORE, Expected, calls, judge, verdict
from bench.measured.workloads.clip.spec import MAX_LIMIT


@pytest.mark.parametrize("name", sorted(workloads.WORKLOADS))
def test_every_workload_keeps_the_contract_at_every_checked_step(name):
    work = workloads.WORKLOADS[name]
    assert work.observability() == []
    assert sum(count for _, count in work.gate_schedule) >= 8  # enough calls per instance


def test_a_clip_that_saturates_inside_the_window_is_caught_at_the_step_and_size():
    clip = workloads.WORKLOADS["clip"]
    found = clip.observability(((8192, 4),))  # the old gate: the cap reached at step 3 of 4
    assert "step 4 (N=8192): limit does not change (a dropped write hides)" in found
    assert any(p.startswith("step 3 (N=8192): the limit reaches the cap before") for p in found)


def test_a_clip_whose_stale_limit_changes_too_few_outputs_is_caught():
    clip = workloads.WORKLOADS["clip"]
    found = clip.observability(((2, 10),))  # N = 2: the limit moves by 2e-4 a step
    assert any("the output read after the write differs from the code's in" in p for p in found)
    assert any("is not capped" in p for p in found)  # and the cap is never exercised


def test_the_clip_reaches_its_cap_at_the_last_checked_call_and_labels_it():
    clip = workloads.WORKLOADS["clip"]
    size, count = clip.gate_schedule[0]
    state, events = clip.initial_state(size), []
    for i in range(count):
        e = clip.expect(size, i, state, BEFORE)
        events.append(e.event)
        state = e.after
    assert float(state["limit"][0]) == pytest.approx(MAX_LIMIT)
    assert [bool(ev) for ev in events] == [False] * (count - 1) + [True]
    assert "cap" in events[-1]


def test_a_brn_whose_bounds_stop_ramping_inside_the_window_is_caught():
    brn = workloads.WORKLOADS["brn"]
    found = brn.observability(((16, 12),))  # the ramp ends at step 8: steps 9-12 hold r_max
    assert "step 9 (N=16): r_max does not change (a dropped write hides)" in found
    assert "step 9 (N=16): d_max does not change (a dropped write hides)" in found


def test_an_ema_whose_weights_stop_training_is_caught(monkeypatch):
    from bench.measured.workloads.ema import spec

    monkeypatch.setattr(spec, "sgd_step", list)  # no training: the weights as they were
    spec._weights_at.cache_clear()
    try:
        found = workloads.WORKLOADS["ema"].observability()
    finally:
        spec._weights_at.cache_clear()
    assert "step 2 (E=2000): the weights do not change" in found
    assert not any(p.startswith(f"step {spec.RELOAD_STEP} ") for p in found)  # a reload moves


def test_loading_a_workload_that_breaks_the_contract_is_refused_naming_the_step(monkeypatch):
    clip = workloads.WORKLOADS["clip"]
    monkeypatch.setattr(type(clip), "gate_schedule", ((8192, 4),))
    monkeypatch.setattr(workloads, "_KEPT", set())
    with pytest.raises(workloads.BlindWorkload, match=r"'clip' .*step 4 \(N=8192\)"):
        workloads.get("clip")


# -- the oracle: observability per step, the kind of the first diverging step ----------------
class Tiny:
    """A one-number workload: the state is `s`, the output reads it."""

    rtol, atol = 1e-6, 1e-6
    readings: dict = {}

    def matches(self, got, want):
        got, want = np.asarray(got), np.asarray(want)
        return got.shape == want.shape and bool(np.allclose(got, want, self.rtol, self.atol))

    def describe_output(self, out, expected):
        return ""


def _step(old, new, got, out=0.0, alt=1.0, index=1, outdated=None):
    e = Expected(
        (np.zeros(1),),
        np.asarray([out]),
        {"s": np.asarray([new], np.float32)},
        {AFTER: np.asarray([alt])},
        outdated={"s": np.asarray([outdated], np.float32)} if outdated is not None else {},
    )
    before = {"s": np.asarray([old], np.float32)}
    return judge(
        Tiny(), e, before, np.asarray([out]), {"s": np.asarray([got], np.float32)}, 1, index
    )


def test_a_step_whose_state_does_not_change_could_not_tell_and_the_calls_say_so():
    steps = [
        _step(1.0, 2.0, 1.0, index=1),  # dropped
        _step(1.0, 2.0, 1.0, index=2),  # dropped
        _step(3.0, 3.0, 3.0, index=3),  # the state cannot change: blind
    ]
    assert [s.observable for s in steps] == [True, True, False]
    said = calls([vars(s) for s in steps], "write dropped", BEFORE)
    assert said == "at calls 1, 2 of 3 (call 3 could not tell)"
    same_output = _step(1.0, 2.0, 2.0, out=0.0, alt=0.0)  # a stale read gives the same output
    assert not same_output.observable


def test_the_kind_is_the_first_diverging_steps_a_wrong_cap_is_a_wrong_value():
    steps = [
        _step(2.8, 3.0, 2.9, index=1),  # the cap written wrong: 2.9 where the code writes 3.0
        _step(2.9, 3.0, 2.9, index=2),  # then the value is kept: looks like a dropped write
    ]
    assert steps[0].state == {"s": "other"} and steps[1].state == {"s": "unchanged"}
    found = verdict(steps, BEFORE, "N")
    assert found.kind == "wrong value"
    assert found.kinds == ["write dropped", "wrong value"]  # every kind kept, in KINDS' order


def test_a_state_that_matches_the_update_of_replaced_values_is_outdated():
    step = _step(1.0, 2.0, 1.5, outdated=1.5)
    assert step.state == {"s": "outdated"}
    assert [str(k) for k in step.kinds(BEFORE)] == ["follows the old values after a reload"]
    assert _step(1.0, 2.0, 1.7, outdated=1.5).state == {"s": "other"}

"""The oracle: each step judged against what the code means, from the state the cell really had;
kinds named, values used recorded (no MindSpore)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.core.schema import Kind, signature
from bench.measured.oracle import AFTER, BEFORE, judge, verdict
from bench.measured.workloads.clip.runtime import RUNTIME as CLIP

N = 8192


def step(meaning, before, out_limit, after_limit, lo=None, earlier=None, index=1):
    state = {"limit": np.asarray([before], np.float32)}
    expected = CLIP.expect(N, index - 1, state, meaning)
    (x,) = expected.inputs
    out = np.clip(x, -(out_limit if lo is None else lo), out_limit)
    return judge(
        CLIP,
        expected,
        state,
        out,
        {"limit": np.asarray([after_limit], np.float32)},
        N,
        index,
        earlier,
    )


NEW = 1.8192  # 1 + 1e-4 * 8192, by hand (the values per meaning: test_expected_values.py)


def test_the_code_means_the_new_limit_and_the_mode_computes_it():
    s = step(AFTER, 1.0, NEW, NEW)
    assert s.ok and not s.kinds(AFTER)


def test_a_view_that_kept_the_old_value_is_a_stale_read():
    s = step(AFTER, 1.0, 1.0, NEW)
    assert s.output == BEFORE and s.kinds(AFTER) == [Kind.STALE_READ]
    assert "the clip used [-1, 1]" in s.note and "from before the write" in s.note


def test_a_snapshot_that_saw_the_write_is_a_future_read():
    s = step(BEFORE, 1.0, NEW, NEW)
    assert s.kinds(BEFORE) == [Kind.FUTURE_READ]


def test_an_unchanged_parameter_is_a_dropped_write_and_says_the_values():
    s = step(BEFORE, 1.0, 1.0, 1.0)
    assert s.state == {"limit": "unchanged"} and s.kinds(BEFORE) == [Kind.WRITE_DROPPED]
    assert "limit = 1, the code writes 1.8192 (unchanged)" in s.note


def test_a_parameter_written_wrong_is_a_wrong_value():
    s = step(BEFORE, 1.0, 1.0, 2.5)
    assert s.state == {"limit": "other"} and s.kinds(BEFORE) == [Kind.WRONG_VALUE]


def test_two_reads_that_see_different_values_are_a_wrong_output():
    s = step(AFTER, 1.0, NEW, NEW, lo=1.0)
    assert s.output == "other" and s.kinds(AFTER) == [Kind.WRONG_OUTPUT]
    assert "[-1, 1.8192]" in s.note and "no reading of the state gives it" in s.note


def test_a_read_older_than_the_step_is_a_stale_read_named_by_its_step():
    older = {1: np.clip(CLIP.expect(N, 1, {"limit": np.asarray([1.0])}, BEFORE).inputs[0], -1, 1)}
    s = step(BEFORE, NEW, 1.0, 3.0, earlier=older, index=2)
    assert s.older == 1 and Kind.STALE_READ in s.kinds(BEFORE)
    assert "before step 1" in s.note


def test_a_run_of_steps_gets_the_first_kind_and_counts_the_rest():
    third = 2.6384  # 1.8192 + 0.8192
    steps = [step(AFTER, 1.0, 1.0, NEW), step(AFTER, NEW, third, third, index=2)]
    found = verdict(steps, AFTER, "N")
    assert found.status == "incorrect" and found.kind == "stale read"
    assert found.detail.startswith("stale read at step 1 (N=8192)")
    assert signature(found.status, found.kind) == "incorrect: stale read"
    assert verdict([steps[1]], AFTER, "N").status == "works"


@pytest.mark.parametrize(
    "status, kind, detail, want",
    [
        ("works", "", "", "works"),
        ("incorrect", "write dropped", "x", "incorrect: write dropped"),
        (
            "raises",
            "",
            "step 1 (N=8): RuntimeError: Failed to compile in GRAPH_MODE because the "
            "'Parameter' object's",
            "raises: RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'",
        ),
        ("crashed", "", "died with SIGSEGV", "crashed"),
    ],
)
def test_a_signature_compares_what_a_verdict_is(status, kind, detail, want):
    assert signature(status, kind, detail) == want


def test_the_reading_labels_are_the_words_the_records_keep():
    s = step(AFTER, 1.0, 1.0, NEW)
    assert (BEFORE, AFTER) == ("before", "after") and s.output == "before"


def test_a_cell_with_two_kinds_is_named_by_the_first_in_the_order_and_keeps_both():
    s = step(AFTER, 1.0, 1.0, 1.0)  # the write dropped and the read kept the old limit
    assert s.kinds(AFTER) == [Kind.WRITE_DROPPED, Kind.STALE_READ]
    found = verdict([s], AFTER, "N")
    assert found.kind == "write dropped" and found.kinds == ["write dropped", "stale read"]


def test_only_more_than_one_bad_step_is_counted_in_the_detail():
    bad = step(BEFORE, 1.0, 1.0, 1.0)
    assert "more of" not in verdict([bad], BEFORE, "N").detail
    two = verdict([bad, step(BEFORE, 1.0, 1.0, 1.0, index=2)], BEFORE, "N")
    assert two.detail.endswith("(and 1 more of 2 steps)")


def _steps(outputs, states=None):
    states = states or [{}] * len(outputs)
    return [
        {"size": 8, "step": i, "output": o, "state": s}
        for i, (o, s) in enumerate(zip(outputs, states), 1)
    ]


@pytest.mark.parametrize(
    "steps, kind, meaning, said",
    [
        (_steps(["before", "ok", "ok", "ok"]), "stale read", "after", "at the first call only"),
        (_steps(["before"] * 4), "stale read", "after", "at every call"),
        (_steps(["ok", "ok", "before", "before"]), "stale read", "after", "from call 3 on"),
        (_steps(["before", "before", "ok"]), "stale read", "after", "at the first 2 calls only"),
        (_steps(["before", "ok", "before", "ok"]), "stale read", "after", "at calls 1, 3 of 4"),
        (_steps(["ok"] * 4), "stale read", "after", ""),
        (_steps(["before"] * 2), "stale read", "before", ""),  # the code means the old value
        (
            _steps(["ok"] * 3, [{"limit": "unchanged"}, {}, {}]),
            "write dropped",
            "after",
            "at the first call only",
        ),
        (
            _steps(["ok"] * 3, [{}, {"limit": "unchanged"}, {"limit": "unchanged"}]),
            "write dropped",
            "after",
            "from call 2 on",
        ),
    ],
)
def test_the_calls_a_kind_shows_at(steps, kind, meaning, said):
    from bench.measured.oracle import calls

    assert calls(steps, kind, meaning) == said


def test_the_calls_of_each_instance_are_counted_apart():
    from bench.measured.oracle import calls

    two = [
        *_steps(["before", "ok"]),
        {"size": 64, "step": 1, "output": "before", "state": {}},
        {"size": 64, "step": 2, "output": "ok", "state": {}},
    ]
    assert calls(two, "stale read", "after") == "at the first call only"


@pytest.mark.parametrize(
    "first, second, record, only",
    [
        (("works",), ("works",), "works", False),
        (
            ("works",),
            ("incorrect", "write dropped", "write dropped at step 1"),
            "write dropped: write dropped at step 1",
            True,
        ),
        (
            ("works",),
            ("raises", "", "step 1: RuntimeError: x"),
            "raises: step 1: RuntimeError: x",
            True,
        ),
        (
            ("incorrect", "stale read", "d"),
            None,
            "not checked (the first instance does not work)",
            False,
        ),
        (("works",), None, "not checked (only under bytecode capture)", False),
    ],
)
def test_what_a_second_instance_records(first, second, record, only):
    from bench.measured.oracle import Observation
    from bench.run.gate import second_instance

    def obs(status, kind="", detail=""):
        return Observation(status, kind, [kind] if kind else [], detail)

    got = second_instance(obs(*first), obs(*second) if second else None)
    assert got == (record, only)


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("boom", "boom"),
        (
            "\n----\n- Kernel select failed:\n----\nSelect CPU operator[X] fail!\nmore",
            "Kernel select failed: Select CPU operator[X] fail!",
        ),
        (
            "-----------\nFailed to compile in GRAPH_MODE because x\n\nmore",
            "Failed to compile in GRAPH_MODE because x",
        ),
        ("", ""),
    ],
)
def test_an_error_is_named_by_its_first_line_that_says_something(text, line):
    from bench.measured.oracle import message_line

    assert message_line(text) == line

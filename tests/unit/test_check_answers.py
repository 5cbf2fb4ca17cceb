"""The kind of state of the Parameters a user's Cell writes (no MindSpore): hand-made tables."""

from __future__ import annotations

import numpy as np
import pytest

from bench.check import answers as A
from bench.report import answer


def test_the_kinds_are_the_reports_kinds():
    assert (A.SMALL, A.ROWS, A.ELEMENTWISE) == tuple(answer.KINDS)


@pytest.mark.parametrize(
    "written, kind",
    [
        (A.Written("r_max", 1, 1.0), A.SMALL),  # a scalar replaced
        (A.Written("moving_mean", 1024, 1.0), A.SMALL),  # BRN's largest measured N
        (A.Written("ema", 10_000, 1.0), A.ELEMENTWISE),  # the EMA's smallest measured E
        (A.Written("ema", 10_000, 0.9), A.ELEMENTWISE),
        (A.Written("cache", 8 * 128, 1 / 128, indexed=True), A.ROWS),  # a row of a small cache
        (A.Written("cache", 64 * 8192, 1 / 8192), A.ROWS),  # a row, written whole (set_data)
        (A.Written("buf", 1000, 0.1), A.SMALL),  # few elements change, but no index write
        (A.Written("buf", 16, 0.25, indexed=True), A.ROWS),  # a quarter: still rows
        (A.Written("buf", 16, 0.5, indexed=True), A.SMALL),  # half: not a row
        (A.Written("lim", 1, 1.0, indexed=True), A.SMALL),  # one element by index: replaced
    ],
)
def test_the_kind_of_state(written, kind):
    got, what, rule = A.kind_of_state(written)
    assert got == kind
    assert what and rule


def test_what_a_trajectory_writes():
    trajectory = {
        "initial": {"w": np.ones(4), "cache": np.zeros((2, 8)), "lim": np.float32(1.0)},
        "steps": [
            {"after": {"w": np.ones(4), "cache": np.eye(2, 8), "lim": np.float32(1.5)}},
            {"after": {"w": np.ones(4), "cache": np.eye(2, 8), "lim": np.float32(1.5)}},
        ],
    }
    got = {w.name: w for w in A.written(trajectory, indexed={"cache"})}
    assert set(got) == {"cache", "lim"}  # w is never written
    assert got["cache"] == A.Written("cache", 16, 2 / 16, True)
    assert got["lim"] == A.Written("lim", 1, 1.0, False)
    kinds = A.kinds_of(list(got.values()))
    assert list(kinds) == [A.SMALL, A.ROWS]  # small first
    assert (
        A.why(kinds[A.SMALL])
        == "`lim`: 1 element (fewer than 4096 elements: a small Parameter replaced)"
    )


def _decision(write="assign_primitive", nearest=None, avoid=()):
    from bench.report.answer import Reason
    from bench.report.decisions import Decision

    return Decision("small", "jit_bytecode", write, "mindspore.ops.Assign", False, Reason(), None,
                    nearest=nearest, avoid=avoid)  # fmt: skip


def test_the_check_names_what_to_avoid_and_where_the_answer_fails(monkeypatch):
    """From decisions.json, as README's table: the APIs to avoid (users' first tries on top),
    four shown and the rest counted, and the shapes where the answer itself fails."""
    from bench.report.decisions import Failure

    apis = [
        "ops.assign",
        "Tensor.add_",
        "Parameter.set_data",
        "Tensor.fill_",
        "ops.InplaceUpdateV2",
    ]
    avoid = tuple(Failure(a.split(".")[-1], f"mindspore.{a}", 0, 10, "write dropped") for a in apis)
    near = Failure("assign_primitive", "mindspore.ops.Assign", 48, 50, "stale read", ("clip:a",))
    monkeypatch.setattr(A, "_decisions", lambda: {("small", "jit_bytecode"): _decision(
        nearest=near, avoid=avoid)})  # fmt: skip
    assert A.avoid("small", "jit_bytecode") == [
        "`ops.assign` (write dropped)", "`Tensor.add_` (write dropped)",
        "`Parameter.set_data` (write dropped)", "`Tensor.fill_` (write dropped)", "1 more",
    ]  # fmt: skip
    assert A.exceptions("small", "jit_bytecode") == "fails in 2 of 50 shapes (stale read: clip:a)"
    assert A.avoid("small", "graph") == [] and A.exceptions("small", "graph") == ""


def test_no_answer_has_no_exception_list(monkeypatch):
    from bench.report.decisions import Failure

    near = Failure("assign", "mindspore.ops.assign", 40, 50, "write dropped", ("brn:x",))
    monkeypatch.setattr(A, "_decisions", lambda: {("small", "jit_bytecode"): _decision(
        write=None, nearest=near)})  # fmt: skip
    assert A.exceptions("small", "jit_bytecode") == ""


def test_the_committed_decisions_are_read():
    A._decisions.cache_clear()
    assert ("small", "graph") in A._decisions()

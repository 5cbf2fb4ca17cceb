"""The kind of state of the Parameters a user's Cell writes (no MindSpore): hand-made tables."""

from __future__ import annotations

import numpy as np
import pytest

from bench.check import answers as A
from bench.decide import answer


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
    from bench.decide.answer import Reason
    from bench.decide.decisions import Decision

    return Decision("small", "jit_bytecode", write, "mindspore.ops.Assign", False, Reason(), None,
                    nearest=nearest, avoid=avoid)  # fmt: skip


def test_the_check_names_what_to_avoid_and_where_the_answer_fails(monkeypatch):
    """From decisions.json, as README's table: the APIs to avoid (users' first tries on top),
    four shown and the rest counted, and the shapes where the answer itself fails."""
    from bench.decide.decisions import Failure

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
    from bench.decide.decisions import Failure

    near = Failure("assign", "mindspore.ops.assign", 40, 50, "write dropped", ("brn:x",))
    monkeypatch.setattr(A, "_decisions", lambda: {("small", "jit_bytecode"): _decision(
        write=None, nearest=near)})  # fmt: skip
    assert A.exceptions("small", "jit_bytecode") == ""


def test_the_committed_decisions_are_read():
    A._decisions.cache_clear()
    assert ("small", "graph") in A._decisions()


def test_the_checks_answer_is_the_decisions_entry_in_words(monkeypatch):
    """The write, its cost, why it is not decided and its code come from decisions.json
    (``templates/check_answer.md.j2``): the check and README's table read one file."""
    from dataclasses import replace

    from bench.decide.answer import Reason
    from bench.decide.decisions import Cost

    cost = Cost("brn", 1024, "batch size", added_s=4e-4, low_s=8e-5, high_s=7.8e-4, ratio=1.21)
    code = ("```python", "from mindspore import ops", "", "self.assign_op(self.r_max, new)", "```")
    d = replace(_decision(), cost=cost, reason=Reason("open"), snippet=code)
    none = replace(_decision(write=None), reason=Reason("no_candidate"))
    bare = replace(_decision(), decided=True, snippet=(), description="a host-side update")
    found = {("small", "jit_bytecode"): d, ("small", "pynative"): replace(d, mode="pynative"),
             ("small", "graph"): none, ("small", "jit_ast"): bare}  # fmt: skip
    monkeypatch.setattr(A, "_decisions", lambda: found)
    got = A.answer("small", "jit_bytecode")
    assert got.strategy == "assign_primitive"
    assert got.text == (
        "`assign_primitive` (+400 µs [+80, +780] a step (+21 %) at 1,024 (batch size; brn)). "
        "*Not decided: whether another candidate is faster by more than the margin is not known "
        "yet.*"
    )
    assert got.code == ["from mindspore import ops", "", "self.assign_op(self.r_max, new)"]
    drain = A.answer("small", "pynative").text
    assert drain.endswith("`findings/README.md` explains it).*")
    assert "* *PYNATIVE_MODE on a machine with few cores: ops such as assign" in drain
    assert A.answer("small", "graph").text == (
        "none — no API documented for the CPU is correct in the common shapes here."
    )
    assert (
        A.answer("small", "jit_ast").text
        == "`assign_primitive` (not timed). What to write: a host-side update."
    )
    assert A.answer("rows", "graph") is None


def test_a_diagnostic_mode_is_in_the_decisions_not_on_readmes_table():
    from dataclasses import replace

    from bench.report import readme

    blocking = replace(_decision(), mode="pynative_blocking", diagnostic=True)
    rows = readme.first_screen([_decision(), blocking])
    assert len(rows) == 3 and "launch_blocking" not in "\n".join(rows)


def test_an_api_two_avoided_strategies_share_is_named_with_each_as_readme_does(monkeypatch):
    """README's table says "`Parameter.set_data` as `host_ema`" where two strategies of the
    avoid-list call one API; the check says the same (one template filter, not its own words)."""
    from bench.decide.decisions import Failure

    avoid = (
        Failure("set_data", "mindspore.Parameter.set_data", 0, 9, "raises"),
        Failure("host_ema", "mindspore.Parameter.set_data", 0, 9, "follows the old values"),
        Failure("add_", "mindspore.Tensor.add_", 0, 9, "write dropped"),
    )
    monkeypatch.setattr(A, "_decisions", lambda: {("small", "graph"): _decision(avoid=avoid)})
    assert A.avoid("small", "graph", shown=2) == [
        "`Parameter.set_data` as `set_data` (raises)",
        "`Parameter.set_data` as `host_ema` (follows the old values)",
        "1 more",
    ]

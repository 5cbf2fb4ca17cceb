"""A root cause's short program run for real, alone in a fresh process: it exits 0 only when
it shows its outcome (a working write under the same program says NOT REPRODUCED), and the
committed programs reproduce on this MindSpore (``bench.causes.reduce``)."""

from __future__ import annotations

import pytest

from bench.causes import reduce as R
from bench.core import paths

pytestmark = pytest.mark.mindspore


def _write(tmp_path, strategy, mode, where, expected):
    source = (paths.ROOT / "strategies" / f"{strategy}.py").read_text(encoding="utf-8")
    path = tmp_path / f"{strategy}-{mode}.py"
    path.write_text(R.program(R.writer(source), mode, where, expected, "t"), encoding="utf-8")
    return path


def test_a_correct_write_does_not_reproduce_and_a_dropped_one_does(tmp_path):
    fine = R.run(_write(tmp_path, "assign_primitive", "graph", "inline", "write dropped at call 1"))
    assert (fine.code, fine.said) == (1, "NOT REPRODUCED: works")
    dropped = R.run(_write(tmp_path, "assign", "jit_bytecode", "inline", "write dropped at call 1"))
    assert (dropped.code, dropped.said) == (0, "REPRODUCED: write dropped at call 1")


def test_an_error_is_matched_by_its_words(tmp_path):
    expected = "raises: RuntimeError: Failed to compile in GRAPH_MODE"
    got = R.run(_write(tmp_path, "set_data", "graph", "inline", expected))
    assert got.code == 0 and got.said.startswith("REPRODUCED: " + expected)
    other = R.run(_write(tmp_path, "set_data", "graph", "inline", "raises: TypeError"))
    assert other.code == 1 and other.said.startswith("NOT REPRODUCED: raises: RuntimeError")


def test_a_write_rule_is_kept_only_with_its_working_placement_checked(tmp_path):
    """`write=inline` against `write=depend` under bytecode capture (`Tensor.add_`): the inline
    program shows the dropped write and the depend one, run as its pair, works."""
    entry = {"anchor": "a", "repro": "", "outcome": "incorrect: write dropped at every call",
             "example": {"strategy": "add_", "shape": "inline-view-method",
                         "mode": "jit_bytecode"}}  # fmt: skip
    cause = {"rank": 1, "slug": "s", "title": "t", "outcome": "write dropped",
             "calls": "at every call", "witness": "a", "entries": [entry],
             "trigger": {"construct": ["write", "inline", "depend"], "apis": []}}  # fmt: skip
    got = R.reduce_cause(cause, tmp_path, R.sys.executable, paths.ROOT / "strategies")
    assert got.script, got.why_not
    assert got.tried == [
        "add_@inline-jit_bytecode: REPRODUCED: write dropped at call 1",
        "add_@depend-jit_bytecode (works with it): NOT REPRODUCED: works",
    ]


def test_the_reload_form_shows_a_compiled_construct_following_the_old_weight(tmp_path):
    """`ops.assign` of an EMA under jit(capture_mode="ast") keeps reading the weight from
    before a checkpoint reload; GRAPH_MODE reads the loaded one (the cause's own modes)."""
    expected = "follows the old values after a reload at call 5"
    ast_ = R.run(_write(tmp_path, "assign", "jit_ast", "depend", expected))
    assert (ast_.code, ast_.said) == (0, "REPRODUCED: " + expected)
    graph = R.run(_write(tmp_path, "assign", "graph", "depend", expected))
    assert (graph.code, graph.said) == (1, "NOT REPRODUCED: works")


def test_an_as_written_ema_drops_its_in_place_update_in_pynative_only(tmp_path):
    """`ema.mul_(decay); ema.add_(...)` over a ParameterTuple, as PyTorch users write an EMA:
    PYNATIVE_MODE drops the update at the first call; GRAPH_MODE writes it."""
    source = (paths.ROOT / "strategies" / "mul_.py").read_text(encoding="utf-8")
    for mode, code in (("pynative", 0), ("graph", 1)):
        path = tmp_path / f"mul_-{mode}.py"
        path.write_text(R.as_written(source, mode, "write dropped at call 1", "t"))
        got = R.run(path)
        assert got.code == code, got.said


def test_the_programs_layouts_are_the_strategies():
    """``reduce`` keeps the Parameter shape of each layout as text (importing ``bench.strategy``
    imports MindSpore); it must be its owner's, and a strategy file's ``layout`` is read as the
    class has it (the base's where the file says none)."""
    from bench.strategy import LAYOUTS, Strategy

    assert {k: str(v) for k, v in LAYOUTS.items()} == R.LAYOUTS
    assert R.writer("class Cell:\n    def write(self, param, value):\n        pass\n").layout == (
        Strategy.layout
    )
    vector = (paths.ROOT / "strategies" / "index_add.py").read_text(encoding="utf-8")
    assert R.writer(vector).layout == "vector"

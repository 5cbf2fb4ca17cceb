"""Writing out what a variant imports from the suite: the definitions used, followed through
re-exports, in dependency order, without docstrings or methods nothing calls."""

from __future__ import annotations

import ast

import numpy as np
import pytest

from bench.causes import inline


def test_a_name_is_followed_through_re_exports_to_its_definition_and_what_it_uses():
    found = inline.collect([("bench.spec", "next_limit")])  # re-exported from the clip's spec
    assert set(found.defined) == {"next_limit", "DTYPE", "INC_STEP", "MAX_LIMIT"}
    assert {m for m, _ in found.defined.values()} == {"bench.measured.workloads.clip.spec"}
    assert found.import_lines() == ["import numpy as np"]
    text = inline.module_text(found.import_lines(), found.blocks)
    space: dict = {}
    exec(text, space)
    assert space["next_limit"](np.float32(1.0), 8192) == np.float32(1.8192)
    assert "def make_input" not in text  # not used by next_limit


def test_the_definitions_come_before_their_use():
    found = inline.collect([("bench.measured.workloads.clip.cell", "ClipState")])
    names = [ast.parse(b).body[0] for b in found.blocks]
    order = [getattr(n, "name", None) or n.targets[0].id for n in names]
    assert order.index("LAYOUTS") < order.index("ClipState")
    assert order.index("INITIAL_LIMIT") < order.index("ClipState")
    assert ("mindspore", "") in found.imports and ("mindspore", "ms") in found.imports


def test_a_module_imported_by_name_or_a_missing_name_is_refused():
    with pytest.raises(inline.InlineError):
        inline.collect([("bench.measured.workloads", "clip")])
    with pytest.raises(inline.InlineError):
        inline.collect([("bench.strategy", "no_such_name")])


CLASS = '''class Base(nn.Cell):
    """A docstring."""

    layout = "scalar"

    def __init__(self):
        super().__init__()

    def construct(self, x):
        return x

    def used(self):
        """Its docstring."""
        return 1

    def unused(self):
        return 2
'''


def test_pruning_drops_docstrings_and_methods_nothing_refers_to():
    text = inline.prune(CLASS, keep={"used"})
    assert '"""' not in text and "def unused" not in text
    assert "def used" in text and "def construct" in text and "def __init__" in text
    assert "layout = " in text
    ast.parse(text)
    only = inline.prune('class A:\n    """Doc."""\n\n    def f(self):\n        pass\n', set())
    assert only == "class A:\n    pass"


def test_a_method_a_subclass_overrides_is_dropped_unless_it_calls_up():
    blocks = [
        "class Variant(Base, Cell):\n    def construct(self, x):\n        return x\n",
        "class Cell(Strategy):\n    def used(self):\n        return super().used() + 1\n",
    ]
    over = inline.overrides(blocks)
    assert ("Base", "construct") in over and ("Strategy", "used") not in over
    text = inline.prune(CLASS, keep={"used"}, overridden=over)
    assert "def construct" not in text and "def used" in text


def test_one_line_assignments_stay_together():
    text = inline.module_text(["import numpy as np"], ["A = 1", "B = 2", "def f():\n    return A"])
    assert "A = 1\nB = 2\n\n\ndef f():" in text
    assert "from __future__" not in text
    assert inline.module_text([], ["def f(x: int) -> int:\n    return x"]).startswith(
        "from __future__ import annotations"
    )

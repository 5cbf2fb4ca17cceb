"""Standalone reproduction scripts: only MindSpore and NumPy, the cell written out (no MindSpore
needed to check the text)."""

from __future__ import annotations

import ast

from bench.report import standalone

VARIANT = """# Generated
from bench.measured.workloads.clip.cell import ClipState
import mindspore as ms
from mindspore import ops

from bench.strategy import Strategy

DESCRIPTION = "ops.assign(param, value)"


class Cell(Strategy):
    def write(self, param, value):
        ops.assign(param, value)


class Variant(ClipState, Cell):
    def construct(self, x):
        out = ops.clip_by_value(x, -self.limit, self.limit)
        out = ops.depend(out, ops.assign(self.limit, self.next_limit(x)))
        return out
"""
ROW = {
    "workload": "clip",
    "mode": "graph",
    "status": "incorrect",
    "kind": "write dropped",
    "layout": "scalar",
    "meaning": "before",
    "detail": "write dropped at step 1",
}


def _imports(text: str) -> set[str]:
    tree = ast.parse(text)
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    return names


def test_a_script_imports_only_mindspore_numpy_and_the_standard_library():
    text = standalone.script(VARIANT, ROW, "title", "2.10.0", "x.py")
    assert _imports(text) == {"mindspore", "numpy", "subprocess", "sys"}
    assert "bench" not in text.replace("benchmark", "")
    assert "class ClipState(nn.Cell)" in text and "class Variant(ClipState, Cell)" in text
    assert "RECORDED = 'incorrect: write dropped'" in text
    assert "N, STEPS, INSTANCES, MEANING = 8192, 4, 1, 'before'" in text
    assert "ms.set_context(mode=ms.GRAPH_MODE)" in text and "ms.jit(" not in text
    assert len(text.splitlines()) < 130


def test_a_second_instance_failure_runs_two_instances_and_jit_wraps_construct():
    row = {**ROW, "mode": "jit_ast", "detail": "in a second instance only (the first works): d"}
    text = standalone.script(VARIANT, row, "title", "2.10.0", "x.py")
    assert "N, STEPS, INSTANCES, MEANING = 8192, 4, 2, 'before'" in text
    assert "ms.jit(cell.construct, capture_mode='ast')" in text


def test_no_script_for_another_workload_or_another_bench_import():
    assert standalone.script(VARIANT, {**ROW, "workload": "ema"}, "t", "v", "x.py") is None
    other = VARIANT.replace("import Strategy", "import Strategy, helper")
    assert standalone.script(other, ROW, "t", "v", "x.py") is None

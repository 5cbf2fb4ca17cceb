"""Every answer's code on README.md and results/summary.md runs as printed: each fenced snippet
under a mode's answer is cut into its imports, ``__init__`` lines and ``construct`` lines, placed
verbatim in a minimal Cell of its kind of state (the template below imports nothing under the
names a snippet uses, so a missing import fails), run a few steps in its mode, and the Parameter
is compared with what the code means eagerly (NumPy)."""

from __future__ import annotations

import importlib.util
import re
import sys

import numpy as np
import pytest

from bench.core.paths import ROOT
from bench.measured.modes import MODES

pytestmark = pytest.mark.mindspore

PAGES = [ROOT / "README.md", ROOT / "results" / "summary.md"]
MODE_OF = {m.label: name for name, m in MODES.items()}
STEPS = 3

HEAD = """\
import numpy as _np
import mindspore as _ms
from mindspore import nn as _nn, Parameter as _P, Tensor as _T, ops as _ops
{imports}
"""

SMALL_VALUES = [min(1.0 + 0.25 * k, 3.0) for k in range(STEPS + 1)]


def _small(param: str, before: list[str], out: str) -> dict:
    return {
        "state": [
            f"self.{param} = _P(_T({{value}}, _ms.float32), name='{param}', requires_grad=False)"
        ],
        "args": "x",
        "before": before,
        "indent": 8,
        "out": out,
        "inputs": lambda k: (np.random.default_rng(k).standard_normal((4, 3)).astype(np.float32),),
        "param": param,
        "expected": lambda: np.float32(SMALL_VALUES[STEPS]),
    }


def _cache_after() -> np.ndarray:
    cache = np.zeros((1, 2, 4, 3), np.float32)
    for k in range(STEPS):
        cache[:, :, k, :] = k + 1
    return cache


def _ema_after() -> np.ndarray:
    w, ema = np.arange(6, dtype=np.float32).reshape(2, 3), np.zeros((2, 3), np.float32)
    for _ in range(STEPS):
        ema = np.float32(0.9) * ema + np.float32(0.1) * w
    return ema


# per name a snippet writes: a minimal Cell of that kind of state and the eager meaning
TEMPLATES = {
    r"self\.limit\b": _small(
        "limit",
        [
            "clipped = _ops.clip_by_value(x, -self.limit, self.limit)",
            "new = _ops.minimum(self.limit + 0.25, 3.0)",
        ],
        "clipped",
    ),
    r"self\.r_max\b": _small(
        "r_max",
        [
            "r = _ops.clip_by_value(x, 1.0 / self.r_max, self.r_max)",
            "new_r_max = _ops.minimum(self.r_max + 0.25, 3.0)",
        ],
        "r",
    ),
    r"self\.cache\b": {
        "state": [
            "self.cache = _P(_T(_np.zeros((1, 2, 4, 3), _np.float32)), name='cache', "
            "requires_grad=False)"
        ],
        "args": "row, t",
        "before": [
            "mask = (_ops.arange(4) == t.astype(_ms.int64)).reshape((1, 1, 4, 1))",
            "new = _ops.where(mask, row, self.cache)",
        ],
        "indent": 8,
        "out": "row",
        "inputs": lambda k: (np.full((1, 2, 1, 3), k + 1, np.float32), np.array([k], np.int32)),
        "param": "cache",
        "expected": _cache_after,
    },
    r"\bema\b": {
        "state": [
            "self.emas = _ms.ParameterTuple([_P(_T(_np.zeros((2, 3), _np.float32)), "
            "name='ema0', requires_grad=False)])",
            "self.weights = _ms.ParameterTuple([_P(_T(_np.arange(6, dtype=_np.float32)"
            ".reshape(2, 3)), name='w0')])",
        ],
        "args": "x",
        "before": ["for ema, w in zip(self.emas, self.weights):", "    new = 0.9 * ema + 0.1 * w"],
        "indent": 12,
        "out": "x",
        "inputs": lambda k: (np.ones((2,), np.float32),),
        "param": "emas",
        "expected": _ema_after,
    },
}


def snippets() -> list[tuple[str, str, str]]:
    """(page, mode, block) of every fenced Python block under a ``- **<mode>**`` answer."""
    out = []
    for page in PAGES:
        text = page.read_text()
        for m in re.finditer(
            r"^- \*\*([^*\n]+)\*\*:[^\n]*\n\n  ```python\n(.*?)\n  ```", text, re.M | re.S
        ):
            if m.group(1) in MODE_OF:
                block = "\n".join(line[2:] for line in m.group(2).splitlines())
                out.append((page.name, MODE_OF[m.group(1)], block))
    return out


def parts(block: str) -> tuple[list[str], list[str], list[str], bool]:
    """The block's imports, __init__ lines and construct lines, exactly as printed."""
    found: dict[str, list[str]] = {"imports": [], "init": [], "construct": []}
    where = "imports"
    for line in block.splitlines():
        if line.startswith("# in __init__"):
            where = "init"
        elif line.startswith("# in construct"):
            where = "construct"
        elif line.strip() and not line.startswith("#"):
            found[where].append(line)
    return found["imports"], found["init"], found["construct"], "1-element vector" in block


def build(tmp_path, block: str):
    imports, init, construct, vector = parts(block)
    key = next((k for k in TEMPLATES if any(re.search(k, line) for line in construct)), None)
    if key is None:
        pytest.fail(f"no template for the names in:\n{block}")
    t = TEMPLATES[key]
    value = "[1.0]" if vector else "1.0"
    lines = [
        "class Snippet(_nn.Cell):",
        "    def __init__(self):",
        "        super().__init__()",
        *(" " * 8 + x.format(value=value) for x in t["state"]),
        *(" " * 8 + x for x in init),
        f"    def construct(self, {t['args']}):",
        *(" " * 8 + x for x in t["before"]),
        *(" " * t["indent"] + x for x in construct),
        f"        return {t['out']}",
    ]
    source = HEAD.format(imports="\n".join(imports)) + "\n\n" + "\n".join(lines) + "\n"
    module = f"snippet_{abs(hash(block)) % 10**8}"
    path = tmp_path / f"{module}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(module, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod  # GRAPH_MODE re-imports the Cell's module by name
    spec.loader.exec_module(mod)
    return mod.Snippet(), t, source


FOUND = snippets()


def test_the_pages_print_answers_with_code():
    """README's answers always; results/summary.md's once re-rendered by this version. Every
    Python block of README's answers is one the test runs: nothing printed is left unrun."""
    readme = PAGES[0].read_text()
    block = readme.split("<!-- answers:begin", 1)[1].split("<!-- answers:end -->", 1)[0]
    ran = [b for p, _, b in FOUND if p == "README.md"]
    assert ran and len(ran) == block.count("```python")


@pytest.mark.parametrize(("page", "mode", "block"), FOUND, ids=[f"{p}-{m}" for p, m, _ in FOUND])
def test_each_snippet_runs_as_printed_and_means_what_it_says(tmp_path, page, mode, block):
    import mindspore as ms

    MODES[mode].activate()
    try:
        cell, t, source = build(tmp_path, block)
        step = MODES[mode].prepare(cell)
        for k in range(STEPS):
            step(*(ms.Tensor(v) for v in t["inputs"](k))).asnumpy()
        state = getattr(cell, t["param"])
        got = state[0].asnumpy() if t["param"] == "emas" else state.asnumpy()
        want = np.asarray(t["expected"]())
        np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-5, err_msg=source)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)

"""Every answer's code on README.md and results/summary.md runs as printed: each fenced snippet
under a mode's answer is cut into its imports, ``__init__`` lines, ``construct`` lines and host
lines (run after each step), placed verbatim in a minimal Cell of its kind of state (the template
below imports nothing under the names a snippet uses and computes nothing the snippet's comment
does not say it is given, so a missing import or an undefined name fails), run a few steps in its
mode, and after every step the output and every Parameter are compared with what the code means
eagerly (NumPy)."""

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


def _x(k: int) -> np.ndarray:
    return (np.random.default_rng(k).standard_normal((4, 3)) * 2).astype(np.float32)


def _small(param: str, value: str, clip: str, bounds) -> dict:
    """A small Parameter replaced every step: the output clips with the value from before the
    step's write (the read comes first), the Parameter then holds min(old + 0.25, 3)."""

    def eager(vector: bool):
        now = np.float32([1.0]) if vector else np.float32(1.0)
        for k in range(STEPS):
            out = np.clip(_x(k), *bounds(now))
            now = np.minimum(now + np.float32(0.25), np.float32(3.0))
            yield (_x(k),), out, {param: now}

    return {
        "state": [
            f"self.{param} = _P(_T({{value}}, _ms.float32), name='{param}', requires_grad=False)"
        ],
        "args": "x",
        "before": [
            f"out = _ops.clip_by_value(x, {clip.format(v=f'self.{param}')})",
            f"{value} = _ops.minimum(self.{param} + 0.25, 3.0)",  # the value it is given
        ],
        "indent": 8,
        "after": [],
        "eager": eager,
    }


def _cache_eager(vector: bool):
    cache = np.zeros((1, 2, 4, 3), np.float32)
    for k in range(STEPS):
        row, t = np.full((1, 2, 1, 3), k + 1, np.float32), np.array([k], np.int32)
        cache[:, :, k : k + 1, :] = row
        yield (row, t), cache[:, :, k : k + 1, :].copy(), {"cache": cache.copy()}


W = [np.arange(6, dtype=np.float32).reshape(2, 3), np.linspace(-1, 1, 4, dtype=np.float32)]


def _ema_eager(vector: bool):
    emas = [np.zeros_like(w) for w in W]
    for k in range(STEPS):
        emas = [np.float32(0.9) * e + np.float32(0.1) * w for e, w in zip(emas, W)]
        x = np.full((2,), k, np.float32)
        yield (x,), x, {**{f"ema{i}": e for i, e in enumerate(emas)}, "w0": W[0], "w1": W[1]}


# per name a snippet writes: a minimal Cell of that kind of state, and the eager meaning per step
# (inputs, output, {Parameter name: value after the step})
TEMPLATES = {
    r"self\.r_max\b": _small(
        "r_max", "new_r_max", "1.0 / {v}, {v}", lambda v: (np.float32(1.0) / v, v)
    ),
    r"self\.limit\b": _small("limit", "new", "-{v}, {v}", lambda v: (-v, v)),
    r"self\.cache\b": {
        "state": [
            "self.cache = _P(_T(_np.zeros((1, 2, 4, 3), _np.float32)), name='cache', "
            "requires_grad=False)"
        ],
        "args": "row, t",
        "before": [],  # the snippet is given `row` and `t`, nothing else
        "indent": 8,
        "after": ["out = _ops.gather(self.cache, t, 2)"],  # a read after the write sees it
        "eager": _cache_eager,
    },
    r"\bema\b|\bnet\.emas\b": {
        "state": [
            "self.emas = _ms.ParameterTuple([_P(_T(_np.zeros((2, 3), _np.float32)), "
            "name='ema0', requires_grad=False), _P(_T(_np.zeros((4,), _np.float32)), "
            "name='ema1', requires_grad=False)])",
            "self.weights = _ms.ParameterTuple([_P(_T(_np.arange(6, dtype=_np.float32)"
            ".reshape(2, 3)), name='w0', requires_grad=False), "
            "_P(_T(_np.linspace(-1, 1, 4, dtype=_np.float32)), name='w1', requires_grad=False)])",
        ],
        "args": "x",
        "before": ["for ema, w in zip(self.emas, self.weights):", "    new = 0.9 * ema + 0.1 * w"],
        "indent": 12,
        "after": ["out = x"],
        "eager": _ema_eager,
    },
}


def answers_section(page) -> str:
    text = page.read_text()
    if page.name == "README.md":
        return text.split("<!-- answers:begin", 1)[1].split("<!-- answers:end -->", 1)[0]
    return text.split("\n## The answer\n", 1)[1].split("\n## ", 1)[0]


def snippets() -> list[tuple[str, str, str]]:
    """(page, mode, block) of every fenced Python block under a ``- **<mode>**`` answer."""
    out = []
    for page in PAGES:
        for m in re.finditer(
            r"^- \*\*([^*\n]+)\*\*:[^\n]*\n\n  ```python\n(.*?)\n  ```",
            answers_section(page),
            re.M | re.S,
        ):
            if m.group(1) in MODE_OF:
                block = "\n".join(line[2:] for line in m.group(2).splitlines())
                out.append((page.name, MODE_OF[m.group(1)], block))
    return out


def parts(block: str) -> dict:
    """The block's imports, __init__, construct and host lines, exactly as printed."""
    found: dict = {"imports": [], "init": [], "construct": [], "host": []}
    where = "imports"
    for line in block.splitlines():
        if line.startswith("# in __init__"):
            where = "init"
        elif line.startswith("# in construct"):
            where = "construct"
        elif line.startswith("# after each step"):
            where = "host"
        elif line.strip() and not (where != "host" and line.startswith("#")):
            found[where].append(line)
    found["vector"] = "1-element vector" in block
    return found


def build(tmp_path, block: str):
    p = parts(block)
    code = p["construct"] + p["host"]
    key = next((k for k in TEMPLATES if any(re.search(k, line) for line in code)), None)
    if key is None:
        pytest.fail(f"no template for the names in:\n{block}")
    t = TEMPLATES[key]
    value = "[1.0]" if p["vector"] else "1.0"
    lines = [
        "class Snippet(_nn.Cell):",
        "    def __init__(self):",
        "        super().__init__()",
        *(" " * 8 + x.format(value=value) for x in t["state"]),
        *(" " * 8 + x for x in p["init"]),
        f"    def construct(self, {t['args']}):",
        *(" " * 8 + x for x in t["before"]),
        *(" " * t["indent"] + x for x in p["construct"]),
        *(" " * 8 + x for x in t["after"]),
        "        return out",
    ]
    source = HEAD.format(imports="\n".join(p["imports"])) + "\n\n" + "\n".join(lines) + "\n"
    module = f"snippet_{abs(hash(block)) % 10**8}"
    path = tmp_path / f"{module}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(module, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod  # GRAPH_MODE re-imports the Cell's module by name
    spec.loader.exec_module(mod)
    host = None
    if p["host"]:  # the host lines run as printed, after each step, with the snippet's imports
        host = compile("\n".join([*p["imports"], *p["host"]]), f"{module}-host", "exec")
    return (
        mod.Snippet(),
        t,
        source + ("\n# host, after each step:\n" + "\n".join(p["host"])),
        host,
        p,
    )


FOUND = snippets()


def _answers(page) -> int:
    return len(re.findall(r"^- \*\*([^*\n]+)\*\*: `", answers_section(page), re.M))


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_answer_prints_code_and_every_code_block_is_run(page):
    """Every answer with a strategy prints a snippet (none only in prose), and every Python block
    of the answers is one the test runs: nothing printed is left unrun."""
    section = answers_section(page)
    ran = [b for p, _, b in FOUND if p == page.name]
    assert ran and len(ran) == section.count("```python") == _answers(page), page.name


def test_the_template_names_nothing_the_snippet_must_define():
    """The rows template computes no `new`: a snippet that writes a full cache computes it."""
    assert not any("new" in line for line in TEMPLATES[r"self\.cache\b"]["before"])


@pytest.mark.parametrize(("page", "mode", "block"), FOUND, ids=[f"{p}-{m}" for p, m, _ in FOUND])
def test_each_snippet_runs_as_printed_and_means_what_it_says(tmp_path, page, mode, block):
    import mindspore as ms

    MODES[mode].activate()
    try:
        cell, t, source, host, p = build(tmp_path, block)
        step = MODES[mode].prepare(cell)
        for k, (inputs, want_out, want_params) in enumerate(t["eager"](p["vector"])):
            args = [ms.Tensor(v) for v in inputs]
            out = step(*args)
            if host is not None:
                names = {"net": cell, "out": out, "x": args[0] if len(args) == 1 else args}
                exec(host, names)  # the printed host lines, verbatim
            got = out.asnumpy()
            where = f"step {k}:\n{source}"
            np.testing.assert_allclose(got.reshape(np.shape(want_out)), want_out, rtol=1e-5,
                                       err_msg=f"output at {where}")  # fmt: skip
            params = {q.name.split(".")[-1]: q.asnumpy() for q in cell.get_parameters()}
            assert set(params) == set(want_params), f"Parameters at {where}"
            for name, want in want_params.items():
                np.testing.assert_allclose(params[name].reshape(np.shape(want)), want, rtol=1e-5,
                                           err_msg=f"{name} at {where}")  # fmt: skip
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)

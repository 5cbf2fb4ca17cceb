"""A standalone reproduction script per finding, short enough to paste into a MindSpore issue.

Only ``mindspore`` and ``numpy`` are imported: the failing cell is written out (the workload's
state class and the strategy's base inlined, the variant's classes as generated), the expected
value is computed in a few lines of NumPy (what the code means under eager semantics), every step
prints expected against observed, and the script exits 0 when it shows what the gate recorded
and 1 when it does not. A crash or a hang is run in a child process (the script runs itself with
``--child``) and reported by its signal or the timeout.

Written for the clip workload (the original report's cell); ``script`` returns None for a
variant it cannot write out (another workload, or a variant importing other ``bench`` names):
``bench.report.repro`` then writes the bundled script.
"""

from __future__ import annotations

import ast

from bench.core.schema import Status
from bench.measured.modes import MODES
from bench.measured.workloads.clip.spec import INC_STEP, INITIAL_LIMIT, MAX_LIMIT
from bench.strategy import LAYOUTS

INLINED = {"ClipState", "Strategy", "LAYOUTS"}  # bench names the script writes out itself
SECOND_ONLY = "in a second instance only"  # bench.run.gate.SECOND_ONLY

HEAD = '''"""{title}

MindSpore {version}; {mode_label}. `python {name}`: exit 0 when it shows {want}, else 1.
"""
import subprocess
import sys

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops
{imports}
N, STEPS, INSTANCES, MEANING = {size}, {steps}, {instances}, {meaning!r}
INITIAL_LIMIT, INC_STEP, MAX_LIMIT = {initial!r}, {inc!r}, {cap!r}
RECORDED = {recorded!r}


class Strategy(nn.Cell):
    def write(self, param, value):
        pass

    def after_step(self, out, inputs):
        return out


class ClipState(nn.Cell):
    def __init__(self):
        super().__init__()
        init = np.full({layout}, INITIAL_LIMIT, dtype=np.float32)
        self.limit = Parameter(Tensor(init), name="limit", requires_grad=False)
        self.inc_step = Tensor(INC_STEP, ms.float32)
        self.max_limit = Tensor(MAX_LIMIT, ms.float32)

    def construct(self, x):
        out = ops.clip_by_value(x, -self.limit, self.limit)
        self.write(self.limit, self.next_limit(x))
        return out

    def next_limit(self, x):
        return ops.minimum(self.limit + self.inc_step * x.shape[0], self.max_limit)

'''

TAIL = """

def run():
    ms.set_device("CPU")
{setup}
    for instance in range(1, INSTANCES + 1):
        cell = Variant()
{wrap}        seen = []
        for step in range(1, STEPS + 1):
            x = np.random.default_rng(step - 1).standard_normal((N, 1, 2, 2), dtype=np.float32)
            old = np.float32(cell.limit.asnumpy().reshape(-1)[0])
            new = np.minimum(old + np.float32(INC_STEP) * np.float32(N), np.float32(MAX_LIMIT))
            used = old if MEANING == "before" else new  # what the code's read sees (eager)
            out = cell.after_step(cell(Tensor(x)), Tensor(x)).asnumpy()
            got = np.float32(cell.limit.asnumpy().reshape(-1)[0])
            kind = ""
            if not np.isclose(got, new, 1e-5, 1e-6):
                kind = "write dropped" if got == old and new != old else "wrong value"
            elif not np.allclose(out, np.clip(x, -used, used), 1e-5, 1e-6):
                other = new if MEANING == "before" else old
                right = np.allclose(out, np.clip(x, -other, other), 1e-5, 1e-6)
                kind = ("stale read" if MEANING == "after" else "future read") if right else (
                    "wrong output"
                )
            seen.append(kind)
            print(f"instance {{instance}} step {{step}}: limit expected {{new:.6g}}, observed "
                  f"{{got:.6g}}; clip expected [-{{used:.6g}}, {{used:.6g}}]: {{kind or 'ok'}}")
    kinds = [k for k in seen if k]
    return "works" if not kinds else "incorrect: " + kinds[0]


def main():
    if "--child" in sys.argv or RECORDED.split(":")[0] in ("works", "incorrect"):
        try:
            got = run()
        except Exception as exc:
            got = f"raises: {{type(exc).__name__}}"
            print(f"{{got}}: {{exc}}")
        if "--child" in sys.argv:
            print(got)
            return 3 if got.startswith("raises") else 0
    else:  # a crash, a hang or an error: the cell runs in a child process
        try:
            child = subprocess.run([sys.executable, __file__, "--child"], timeout=120)
            code = child.returncode
            got = f"crashed: signal {{-code}}" if code < 0 else "raises" if code == 3 else "works"
        except subprocess.TimeoutExpired:
            got = "timeout: no result after 120 s"
    want = RECORDED
    same = got.split(": ")[0] == want.split(": ")[0] and (
        not want.startswith("incorrect") or got == want
    )
    print(f"expected (recorded by the suite): {{want}}; observed: {{got}}")
    print(f"REPRODUCED: {{got}}" if same else f"NOT REPRODUCED: observed {{got}}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
"""


def variant_body(text: str) -> tuple[list[str], str] | None:
    """(non-bench import lines, the classes and functions) of a variant's source; None when it
    uses a ``bench`` name the script does not write out."""
    tree = ast.parse(text)
    lines = text.splitlines()
    imports, body = [], []
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        source = "\n".join(lines[first - 1 : node.end_lineno])
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bench"):
            if {a.name for a in node.names} - INLINED:
                return None
        elif isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(source)
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            body.append(source)
    return imports, "\n\n\n".join(body)


COMMON = {
    "import mindspore as ms",
    "import numpy as np",
    "from mindspore import ops",
    "from mindspore import nn",
    "from mindspore import Parameter, Tensor, nn, ops",
}


def script(
    variant: str, row: dict, title: str, version: str, name: str, size: int = 8192, steps: int = 4
) -> str | None:
    """The standalone script of a clip verdict ``row`` (a dict of the verdict table)."""
    if row.get("workload") != "clip":
        return None
    parts = variant_body(variant)
    if parts is None:
        return None
    imports, body = parts
    mode = MODES[row["mode"]]
    setup = [f"    ms.set_context(mode=ms.{mode.context_mode})"]
    if mode.blocking:
        setup.append("    ms.runtime.launch_blocking()")
    wrap = ""
    if mode.capture_mode:
        wrap = (
            f"        cell.construct = ms.jit(cell.construct, capture_mode={mode.capture_mode!r})\n"
        )
    status = str(row["status"])
    recorded = (
        f"{status}: {row['kind']}"
        if status == Status.INCORRECT.value and row.get("kind")
        else status
    )
    detail = str(row.get("detail", ""))
    layout = LAYOUTS.get(row.get("layout") or "scalar", ())
    head = HEAD.format(
        title=title,
        version=version,
        mode_label=mode.description,
        name=name,
        want=recorded,
        imports="\n".join(i for i in imports if i not in COMMON),
        size=size,
        steps=steps,
        instances=2 if detail.startswith(SECOND_ONLY) else 1,
        meaning=row.get("meaning") or "before",
        initial=INITIAL_LIMIT,
        inc=INC_STEP,
        cap=MAX_LIMIT,
        recorded=recorded,
        layout=repr(tuple(layout)),
    )
    return head + "\n" + body + "\n" + TAIL.format(setup="\n".join(setup), wrap=wrap)

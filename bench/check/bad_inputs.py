"""Every bad input the check is tried with, and what it prints (exit 2, nothing written).

Each case is a small user file (its source here) and the command line; ``run_all`` writes the
files into a fresh folder, runs the check on each from there (relative paths, so what it prints
does not depend on where it ran) and records the exit code, the message and whether anything was
written. ``python -m bench.check.bad_inputs [FILE]`` writes the list (default
``examples/reports/bad_inputs.txt``); ``tests/ms/test_check.py`` runs the same cases and fails
when the committed list differs from what the check prints now.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from bench.core.io import write_text
from bench.core.paths import ROOT

LIST = ROOT / "examples" / "reports" / "bad_inputs.txt"

CELL = """import numpy as np
from mindspore import nn


class Id(nn.Cell):
    def construct(self, x):
        return x * 2


def make_cell():
    return Id()


def make_inputs(step):
    return (np.ones((2, 5), np.float32),)
"""

MATMUL = CELL.replace("return x * 2", "return ops.matmul(x, x)").replace(
    "from mindspore import nn", "from mindspore import nn, ops"
)
EAGER_FAILS = CELL.replace(
    "        return x * 2",
    "        if float(x.sum()) > 15:\n"
    "            raise RuntimeError('fails eagerly')\n"
    "        return x * 2",
).replace("np.ones((2, 5), np.float32)", "np.full((2, 5), step, np.float32)")


@dataclass(frozen=True)
class Case:
    what: str
    args: tuple[str, ...]  # the command line after ``python -m bench.check``
    files: tuple[tuple[str, str], ...] = ()  # (file name, source) written before it runs
    says: str = ""  # a part of the message the check must print


CASES = (
    Case("a missing file", ("missing.py:Id",), says="no such file: 'missing.py'"),
    Case("no PATH.py:CellName", ("bad_cell",), says="expected PATH.py:CellName"),
    Case("not a .py file", ("bad_text.txt:Id",), (("bad_text.txt", CELL),), "not a Python file"),
    Case(
        "a file that does not parse (SyntaxError)",
        ("bad_syntax.py:Id",),
        (("bad_syntax.py", CELL.replace("return x * 2", "return x *")),),
        "'bad_syntax.py' does not import: SyntaxError",
    ),
    Case(
        "a file whose import fails (ImportError)",
        ("bad_import.py:Id",),
        (("bad_import.py", "import no_such_module_here\n" + CELL),),
        "'bad_import.py' does not import: ModuleNotFoundError: No module named",
    ),
    Case(
        "a missing class",
        ("bad_class.py:Nope",),
        (("bad_class.py", CELL),),
        "'bad_class.py' defines no 'Nope' (classes there: Id)",
    ),
    Case(
        "a class that is not a Cell",
        ("bad_not_cell.py:Plain",),
        (("bad_not_cell.py", CELL + "\n\nclass Plain:\n    pass\n"),),
        "'Plain' in 'bad_not_cell.py' is not a mindspore.nn.Cell subclass",
    ),
    Case(
        "no make_inputs (and no --inputs)",
        ("bad_no_inputs.py:Id",),
        (("bad_no_inputs.py", CELL.split("\n\ndef make_inputs", maxsplit=1)[0] + "\n"),),
        "has no make_inputs(): define one",
    ),
    Case(
        "make_cell raises",
        ("bad_make_cell.py:Id",),
        (
            (
                "bad_make_cell.py",
                CELL.replace("    return Id()", "    raise ValueError('no weights file')"),
            ),
        ),
        "make_cell() fails for the Cell: ValueError: no weights file",
    ),
    Case(
        "make_inputs raises",
        ("bad_inputs_raise.py:Id",),
        (
            (
                "bad_inputs_raise.py",
                CELL.replace(
                    "    return (np.ones((2, 5), np.float32),)", "    raise KeyError(step)"
                ),
            ),
        ),
        "make_inputs(0) raises KeyError: 0",
    ),
    Case(
        "inputs that do not fit",
        ("bad_shape.py:Id",),
        (
            (
                "bad_shape.py",
                CELL.replace("return x * 2", "return ops.matmul(x, x)").replace(
                    "from mindspore import nn", "from mindspore import nn, ops"
                ),
            ),
        ),
        "the inputs do not fit",
    ),
    Case(
        "a Cell that fails in PYNATIVE_MODE itself",
        ("bad_eager.py:Id",),
        (("bad_eager.py", EAGER_FAILS),),
        "fails in PYNATIVE_MODE itself at step 3",
    ),
    Case(
        "an eager run that hangs (--timeout 3)",
        ("bad_hangs.py:Id", "--timeout", "3"),
        (
            (
                "bad_hangs.py",
                "import time\n"
                + CELL.replace("        return x * 2", "        time.sleep(60)\n        return x"),
            ),
        ),
        "hangs: no progress for 3 s",
    ),
    Case(
        "an unknown mode",
        ("bad_mode.py:Id", "--modes", "eager"),
        (("bad_mode.py", CELL),),
        "unknown mode 'eager' in --modes",
    ),
    Case(
        "--steps 0",
        ("bad_steps.py:Id", "--steps", "0"),
        (("bad_steps.py", CELL),),
        "--steps must be at least 1",
    ),
    Case(
        "a bad --inputs",
        ("bad_spec.py:Id", "--inputs", "4xtwo:float32"),
        (("bad_spec.py", CELL),),
        "--inputs '4xtwo:float32': expected a shape",
    ),
    Case(
        "an unknown --inputs dtype",
        ("bad_dtype.py:Id", "--inputs", "4x3:complex64"),
        (("bad_dtype.py", CELL),),
        "unknown dtype 'complex64'",
    ),
)


@dataclass
class Outcome:
    case: Case
    code: int
    printed: str  # what the check printed on stderr, without its progress lines
    wrote: bool  # anything under --out (or a staging folder) after it ran


def run_all(cases=CASES) -> list[Outcome]:
    """Run every case in a fresh folder (in this process: the check starts its children)."""
    from bench.check.cli import main

    folder = Path(tempfile.mkdtemp(prefix="bench-check-bad-"))
    here = Path.cwd()
    out = []
    try:
        os.chdir(folder)
        for case in cases:
            for name, source in case.files:
                write_text(Path(name), source)
            err = io.StringIO()
            with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                code = int(main([*case.args, "--out", "out"]))
            printed = "\n".join(
                ln for ln in err.getvalue().splitlines() if ln and not ln.startswith(("[", " "))
            )
            wrote = Path("out").exists() or any(folder.glob(".out.*"))
            out.append(Outcome(case, code, printed, wrote))
    finally:
        os.chdir(here)
    return out


def render(outcomes: list[Outcome]) -> str:
    lines = [
        "# Bad inputs given to the check and what it printed",
        "",
        "Generated by `python -m bench.check.bad_inputs` (the cases: `bench/check/bad_inputs.py`;",
        "tests/ms/test_check.py fails when this list differs from what the check prints now).",
        "Each ran as `python -m bench.check ARGS --out out` in a folder holding its file.",
        "",
    ]
    for o in outcomes:
        lines += [
            f"## {o.case.what}",
            "",
            f"    $ python -m bench.check {' '.join(o.case.args)} --out out",
            *(f"    {ln}" for ln in o.printed.splitlines()),
            f"    (exit {o.code}; {'something written' if o.wrote else 'nothing written'})",
            "",
        ]
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    target = Path(argv[0]) if argv else LIST
    outcomes = run_all()
    write_text(target, render(outcomes))
    bad = [o.case.what for o in outcomes if o.code != 2 or o.wrote or o.case.says not in o.printed]
    print(f"{len(outcomes)} bad inputs: {target}" + (f"; not as expected: {bad}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

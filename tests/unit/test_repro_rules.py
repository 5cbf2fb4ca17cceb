"""What the conformance tier counts as a reproduced script: only an exit 0 with its
``REPRODUCED`` line. A crash of the script, a crash of a cell recorded as a crash that the
script did not confirm by its signal, any other non-zero exit: not reproduced."""

from __future__ import annotations

import subprocess

import pytest

from tests.conformance.test_conformance import _reproduced


def _done(code: int, out: str = "") -> subprocess.CompletedProcess:
    return subprocess.CompletedProcess(["python", "s.py"], code, out, "")


@pytest.mark.parametrize(
    "code, out, want",
    [
        (0, "step 1 ...\nREPRODUCED: crashed: SIGSEGV\n", True),
        (0, "REPRODUCED: works\n", True),
        (-11, "", False),  # the script itself died: nothing was checked
        (1, "NOT REPRODUCED: observed crashed: SIGABRT\n", False),
        (139, "Segmentation fault\n", False),  # any non-zero exit, even with no line
        (0, "NOT REPRODUCED: observed works\n", False),
        (0, "", False),
    ],
)
def test_only_a_script_that_says_reproduced_and_exits_0_reproduces(code, out, want):
    assert _reproduced(_done(code, out)) is want

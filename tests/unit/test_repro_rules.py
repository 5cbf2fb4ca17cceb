"""What the conformance tier counts as a reproduced script: only an exit 0 with its
``REPRODUCED`` line. A crash of the script, a crash of a cell recorded as a crash that the
script did not confirm by its signal, any other non-zero exit: not reproduced. And what a script
itself counts as its recorded outcome: the calls and the check (a later instance, the network)
it shows at, a crash by its signal in its check."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench.causes import standalone
from bench.core.schema import NETWORK_ONLY, SECOND_ONLY, THIRD_ONLY
from tests.conformance.test_committed import _reproduced


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


# -- what a script itself counts as its recorded outcome (the verdict part of its main) ----------
def _verdict(how: str, recorded, observed: list[str]) -> int:
    """The exit code of a script's main part (``standalone.MAIN[how]``) whose checks (``run``,
    or each ``child``) observed ``observed``."""
    seen = iter(observed)
    space = {"__name__": "__main__", "sys": sys, "RECORDED": recorded, "TIMEOUT": 1,
             "PROCESSES": len(observed), "run": lambda: next(seen),
             "child": lambda timeout: next(seen)}  # fmt: skip
    main = standalone.MAIN[how].replace("@FULLGRAPH@", "")
    text = standalone._fill((standalone.SAME if how == standalone.MANY else "") + main)
    with pytest.raises(SystemExit) as done:
        exec(text, space)
    return done.value.code


@pytest.mark.parametrize(
    "how, recorded, observed, code",
    [
        (standalone.ALONE, "incorrect: write dropped at every call",
         ["incorrect: write dropped at every call"], 0),
        (standalone.ALONE, "incorrect: write dropped at every call",
         ["incorrect: write dropped at the first call only"], 1),
        # recorded without the calls (they differ between sizes): any calls
        (standalone.ALONE, "incorrect: stale read",
         ["incorrect: stale read at calls 1, 3 of 4"], 0),
        (standalone.ALONE, f"incorrect: write dropped {NETWORK_ONLY}",
         [f"incorrect: write dropped {NETWORK_ONLY}"], 0),
        (standalone.ALONE, f"incorrect: write dropped {NETWORK_ONLY}",
         [f"incorrect: write dropped {THIRD_ONLY}"], 1),
        (standalone.ALONE, "works", [f"incorrect: write dropped {NETWORK_ONLY}"], 1),
        (standalone.ALONE, f"raises: RuntimeError {SECOND_ONLY}", ["raises: RuntimeError"], 1),
        # a crash: its signal in its check, nothing more nor less
        (standalone.CHILD, f"crashed: SIGSEGV {NETWORK_ONLY}",
         [f"crashed: SIGSEGV {NETWORK_ONLY}"], 0),
        (standalone.CHILD, f"crashed: SIGSEGV {NETWORK_ONLY}", ["crashed: SIGSEGV"], 1),
        (standalone.CHILD, "crashed: SIGSEGV", [f"crashed: SIGSEGV {NETWORK_ONLY}"], 1),
        (standalone.CHILD, f"timeout {THIRD_ONLY}", [f"timeout {THIRD_ONLY}"], 0),
        # processes: against the gate processes' signatures (no calls, no check, no signal)
        (standalone.MANY, ("works", "crashed"),
         ["works", f"crashed: SIGSEGV {NETWORK_ONLY}", "works"], 0),
        (standalone.MANY, ("works", "incorrect: write dropped"),
         ["works", f"incorrect: write dropped {SECOND_ONLY}", "works"], 0),
        (standalone.MANY, ("works", "incorrect: write dropped"), ["works", "works", "works"], 1),
        (standalone.MANY, ("works", "incorrect: write dropped"),
         ["works", "incorrect: stale read at every call", "works"], 1),
    ],
)  # fmt: skip
def test_a_script_counts_only_its_recorded_outcome(how, recorded, observed, code, capsys):
    assert _verdict(how, recorded, observed) == code
    last = capsys.readouterr().out.splitlines()[-1]
    assert last.startswith("REPRODUCED: " if code == 0 else "NOT REPRODUCED: observed ")


def test_a_recorded_raise_in_a_later_check_keeps_its_check():
    from bench.causes import standalone
    from bench.core.schema import signature

    detail = "in a third instance only (the first works): step 1 (N=8): RuntimeError: boom"
    sig = signature("raises", "", detail)
    assert standalone._core(sig) == standalone._raise(detail)
    assert standalone._core("raises: RuntimeError: boom") == "raises: RuntimeError"

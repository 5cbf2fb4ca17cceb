"""The check's vocabulary (the suite's, plus what only a user's Cell shows) and the verdict of a
mode from its runs (pure: the tests feed it hand-made runs)."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.core.exits import Exit
from bench.core.schema import Kind, Status

WRITE_DROPPED = str(Kind.WRITE_DROPPED)
WRONG_VALUE = str(Kind.WRONG_VALUE)
STALE_READ = str(Kind.STALE_READ)
WRONG_OUTPUT = str(Kind.WRONG_OUTPUT)
DIFFERS = str(Kind.DIFFERS)
RAISES = Status.RAISES.label  # "raises"
CRASHED = Status.CRASHED.label  # "crashes"
HANGS = Status.TIMEOUT.label  # "hangs"
FIRST_CALL_ONLY = "first call only"
SECOND_INSTANCE_ONLY = "second instance only"

MEANINGS = {
    WRITE_DROPPED: Kind.WRITE_DROPPED.meaning,
    WRONG_VALUE: Kind.WRONG_VALUE.meaning,
    STALE_READ: "the output equals what eager computes from an earlier value of the state",
    WRONG_OUTPUT: Kind.WRONG_OUTPUT.meaning,
    DIFFERS: Kind.DIFFERS.meaning,
    RAISES: Status.RAISES.meaning,
    CRASHED: Status.CRASHED.meaning,
    HANGS: Status.TIMEOUT.meaning,
    FIRST_CALL_ONLY: "only the first call diverges; later calls agree with eager",
    SECOND_INSTANCE_ONLY: (
        "the first instance agrees with eager, a second instance of the class built after it "
        "ran does not"
    ),
}
ORDER = tuple(MEANINGS)  # the first kind a mode shows is its kind

WORKS = Status.WORKS.value
AGREES, DIVERGES = "agrees", "diverges"


@dataclass
class Run:
    """One instance's steps in one process of a mode (as judged by ``diff``)."""

    mode: str
    process: int  # 1 or 2
    instance: int  # 1, or 2 for the second instance of the class in process 1
    status: str  # works | incorrect | raises | crashes | hangs | not run
    kinds: list = field(default_factory=list)  # kinds of an incorrect run, ORDER order
    first_step: int = 0  # the first divergent step (1-based), 0 when none
    bad_steps: list = field(default_factory=list)
    detail: str = ""
    steps: list = field(default_factory=list)  # diff.StepDiff as dicts
    first_call_s: float = 0.0
    later_call_s: float = 0.0  # median of the later calls

    @property
    def signature(self) -> str:
        """What the run shows, comparable between processes."""
        if self.status == Status.INCORRECT.value:
            return f"incorrect: {', '.join(self.kinds)}"
        if self.status == RAISES:
            return f"raises: {self.detail.split(':', 1)[0]}"
        return self.status

    @property
    def ok(self) -> bool:
        return self.status == WORKS


@dataclass
class ModeVerdict:
    mode: str
    verdict: str  # agrees | diverges
    kinds: list = field(default_factory=list)
    detail: str = ""
    runs: list = field(default_factory=list)


def run_kinds(run: Run) -> list[str]:
    if run.status == Status.INCORRECT.value:
        kinds = list(run.kinds)
        if run.bad_steps == [1]:
            kinds.append(FIRST_CALL_ONLY)
        return kinds
    if run.status in (RAISES, CRASHED, HANGS):
        return [run.status]
    return []


def mode_verdict(mode: str, runs: list[Run]) -> ModeVerdict:
    """The verdict of a mode from its runs: the first instance in two processes, and the second
    instance of process 1 (any of them may be missing: a crash ends a process)."""
    first = [r for r in runs if r.instance == 1]
    second = [r for r in runs if r.instance == 2 and r.status != "not run"]
    kinds: list[str] = []
    for r in first:
        kinds += run_kinds(r)
    if len({r.signature for r in first}) > 1:
        kinds.append(DIFFERS)
    if all(r.ok for r in first):
        for r in second:
            if not r.ok:
                kinds += [SECOND_INSTANCE_ONLY, *run_kinds(r)]
    kinds = [k for k in ORDER if k in kinds]
    if not kinds:
        return ModeVerdict(mode, AGREES, [], "every step of every run agrees with eager", runs)
    bad = next((r for r in first if not r.ok), next((r for r in second if not r.ok), None))
    where = f"process {bad.process}, instance {bad.instance}" if bad else ""
    if DIFFERS in kinds:
        shown = "; ".join(f"process {r.process}: {r.signature}" for r in first)
        detail = f"{DIFFERS}: {shown}. " + (f"{where}: {bad.detail}" if bad else "")
    else:
        detail = f"{where}: {bad.detail}" if bad else ""
    return ModeVerdict(mode, DIVERGES, kinds, detail.strip(), runs)


def exit_code(verdicts: list[ModeVerdict]) -> Exit:
    """A finished check's exit code: 1 when a mode diverges from eager, else 0 (bad input, a
    failure of the check and Ctrl-C end it before: 2, 3, 130)."""
    return Exit.ATTENTION if any(v.verdict == DIVERGES for v in verdicts) else Exit.OK

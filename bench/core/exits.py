"""What a run's outcome means as an exit code of ``python -m bench``: the one place that decides.

0 = every final verdict is as recorded for this MindSpore release and no timing process crashed;
1 = something a user must look at: a verdict differs from the record (or a failure has no line),
a strategy file was refused, or a timing process crashed or hung (the message tells which);
2 = a bad argument (nothing was run); 3 = the harness itself failed (a bug); 130 = interrupted
(finished cells are kept, ``--resume`` finishes the run).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntEnum


class Exit(IntEnum):
    OK = 0
    ATTENTION = 1
    USAGE = 2
    HARNESS = 3
    INTERRUPTED = 130


@dataclass(frozen=True)
class Outcome:
    """What a run (or an attempt at one) came to."""

    usage_error: bool = False  # a bad argument: nothing ran
    harness_error: bool = False  # a bug of the suite
    interrupted: bool = False
    refused: int = 0  # strategy files refused at load
    differences: int = 0  # final verdicts not as recorded (including failures with no line)
    crashes: int = 0  # timing processes that crashed or hung


def exit_code(outcome: Outcome) -> Exit:
    """A usage error wins (nothing ran), then a harness error, then an interrupt; otherwise 1
    when anything needs a look, else 0."""
    if outcome.usage_error:
        return Exit.USAGE
    if outcome.harness_error:
        return Exit.HARNESS
    if outcome.interrupted:
        return Exit.INTERRUPTED
    if outcome.refused or outcome.differences or outcome.crashes:
        return Exit.ATTENTION
    return Exit.OK


def message(outcome: Outcome) -> str:
    """The line that explains an exit 1, each cause counted apart (``""`` for other codes)."""
    if exit_code(outcome) != Exit.ATTENTION:
        return ""
    causes = [
        (outcome.refused, "strategy file(s) refused"),
        (outcome.differences, "verdict(s) not as recorded"),
        (outcome.crashes, "timing crash(es)"),
    ]
    return "exit 1: " + ", ".join(f"{n} {what}" for n, what in causes if n)


def total(outcomes: Iterable[Outcome]) -> Outcome:
    """The outcome of several workloads run in turn: every cause counted over all of them (the
    line printed after the last workload, so the first workloads' counts are not lost)."""
    outcomes = list(outcomes)
    return Outcome(
        usage_error=any(o.usage_error for o in outcomes),
        harness_error=any(o.harness_error for o in outcomes),
        interrupted=any(o.interrupted for o in outcomes),
        refused=sum(o.refused for o in outcomes),
        differences=sum(o.differences for o in outcomes),
        crashes=sum(o.crashes for o in outcomes),
    )


def combine(codes: Iterable[int]) -> Exit:
    """The exit code of several workloads run in turn: an interrupt stops the rest and wins;
    otherwise the worst of them. No workload ran: 0."""
    codes = [Exit(c) for c in codes]
    if Exit.INTERRUPTED in codes:
        return Exit.INTERRUPTED
    return max(codes, default=Exit.OK)

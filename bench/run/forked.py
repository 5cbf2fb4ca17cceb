"""Crash isolation inside one worker: items run in child processes of a warm parent.

Some code shapes crash MindSpore (a segmentation fault under bytecode capture). Restarting the
whole worker after each crash costs a MindSpore import (~5 s); forking costs milliseconds. The
parent imports MindSpore and selects the mode, runs nothing, then starts children
(``bench.core.procs``: forked on Linux, spawned elsewhere or with ``--start-method spawn``) that
tell it over a pipe which item they start and finish. Under bytecode capture every item gets a
fresh child of its own: there a verdict taken after other cells ran in the same process can
differ from the cell run alone (issue 29: cells called "works" after others dropped every write
alone), so no cell runs after another in one process, and a crash or hang is the item's own. In
the other modes, where no such dependence was seen, one child works through the items: a cold
child pays MindSpore's first compile again (measured here: 0.3–0.6 s of a ~1 s gate item), which
per item made the gate of the four workloads longer than CI's time (a warm parent cannot be
forked: a child of a parent that ran MindSpore hangs). A spawned child pays MindSpore's import
on top (its ``work`` pickles and sets its process up again when unpickled).
"""

from __future__ import annotations

import faulthandler
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from bench.core import portable, procs
from bench.core.schema import Status

HARNESS_ERROR = procs.HARNESS  # a child's exit code when the harness itself failed (a bug)


class HarnessError(RuntimeError):
    """The harness failed inside a worker: a bug of the suite, reported, never a verdict."""


def mark(where: str) -> None:
    """Tell the parent which part of the current item runs now (the gate's later instances, its
    network): a child that dies is reported with the last part it entered. Nothing outside a
    child."""
    procs.send("M" + where)


@dataclass
class _Items:
    """What a child runs: ``work(item)`` for each item, telling the parent which one starts and
    finishes; a fatal signal writes the Python stack to ``trace`` (``faulthandler``). Picklable
    when ``work`` is (a spawned child gets it that way)."""

    items: Sequence
    work: Callable
    trace: str

    def __call__(self) -> None:  # pragma: no cover - runs in the child
        stack = open(self.trace, "w", encoding="utf-8")  # open until the child ends
        faulthandler.enable(file=stack)  # a fatal signal writes the Python stack where it struck
        for index, item in enumerate(self.items):
            procs.send(f"S{index}")
            self.work(item)
            procs.send(f"D{index}")


def _run_child(items: Sequence, work: Callable, timeout: float) -> tuple:
    """(items finished, index of the item it died on or None, how it ended, the last part of
    that item it entered (``mark``), the stack ``faulthandler`` wrote when a signal killed it)."""
    fd, trace = tempfile.mkstemp(prefix="bench-trace-", suffix=".txt")
    os.close(fd)
    seen = {"finished": 0, "current": None, "where": ""}

    def on_line(line: str) -> None:
        kind = line[:1]
        if kind == "M":
            seen["where"] = line[1:]
            return
        index = int(line[1:])
        if kind == "S":
            seen.update(current=index, where="")
        else:
            seen.update(finished=index + 1, current=None, where="")

    try:
        try:
            ended = procs.run(_Items(list(items), work, trace), on_line, timeout)
        except procs.StartError as err:
            raise HarnessError(str(err)) from None
        with open(trace, encoding="utf-8", errors="replace") as f:
            stack = f.read().split("\nExtension modules:")[0][:4000]  # most recent call first
        stack = portable.stack_text(stack)  # no absolute path of this machine in a record
    finally:
        os.unlink(trace)
    finished, current, where = seen["finished"], seen["current"], seen["where"]
    if ended.timed_out:
        return finished, current, f"timeout: made no progress for {timeout:g} s", where, stack
    if ended.signal:
        return finished, current, f"crashed: {ended.how()}", where, stack
    if ended.code == HARNESS_ERROR:
        raise HarnessError("the harness failed in a gate child (traceback in the worker's log)")
    if ended.code or current is not None:
        return finished, current, f"crashed: {ended.how()}", where, stack
    return finished, None, "", "", ""


def run_isolated(
    items: Sequence, work: Callable, timeout: float, on_failure: Callable, alone: bool = True
) -> None:
    """``work(item)`` for every item in children of this parent (forked, or spawned: then
    ``work`` must pickle); ``on_failure(item, status, detail, where, stack)`` for an item whose
    child crashes or hangs (status ``crashed`` or ``timeout``; the detail says how: "died with
    SIGSEGV", "exited with code 3", "made no progress for 16 s"; ``where``: the last part of the
    item it entered, ``mark``, or ""; ``stack``: the Python stack ``faulthandler`` wrote when a
    fatal signal struck, or "").

    ``alone``: each item in a fresh child of its own, so no item's outcome depends on what ran
    before it (under bytecode capture it can). Otherwise one child works through the items in
    order, and the item a child dies on is tried once more alone (a crash can come from an
    earlier item's leftovers) and fails only if it crashes again; a hang fails at once."""
    if alone:
        for item in items:
            *_, how, where, stack = _run_child([item], work, timeout)
            if how:
                status, _, detail = how.partition(": ")
                on_failure(item, status, detail, where, stack)
        return
    items = list(items)
    start = 0
    while start < len(items):
        finished, current, how, where, stack = _run_child(items[start:], work, timeout)
        if current is None:
            if not how:
                return
            if finished == 0:  # died before its first item: that item fails
                status, _, detail = how.partition(": ")
                on_failure(items[start], status, detail, "", stack)
                finished = 1
            start += finished  # a crash between items: go on with the rest
            continue
        culprit = items[start + current]
        if how.startswith(
            Status.TIMEOUT.value
        ):  # a hang is not retried: it would cost the timeout again
            status, _, detail = how.partition(": ")
            on_failure(culprit, status, detail, where, stack)
        else:
            _, again, how_alone, where, stack = _run_child([culprit], work, timeout)
            if again is not None or how_alone:
                status, _, detail = how_alone.partition(": ")
                on_failure(culprit, status, detail, where, stack)
        start += current + 1

"""Crash isolation inside one worker: items run in forked children of a warm parent.

Some code shapes crash MindSpore (a segmentation fault under bytecode capture). Restarting the
whole worker after each crash costs a MindSpore import (~5 s); forking costs milliseconds. The
parent imports MindSpore and selects the mode, runs nothing, then forks children that tell it
over a pipe which item they start and finish. Under bytecode capture every item gets a fresh
child of its own: there a verdict taken after other cells ran in the same process can differ from
the cell run alone (issue 29: cells called "works" after others dropped every write alone), so
no cell runs after another in one process, and a crash or hang is the item's own. In the other
modes, where no such dependence was seen, one child works through the items: a cold child pays
MindSpore's first compile again (measured here: 0.3–0.6 s of a ~1 s gate item), which per item
made the gate of the four workloads longer than CI's time (a warm parent cannot be forked: a
child of a parent that ran MindSpore hangs).
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable, Sequence

from bench.core.schema import Status

HARNESS_ERROR = 70  # a child's exit code when the harness itself failed (a bug, not MindSpore)


class HarnessError(RuntimeError):
    """The harness failed inside a worker: a bug of the suite, reported, never a verdict."""


_MARK_FD: int | None = None  # in a child: where ``mark`` writes


def mark(where: str) -> None:
    """Tell the parent which part of the current item runs now (the gate's later instances, its
    network): a child that dies is reported with the last part it entered. Nothing outside a
    forked child."""
    if _MARK_FD is not None:
        os.write(_MARK_FD, b"M" + where.replace("\n", " ").encode() + b"\n")


def _child(items: Sequence, work: Callable, write_fd: int) -> None:  # pragma: no cover - child
    global _MARK_FD  # noqa: PLW0603 - the one child-side state: the pipe ``mark`` writes to
    _MARK_FD = write_fd
    code = 0
    try:
        for index, item in enumerate(items):
            os.write(write_fd, f"S{index}\n".encode())
            work(item)
            os.write(write_fd, f"D{index}\n".encode())
    except BaseException:  # an error of the harness itself, not of MindSpore
        import traceback

        traceback.print_exc()
        code = HARNESS_ERROR
    finally:
        import sys

        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _run_child(items: Sequence, work: Callable, timeout: float) -> tuple[int, int | None, str, str]:
    """(items finished, index of the item it died on or None, how it ended, the last part of
    that item it entered, ``mark``)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.close(read_fd)
        _child(items, work, write_fd)
    os.close(write_fd)
    finished, current, buffer = 0, None, b""
    deadline = time.monotonic() + timeout
    how, where = "", ""
    with os.fdopen(read_fd, "rb", buffering=0) as pipe:
        while True:
            ready, _, _ = select.select([pipe], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                os.kill(pid, signal.SIGKILL)
                how = f"timeout: made no progress for {timeout:g} s"
                break
            chunk = pipe.read(4096)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                kind = line[:1]
                if kind == b"M":
                    where, deadline = line[1:].decode(errors="replace"), time.monotonic() + timeout
                    continue
                index = int(line[1:])
                if kind == b"S":
                    current, deadline, where = index, time.monotonic() + timeout, ""
                else:
                    finished, current, where = index + 1, None, ""
    _, status = os.waitpid(pid, 0)
    if how:
        return finished, current, how, where
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig
        return finished, current, f"crashed: died with {name}", where
    code = os.WEXITSTATUS(status)
    if code == HARNESS_ERROR:
        raise HarnessError("the harness failed in a gate child (traceback in the worker's log)")
    if code or current is not None:
        return finished, current, f"crashed: exited with code {code}", where
    return finished, None, "", ""


def run_isolated(
    items: Sequence, work: Callable, timeout: float, on_failure: Callable, alone: bool = True
) -> None:
    """``work(item)`` for every item in forked children of this parent; ``on_failure(item,
    status, detail, where)`` for an item whose child crashes or hangs (status ``crashed`` or
    ``timeout``; the detail says how: "died with SIGSEGV", "exited with code 3", "made no
    progress for 16 s"; ``where``: the last part of the item it entered, ``mark``, or "").

    ``alone``: each item in a fresh child of its own, so no item's outcome depends on what ran
    before it (under bytecode capture it can). Otherwise one child works through the items in
    order, and the item a child dies on is tried once more alone (a crash can come from an
    earlier item's leftovers) and fails only if it crashes again; a hang fails at once."""
    if alone:
        for item in items:
            *_, how, where = _run_child([item], work, timeout)
            if how:
                status, _, detail = how.partition(": ")
                on_failure(item, status, detail, where)
        return
    items = list(items)
    start = 0
    while start < len(items):
        finished, current, how, where = _run_child(items[start:], work, timeout)
        if current is None:
            if not how:
                return
            if finished == 0:  # died before its first item: that item fails
                status, _, detail = how.partition(": ")
                on_failure(items[start], status, detail, "")
                finished = 1
            start += finished  # a crash between items: go on with the rest
            continue
        culprit = items[start + current]
        if how.startswith(
            Status.TIMEOUT.value
        ):  # a hang is not retried: it would cost the timeout again
            status, _, detail = how.partition(": ")
            on_failure(culprit, status, detail, where)
        else:
            _, again, how_alone, where = _run_child([culprit], work, timeout)
            if again is not None or how_alone:
                status, _, detail = how_alone.partition(": ")
                on_failure(culprit, status, detail, where)
        start += current + 1

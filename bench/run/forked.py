"""Crash isolation inside one worker: items run in forked children of a warm parent.

Some code shapes crash MindSpore (a segmentation fault under bytecode capture). Restarting the
whole worker after each crash costs a MindSpore import (~5 s); forking costs milliseconds. The
parent imports MindSpore and selects the mode, runs nothing, then forks one fresh child per
item, which tells the parent over a pipe when it starts and finishes it. One item per child:
under bytecode capture a verdict taken after other cells ran in the same process can differ from
the cell run alone (issue 29: cells called "works" after others dropped every write alone), so
no cell runs after another in one process. A crash or a hang is the item's own and is reported
at once (nothing ran before it in that child).
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable, Sequence

HARNESS_ERROR = 70  # a child's exit code when the harness itself failed (a bug, not MindSpore)


class HarnessError(RuntimeError):
    """The harness failed inside a worker: a bug of the suite, reported, never a verdict."""


def _child(items: Sequence, work: Callable, write_fd: int) -> None:  # pragma: no cover - child
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


def _run_child(items: Sequence, work: Callable, timeout: float) -> tuple[int, int | None, str]:
    """(items finished, index of the item it died on or None, how it ended)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.close(read_fd)
        _child(items, work, write_fd)
    os.close(write_fd)
    finished, current, buffer = 0, None, b""
    deadline = time.monotonic() + timeout
    how = ""
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
                kind, index = line[:1], int(line[1:])
                if kind == b"S":
                    current, deadline = index, time.monotonic() + timeout
                else:
                    finished, current = index + 1, None
    _, status = os.waitpid(pid, 0)
    if how:
        return finished, current, how
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig
        return finished, current, f"crashed: died with {name}"
    code = os.WEXITSTATUS(status)
    if code == HARNESS_ERROR:
        raise HarnessError("the harness failed in a gate child (traceback in the worker's log)")
    if code or current is not None:
        return finished, current, f"crashed: exited with code {code}"
    return finished, None, ""


def run_isolated(items: Sequence, work: Callable, timeout: float, on_failure: Callable) -> None:
    """``work(item)`` for every item, each in a fresh forked child of this (warm) parent;
    ``on_failure(item, status, detail)`` for an item whose child crashes or hangs (status
    ``crashed`` or ``timeout``; the detail says how: "died with SIGSEGV", "exited with code 3",
    "made no progress for 16 s"). No item runs after another in the same child, so no item's
    outcome depends on what ran before it."""
    for item in items:
        *_, how = _run_child([item], work, timeout)
        if how:
            status, _, detail = how.partition(": ")
            on_failure(item, status, detail)

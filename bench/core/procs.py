"""One child process per piece of isolated work, started by fork or by spawn.

Cells are isolated from each other in child processes (the gate's ``bench.run.forked``, the
check's ``bench.check.runs``). Two backends do it:

- ``fork`` (Linux's default): the child is a copy of the warm parent (MindSpore imported, the
  mode selected, the user's module loaded) and starts in milliseconds;
- ``spawn`` (the default elsewhere; Windows has no fork, and on macOS forking a process that has
  started MindSpore's threads is unsafe, Python itself defaults to spawn there): a fresh
  interpreter runs ``python -m bench.core.spawned`` on the pickled work and sets its process up
  again (imports MindSpore: the cost of spawn, paid per child).

Either way the child reports over a pipe of its own (``send``: one line per message; its stdout
and stderr stay the parent's), a child that makes no progress for ``timeout`` seconds is killed,
and how it ended is an ``Ended``: a dead child is a result for the caller to record, never a lost
run. The method is the platform's default, or what ``--start-method`` / ``BENCH_START_METHOD``
ask for (``chosen``); one the platform lacks is a usage error naming the ones it has.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

FORK, SPAWN = "fork", "spawn"
ENV = "BENCH_START_METHOD"  # the start method children inherit (the CLIs' --start-method)
PYTHON_ENV = "BENCH_SPAWN_PYTHON"  # the interpreter a spawned child runs (default: this one)
CHILD_MODULE = "bench.core.spawned"

HARNESS = 70  # a child's exit code when the harness itself failed in it (a bug, not MindSpore)
INTERRUPTED = 71  # a child's exit code when Ctrl-C reached it
CANNOT_START = 72  # a spawned child could not set itself up (its traceback on stderr)
READY = "\x01ready"  # a spawned child's first message: the work is unpickled, it starts now
# A spawned child's start (an interpreter, MindSpore's import, the user's file loaded again) is
# not the work's: ``timeout`` counts from READY, the start has this long (a forked child's start
# is instant, and the warm parent did that work before any timeout began)
START_TIMEOUT_S = 300.0

# Windows' exit codes of a process a fatal exception ended (NTSTATUS), named as POSIX signals are
NTSTATUS = {
    0xC0000005: "access violation",
    0xC000001D: "illegal instruction",
    0xC0000094: "integer division by zero",
    0xC00000FD: "stack overflow",
    0xC0000409: "stack buffer overrun (fail fast)",
    0xC0000374: "heap corruption",
}


class StartMethodError(ValueError):
    """A start method this platform lacks (or no start method at all): a usage error, exit 2."""


class StartError(RuntimeError):
    """A spawned child could not start: the environment or the harness, never a verdict
    (exit 3). The message names the interpreter and the first line of its error."""


def available() -> tuple[str, ...]:
    """The start methods this platform has: fork only where ``os.fork`` exists (not Windows)."""
    return (FORK, SPAWN) if os.name == "posix" and hasattr(os, "fork") else (SPAWN,)


def default() -> str:
    """Fork on Linux (children in milliseconds), spawn elsewhere (no fork on Windows; on macOS
    forking a process with MindSpore's threads running is unsafe)."""
    return FORK if sys.platform.startswith("linux") and FORK in available() else SPAWN


def chosen(name: str | None = None, environ=None) -> str:
    """``name``, else ``BENCH_START_METHOD``, else the platform's default; ``StartMethodError``
    naming the available ones when this platform lacks it."""
    environ = os.environ if environ is None else environ
    method = name or environ.get(ENV) or default()
    if method not in available():
        source = f"{ENV}={method}" if not name and environ.get(ENV) else repr(method)
        raise StartMethodError(
            f"start method {source} is not available on this platform ({sys.platform}); "
            f"it has: {', '.join(available())}"
        )
    return method


def use(name: str | None) -> str:
    """Check ``name`` (or the environment's choice) and make it the choice of this process and
    of every process it starts (the runner's workers read it from the environment)."""
    method = chosen(name)
    os.environ[ENV] = method
    return method


def python() -> str:
    """The interpreter a spawned child runs."""
    return os.environ.get(PYTHON_ENV) or sys.executable


# -- in the child ---------------------------------------------------------------------------
_CHANNEL: int | None = None  # in a child: the write end of the pipe to the parent


def in_child() -> bool:
    return _CHANNEL is not None


def send(text: str) -> None:
    """One message (a line) to the parent; nothing outside a child."""
    if _CHANNEL is not None:
        os.write(_CHANNEL, text.replace("\n", " ").encode("utf-8", "replace") + b"\n")


def _attach(channel: int) -> None:
    global _CHANNEL  # noqa: PLW0603 - the one child-side state: the pipe ``send`` writes to
    _CHANNEL = channel


def run_body(body: Callable[[], int | None]) -> int:
    """``body()`` in a child, as its exit code: its own (an int) or 0; ``INTERRUPTED`` on Ctrl-C;
    ``HARNESS`` (the traceback on stderr) when it raised."""
    try:
        code = body()
        return code if isinstance(code, int) else 0
    except KeyboardInterrupt:
        return INTERRUPTED
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
        return HARNESS
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError, AttributeError):
                pass


# -- in the parent --------------------------------------------------------------------------
@dataclass(frozen=True)
class Ended:
    """How a child ended: its exit code, or the signal that killed it, or killed by us after
    ``timeout`` seconds without a message."""

    code: int | None = None
    signal: str | None = None
    timed_out: bool = False

    @property
    def ok(self) -> bool:
        return self.code == 0 and not self.signal and not self.timed_out

    def how(self) -> str:
        """``died with SIGSEGV`` / ``exited with code 3`` (Windows: with the exception's name)."""
        if self.signal:
            return f"died with {self.signal}"
        code = self.code
        name = NTSTATUS.get(code & 0xFFFFFFFF) if isinstance(code, int) else None
        return f"exited with code {code}" + (f" ({code & 0xFFFFFFFF:#x}: {name})" if name else "")


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def run(
    body: Callable[[], int | None],
    on_line: Callable[[str], None],
    timeout: float,
    method: str | None = None,
) -> Ended:
    """Run ``body()`` in a child started by ``method`` (default: ``chosen()``); call
    ``on_line`` with each line it ``send``s. A child silent for ``timeout`` seconds is killed
    (``Ended.timed_out``; a spawned child's start has ``START_TIMEOUT_S`` of its own). Ctrl-C
    or an error in the parent kills the child before it propagates: no child outlives the call.
    Spawn: ``body`` must pickle (a module-level function, class or ``functools.partial`` of
    them); ``StartError`` when the child cannot start."""
    method = chosen(method)
    return (_fork if method == FORK else _spawn)(body, on_line, timeout)


def _fork(body, on_line, timeout: float) -> Ended:
    import select

    read_fd, write_fd = os.pipe()
    # Ctrl-C is held from the fork until the parent is inside its try (a Ctrl-C in between would
    # leave the child running, holding the caller's pipes open) and the child inside its own
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        code = HARNESS
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            os.close(read_fd)
            _attach(write_fd)
            code = run_body(body)
        finally:
            os._exit(code)
    reaped = False
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a Ctrl-C held since the fork: here
        os.close(write_fd)
        timed_out, buffer = False, b""
        deadline = time.monotonic() + timeout
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while True:
                ready, _, _ = select.select([pipe], [], [], max(0.0, deadline - time.monotonic()))
                if not ready:
                    os.kill(pid, signal.SIGKILL)
                    timed_out = True
                    break
                chunk = pipe.read(4096)
                if not chunk:
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    deadline = time.monotonic() + timeout
                    on_line(line.decode("utf-8", "replace"))
        _, status = os.waitpid(pid, 0)
        reaped = True
        if timed_out:
            return Ended(timed_out=True)
        if os.WIFSIGNALED(status):
            return Ended(signal=signal_name(os.WTERMSIG(status)))
        return Ended(code=os.WEXITSTATUS(status))
    finally:
        if not reaped:  # Ctrl-C or an error while waiting: no child outlives the call
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass


def _reader(stream, into: queue.Queue) -> None:
    """Lines of a child's pipe into ``into``, then None at its end (a thread: Windows cannot
    ``select`` a pipe)."""
    buffer = b""
    try:
        while True:
            chunk = os.read(stream, 4096)
            if not chunk:
                break
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                into.put(line.decode("utf-8", "replace"))
    except OSError:
        pass
    finally:
        os.close(stream)
        into.put(None)


def _relay(stream, kept: list[str]) -> None:
    """A spawned child's stderr to ours, line by line; its first lines kept (a child that
    cannot start is reported with them)."""
    for raw in iter(stream.readline, b""):
        text = raw.decode("utf-8", "replace")
        if len(kept) < 200:
            kept.append(text.rstrip("\n"))
        try:
            sys.stderr.write(text)
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    stream.close()


def first_error(lines: list[str]) -> str:
    """The line of a child's stderr that says what went wrong: a traceback's last line (the
    exception), else its first line that is not blank."""
    lines = [ln.strip() for ln in lines if ln.strip()]
    if any(ln.startswith("Traceback") for ln in lines):
        after = lines[next(i for i, ln in enumerate(lines) if ln.startswith("Traceback")) :]
        frames = [ln for ln in after if not ln.startswith(("Traceback", "File ", "^", "~"))]
        errors = [ln for ln in frames if ":" in ln and ln.split(":")[0].isidentifier()]
        return (errors or frames or lines)[-1]
    return lines[0] if lines else "no output"


def _bench_root() -> str:
    return str(Path(__file__).resolve().parents[2])


def _spawn(body, on_line, timeout: float) -> Ended:
    interpreter = python()
    try:
        work = pickle.dumps(body)
    except Exception as exc:
        raise StartError(f"the work cannot be handed to a spawned child: {exc}") from exc
    fd, payload = tempfile.mkstemp(prefix="bench-spawn-", suffix=".pkl")
    with os.fdopen(fd, "wb") as f:
        pickle.dump({"path": list(sys.path), "body": work}, f)
    env = dict(os.environ)
    # this bench importable by ``-m`` whatever the working folder (after what the parent set)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), _bench_root()]))
    env["PYTHONIOENCODING"] = "utf-8"  # what it prints: UTF-8 whatever the platform's default
    read_fd, write_fd = os.pipe()
    kwargs: dict = {}
    if os.name == "nt":  # pragma: no cover - Windows: the pipe's handle, inherited by the child
        import msvcrt

        handle = msvcrt.get_osfhandle(write_fd)
        os.set_handle_inheritable(handle, True)
        kwargs["startupinfo"] = subprocess.STARTUPINFO(lpAttributeList={"handle_list": [handle]})
        channel = f"h{handle}"
    else:
        kwargs["pass_fds"] = (write_fd,)
        channel = f"f{write_fd}"
    command = [interpreter, "-m", CHILD_MODULE, payload, channel, str(os.getpid())]
    proc = None
    kept: list[str] = []
    messages: queue.Queue = queue.Queue()
    try:
        try:
            proc = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, **kwargs
            )
        except OSError as exc:
            raise StartError(
                f"a spawned child could not start: {interpreter}: {exc.strerror or exc}"
            ) from None
        finally:
            os.close(write_fd)
        threading.Thread(target=_reader, args=(read_fd, messages), daemon=True).start()
        read_fd = None
        relay = threading.Thread(target=_relay, args=(proc.stderr, kept), daemon=True)
        relay.start()
        started, timed_out = False, False
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                line = messages.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                timed_out = True
                _kill(proc)
                break
            if line is None:
                break
            deadline = time.monotonic() + timeout  # from the start on: the work's timeout
            if line == READY:
                started = True
                continue
            on_line(line)
        code = proc.wait()
        relay.join(timeout=10)
        if not started:
            why = f"not started after {START_TIMEOUT_S:g} s" if timed_out else first_error(kept)
            raise StartError(f"a spawned child could not start: {interpreter}: {why}")
        if timed_out:
            return Ended(timed_out=True)
        if code < 0:
            return Ended(signal=signal_name(-code))
        return Ended(code=code)
    finally:
        if read_fd is not None:
            os.close(read_fd)
        if proc is not None and proc.poll() is None:  # Ctrl-C or an error while waiting
            _kill(proc)
            proc.wait()
        Path(payload).unlink(missing_ok=True)


def _kill(proc: subprocess.Popen) -> None:
    try:
        proc.kill()  # SIGKILL on POSIX, TerminateProcess on Windows
    except OSError:
        pass

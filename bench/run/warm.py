"""Warm starts: worker processes forked from a parent that has imported MindSpore, nothing more.

A worker spends its first ~2 s importing MindSpore (``python -c "import mindspore"``: 1.8–2.5 s
on this 2-core machine), and a run starts a worker per mode, process and stage (16 for two clip
strategies, about 20 for the default clip run; under bytecode capture one per race). On Linux
with the fork start method (``bench.core.procs``) the supervisor starts one *warm parent* per run
instead: it imports what a worker imports, builds no cell and runs no op (a child of a parent
that ran MindSpore hangs: ``bench.run.forked``), and forks each worker on request. The child then
runs ``python -m bench.run.worker JOB`` as a fresh interpreter would (``runpy``), alone in its
process as a cold worker is, in a session of its own (a kill reaches it and its own children),
killed when the parent ends (the parent ends when the runner's end of their socket closes), with
the runner's environment of the moment, its stdout a pipe to the supervisor and its stderr the
job's log. Everything after the import is the cold worker's code path: the thread pools are
pinned (``pin_threads``) and the mode selected in the child, and the variables ``pin_threads``
sets are set in the parent before the import too, since a thread pool may read them when its
library loads.

Where this cannot be done (no fork, ``--start-method spawn``, ``BENCH_WARM=0``, or the parent
failed to start), workers start cold, as before.

The parent speaks over one AF_UNIX SOCK_SEQPACKET pair, one JSON message per packet:
``{"id", "argv", "cwd", "env"}`` with two file descriptors (the events pipe, the log) from the
supervisor; ``{"ready": true}``, ``{"id", "pid"}`` and ``{"exit": pid, "code": c}`` (a Popen
return code: negative for a signal) back. It is single-threaded: forking from a process with
threads is unsafe.
"""

from __future__ import annotations

import importlib
import io
import json
import os
import runpy
import select
import signal
import socket
import subprocess
import sys
import threading
import traceback
import warnings

ENV = "BENCH_WARM"  # "0": start every worker cold
# What a real worker imports before its first item (``bench.run.worker`` imports the workloads,
# which import MindSpore; pytest and pytest-benchmark run the timing suite)
PRELOAD = ("mindspore", "numpy", "pytest", "pytest_benchmark.plugin", "bench.run.worker")
START_TIMEOUT_S = 300.0  # the parent's import (a cold cache: tens of seconds)
REPLY_TIMEOUT_S = 60.0  # a fork: milliseconds


class WarmError(RuntimeError):
    """The warm parent could not start a worker: the caller starts it cold."""


def wanted() -> bool:
    """Warm starts where they are possible and not turned off: Linux, the fork start method
    (``--start-method spawn`` asks for fresh interpreters, as on Windows and macOS)."""
    from bench.core import procs

    if os.environ.get(ENV, "1") == "0" or not sys.platform.startswith("linux"):
        return False
    return procs.chosen() == procs.FORK and hasattr(socket, "send_fds")


def die_with_parent() -> None:  # pragma: no cover - runs in a child
    """Linux: this process is killed when its parent dies, even by SIGKILL (else it would linger).
    A cold worker calls it between fork and exec, a warm one right after its fork."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        pass


# -- the parent (runs as ``python -m bench.run.warm FD MODULE...``) ------------------------------
def _send(sock: socket.socket, **message) -> None:
    sock.send(json.dumps(message).encode("utf-8"))


def _run_as_main(argv: list[str]) -> int:
    """What ``python ARGV...`` would return: ``-m MODULE ARGS`` or ``SCRIPT ARGS``."""
    try:
        if argv[0] == "-m":
            sys.argv = [argv[1], *argv[2:]]
            # the module was preloaded: runpy would warn of that (and only of that)
            warnings.filterwarnings("ignore", "'.*' found in sys.modules after import of package",
                                    RuntimeWarning)  # fmt: skip
            runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(argv)
            sys.path.insert(0, os.path.dirname(os.path.abspath(argv[0])))
            runpy.run_path(argv[0], run_name="__main__")
    except SystemExit as stop:
        if stop.code is None or isinstance(stop.code, int):
            return stop.code or 0
        print(stop.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def _child(sock: socket.socket, request: dict, fds: list[int]) -> None:  # pragma: no cover
    """In the forked worker: never returns."""
    code = 1
    try:
        os.setsid()
        die_with_parent()
        sock.close()
        events, log = fds
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(events, 1)
        os.dup2(log, 2)
        os.close(events)
        os.close(log)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.stdin = open(0, encoding="utf-8", closefd=False)
        sys.stdout = io.TextIOWrapper(open(1, "wb", closefd=False), "utf-8", line_buffering=True)
        sys.stderr = io.TextIOWrapper(
            open(2, "wb", buffering=0, closefd=False), "utf-8", "backslashreplace",
            line_buffering=True,
        )  # fmt: skip
        signal.signal(signal.SIGINT, signal.default_int_handler)
        code = _run_as_main(request["argv"])
    except BaseException:
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code & 0xFF if code >= 0 else 1)


def _reap(sock: socket.socket, children: set[int]) -> None:
    for pid in list(children):
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done, status = pid, 0
        if done:
            children.discard(pid)
            _send(sock, exit=pid, code=os.waitstatus_to_exitcode(status))


def main(argv: list[str]) -> int:  # pragma: no cover - runs as the warm parent
    sock = socket.socket(fileno=int(argv[0]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the runner ends it (closes the socket)
    for name in argv[1:]:
        importlib.import_module(name)
    _send(sock, ready=True)
    children: set[int] = set()
    while True:
        ready, _, _ = select.select([sock], [], [], 0.05 if children else 1.0)
        if ready:
            try:
                data, fds, _, _ = socket.recv_fds(sock, 1 << 20, 2)
            except OSError:
                break
            if not data:  # the supervisor closed its end: the run is over
                break
            request = json.loads(data)
            pid = os.fork()
            if pid == 0:
                _child(sock, request, fds)
            for fd in fds:
                os.close(fd)
            children.add(pid)
            _send(sock, id=request["id"], pid=pid)
        _reap(sock, children)
    for pid in children:  # a run that ended leaves none; a stopped one: they die with us
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    return 0


# -- the supervisor's side -----------------------------------------------------------------------
class WarmProcess:
    """A forked worker, as the supervisor uses a ``subprocess.Popen``: ``pid`` (its own process
    group), ``stdout`` (its events), ``poll()`` and ``wait()``."""

    def __init__(self, parent: WarmParent, pid: int, stdout):
        self.parent, self.pid, self.stdout = parent, pid, stdout

    def poll(self) -> int | None:
        return self.parent.code_of(self.pid, wait=False)

    def wait(self) -> int:
        code = self.parent.code_of(self.pid, wait=True)
        self.stdout.close()
        return code


class WarmParent:
    """One warm parent for a run's workers (started at once; ``close`` ends it)."""

    def __init__(self, preload=PRELOAD, env: dict | None = None, log=None):
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        # No PR_SET_PDEATHSIG here: it follows the *thread* that started the parent, and a run
        # starts workers from each stage's pool threads, which end with the stage (the parent
        # died with stage 0's first pool, and every later worker started cold). The parent
        # ends instead when the runner's end of the socket closes: at ``close``, or when the
        # runner dies, however it dies.
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.run.warm", str(theirs.fileno()), *preload],
            pass_fds=[theirs.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=log or subprocess.DEVNULL,
            stderr=log or subprocess.DEVNULL,
            env=env if env is not None else dict(os.environ),
            start_new_session=True,  # Ctrl-C reaches the runner only
        )
        theirs.close()
        self.sock = mine
        self.lock = threading.Condition()
        self.pids: dict[int, int] = {}  # request id -> pid
        self.codes: dict[int, int] = {}  # pid -> return code
        self.alive = False
        self.next_id = 0
        self.send_lock = threading.Lock()
        self.sock.settimeout(START_TIMEOUT_S)
        try:
            first = json.loads(self.sock.recv(1 << 16) or b"{}")
        except (OSError, ValueError):
            first = {}
        if not first.get("ready"):
            self.close()
            raise WarmError("the warm parent did not start (its imports failed?)")
        self.sock.settimeout(None)
        self.alive = True
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                data = self.sock.recv(1 << 16)
            except OSError:
                data = b""
            with self.lock:
                if not data:  # the parent died: its children were killed with it
                    self.alive = False
                    for pid in self.pids.values():
                        self.codes.setdefault(pid, -signal.SIGKILL)
                    self.lock.notify_all()
                    return
                message = json.loads(data)
                if "pid" in message:
                    self.pids[message["id"]] = message["pid"]
                else:
                    self.codes[message["exit"]] = message["code"]
                self.lock.notify_all()

    def start(self, argv: list[str], cwd, env: dict, log) -> WarmProcess:
        """Fork a worker running ``python ARGV`` in ``cwd`` with ``env``, its stderr ``log``."""
        read, write = os.pipe()
        try:
            with self.lock:
                if not self.alive:
                    raise WarmError("the warm parent has ended")
                ident = self.next_id
                self.next_id += 1
            request = {"id": ident, "argv": list(argv), "cwd": str(cwd), "env": dict(env)}
            with self.send_lock:
                socket.send_fds(self.sock, [json.dumps(request).encode("utf-8")],
                                [write, log.fileno()])  # fmt: skip
        except OSError as err:
            os.close(read)
            raise WarmError(f"the warm parent has ended: {err}") from err
        finally:
            os.close(write)
        with self.lock:
            self.lock.wait_for(lambda: ident in self.pids or not self.alive, REPLY_TIMEOUT_S)
            if ident not in self.pids:
                os.close(read)
                raise WarmError("the warm parent did not fork the worker")
            pid = self.pids[ident]
        stdout = open(read, encoding="utf-8", errors="replace")
        return WarmProcess(self, pid, stdout)

    def code_of(self, pid: int, wait: bool) -> int | None:
        with self.lock:
            if wait:
                self.lock.wait_for(lambda: pid in self.codes)
            return self.codes.get(pid)

    def close(self) -> None:
        try:  # wakes the reader thread, and the parent reads the end of the run
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))

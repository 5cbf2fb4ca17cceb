"""Warm starts (bench.run.warm): a worker forked from a warm parent runs as a fresh interpreter
would, in a process group of its own, and a parent that fails costs a cold start, never a run
(plain Python scripts, no MindSpore)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from bench.core import procs
from bench.run import supervisor as supervisor_module
from bench.run import warm
from bench.run.plan import Item, Job
from bench.run.supervisor import Supervisor

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="warm starts are Linux's"
)

SCRIPT = """
import os, signal, sys, time
print("argv", sys.argv[1:], flush=True)
print("cwd", os.getcwd(), flush=True)
print("env", os.environ.get("WARM_TEST", "-"), flush=True)
print("stdin", repr(sys.stdin.read()), flush=True)
print("é to stderr", file=sys.stderr, flush=True)
what = sys.argv[1]
if what == "segv":
    os.kill(os.getpid(), signal.SIGSEGV)
if what == "grandchild":
    child = os.fork()
    if child == 0:
        time.sleep(60)
        os._exit(0)
    print("grandchild", child, flush=True)
    time.sleep(60)
if what == "raise":
    raise ValueError("boom")
sys.exit(int(what))
"""


@pytest.fixture
def script(tmp_path):
    path = tmp_path / "script.py"
    path.write_text(SCRIPT, encoding="utf-8")
    return str(path)


@pytest.fixture
def parent():
    made = warm.WarmParent(preload=("json",))
    yield made
    made.close()


def _cold(argv, cwd, env, log):
    proc = subprocess.Popen([sys.executable, *argv], cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=log, stdin=subprocess.DEVNULL, text=True)  # fmt: skip
    out, _ = proc.communicate(timeout=60)
    return out, proc.returncode


def _warm(parent, argv, cwd, env, log):
    proc = parent.start(argv, cwd, env, log)
    out = proc.stdout.read()
    return out, proc.wait()


@pytest.mark.parametrize("what", ["0", "3", "segv", "raise"])
def test_a_warm_worker_runs_as_a_fresh_interpreter_would(tmp_path, script, parent, what):
    env = {**os.environ, "WARM_TEST": "yes"}
    got = {}
    for how, start in (("cold", _cold), ("warm", lambda *a: _warm(parent, *a))):
        log_path = tmp_path / f"{how}.log"
        with open(log_path, "a", encoding="utf-8") as log:
            got[how] = (*start([script, what], str(tmp_path), env, log),
                        log_path.read_text(encoding="utf-8"))  # fmt: skip
    (cold_out, cold_code, cold_log), (warm_out, warm_code, warm_log) = got["cold"], got["warm"]
    assert warm_out == cold_out and f"argv ['{what}']" in warm_out and "env yes" in warm_out
    assert warm_code == cold_code
    assert warm_code == {"0": 0, "3": 3, "segv": -signal.SIGSEGV, "raise": 1}[what]
    assert "é to stderr" in warm_log
    assert ("ValueError: boom" in warm_log) == (what == "raise") == ("ValueError: boom" in cold_log)


def test_a_warm_worker_is_a_group_of_its_own_and_a_kill_ends_its_children(tmp_path, script,
                                                                          parent):  # fmt: skip
    with open(tmp_path / "log", "a", encoding="utf-8") as log:
        proc = parent.start([script, "grandchild"], str(tmp_path), dict(os.environ), log)
        lines = []
        while not any(line.startswith("grandchild") for line in lines):
            lines.append(proc.stdout.readline())
        grandchild = int(lines[-1].split()[1])
        assert os.getpgid(proc.pid) == proc.pid != os.getpgid(0)
        assert os.getpgid(grandchild) == proc.pid
        assert proc.poll() is None
        supervisor_module._kill(proc)
        assert proc.wait() == -signal.SIGKILL
    assert _gone(grandchild), "the worker's own child outlived the kill"


def test_when_the_parent_dies_its_workers_end_and_it_starts_nothing_more(tmp_path, script,
                                                                        parent):  # fmt: skip
    with open(tmp_path / "log", "a", encoding="utf-8") as log:
        proc = parent.start([script, "grandchild"], str(tmp_path), dict(os.environ), log)
        assert proc.stdout.readline().startswith("argv")
        parent.proc.kill()
        assert proc.wait() == -signal.SIGKILL
        with pytest.raises(warm.WarmError):
            parent.start([script, "0"], str(tmp_path), dict(os.environ), log)


def test_a_parent_whose_imports_fail_is_an_error_not_a_hang():
    start = time.monotonic()
    with pytest.raises(warm.WarmError, match="did not start"):
        warm.WarmParent(preload=("no_such_module_anywhere",))
    assert time.monotonic() - start < 60


def _job(tmp_path, threads: int = 1) -> Job:
    item = Item("a", "1", "", "scalar")
    return Job("gate", "run", "clip", "graph", str(tmp_path / "out.jsonl"), (item,),
               threads=threads)  # fmt: skip


FAKE = (str(Path(__file__).resolve().parents[1] / "fixtures" / "fake_worker.py"),)


def test_a_supervisor_whose_warm_parent_cannot_start_starts_its_workers_cold(tmp_path):
    sup = Supervisor(tmp_path / "logs", 30, FAKE, warm=("no_such_module_anywhere",))
    assert sup.run(_job(tmp_path), "gate") == []
    assert sup.started == {"warm": 0, "cold": 1} and sup.warm is None
    assert (
        "starts cold: the warm parent did not start" in (tmp_path / "logs" / "gate.log").read_text()
    )
    sup.close()


def test_the_warm_parent_imports_with_the_runs_thread_pools_pinned(tmp_path, monkeypatch):
    seen = []

    class Fake:
        def __init__(self, preload, env, log):
            seen.append((preload, {v: env.get(v) for v in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}))
            raise warm.WarmError("recorded")

    monkeypatch.setattr(supervisor_module, "WarmParent", Fake)
    sup = Supervisor(tmp_path / "logs", 30, FAKE, warm=("m",), threads=3)
    sup.run(_job(tmp_path, threads=3), "gate")
    assert seen == [(("m",), {"OMP_NUM_THREADS": "3", "MKL_NUM_THREADS": "3"})]
    other = Supervisor(tmp_path / "logs", 30, FAKE, warm=("m",), threads=3)
    other.run(_job(tmp_path, threads=2), "gate")  # a job asking for other pools starts cold
    assert len(seen) == 1 and other.started == {"warm": 0, "cold": 1}


def test_warm_starts_are_wanted_only_with_fork_and_not_turned_off(monkeypatch):
    monkeypatch.delenv(warm.ENV, raising=False)
    monkeypatch.setenv(procs.ENV, procs.FORK)
    assert warm.wanted()
    monkeypatch.setenv(warm.ENV, "0")
    assert not warm.wanted()
    monkeypatch.delenv(warm.ENV)
    monkeypatch.setenv(procs.ENV, procs.SPAWN)
    assert not warm.wanted()


def test_the_warm_parent_outlives_the_thread_that_started_it(tmp_path):
    """A run starts workers from the threads of each stage's pool, which end with the stage: a
    parent tied to its starting thread's life (PR_SET_PDEATHSIG is a thread's) would die with
    the first stage, and every later worker would start cold."""
    sup = Supervisor(tmp_path / "logs", 30, FAKE, warm=())
    for name in ("gate-first", "gate-second", "gate-third"):
        thread = threading.Thread(target=sup.run, args=(_job(tmp_path), name))
        thread.start()
        thread.join()
        time.sleep(0.5)
    assert sup.started == {"warm": 3, "cold": 0}
    sup.close()


RUNNER = """
import os, sys, time
from bench.run.warm import WarmParent
parent = WarmParent(preload=("json",))
log = open(sys.argv[1], "a")
worker = parent.start([sys.argv[2], "grandchild"], os.getcwd(), dict(os.environ), log)
worker.stdout.readline()
print(parent.proc.pid, worker.pid, flush=True)
time.sleep(60)
"""


def _gone(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_when_the_runner_is_killed_outright_the_parent_and_its_workers_end(tmp_path, script):
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, str(tmp_path / "log"), script],
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    parent_pid, worker_pid = map(int, runner.stdout.readline().split())
    runner.kill()
    runner.wait()
    assert _gone(worker_pid) and _gone(parent_pid)


PPID_WORKER = """
import json, os, sys
job = json.load(open(sys.argv[1]))
with open(os.path.join(os.path.dirname(sys.argv[1]), "ppids"), "a") as out:
    out.write(f"{job['kind']} {job['process']} {os.getppid()}\\n")
"""


def test_workers_that_replicate_each_other_never_share_a_warm_parent(tmp_path):
    """A race's processes p0 and p1 are the replicates its between-process variance samples:
    each forks from a parent of its own, while one process's modes share one."""
    worker = tmp_path / "ppid_worker.py"
    worker.write_text(PPID_WORKER, encoding="utf-8")
    sup = Supervisor(tmp_path / "logs", 30, (str(worker),), warm=())
    for process, mode in ((0, "graph"), (0, "jit_ast"), (1, "graph"), (1, "jit_ast"), (2, "graph")):
        item = Item("a", "1", "", "scalar")
        job = Job("time", "run", "clip", mode, str(tmp_path / "t.json"), (item,), process=process)
        sup.run(job, f"time-{mode}-p{process}")
    rows = [line.split() for line in (tmp_path / "logs" / "ppids").read_text().splitlines()]
    parents = {}
    for _kind, process, ppid in rows:
        parents.setdefault(process, set()).add(ppid)
    assert all(len(p) == 1 for p in parents.values())  # one process index: one parent
    assert len({next(iter(p)) for p in parents.values()}) == 3  # three indices: three parents
    assert sup.started == {"warm": 5, "cold": 0}
    sup.close()

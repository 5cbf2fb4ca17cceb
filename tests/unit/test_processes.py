"""Worker processes and their children (forked and spawned) survive crashes and hangs; a harness
bug stops the run (a fake worker and plain Python work, no MindSpore)."""

from __future__ import annotations

import functools
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from bench.core import procs
from bench.run import forked
from bench.run.plan import Item, Job
from bench.run.supervisor import Supervisor

FAKE = (str(Path(__file__).resolve().parents[1] / "fixtures" / "fake_worker.py"),)
# each supervisor test runs with workers started cold (a fresh interpreter) and warm (forked
# from a warm parent, bench.run.warm: Linux only), with the same assertions
STARTS = pytest.mark.parametrize(
    "warm",
    [None, pytest.param((), marks=pytest.mark.skipif(not sys.platform.startswith("linux"),
                                                     reason="warm starts are Linux's"))],
    ids=["cold", "warm"],
)  # fmt: skip


@pytest.fixture
def supervisor(tmp_path, warm):
    made = []

    def make(timeout: float) -> Supervisor:
        made.append(Supervisor(tmp_path / "logs", timeout=timeout, worker=FAKE, warm=warm))
        return made[-1]

    yield make
    for sup in made:
        assert sup.started["warm" if warm is not None else "cold"] > 0
        sup.close()


def job(tmp_path, *names) -> Job:
    items = tuple(Item(s.split("/")[0], s.split("/")[1], "", "scalar") for s in names)
    return Job("gate", "run", "clip", "graph", str(tmp_path / "out.jsonl"), items)


def done(tmp_path) -> list[str]:
    path = tmp_path / "logs" / "done.txt"
    return path.read_text().split() if path.exists() else []


@pytest.mark.posix
@STARTS
def test_a_crash_costs_only_its_item_and_the_rest_run_in_a_new_process(tmp_path, supervisor):
    sup = supervisor(30)
    failures = sup.run(job(tmp_path, "a/1", "crash/always", "b/2"), "gate")
    assert [(f.item.key, f.status) for f in failures] == [("crash/always", "crashed")]
    assert "SIGSEGV" in failures[0].detail
    assert done(tmp_path) == ["a/1", "b/2"]


@pytest.mark.posix
@STARTS
def test_a_crash_that_does_not_happen_again_alone_costs_nothing(tmp_path, supervisor):
    sup = supervisor(30)
    assert sup.run(job(tmp_path, "a/1", "crash/once", "b/2"), "gate") == []
    assert sorted(done(tmp_path)) == ["a/1", "b/2", "crash/once"]


@STARTS
def test_a_hang_is_stopped_after_the_timeout(tmp_path, supervisor):
    sup = supervisor(2)
    start = time.monotonic()
    failures = sup.run(job(tmp_path, "hang/1", "a/1"), "gate")
    assert [(f.item.key, f.status) for f in failures] == [("hang/1", "timeout")]
    assert "no progress for 2 s" in failures[0].detail
    assert done(tmp_path) == ["a/1"] and time.monotonic() - start < 30


@STARTS
def test_a_harness_bug_stops_the_run_with_its_log(tmp_path, supervisor):
    sup = supervisor(30)
    with pytest.raises(forked.HarnessError, match="harness broke"):
        sup.run(job(tmp_path, "broken/1", "a/1"), "gate")


def _work(item):
    if item == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if item == "exit":
        os._exit(3)
    if item == "hang":
        time.sleep(60)
    print(item, file=sys.stderr)


# each test of the children runs with every start method this platform has (the work is
# module-level or a partial of it: a spawned child unpickles it)
METHODS = pytest.mark.parametrize("method", procs.available(), indirect=True)


@pytest.fixture
def method(request, monkeypatch):
    monkeypatch.setenv(procs.ENV, request.param)
    return request.param


@pytest.mark.posix
@METHODS
def test_children_isolate_crashes_exits_and_hangs(method):
    failed = []
    forked.run_isolated(
        ["a", "segv", "b", "exit", "hang", "c"],
        _work,
        2.0,
        lambda item, status, detail, where, stack: failed.append((item, status, detail)),
    )
    assert [(i, s) for i, s, _ in failed] == [
        ("segv", "crashed"),
        ("exit", "crashed"),
        ("hang", "timeout"),
    ]
    assert "SIGSEGV" in failed[0][2] and "code 3" in failed[1][2]


def _bug(item):
    raise ValueError("a bug of the harness")


@METHODS
def test_a_harness_error_in_a_child_is_not_a_crash_of_the_item(method):
    with pytest.raises(forked.HarnessError):
        forked.run_isolated(["a"], _bug, 5.0, lambda *a: None)


def _log_pid(log, item):
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"{item} {os.getpid()} {os.getppid()}\n")


def _log_pid_then_work(log, item):
    _log_pid(log, item)
    _work(item)


@METHODS
def test_every_item_runs_alone_in_its_own_child(tmp_path, method):
    log = tmp_path / "pids"
    work = functools.partial(_log_pid, log)
    forked.run_isolated(["a", "b", "c"], work, 30.0, lambda *a: pytest.fail("no failure"))
    rows = [line.split() for line in log.read_text().splitlines()]
    assert [r[0] for r in rows] == ["a", "b", "c"]
    assert len({r[1] for r in rows}) == 3  # three children
    assert {r[2] for r in rows} == {str(os.getpid())}  # all children of this parent
    assert str(os.getpid()) not in {r[1] for r in rows}


@pytest.mark.posix
@METHODS
def test_items_that_need_not_run_alone_share_a_child_and_a_crash_costs_only_its_item(
    tmp_path, method
):
    log = tmp_path / "pids"
    work = functools.partial(_log_pid_then_work, log)
    failed = []
    forked.run_isolated(
        ["a", "b", "segv", "c"],
        work,
        30.0,
        lambda item, status, detail, where, stack: failed.append((item, status)),
        alone=False,
    )
    rows = [line.split() for line in log.read_text().splitlines()]
    assert [r[0] for r in rows] == ["a", "b", "segv", "segv", "c"]  # the crash tried again alone
    pids = [r[1] for r in rows]
    assert pids[0] == pids[1] == pids[2]  # a, b and the first segv share one child
    assert len(set(pids)) == 3  # the retry alone, then a new child for the rest
    assert failed == [("segv", "crashed")]


def _parts(item):
    forked.mark("in the first part")
    forked.mark("in a network of two layers only")
    if item == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)


@pytest.mark.posix
@METHODS
@pytest.mark.parametrize("alone", [True, False])
def test_a_crash_names_the_last_part_of_its_item_that_it_entered(alone, method):
    failed = []
    forked.run_isolated(
        ["a", "segv", "b"],
        _parts,
        30.0,
        lambda item, status, detail, where, stack: failed.append((item, status, where, stack)),
        alone=alone,
    )
    assert [f[:3] for f in failed] == [("segv", "crashed", "in a network of two layers only")]
    stack = failed[0][3]  # faulthandler's: the fatal signal and where it struck
    assert "Segmentation fault" in stack and "_parts" in stack
    forked.mark("outside a child: nothing happens")

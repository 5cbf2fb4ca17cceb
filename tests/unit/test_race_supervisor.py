"""A race member that crashes costs only its own cell (fake race worker, no MindSpore)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.run.plan import RACE, Item, Job, Member
from bench.run.supervisor import Supervisor

WORKER = str(Path(__file__).parents[1] / "fixtures" / "fake_race_worker.py")


def member(strategy: str) -> Member:
    return Member(strategy, "inline", f"{strategy}.py", "scalar", "update", "control/c", "c.py")


def race(size: int, *names: str) -> Item:
    members = tuple(member(n) for n in names)
    return Item(RACE, RACE, "", "", role=RACE, batch_size=size, members=members)


@pytest.mark.posix
def test_a_crashing_member_is_recorded_alone_and_the_race_goes_on_without_it(tmp_path):
    job = Job("time", "run", "clip", "graph", str(tmp_path / "t.json"),
              (race(1, "good", "crash", "other"), race(8, "good", "other")))  # fmt: skip
    failures = Supervisor(tmp_path, timeout=30, worker=(WORKER,)).run(job, "time-graph")
    assert [(f.item.strategy, f.item.batch_size, f.status) for f in failures] == [
        ("crash", 1, "crashed")
    ]
    assert "SIGSEGV" in failures[0].detail
    assert failures[0].item.test_id("graph") == "crash@inline-graph-N1"
    ran = (tmp_path / "ran.txt").read_text().splitlines()
    # the N=8 race, and the N=1 race again without the crashing member (tried twice first)
    assert sorted(ran) == ["N1: good/inline other/inline", "N8: good/inline other/inline"]


def test_a_member_is_found_by_its_name_in_the_race():
    r = race(4, "a", "b")
    rest, gone = r.without_member("b/inline")
    assert gone is not None and gone.strategy == "b"
    assert [m.strategy for m in rest.members] == ["a"] and rest.batch_size == 4
    same, none = r.without_member("control/c")  # a twin is no member: nothing to take out
    assert none is None and same.members == r.members

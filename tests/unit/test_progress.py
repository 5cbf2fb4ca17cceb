"""The progress line's ETA (issue 52: it said 42 s with ten minutes left). A race is one item
however many members it reports; the items of every process of stage 0 count from the start; a
later stage's races are expected until planned. The clock is faked: nothing waits."""

from __future__ import annotations

import pytest

from bench.run import progress as P
from bench.run.progress import PROCESS_START, Progress


@pytest.fixture
def clock(monkeypatch):
    now = [1000.0]
    monkeypatch.setattr(P.time, "monotonic", lambda: now[0])
    return now


def test_a_race_is_one_item_however_many_members_report(clock):
    p = Progress(out=lambda _: None)
    p.plan("time", "graph", 3, processes=0)
    p.item_started("job", "time", "graph")
    clock[0] += 20.0
    for _ in range(12):  # twelve members of one race report a record each
        p.item_recorded("job")
    assert p.done[("time", "graph")] == 1
    assert p.spent[("time", "graph")] == pytest.approx(20.0)
    assert p.eta() == pytest.approx(2 * 20.0)  # two races left at the observed 20 s each


def test_two_workers_of_one_mode_keep_their_own_items(clock):
    p = Progress(out=lambda _: None)
    p.plan("time", "graph", 4, processes=0)
    p.item_started("p0", "time", "graph")
    clock[0] += 5.0
    p.item_started("p1", "time", "graph")
    clock[0] += 10.0
    p.item_recorded("p1")
    p.item_recorded("p0")
    assert p.done[("time", "graph")] == 2
    assert p.spent[("time", "graph")] == pytest.approx(15.0 + 10.0)


def test_before_any_item_the_model_and_process_starts_give_the_eta():
    p = Progress(out=lambda _: None)
    p.plan("time", "pynative", 3, processes=1)
    p.plan("time", "graph", 3, processes=1)
    want = 3 * P.MODEL["time"]["pynative"] + 3 * P.MODEL["time"]["graph"] + 2 * PROCESS_START
    assert p.eta() == pytest.approx(want)


def test_expected_items_count_until_the_stage_is_planned(clock):
    p = Progress(out=lambda _: None)
    p.plan("time", "graph", 3, processes=0)
    p.expect("time", "graph", 3)
    assert p.eta() == pytest.approx(6 * P.MODEL["time"]["graph"])
    p.settle("time")
    p.plan("time", "graph", 1, processes=0)  # the later stage: one race still open
    assert p.eta() == pytest.approx(4 * P.MODEL["time"]["graph"])


def test_the_eta_never_counts_more_done_than_planned_as_negative(clock):
    p = Progress(out=lambda _: None)
    p.plan("gate", "graph", 1, processes=0)
    for _ in range(3):
        p.finished("gate", "graph", 1.0)
    assert p.eta() == 0.0


def test_a_race_counts_as_its_members(clock):
    """A later stage's race of ten members is expected to take half as long as a first one of
    twenty (the ETA's unit is a member)."""
    p = Progress(out=lambda _: None)
    p.plan("time", "graph", 20 + 10, processes=0)
    p.item_started("job", "time", "graph", units=20)
    clock[0] += 20.0
    p.item_recorded("job")
    assert p.done[("time", "graph")] == 20
    assert p.eta() == pytest.approx(10.0)


def test_the_time_phase_plans_a_race_by_its_members():
    from bench.run import time_phase
    from bench.run.plan import Item, Member

    member = Member("s", "x", "p", "", "update", "control/base", "q")
    race = Item("race", "race", "", "", members=(member,) * 7)
    assert time_phase.units(race) == 7
    assert time_phase.units(Item("s", "x", "p", "")) == 1


def test_the_quick_tier_counts_its_own_rates_and_process_starts():
    """A quick member costs a fraction of a default one (fewer, shorter blocks): with the
    default's rates the ETA of a 50 s quick run said 2-4 times the time left."""
    quick, default = Progress(out=lambda _: None, tier="quick"), Progress(out=lambda _: None)
    for p in (quick, default):
        p.plan("time", "graph", 15, processes=1)
    want = 15 * P.TIERS["quick"]["time"]["graph"] + P.TIERS["quick"]["process_start"]
    assert quick.eta() == pytest.approx(want)
    assert default.eta() == pytest.approx(15 * P.MODEL["time"]["graph"] + PROCESS_START)
    assert quick.eta() < default.eta() / 2
    assert Progress(out=lambda _: None, tier="rigorous").model == P.MODEL  # no rates of its own


def test_after_the_gate_a_race_is_expected_at_the_strategies_that_work_there():
    """Before the gate a race is guessed at one member per strategy; once the verdicts are
    known, at the mode's working strategies and the A/A cell (a 2-strategy run: 3, not 2; the
    clip: about 15 of 24)."""
    from types import SimpleNamespace as NS

    from bench.core.schema import Status
    from bench.run.plan import TIERS
    from bench.run.time_phase import expect_timing

    quick = TIERS["quick"]  # one process, no later stage: the expectation is members × sizes
    p = Progress(out=lambda _: None, tier="quick")
    plan = NS(precision=quick, modes=("graph", "pynative"), strategies=tuple("abcd"),
              batch_sizes=(1024,), workload="clip")  # fmt: skip
    ctx = NS(plan=plan, progress=p, full=True, workload=NS(layout_twins=lambda: []),
             mode=lambda m: NS(distribution=False))  # fmt: skip
    expect_timing(ctx)
    assert p.expected == {("time", "graph"): 4, ("time", "pynative"): 4}
    v = lambda s, m, ok=True: NS(strategy=s, mode=m, status=Status.WORKS if ok else Status.RAISES)  # noqa: E731
    gated = [v("a", "graph"), v("b", "graph"), v("c", "graph", False), v("control", "graph"),
             v("a", "pynative")]  # fmt: skip
    expect_timing(ctx, gated)
    assert p.expected == {("time", "graph"): 3, ("time", "pynative"): 2}


def test_a_mode_not_yet_seen_runs_as_slow_against_the_model_as_the_others_did(clock):
    """brn's first ETAs were 15-25 % low: every mode ran slower than the clip-made model. Once
    one mode has finished units, the others' model rates scale by how it ran."""
    p = Progress(out=lambda _: None)
    p.plan("time", "graph", 10, processes=0)
    p.plan("time", "jit_ast", 10, processes=0)
    assert p.eta() == pytest.approx(10 * P.MODEL["time"]["graph"] + 10 * P.MODEL["time"]["jit_ast"])
    p.finished("time", "graph", 2 * 5 * P.MODEL["time"]["graph"], units=5)  # twice the model
    assert p.scale("time") == pytest.approx(2.0)
    assert p.rate(("time", "jit_ast")) == pytest.approx(2 * P.MODEL["time"]["jit_ast"])
    assert p.eta() == pytest.approx(
        5 * 2 * P.MODEL["time"]["graph"] + 10 * 2 * P.MODEL["time"]["jit_ast"]
    )
    assert p.scale("gate") == 1.0  # another phase: as the model says

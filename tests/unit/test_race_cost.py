"""A later stage's race counted by what its members cost in stage 0 (issue 52: the ETA held
to +-20 % on fewer than half of brn's lines). A default stage 0 races slow-compiling strategies
and layout twins that no later stage races, so "a member" is worth less later; a two-strategy
run's later members are the same as its stage-0 ones, at more rounds. Hand-made records."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bench.core.schema import Timing
from bench.run import time_phase
from bench.run.plan import Item, Member
from bench.run.race_cost import Cost, RaceCosts


def record(strategy, first_call_s, step_s=0.05, role="update", shape="x", *, size=64, rounds=10,
           stage=0, process=0, k=1, race="graph-N64-p0-s0"):  # fmt: skip
    # 3 warm-up and 2 sizing steps outside the rounds, as the workers run them
    return Timing(
        workload="w", strategy=strategy, shape=shape, mode="graph", batch_size=size,
        process=process, control="control/base", role=role, k=k, step_s=[step_s] * rounds,
        control_s=[0.05] * rounds, first_call_s=first_call_s, control_first_call_s=0.5,
        warmup_steps=3, steps_run=rounds * k + 5, stage=stage, race=race,
        race_base_s=[0.05] * rounds,
    )  # fmt: skip


def member(strategy, role="update", shape="x"):
    return Member(strategy, shape, "p", "", role, "control/base", "q")


# stage 0: two cheap strategies, one that compiles slowly, the A/A cell and a layout twin
STAGE0 = [
    record("cheap", 0.5),
    record("other", 0.5),
    record("slow", 2.5),
    record("control", 0.5, role="aa", shape="base"),
    record("control", 2.0, role="layout", shape="view"),
]


def test_a_members_cost_is_its_first_call_and_steps_outside_the_rounds_plus_its_rounds():
    costs = RaceCosts.of(STAGE0, "graph")
    cheap = costs.members[("cheap", "x", "update", 64)]
    assert cheap == Cost(pytest.approx(0.5 + 5 * 0.05), pytest.approx(0.05))
    assert cheap.seconds(40) == pytest.approx(0.75 + 2.0)
    assert costs.bases[64] == Cost(pytest.approx(0.75), pytest.approx(0.05))
    # five members (1.25 + 1.25 + 3.25 + 1.25 + 2.75 s) and the base twin (1.25 s) over five
    assert costs.unit_s == pytest.approx((1.25 * 3 + 3.25 + 2.75 + 1.25) / 5)


def test_a_later_race_of_cheap_members_counts_less_than_its_members():
    """brn's later stages raced the candidates without the twins and slow strategies: counted
    a member each, they were 1.2-1.4 times what they ran."""
    costs = RaceCosts.of(STAGE0, "graph")
    race = Item("race", "race", "", "", batch_size=64, rounds=10,
                members=(member("cheap"), member("control", "aa", "base")))  # fmt: skip
    got = time_phase.units(race, stage=1, base_rounds=10, costs=costs)
    assert got == pytest.approx((1.25 + 1.25 + 1.25) / costs.unit_s)
    assert got < 2  # fewer than its members: the stage-0 mean member is dearer
    slow = replace(race, members=(member("slow"), member("control", "aa", "base")))
    assert time_phase.units(slow, 1, 10, costs) > 2


def test_more_rounds_cost_more_but_the_first_call_stays():
    costs = RaceCosts.of(STAGE0, "graph")
    race = Item("race", "race", "", "", batch_size=64, rounds=10, members=(member("cheap"),))
    at10 = time_phase.units(race, 1, 10, costs)
    at40 = time_phase.units(replace(race, rounds=40), 1, 10, costs)
    assert at40 - at10 == pytest.approx(2 * 30 * 0.05 / costs.unit_s)  # member and base rounds
    assert at40 < 4 * at10


def test_every_stage_zero_member_counts_one_unit_on_average():
    """The ETA's rate is stage 0's seconds per member: the same races, priced at their own
    rounds, must come out at their member count, or every later stage is off by that ratio."""
    two = [replace(t, process=1, race="graph-N64-p1-s0", first_call_s=t.first_call_s * 1.2)
           for t in STAGE0]  # fmt: skip
    costs = RaceCosts.of(STAGE0 + two, "graph")
    members = tuple(member(t.strategy, t.role, t.shape) for t in STAGE0)
    race = Item("race", "race", "", "", batch_size=64, rounds=10, members=members)
    assert time_phase.units(race, 1, 10, costs) == pytest.approx(len(STAGE0))


def test_a_race_of_slow_rounds_is_counted_at_the_rounds_its_budget_allows():
    """A race runs at most ``cell_seconds`` per pair of blocks (``race.budget_rounds``, at least
    4): brn's largest size in launch_blocking, planned at 40 rounds, ran 4, and the ETA counted
    40 (109 units where 31 ran)."""
    slow = [replace(t, step_s=[0.5] * 10, race_base_s=[0.5] * 10) for t in STAGE0]
    race = Item("race", "race", "", "", batch_size=64, rounds=40,
                members=(member("cheap"), member("other")))  # fmt: skip
    budget = RaceCosts.of(slow, "graph", cell_seconds=1.0)
    unbounded = RaceCosts.of(slow, "graph")
    cheap = budget.members[("cheap", "x", "update", 64)]
    # 3 blocks (two members, one twin) of 0.5 s a round; 1 s per pair of blocks: 1.5 s, 4 rounds
    at4 = (2 * cheap.seconds(4) + budget.bases[64].seconds(4)) / budget.unit_s
    assert budget.units(race.members, 64, 40) == pytest.approx(at4)
    at40 = (2 * cheap.seconds(40) + budget.bases[64].seconds(40)) / budget.unit_s
    assert unbounded.units(race.members, 64, 40) == pytest.approx(at40) and at40 > 3 * at4
    fast = RaceCosts.of(STAGE0, "graph", cell_seconds=1.0)
    # 1.5 s of budget over 0.15 s a round: 10 rounds, fewer than planned and more than 4
    assert fast.units(race.members, 64, 40) == pytest.approx(
        (2 * fast.members[("cheap", "x", "update", 64)].seconds(10) + fast.bases[64].seconds(10))
        / fast.unit_s
    )


def test_each_control_a_race_measures_against_is_a_twin_block_a_round():
    costs = RaceCosts.of(STAGE0, "graph")
    one = (member("cheap"), member("other"))
    two = (member("cheap"), replace(member("other"), control="control/other"))
    base = costs.bases[64].seconds(10)
    assert costs.units(two, 64, 10) - costs.units(one, 64, 10) == pytest.approx(base / costs.unit_s)


def test_a_member_or_size_without_a_stage_zero_record_falls_back_to_the_member_count():
    costs = RaceCosts.of(STAGE0, "graph")
    unknown = Item("race", "race", "", "", batch_size=64, rounds=10,
                   members=(member("cheap"), member("new")))  # fmt: skip
    assert costs.units(unknown.members, 64, 10) is None
    fallback = time_phase.units(unknown, 1, 10)
    assert time_phase.units(unknown, 1, 10, costs) == fallback == 2
    elsewhere = replace(unknown, batch_size=1, members=(member("cheap"),))
    assert costs.units(elsewhere.members, 1, 10) is None


def test_only_stage_zero_records_of_the_mode_count_and_unusable_ones_are_skipped():
    later = [replace(t, stage=1, first_call_s=99.0) for t in STAGE0]
    other = [replace(t, mode="jit_ast", first_call_s=99.0) for t in STAGE0]
    broken = [replace(STAGE0[0], strategy="nan", first_call_s=float("nan"))]
    costs = RaceCosts.of(STAGE0 + later + other + broken, "graph")
    assert costs == RaceCosts.of(STAGE0, "graph")
    assert RaceCosts.of(later + other, "graph") is None
    assert RaceCosts.of([], "graph") is None


def test_stage_zero_units_are_unchanged():
    costs = RaceCosts.of(STAGE0, "graph")
    race = Item("race", "race", "", "", batch_size=64, members=(member("slow"),) * 3)
    assert time_phase.units(race, 0, 10, costs) == 3


def test_the_time_phase_counts_a_later_stage_by_its_records(monkeypatch):
    """Wiring: the stage learnt when a mode's stage 0 ends, the stage planned, and the units
    each later race's process reports all come from the mode's stage-0 records."""
    from types import SimpleNamespace as NS

    from bench.run.progress import Progress

    costs = RaceCosts.of(STAGE0, "graph")
    race = Item("race", "race", "", "", batch_size=64, rounds=40,
                members=(member("cheap"), member("control", "aa", "base")))  # fmt: skip
    want = costs.units(race.members, 64, 40)
    assert want != time_phase.units(race, 1, 10)  # the fallback would count it otherwise
    p = Progress(out=lambda _: None)
    job = NS(mode="graph", items=[race], stage=1, out="graph-p2.json", process=2)
    ctx = NS(plan=NS(precision=NS(stages=1, rounds=10, processes=2, cell_seconds=0.0),
                     time_jobs=1, seed=0),
             progress=p, run=NS(path="/nowhere"), past_deadline=lambda: False,
             mode=lambda m: NS(distribution=False, race_per_process=False, concurrent=False),
             pool=lambda jobs, fn, n: [fn(j) for j in jobs])  # fmt: skip
    monkeypatch.setattr(time_phase.records, "Records", lambda path: NS(timings=STAGE0))
    monkeypatch.setattr(time_phase, "open_races", lambda ctx, rec, cells, c: {"graph": [race]})
    monkeypatch.setattr(time_phase, "_jobs", lambda ctx, mode, process, stage, todo: [job])
    reported = []

    def time_job(ctx, job, costs=None):
        reported.append(time_phase.units(race, job.stage, 10, costs))

    monkeypatch.setattr(time_phase, "_time_job", time_job)
    time_phase._expect_later(ctx, "graph", {"graph": [race]}, None)
    assert p.expected[("time", "graph")] == pytest.approx(want)
    assert time_phase.later_stage(ctx, 1, {"graph": [race]}) is True
    assert p.todo[("time", "graph")] == pytest.approx(want) and ("time", "graph") not in p.expected
    assert reported == [pytest.approx(want)]

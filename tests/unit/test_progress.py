"""The progress line's ETA (issue 52: it said 42 s with ten minutes left). A race is one item
however many members it reports; the items of every process of stage 0 count from the start; a
later stage's races are expected until planned. The clock is faked: nothing waits."""

from __future__ import annotations

import math
from dataclasses import replace

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
    # a later stage's member counts as more of a stage-0 one as its rounds exceed stage 0's:
    # its compile and warm-up stay, its rounds grow (stage 1 at 40 rounds: 1.55-2.3 times)
    fixed = time_phase.LATER_FIXED
    assert time_phase.units(replace(race, rounds=10), stage=1, base_rounds=10) == 7
    assert time_phase.units(replace(race, rounds=40), stage=1, base_rounds=10) == pytest.approx(
        7 * (fixed + (1 - fixed) * 4)
    )
    assert 1.55 <= fixed + (1 - fixed) * 4 <= 2.3
    assert time_phase.units(Item("s", "x", "p", "")) == 1


def test_a_later_stage_is_guessed_at_its_candidates_and_most_rounds():
    """Before a mode's stage 0 ends, its later stage is guessed from the candidates: every race
    again with them and the A/A cell at the tier's most rounds; nothing where fewer than two
    candidates leave nothing to decide, where the mode is a distribution or the tier has no later
    stage. A two-strategy run's stage 1 (three races of three members at 18-40 rounds) took 32 s,
    the old guess (0.43 of a stage-0 process of three members each) about a third of it."""
    from bench.run import time_phase
    from bench.run.plan import TIERS

    default, quick, rigorous = TIERS["default"], TIERS["quick"], TIERS["rigorous"]
    member = time_phase.LATER_FIXED + (1 - time_phase.LATER_FIXED) * 40 / 10
    share = time_phase.LATER_SHARE  # of the bound: what the traced runs' later stages ran
    assert 0 < share <= 1
    assert time_phase.later_guess(default, False, 3, 2) == pytest.approx(share * 3 * 3 * member)
    assert time_phase.later_guess(default, False, 3, 1) == 0  # one candidate: nothing to decide
    assert time_phase.later_guess(default, True, 3, 5) == 0  # PYNATIVE: a distribution
    assert time_phase.later_guess(quick, False, 3, 5) == 0  # no later stage
    assert time_phase.later_guess(default, False, 0, 5) == 0
    # a tier that times to a target width races even one candidate
    one = time_phase.later_guess(rigorous, False, 2, 1)
    fixed = time_phase.LATER_FIXED
    assert one == pytest.approx(share * 2 * 2 * (fixed + (1 - fixed) * 200 / 20))


def test_a_workload_whose_stage_0_decides_more_guesses_a_smaller_later_stage():
    """EMA's and the KV cache's later stages raced 0.12 and 0.20 of the bound, the clip's and
    brn's about 0.7: each workload's guess is its own share of the same bound, and a workload a
    user adds gets the clip's."""
    from bench.run import time_phase
    from bench.run.plan import TIERS

    default = TIERS["default"]
    bound = time_phase.later_guess(default, False, 3, 4, share=1.0)
    for workload in ("clip", "brn", "ema", "kvcache", "mine"):
        share = time_phase.later_share(workload)
        assert 0 < share <= 1
        assert time_phase.later_guess(default, False, 3, 4, share) == pytest.approx(share * bound)
    assert time_phase.later_share("mine") == time_phase.later_share("clip")
    assert time_phase.later_share("ema") < time_phase.later_share("kvcache") < 0.5
    assert time_phase.later_share("brn") > 0.5


def test_the_quick_tier_counts_its_own_rates_and_process_starts():
    """A quick member costs a fraction of a default one (fewer, shorter blocks): with the
    default's rates the ETA of a 50 s quick run said 2-4 times the time left."""
    quick, default = Progress(out=lambda _: None, tier="quick"), Progress(out=lambda _: None)
    for p in (quick, default):
        p.plan("time", "graph", 15, processes=1)
    want = 15 * P.TIERS["quick"]["time"]["graph"] + P.TIERS["quick"]["process_start"]
    assert quick.eta() == pytest.approx(want)
    assert default.eta() == pytest.approx(15 * P.MODEL["time"]["graph"] + PROCESS_START)
    assert quick.eta() < default.eta()
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
             mode=lambda m: NS(distribution=False, race_per_process=False))  # fmt: skip
    expect_timing(ctx)
    assert p.expected == {("time", "graph"): 4, ("time", "pynative"): 4}
    assert p.expected_starts == {("time", "graph"): 1, ("time", "pynative"): 1}
    v = lambda s, m, ok=True: NS(strategy=s, mode=m, status=Status.WORKS if ok else Status.RAISES)  # noqa: E731
    gated = [v("a", "graph"), v("b", "graph"), v("c", "graph", False), v("control", "graph"),
             v("a", "pynative")]  # fmt: skip
    expect_timing(ctx, gated)
    assert p.expected == {("time", "graph"): 3, ("time", "pynative"): 2}
    # the default tier adds a later stage where two candidates or more can stay undecided
    from bench.run import time_phase
    from bench.run.time_phase import later_guess

    default = TIERS["default"]
    ctx.plan = NS(**{**vars(plan), "precision": default})
    ctx.mode = lambda m: NS(distribution=m == "pynative", race_per_process=False)
    expect_timing(ctx, gated, {"graph": {"a", "b"}, "pynative": {"a"}})
    stage0 = default.processes * 3
    assert p.expected[("time", "graph")] == pytest.approx(
        stage0 + later_guess(default, False, 1, 2)
    )
    assert p.expected_starts[("time", "graph")] == default.processes + 1
    assert p.expected[("time", "pynative")] == default.processes * 2  # a distribution: none
    expect_timing(ctx, gated, {"graph": {"a"}, "pynative": {"a"}})  # one candidate: none
    assert p.expected[("time", "graph")] == stage0
    assert p.expected_starts[("time", "graph")] == default.processes
    # EMA's later stage is guessed at its own share of the bound
    ctx.plan = NS(**{**vars(ctx.plan), "workload": "ema"})
    expect_timing(ctx, gated, {"graph": {"a", "b"}, "pynative": {"a"}})
    ema = later_guess(default, False, 1, 2, time_phase.later_share("ema"))
    assert ema < later_guess(default, False, 1, 2)
    assert p.expected[("time", "graph")] == pytest.approx(stage0 + ema)


def test_a_mode_not_yet_seen_runs_as_slow_against_the_model_as_the_others_did(clock):
    """brn's first ETAs were 15-25 % low: every mode ran slower than the clip-made model. Once
    other modes have a minute or more of finished work, the model rates of the rest scale by how
    those ran."""
    p = Progress(out=lambda _: None)
    g, a = P.MODEL["time"]["graph"], P.MODEL["time"]["jit_ast"]
    p.plan("time", "graph", 1000, processes=0)
    p.plan("time", "jit_ast", 10, processes=0)
    assert p.eta() == pytest.approx(1000 * g + 10 * a)
    p.finished("time", "graph", 2 * 500 * g, units=500)  # twice the model, over minutes
    prior = P.SCALE_PRIOR_SHARE * (1000 * g + 10 * a)  # a tenth of the phase's planned work
    assert p.prior("time") == pytest.approx(prior)
    want = (1000 * g + prior) / (500 * g + prior)
    assert 1.8 < want < 2.0
    assert p.scale("time") == pytest.approx(want)
    assert p.rate(("time", "jit_ast")) == pytest.approx(want * a)
    assert p.eta() == pytest.approx(500 * 2 * g + 10 * want * a)
    assert p.scale("gate") == 1.0  # another phase: as the model says


def test_one_small_first_race_does_not_rescale_every_other_mode(clock):
    """EMA's first race under bytecode (two members, 7 s against 1.6 s modelled) took the ETA
    from 4 to 14 minutes of a 6-minute run: a few seconds of work weigh little against the
    model."""
    p = Progress(out=lambda _: None, workload="ema")
    for mode in P.MODEL["time"]:  # a default run's races: 20 members, 5 sizes, 2 processes
        p.plan("time", mode, 200, processes=0)
    p.finished("time", "jit_bytecode", 7.0, units=2)
    assert p.rate(("time", "jit_bytecode")) == pytest.approx(3.5)  # its own mode: as observed
    assert 1.0 < p.scale("time") < 1.1


def test_a_quick_run_follows_what_its_first_races_show():
    """A quick run is about a minute of model-seconds: with a fixed minute of prior its ETA
    stayed at 0.8 of the time left when every race ran 1.3 times the model (2026-12-07). The
    prior is a tenth of its planned work, so one mode's race moves the others."""
    p = Progress(out=lambda _: None, tier="quick")
    for mode in P.MODEL["time"]:
        p.plan("time", mode, 16, processes=0)
    g = p.model["time"]["graph"]
    p.finished("time", "graph", 1.3 * 16 * g, units=16)
    assert p.prior("time") == pytest.approx(P.SCALE_PRIOR_MIN_S)  # a tenth is less than 5 s
    assert 1.15 < p.scale("time") < 1.3


def test_a_workload_starts_from_its_own_rates():
    """EMA's and the KV cache's members take 1.6-3.4 times the clip's (measured per mode): their
    first ETAs were half the time the runs took. A workload not listed keeps the clip's."""
    clip = Progress(out=lambda _: None, workload="clip")
    ema = Progress(out=lambda _: None, workload="ema")
    mine = Progress(out=lambda _: None, workload="my_workload")
    for mode in P.MODEL["time"]:
        want = P.MODEL["time"][mode] * P.WORKLOADS["ema"][mode]
        assert ema.model["time"][mode] == pytest.approx(want)
        assert ema.model["time"][mode] > clip.model["time"][mode]
    assert mine.model == clip.model == P.MODEL
    quick = Progress(out=lambda _: None, tier="quick", workload="kvcache")
    want = P.TIERS["quick"]["time"]["graph"] * P.WORKLOADS["kvcache"]["graph"]
    assert quick.model["time"]["graph"] == pytest.approx(want)  # the tier's rates, the ratio


def test_settling_one_mode_keeps_the_others_guess():
    p = Progress(out=lambda _: None)
    p.expect("time", "graph", 10, processes=1)
    p.expect("time", "jit_ast", 4, processes=3)
    p.expect("gate", "graph", 1)
    p.settle("time", "graph")
    assert p.expected == {("time", "jit_ast"): 4, ("gate", "graph"): 1}
    assert p.eta() == pytest.approx(
        4 * P.MODEL["time"]["jit_ast"] + P.MODEL["gate"]["graph"] + 3 * PROCESS_START
    )  # an expected stage's processes start too (a small run's later stage: 6 s each)
    p.settle("time")
    assert p.expected == {("gate", "graph"): 1} and p.expected_starts == {("gate", "graph"): 0}


def test_when_a_modes_stage_zero_ends_its_next_stage_replaces_the_guess(monkeypatch):
    """The guess (a share of a process) was 3 minutes too long for a KV cache run whose later
    stage raced two small races: once every job of a mode's last stage-0 process has ended, the
    races its next stage would run are known, and they are what the ETA expects."""
    from types import SimpleNamespace as NS

    from bench.run import time_phase
    from bench.run.plan import Item, Member

    member = Member("s", "x", "p", "", "update", "control/base", "q")
    race = Item("race", "race", "", "", members=(member,) * 4)
    p = Progress(out=lambda _: None)
    p.expect("time", "graph", 50)
    p.expect("time", "jit_ast", 50)
    plan = NS(precision=NS(stages=1, rounds=10, cell_seconds=1.0), seed=0)
    modes = lambda m: NS(distribution=m == "pynative", race_per_process=m == "jit_ast")  # noqa: E731
    ctx = NS(plan=plan, progress=p, run=NS(path="/nowhere"), past_deadline=lambda: False,
             mode=modes)  # fmt: skip
    asked = []

    def open_races(ctx, rec, cells, candidates):
        asked.append(tuple(cells))
        return {mode: [race] for mode in cells}

    monkeypatch.setattr(time_phase, "open_races", open_races)
    monkeypatch.setattr(time_phase.records, "Records", lambda path: NS(timings=[]))
    jobs = [NS(mode="graph"), NS(mode="graph"), NS(mode="jit_ast"), NS(mode="pynative")]
    cells = {"graph": [race], "jit_ast": [race], "pynative": [race]}
    ended = time_phase._when_mode_ends(ctx, jobs, cells, None)
    ended(jobs[0])
    assert asked == [] and p.expected[("time", "graph")] == 50  # one graph job still runs
    ended(jobs[2])
    assert asked == [("jit_ast",)]
    assert p.expected[("time", "jit_ast")] == pytest.approx(time_phase.units(race, 1, 10))
    assert p.expected_starts[("time", "jit_ast")] == 1  # one race: one process of its own
    ended(jobs[1])
    assert p.expected[("time", "graph")] == pytest.approx(time_phase.units(race, 1, 10))
    assert p.expected_starts[("time", "graph")] == 1
    ended(jobs[3])  # timed as a distribution: no later stage to learn
    assert asked == [("jit_ast",), ("graph",)]


def test_what_a_process_spends_outside_its_items_prices_the_next_starts(clock):
    """A two-strategy run's processes each spent seconds outside their races (start, the gaps
    between races, the end), more than the model's start: the ETA ran at 0.6 of the time left.
    Once a process has ended, the others' starts cost what its rest did."""
    p = Progress(out=lambda _: None)
    p.plan("time", "graph", 2, processes=2)
    p.process_started("time")
    assert p.start_cost("time") == PROCESS_START
    p.item_started("job", "time", "graph")
    clock[0] += 3.0
    p.item_recorded("job")
    p.process_ended("job", "time", 3.0 + 5.0)  # 5 s outside its one item
    assert p.start_cost("time") == pytest.approx(5.0)
    assert p.eta() == pytest.approx(1 * 3.0 + 1 * 5.0)  # one item, one process to start
    p.process_ended("other", "time", 1.0)  # a process with no item: all of it was its rest
    assert p.start_cost("time") == pytest.approx(3.0)
    assert p.start_cost("gate") == PROCESS_START  # another phase: the model's


# -- the trace, and the ETA judged on it (a model change is replayed on recorded runs) -----------


def _traced_run(path, clock):
    p = Progress(out=lambda _: None, parallel={"time": 1}, workload="brn", trace=path)
    p.plan("time", "graph", 4, 2)
    p.expect("time", "graph", 6, 1)
    p.line("start")
    p.process_started("time")
    p.item_started("/run/logs/job-0", "time", "graph", 2, stage=0, members=2, rounds=10)
    clock[0] += 7.0
    p.item_recorded("/run/logs/job-0")
    p.line("a race")
    p.process_ended("/run/logs/job-0", "time", 9.5)
    p.settle("time", "graph")
    p.plan("time", "graph", 3, 1)
    p.line("stage 1")
    clock[0] += 4.0
    p.line("later")
    return p


def test_a_traced_run_replays_to_the_etas_it_printed(clock, tmp_path):
    trace = tmp_path / "logs" / P.TRACE_NAME
    _traced_run(trace, clock)
    (segment,) = P.read_trace(trace)
    assert segment[0]["call"] == "init" and segment[0]["workload"] == "brn"
    rows = P.replay(segment)
    assert [r[0] for r in rows] == [0.0, 7.0, 7.0, 11.0]
    assert [r[1] for r in rows] == pytest.approx([r[2] for r in rows], abs=1e-3)
    assert rows[0][1] != rows[1][1]  # the race moved the ETA: the trace saw it


def test_a_nested_call_is_kept_once(clock, tmp_path):
    """``item_recorded`` calls ``finished``: replaying both would count the item twice."""
    trace = tmp_path / P.TRACE_NAME
    _traced_run(trace, clock)
    events = P.read_trace(trace)[0]
    calls = [e["call"] for e in events]
    assert calls.count("item_recorded") == 1 and "finished" not in calls
    (started,) = [e for e in events if e["call"] == "item_started"]
    assert started["kw"] == {"stage": 0, "members": 2, "rounds": 10}  # for a later fit


def test_a_replay_gives_another_models_eta(clock, tmp_path):
    trace = tmp_path / P.TRACE_NAME
    _traced_run(trace, clock)

    class SlowStarts(Progress):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.process_start = 60.0

    rows = P.replay(P.read_trace(trace)[0], make=SlowStarts)
    assert rows[0][2] > rows[0][1] + 100  # three starts at 60 s, not at the model's 6 s


def test_a_resumed_run_is_another_segment(clock, tmp_path):
    trace = tmp_path / P.TRACE_NAME
    _traced_run(trace, clock)
    _traced_run(trace, clock)
    first, second = P.read_trace(trace)
    assert first[0]["call"] == second[0]["call"] == "init"
    assert len(P.replay(second)) == 4


def test_a_run_that_prints_nothing_writes_no_trace(tmp_path):
    Progress(out=lambda _: None, trace=tmp_path / "logs" / P.TRACE_NAME)
    assert not (tmp_path / "logs").exists()


def test_a_trace_that_cannot_be_written_leaves_the_lines(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    lines = []
    p = Progress(out=lines.append, trace=tmp_path / "file" / P.TRACE_NAME)
    p.plan("time", "graph", 1, 0)
    p.line("still printed")
    assert p.trace is None and lines[-1].endswith("still printed")


@pytest.mark.parametrize(
    ("rows", "want"),
    [
        ([(0, 100), (50, 50), (100, 0)], 1.0),  # both lines before the tail: exact
        ([(0, 130), (50, 50), (100, 0)], 0.5),  # 130 s for 100 s left: 30 % over
        ([(0, 119), (50, 41), (100, 0)], 1.0),  # 19 % over, 18 % under: within
        ([(0, 100), (95, 5), (100, 0)], 1.0),  # the last tenth is not judged
        ([(0, 0)], math.nan),
        ([], math.nan),
    ],
)
def test_within_counts_the_lines_that_held_to_a_fifth_of_the_time_left(rows, want):
    got = P.within(rows)
    assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(want)


def test_the_cli_judges_a_run_dir_and_says_when_there_is_no_trace(clock, tmp_path, capsys):
    run = tmp_path / "run"
    _traced_run(run / "logs" / P.TRACE_NAME, clock)
    assert P.main([str(run)]) == 0
    out = capsys.readouterr().out
    assert "4 lines" in out and "as printed" in out
    assert P.main([str(tmp_path / "none")]) == 2
    assert "no progress.jsonl" in capsys.readouterr().err
    assert P.main([]) == 2


def test_item_rates_are_kept_per_worker(clock, tmp_path):
    trace = tmp_path / P.TRACE_NAME
    _traced_run(trace, clock)
    rates = P.item_rates(P.read_trace(trace)[0])
    assert rates == {("time", "graph", "job-0"): (pytest.approx(7.0), 2)}


def test_a_warm_run_prices_a_start_at_a_forked_workers_until_one_has_ended(clock):
    """A worker forked from a warm parent has MindSpore imported: the traced clip run's 20
    processes spent about 1 s each outside their races, against the 6 s a cold start is
    priced at; whatever the prior, the ended processes' rest replaces it."""
    cold, warm = Progress(out=lambda _: None), Progress(out=lambda _: None, warm=True)
    for p in (cold, warm):
        p.plan("time", "graph", 0, processes=10)
    assert cold.eta() == pytest.approx(10 * PROCESS_START)
    assert warm.eta() == pytest.approx(10 * P.WARM_PROCESS_START)
    assert warm.eta() < cold.eta()
    assert Progress(out=lambda _: None, tier="quick", warm=True).process_start == (
        P.WARM_PROCESS_START
    )
    for p in (cold, warm):
        p.process_ended("w", "time", 2.5)
    assert cold.eta() == warm.eta() == pytest.approx(10 * 2.5)


def test_the_trace_notes_the_units_a_later_stage_was_counted_in(clock, tmp_path):
    """A replay under another later-stage model must know the one the run used."""
    from types import SimpleNamespace as NS

    from bench.run import time_phase
    from bench.run.plan import TIERS

    trace = tmp_path / P.TRACE_NAME
    p = Progress(out=lambda _: None, trace=trace)
    plan = NS(precision=TIERS["quick"], modes=("graph",), strategies=("a",), batch_sizes=(1,),
              workload="clip")  # fmt: skip
    ctx = NS(plan=plan, progress=p, full=True, workload=NS(layout_twins=lambda: []),
             mode=lambda m: NS(distribution=False, race_per_process=False))  # fmt: skip
    time_phase.expect_timing(ctx)
    notes = [e for e in P.read_trace(trace)[0] if e["call"] == "note"]
    assert notes == [{"t": 0.0, "call": "note", "later_fixed": time_phase.LATER_FIXED,
                      "later_share": time_phase.LATER_SHARE, "later_units": "records"}]  # fmt: skip
    assert [r[1] for r in P.replay(P.read_trace(trace)[0])] == []  # a note is not a call


def test_a_trace_names_a_worker_by_its_folder_and_file_only(clock, tmp_path):
    """Committed traces (findings/eta/) named the machine's folders of their runs."""
    trace = tmp_path / P.TRACE_NAME
    p = Progress(out=lambda _: None, trace=trace)
    who = tmp_path / "raw" / "20260101T000000Z-aaaa" / "timing" / "graph-p0.json"
    p.plan("time", "graph", 2)
    p.item_started(who, "time", "graph", 2)
    clock[0] += 3.0
    p.item_recorded(who)
    p.line("x")
    events = P.read_trace(trace)[0]
    named = [e["args"][0] for e in events if e["call"] in ("item_started", "item_recorded")]
    assert named == ["timing/graph-p0.json"] * 2
    assert str(tmp_path) not in trace.read_text()
    (row,) = P.replay(events)
    assert row[1] == pytest.approx(row[2], abs=1e-3)  # the worker is the same one replayed

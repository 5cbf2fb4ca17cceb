"""Races (candidates timed head to head in the same rounds) and the twins' checks, on hand-made
timings (no MindSpore)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.core import analysis
from bench.core.cellstats import EQUIVALENT, SLOWER, Margin
from bench.core.schema import Timing
from bench.run import race

ROUNDS = 20


def member(strategy, size, step, twin, base, process, seed, mode="graph", control=None):
    """A race member: its blocks, its twin's and the base twin's in the same rounds. A round's
    drift (the same factor for every block of that round) is what racing cancels."""
    rng = np.random.default_rng(seed)
    drift = np.random.default_rng(1000 + process + size).normal(1.0, 0.05, ROUNDS)
    noise = rng.normal(1.0, 0.003, (3, ROUNDS))
    return Timing(
        workload="clip",
        strategy=strategy,
        shape="inline",
        mode=mode,
        batch_size=size,
        process=process,
        control=control or f"control/{strategy}",
        role="update",
        k=8,
        step_s=(step * drift * noise[0]).tolist(),
        control_s=(twin * drift * noise[1]).tolist(),
        control_position=["race"] * ROUNDS,
        race=f"{mode}-N{size}-p{process}-s0",
        race_base_s=(base * drift * noise[2]).tolist(),
    )


def test_rounds_alternate_forward_and_backward():
    assert race.order(["a", "b", "c"], 3) == [["a", "b", "c"], ["c", "b", "a"], ["a", "b", "c"]]
    assert race.order(["a", "b"], 2, start=1) == [["b", "a"], ["a", "b"]]


def test_a_race_budget_grows_with_its_blocks():
    # one pair of blocks gets cell_seconds; ten blocks get five times as many seconds
    assert race.budget_rounds(1.0, 2, 0.1, 3, 100) == 10
    assert race.budget_rounds(1.0, 10, 0.5, 3, 100) == 10
    assert race.budget_rounds(1.0, 10, 0.5, 3, 6) == 6


def test_a_race_always_runs_an_even_number_of_rounds():
    # forward then backward: only an even count balances every pair's order (ABBA)
    assert race.budget_rounds(1.0, 2, 0.4, 3, 100) == 4  # 2.5 s / 0.4 -> 3 rounds -> 4
    assert race.budget_rounds(1.0, 2, 10.0, 3, 100) == 4  # the floor of 3 -> 4
    assert race.budget_rounds(1.0, 2, 0.01, 3, 7) == 8  # an odd cap -> one more
    for seconds in (0.3, 0.7, 1.1, 2.9):
        assert race.budget_rounds(seconds, 3, 0.13, 3, 41) % 2 == 0
    # and the rounds alternate, so each pair gets as many forward as backward rounds
    rounds = race.order(["a", "b"], race.budget_rounds(1.0, 2, 0.4, 3, 100))
    assert sum(r == ["a", "b"] for r in rounds) == sum(r == ["b", "a"] for r in rounds)


def test_members_of_different_races_are_not_paired():
    a = member("a", 1, 1e-3, 1e-3, 1e-3, 0, 1)
    b = member("b", 1, 1e-3, 1e-3, 1e-3, 1, 2)
    with pytest.raises(ValueError, match="did not share rounds"):
        a.versus(b)
    assert a.versus(member("b", 1, 2e-3, 1e-3, 1e-3, 0, 3)) == pytest.approx(
        [x / y for x, y in zip(a.step_s, member("b", 1, 2e-3, 1e-3, 1e-3, 0, 3).step_s)]
    )


def _mode(timings, sizes=(1, 64)):
    return analysis.analyse(timings, [], ["graph"], list(sizes), Margin(0.05, 5e-6))["graph"]


def test_the_fastest_is_the_cheapest_whole_step_whatever_the_twins_say():
    """`fast` steps in 1.00 ms over a 0.90 ms twin (adds +0.10 ms); `odd` steps in 1.50 ms over
    a 1.80 ms twin (its twin is slower than it: "adds" −0.30 ms). Added times over separate twins
    would call `odd` fastest; head to head, `fast` is a third cheaper. `same` steps in 1.005 ms:
    within the margin of `fast`."""
    base = 0.8e-3
    timings = [
        member(s, n, step, twin, base, p, seed=100 * i + 10 * p + n)
        for i, (s, step, twin) in enumerate(
            (("fast", 1.0e-3, 0.9e-3), ("odd", 1.5e-3, 1.8e-3), ("same", 1.005e-3, 0.9e-3))
        )
        for n in (1, 64)
        for p in range(2)
    ]
    m = _mode(timings)
    assert m.fastest == "fast"
    assert m.standings["odd"].outcome == SLOWER
    assert m.standings["same"].outcome == EQUIVALENT
    assert m.standings["fast"].reference


def test_a_comparison_is_paired_on_shared_rounds_so_drift_cancels():
    """A 5 % round-to-round drift common to every block of a round: `b` is 3 % slower than `a`
    in every round, and the race sees it (slower beyond the 1 % margin) although the rounds
    scatter more than the difference."""
    timings = [
        member(s, 1, step, 1e-3, 1e-3, p, seed=7 * p + i)
        for i, (s, step) in enumerate((("a", 1.0e-3), ("b", 1.03e-3)))
        for p in range(2)
    ]
    m = analysis.analyse(timings, [], ["graph"], [1], Margin(0.01, 1e-9))["graph"]
    comp = m.standings["b"].comparisons[1]
    assert m.fastest == "a"
    assert comp.outcome == SLOWER
    assert 0.02e-3 < comp.low_s < comp.high_s < 0.04e-3


def _twin_cells(mode, sizes_steps, control="control/weights", subject_ratio=1.2, margin=0.05):
    """Update cells of one strategy against ``control`` with the twin's step per size."""
    out = []
    for p in range(2):
        for n, twin in sizes_steps.items():
            out.append(
                Timing(
                    workload="ema",
                    strategy="assign",
                    shape="inline",
                    mode=mode,
                    batch_size=n,
                    process=p,
                    control=control,
                    role="update",
                    k=4,
                    step_s=[twin * subject_ratio * (1 + 0.001 * i) for i in range(10)],
                    control_s=[twin * (1 - 0.001 * i) for i in range(10)],
                )
            )
    return out


def test_a_twin_that_stays_flat_where_it_grows_elsewhere_is_invalid():
    """The same twin grows by ~10 ms from N=10⁴ to N=10⁷ in GRAPH and PYNATIVE, and by 13 µs
    under bytecode capture: the bytecode twin lost its work (and only that one)."""
    timings = [
        *_twin_cells("graph", {10_000: 100e-6, 10_000_000: 10_100e-6}),
        *_twin_cells("pynative", {10_000: 300e-6, 10_000_000: 9_300e-6}),
        *_twin_cells("jit_bytecode", {10_000: 115e-6, 10_000_000: 128e-6}),
    ]
    modes = ["graph", "pynative", "jit_bytecode"]
    found = analysis.analyse(timings, [], modes, [10_000, 10_000_000], Margin())
    bad = analysis.check_twins(found)
    assert set(bad) == {"jit_bytecode"}
    assert "work was dropped" in bad["jit_bytecode"]["control/weights"]
    cells = found["jit_bytecode"].of_role("update")
    assert all(c.twin_invalid and not c.shows_cost for c in cells)
    assert all(c.shows_cost for c in found["graph"].of_role("update"))


def test_a_twin_flat_in_every_mode_is_valid():
    """A bare forward whose step does not depend on the state: flat everywhere is no defect."""
    timings = [
        *_twin_cells("graph", {128: 300e-6, 8192: 298e-6}, control="control/scalar-forward"),
        *_twin_cells("jit_ast", {128: 310e-6, 8192: 330e-6}, control="control/scalar-forward"),
    ]
    found = analysis.analyse(timings, [], ["graph", "jit_ast"], [128, 8192], Margin())
    assert analysis.check_twins(found) == {}


def test_a_subject_faster_than_its_twin_beyond_the_margin_invalidates_the_twin():
    timings = _twin_cells("graph", {1: 1e-3, 64: 2e-3}, subject_ratio=0.7)
    found = analysis.analyse(timings, [], ["graph"], [1, 64], Margin(0.05, 5e-6))
    why = analysis.check_twins(found)["graph"]["control/weights"]
    assert "`assign` is faster than it at N=1" in why
    # within the margin (×0.97) is not a defect
    timings = _twin_cells("graph", {1: 1e-3, 64: 2e-3}, subject_ratio=0.97)
    found = analysis.analyse(timings, [], ["graph"], [1, 64], Margin(0.05, 5e-6))
    assert analysis.check_twins(found) == {}


def test_later_stages_settle_the_decisions_among_the_answers_candidates():
    """`ascend_only` (not a candidate: not documented for the CPU) is fastest of all; `a` is the
    fastest candidate and `b` is within noise of `a` (undetermined). Against every working
    strategy the open decisions would be against `ascend_only`; among the candidates they are
    `b` against `a`, the decision the answer makes."""
    base = 0.8e-3
    timings = [
        member(s, n, step, 0.9e-3, base, p, seed=100 * i + 10 * p + n)
        for i, (s, step) in enumerate(
            (("ascend_only", 0.70e-3), ("a", 1.000e-3), ("b", 1.002e-3), ("slow", 1.5e-3))
        )
        for n in (1, 64)
        for p in range(2)
    ]
    m = analysis.analyse(timings, [], ["graph"], [1, 64], Margin(0.002, 1e-9), looks=2)["graph"]
    assert m.fastest == "ascend_only"
    everyone = {(c.id.strategy, c.id.size) for c in m.open_cells()}
    mine = {(c.id.strategy, c.id.size) for c in m.open_cells(names={"a", "b", "slow"})}
    assert ("ascend_only", 1) not in mine and ("ascend_only", 64) not in mine
    assert {s for s, _ in mine} == {"a", "b"}  # b undetermined against a; slow is decided
    assert mine != everyone
    assert m.open_cells(names=set()) == []  # no candidate: nothing to settle


def test_the_answers_candidates_are_documented_and_correct_in_every_shape_in_scope():
    from types import SimpleNamespace as V

    from bench.run.prepare_phase import candidates_of

    def v(strategy, status, order="after", mode="graph"):
        return V(strategy=strategy, status=status, mode=mode, dims={"order": order})

    verdicts = [
        v("good", "works"),
        v("good", "incorrect", order="before"),  # out of scope: does not count
        v("wrong_once", "works"),
        v("wrong_once", "incorrect"),
        v("ascend", "works"),
        v("elsewhere", "works", mode="pynative"),
        v("cannot", "inexpressible"),
    ]
    facts = {s: {"platforms": ["CPU"]} for s in ("good", "wrong_once", "elsewhere", "cannot")}
    facts["ascend"] = {"platforms": ["Ascend"]}
    in_scope = lambda shape: shape.values.get("order") == "after"  # noqa: E731
    assert candidates_of(verdicts, facts, in_scope, "graph") == {"good"}
    assert candidates_of(verdicts, facts, in_scope, "pynative") == {"elsewhere"}


def test_a_wrong_cell_does_not_judge_its_twin():
    """A cell faster than its twin invalidates the twin, unless the cell itself is wrong (its
    shape's final verdict is not "works": it may have skipped its work)."""
    timings = _twin_cells("graph", {1: 1e-3, 64: 2e-3}, control="control/t", subject_ratio=0.5)
    found = analysis.analyse(timings, [], ["graph"], [1, 64], Margin())
    assert "control/t" in analysis.check_twins(found).get("graph", {})
    found = analysis.analyse(
        timings, [], ["graph"], [1, 64], Margin(), wrong_shapes={("assign", "inline", "graph")}
    )
    assert analysis.check_twins(found) == {}
    assert all(c.status == "incorrect" for c in found["graph"].of_role("update"))


class FakeStepper:
    """A cell whose step takes the seconds its variant path names (no MindSpore): what
    ``race.run`` reads of a ``pairing.Stepper``."""

    SECONDS: dict[str, float] = {}
    BLOCKS: list[tuple[str, int]] = []

    def __init__(self, workload, klass, mode, inputs, size):
        self.path, self.params, self.steps = klass, {}, 0
        self.first_call_s, self.probe = 0.0, self

    def asnumpy(self):
        return None

    def timed_block(self, k: int) -> float:
        self.steps += k
        FakeStepper.BLOCKS.append((self.path, k))
        return self.SECONDS[self.path] * k

    def warm_up(self, seconds, min_steps=3):
        self.steps += min_steps
        return min_steps


class FakeWork:
    def sync_state(self, source, target):
        pass

    def final_state(self, params, n):
        return {}

    def after_steps(self, steps, n, update=True):
        return {}

    def final_matches(self, final, want):
        return True


def test_a_slow_layout_twin_runs_shorter_blocks_and_every_writer_the_same(monkeypatch):
    """The clip's (1,) Parameter read directly costs ~40× the base twin in PYNATIVE_MODE at
    N=1024: at the race's k its blocks lasted 10 s, half of the mode's timing. A layout twin
    writes nothing, so it may run shorter blocks; members that write keep one k (same state)."""
    from types import SimpleNamespace

    from bench.measured import modes
    from bench.run import plan

    seconds = {"base": 0.004, "aa": 0.004, "slow": 0.16, "a": 0.004, "b": 0.005, "twin": 0.004}
    monkeypatch.setattr(FakeStepper, "SECONDS", seconds)
    monkeypatch.setattr(FakeStepper, "BLOCKS", [])
    monkeypatch.setattr(race.pairing, "Stepper", FakeStepper)
    mode = modes.get("pynative")  # at least 64 steps a block
    job = SimpleNamespace(precision=plan.Precision(), workload="clip", process=0, stage=0)
    context = SimpleNamespace(
        job=job, workload=FakeWork(), mode=mode,
        variant=lambda path, fresh=False: path, k=lambda cell, base: 256,
    )  # fmt: skip
    m = lambda s, role, path, control="control/twin", upd=True: plan.Member(  # noqa: E731
        s, "inline", path, "scalar", role, control, "twin", update=upd
    )
    members = (
        m("a", "update", "a"),
        m("b", "update", "b"),
        m("control", "aa", "aa", "control/base", False),
        plan.Member("control", "vector", "slow", "vector", "layout", "control/base", "base",
                    update=False),
    )  # fmt: skip
    cell = plan.Item(plan.RACE, plan.RACE, "", "", update=False, control="control/base",
                     control_path="base", role=plan.RACE, batch_size=1024, rounds=4,
                     members=members)  # fmt: skip
    timings, wrong = race.run(context, cell, (), 0)
    by = {t.role if t.role != "update" else t.strategy: t for t in timings}
    assert not wrong
    assert by["a"].k == by["b"].k == by["aa"].k == 256  # the writers and the A/A: one k
    assert by["layout"].k < 256 and by["layout"].k * 0.16 >= plan.Precision().block_seconds
    # PYNATIVE's floor of 64 steps would make blocks of 10.2 s; the tier's max_block_seconds
    # (2 s) caps it at 8 steps (1.3 s), still far longer than the queue's drains
    assert by["layout"].k == 8
    timed = [k for path, k in FakeStepper.BLOCKS if path == "slow"]
    assert timed[-4:] == [8] * 4  # every round's block of the layout twin
    assert np.allclose(by["layout"].step_s, 0.16) and np.allclose(by["a"].step_s, 0.004)
    assert np.allclose(by["layout"].control_s, 0.004)  # against the base twin's own blocks


def test_a_later_process_reuses_the_writers_k_not_a_layout_twins():
    from dataclasses import replace

    from bench.run import time_phase
    from bench.run.plan import RACE

    writer = member("a", 1024, 1.0, 1.0, 1.0, 0, 1)
    layout = replace(writer, strategy="control", shape="vector", role="layout", k=2)
    for order in ([writer, layout], [layout, writer]):
        assert time_phase._ks(order)[("graph", RACE, RACE, 1024)] == writer.k == 8


def test_a_head_to_head_estimate_is_kept_per_rival_and_between_process_variance():
    """``Cell.versus`` keeps each estimate (``rank`` asks for a pair several times): asked again
    it is the same, but a τ² or a rival of its own gives its own."""
    timings = [
        member(s, 1, step, 1e-3, 1e-3, p, seed=7 * p + i)
        for i, (s, step) in enumerate((("a", 1.0e-3), ("b", 1.03e-3), ("c", 1.1e-3)))
        for p in range(2)
    ]
    m = _mode(timings, sizes=(1,))
    a, b, c = (m.candidates[s][1] for s in "abc")
    het = m.paired_heterogeneity
    assert a.versus(b, het) is a.versus(b, het)
    wider = a.versus(b, analysis.cellstats.Heterogeneity(0.01, 0.0, 1, 1))
    assert wider.tau2 == 0.01 and wider.halfwidth > a.versus(b, het).halfwidth
    assert a.versus(c, het).log_ratio < a.versus(b, het).log_ratio < 0

"""Which timing processes a stage starts: one per mode and process, or one per race where a
later instance of a class can run the first one's graph (bytecode capture). No MindSpore."""

from __future__ import annotations

import json
from types import SimpleNamespace

from bench.core.rundir import RunDir
from bench.measured import modes
from bench.run import time_phase
from bench.run.plan import RACE, Item, Plan


def _ctx(tmp_path):
    plan = Plan("clip", ("assign",), ("graph", "jit_bytecode"), (1, 64, 1024), "strategies")
    run = RunDir(tmp_path / "run")
    run.timing.mkdir(parents=True)
    return SimpleNamespace(plan=plan, run=run, mode=modes.get, deadline=0.0)


def _races(sizes):
    return [Item(RACE, RACE, "", "", update=False, role=RACE, batch_size=n) for n in sizes]


def test_bytecode_runs_each_race_in_a_process_of_its_own(tmp_path):
    ctx = _ctx(tmp_path)
    graph = time_phase._jobs(ctx, "graph", 0, 0, _races((1, 64, 1024)))
    assert len(graph) == 1 and len(graph[0].items) == 3
    byte = time_phase._jobs(ctx, "jit_bytecode", 0, 0, _races((1, 64, 1024)))
    assert sorted(len(j.items) for j in byte) == [1, 1, 1]
    assert sorted(j.items[0].batch_size for j in byte) == [1, 64, 1024]
    names = {j.out.rsplit("/", 1)[-1] for j in byte}
    assert names == {f"jit_bytecode-p0-N{n}.json" for n in (1, 64, 1024)}  # none overwrites


def test_a_race_already_timed_in_a_part_is_not_timed_again(tmp_path):
    ctx = _ctx(tmp_path)
    done = _races((64,))[0].test_id("jit_bytecode")
    (ctx.run.timing / "jit_bytecode-p0-N64.json").write_text(
        json.dumps({"benchmarks": [], "suite": {"cells": [{"test": done, "status": "works"}]}})
    )
    assert ctx.run.timing_of("jit_bytecode", 0)  # the part file belongs to process 0
    left = time_phase._jobs(ctx, "jit_bytecode", 0, 0, _races((1, 64, 1024)))
    assert sorted(j.items[0].batch_size for j in left) == [1, 1024]


def test_an_aa_member_is_the_same_code_in_a_class_of_its_own(tmp_path):
    """Under bytecode capture a later instance of a class can run the first one's graph, so the
    A/A member (a copy of the base twin) gets its own class object from the same file."""
    from bench.measured.shapes.codegen import load_variant

    path = tmp_path / "v.py"
    path.write_text("class Variant:\n    def construct(self, x):\n        return x\n")
    first, again, fresh = load_variant(path), load_variant(path), load_variant(path, fresh=True)
    assert fresh is not first and fresh is not again
    assert fresh.construct.__code__ is not first.construct.__code__
    assert fresh.construct.__code__.co_code == first.construct.__code__.co_code
    assert load_variant(path, fresh=True) is not fresh  # each fresh load its own

"""Ranking strategies in one mode (simulated timings, no MindSpore)."""

from __future__ import annotations

import numpy as np

from bench.core import analysis
from bench.core.cellstats import EQUIVALENT, FASTER, Margin, decide
from bench.core.schema import Timing


def timing(strategy, size, step, twin, process, seed):
    rng = np.random.default_rng(seed)
    noise = rng.normal(1.0, 0.005, (2, 30))
    return Timing(
        workload="ema",
        strategy=strategy,
        shape="as-written" if strategy == "host" else "inline",
        mode="graph",
        batch_size=size,
        process=process,
        control=f"control/{strategy}",
        role="update",
        k=10,
        step_s=(step * noise[0]).tolist(),
        control_s=(twin * noise[1]).tolist(),
        control_position=[i % 2 for i in range(30)],
    )


def test_the_fastest_is_ranked_by_time_added_not_by_ratios_to_different_twins():
    """A host update adds 0.2 ms to a 0.01 ms bare forward (ratio 21); an in-graph write adds
    10 ms to a 1 ms step (ratio 11). The host update adds less and is the fastest."""
    timings = [
        timing(s, n, step, twin, p, seed=hash((s, n, p)) % 2**32)
        for s, step, twin in (("host", 0.21e-3, 0.01e-3), ("set_data", 11e-3, 1e-3))
        for n in (10, 100)
        for p in range(2)
    ]
    m = analysis.analyse(timings, [], ["graph"], [10, 100], Margin(0.05, 5e-6))["graph"]
    assert m.fastest == "host"
    st = m.rank(["host", "set_data"])
    assert st["host"].reference and st["host"].outcome == EQUIVALENT
    assert st["set_data"].outcome == "slower"


def test_faster_somewhere_and_equivalent_elsewhere_is_faster():
    assert decide([FASTER, EQUIVALENT]) == FASTER
    assert decide([FASTER, "slower"]) == "slower"
    assert decide([FASTER, "undetermined"]) == "undetermined"


def test_a_cell_reuses_its_own_k_not_the_same_cell_of_another_mode():
    from dataclasses import replace

    from bench.run import time_phase
    from bench.run.plan import Item

    graph = replace(timing("host", 10, 2e-4, 1e-5, 0, 0), k=4)
    pynative = replace(graph, mode="pynative", k=64)
    ks = time_phase._ks([graph, pynative])
    item = Item("host", "as-written", "v.py", "scalar", batch_size=10)
    assert ks[time_phase._key("graph", item)] == 4
    assert ks[time_phase._key("pynative", item)] == 64

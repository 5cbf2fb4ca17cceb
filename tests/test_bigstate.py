"""KV cache and EMA: references, the memory-bandwidth floor, verdicts of the row writes."""

from __future__ import annotations

import numpy as np
import pytest

from bench.measured.workloads.ema import spec as ema
from bench.measured.workloads.kvcache import spec as kv
from bench.report.costs import slope
from bench.run import bandwidth


def test_kv_reference_writes_a_row_and_reads_two():
    cache = np.zeros((kv.B, kv.H, 4, kv.D), np.float32)
    rows = [kv.make_row(i) for i in range(5)]
    for i, row in enumerate(rows):
        out = kv.write_and_read(cache, row, int(kv.position(4, i)[0]))
    # step 4 wrapped to t = 0: it overwrote row 0 and reads rows 0 (new) and 3
    np.testing.assert_array_equal(cache[:, :, 0:1], rows[4])
    np.testing.assert_allclose(out, rows[4] + rows[3])


def test_ema_shapes_scale_to_the_asked_size_and_the_mean_has_a_closed_form():
    for total in (10_000, 100_000, 1_000_000, 10_000_000):
        assert abs(ema.elements(ema.shapes_for(total)) - total) / total < 0.15
    weights, emas = ema.initial(ema.shapes_for(2000))
    for _ in range(5):
        emas = ema.step(emas, weights)
    mean = float(np.mean(np.concatenate([w.ravel() for w in weights])))
    got = float(np.mean(np.concatenate([e.ravel() for e in emas])))
    assert got == pytest.approx(ema.ema_after(5, mean), rel=1e-4)


def test_the_floor_uses_the_bandwidth_of_the_nearest_size_above():
    bw = {"points": [{"array_bytes": 2**20, "copy_GBs": 40.0, "triad_GBs": 30.0},
                     {"array_bytes": 2**26, "copy_GBs": 10.0, "triad_GBs": 12.0}]}  # fmt: skip
    assert bandwidth.floor_seconds(bw, 1024) == pytest.approx(1024 / 40e9)
    assert bandwidth.floor_seconds(bw, 2**24, "triad") == pytest.approx(2**24 / 12e9)
    assert bandwidth.floor_seconds(bw, 2**30) == pytest.approx(2**30 / 10e9)  # beyond: largest
    assert slope([1, 10, 100], [2, 20, 200]) == pytest.approx(1.0)


def test_measured_bandwidth_is_positive():
    result = bandwidth.measure([2**20])
    assert result["points"][0]["copy_GBs"] > 0 and result["llc_bytes"] > 0


@pytest.mark.mindspore
def test_row_writes_and_full_rewrites_are_gated(gate_runs):
    kv_verdicts = {(v.strategy, v.shape, v.mode): v for v in gate_runs[0]["kvcache"][1]}
    for mode in ("graph", "pynative"):
        assert kv_verdicts[("index_add", "row-inline", mode)].status == "works"
        assert kv_verdicts[("assign", "full-inline", mode)].status == "works"
    assert kv_verdicts[("assign", "row-inline", "graph")].status == "inexpressible"  # no write_row
    ema_verdicts = {(v.strategy, v.shape, v.mode): v for v in gate_runs[0]["ema"][1]}
    assert ema_verdicts[("assign", "inline", "graph")].status == "works"
    assert ema_verdicts[("host_ema", "as-written", "graph")].status == "works"

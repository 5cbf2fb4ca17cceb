"""NumPy-only parts of the workloads (moved out of the MindSpore tier, which they never needed):
BRN's bound schedule and the bandwidth floor."""

from __future__ import annotations

import pytest

from bench.core import bandwidth as floor
from bench.measured.workloads.brn import spec as brn_spec


def test_schedule_ramps_then_holds():
    assert brn_spec.schedule(0) == (1.0, 0.0)
    assert brn_spec.schedule(brn_spec.RAMP_STEPS // 2) == pytest.approx((2.0, 2.5))
    assert brn_spec.schedule(1) == pytest.approx((1.25, 0.625))  # an eighth of the ramp
    assert brn_spec.schedule(10 * brn_spec.RAMP_STEPS) == (3.0, 5.0)


def test_the_floor_uses_the_bandwidth_of_the_nearest_size_above():
    bw = {
        "points": [
            {"array_bytes": 2**20, "copy_GBs": 20.0, "triad_GBs": 30.0},
            {"array_bytes": 2**26, "copy_GBs": 10.0, "triad_GBs": 12.0},
        ]
    }
    assert floor.floor_seconds(bw, 2**19) == pytest.approx(2**19 / 20e9)
    assert floor.floor_seconds(bw, 2**22, "triad") == pytest.approx(2**22 / 12e9)
    assert floor.floor_seconds(bw, 2**30) == pytest.approx(2**30 / 10e9)  # beyond: largest

"""findings/interval_parts.py and Estimate.variance_parts: what an interval's width is made of,
on hand-made processes and on the fixture run."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from bench.core import cellstats
from bench.core.paths import ROOT
from tests.conftest import RUN

spec = importlib.util.spec_from_file_location(
    "interval_parts", ROOT / "findings" / "interval_parts.py"
)
interval_parts = importlib.util.module_from_spec(spec)
spec.loader.exec_module(interval_parts)


def _groups(seed, processes=2, rounds=10, shift=(0.0, 0.0)):
    rng = np.random.default_rng(seed)
    return [list(np.exp(rng.normal(shift[i], 0.01, rounds))) for i in range(processes)]


def test_the_parts_add_up_to_the_variance_and_tau2_is_the_between_part():
    groups = _groups(1)
    alone = cellstats.estimate(groups, 1e-3)
    within, between = alone.variance_parts
    assert between == 0 and math.isclose(within, alone.log_se**2)
    tau2 = 4 * within
    e = cellstats.estimate(groups, 1e-3, tau2=tau2, tau2_df=10)
    w, b = e.variance_parts
    assert math.isclose(w + b, e.log_se**2)
    # two processes of the same rounds weigh 1/2 each: between = τ² / 2, within unchanged
    assert math.isclose(b, tau2 / 2) and math.isclose(w, within)
    got = interval_parts.split([alone, e])
    assert got["pairs"] == 2 and math.isclose(got["between"], (0 + b / (w + b)) / 2)
    assert math.isclose(got["se"], np.median([alone.log_se, e.log_se]))


def test_an_estimate_without_a_usable_process_is_left_out():
    empty = cellstats.estimate([[1.0]], 1e-3)  # one round: no spread, no interval
    assert interval_parts.split([empty]) == {"pairs": 0}


@pytest.mark.parametrize(("width", "times"), [(1.4, 4.0), (0.7, 1.0), (0.35, 0.25)])
def test_the_data_needed_grows_with_the_square_of_the_width(width, times):
    assert math.isclose(interval_parts.data_for(width), times)
    assert math.isnan(interval_parts.data_for(math.nan))


def test_a_reference_run_has_a_row_per_mode_it_raced():
    from bench.core import pins
    from bench.decide import load

    run = load.load(pins.reference("brn"))  # the pinned one, whatever runs a user made since
    rows = interval_parts.mode_rows(
        run, interval_parts.widths(run), interval_parts.rounds_minutes(run)
    )
    assert [r[0] for r in rows] and len(rows) == len(run.analysis)
    for row in rows:
        assert len(row) == len(interval_parts.HEAD) and int(row[1]) > 0
        assert 0 <= float(row[3].split()[0]) <= 1  # a share of the variance
    fixture = load.load(RUN)
    parts = interval_parts.widths(fixture), interval_parts.rounds_minutes(fixture)
    assert interval_parts.mode_rows(fixture, *parts) == []  # the fixture run raced nothing


@pytest.mark.parametrize(
    ("minutes", "factor", "then"),
    [(2.0, 4.0, 8.0), (2.0, 1.0, 2.0), (2.0, 0.25, 2.0), (2.0, math.nan, 2.0), (0.0, 9.0, 0.0)],
)
def test_rounds_grow_with_the_data_and_never_shrink(minutes, factor, then):
    assert math.isclose(interval_parts.with_data(minutes, factor), then)


def test_a_reference_runs_rounds_and_their_cost_at_the_target_width():
    from bench.core import pins
    from bench.decide import load
    from bench.measured.modes import MODES, label

    run = load.load(pins.reference("brn"))  # the pinned one, whatever runs a user made since
    minutes = interval_parts.rounds_minutes(run)
    spent = interval_parts.wall_times.spent(run.run_dir)
    assert minutes and all(math.isclose(minutes[m], spent[m]["rounds"] / 60) for m in minutes)
    assert all(v > 0 for v in minutes.values())
    width = interval_parts.widths(run)
    line = interval_parts.compiled_cost(run, width, minutes)
    compiled = [m for m in run.analysis if MODES[m].compiled]
    assert compiled and all(f"{label(m)} +" in line for m in compiled)
    assert not any(f"{label(m)} +" in line for m in run.analysis if not MODES[m].compiled)
    for row in interval_parts.mode_rows(run, width, minutes):
        now, later = (float(x) for x in row[-1].removesuffix(" min").split(" → "))
        assert later >= now > 0

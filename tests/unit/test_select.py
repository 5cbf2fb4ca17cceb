"""bench.run.select.choose: which shape a strategy is timed in, from hand-made screens.

A read other than the simplest is timed only where the screen shows it cheaper (its median more
than TIE lower and its rounds lower: one-sided exact Mann–Whitney); a lower median alone is a
round's noise (issue 27: 12 of brn's 46 choices moved between three runs)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest

from bench.core import pins
from bench.core.paths import ROOT
from bench.run import select

# a strategy's working shapes: (shape, its way of reading the state, its simplicity rank)
SHAPES = [
    SimpleNamespace(shape="inline-param", read="param", rank=0),
    SimpleNamespace(shape="depend-param", read="param", rank=1),
    SimpleNamespace(shape="inline-view", read="view", rank=2),
    SimpleNamespace(shape="inline-alias", read="alias", rank=3),
]


def choose(screen, shapes=SHAPES):
    return select.choose(shapes, screen, lambda v: v.rank, lambda v: v.read)


@pytest.mark.parametrize(
    ("screen", "chosen", "why"),
    [
        # brn's reference, PYNATIVE set_data: the view's median 7 % lower, rounds interleaved
        (
            {
                "inline-param": [1.167, 1.216, 1.161, 0.983],
                "inline-view": [1.3, 1.002, 0.981, 1.084],
            },
            "inline-param",
            "no read cheaper",
        ),
        # ema's reference, PYNATIVE index_add: a median 30 % lower, one round far above the rest
        (
            {"inline-param": [19.0, 11.2, 22.5, 15.8], "inline-view": [10.6, 24.1, 11.0, 9.4]},
            "inline-param",
            "no read cheaper",
        ),
        # the clip's (1,) Parameter read directly: ~40× a view, every round
        (
            {"inline-param": [41.0, 39.5, 40.2, 43.0], "inline-view": [1.02, 0.99, 1.05, 1.01]},
            "inline-view",
            "every simpler read is shown costlier",
        ),
        # beyond TIE, and one of the 16 pairs of rounds the other way round: p = 2/70, cheaper
        (
            {"inline-param": [1.30, 1.32, 1.34, 1.19], "inline-view": [1.00, 1.02, 1.04, 1.20]},
            "inline-view",
            "shown costlier",
        ),
        # two pairs the other way round: p = 4/70 > 0.05, not shown
        (
            {"inline-param": [1.30, 1.32, 1.18, 1.19], "inline-view": [1.00, 1.02, 1.20, 1.21]},
            "inline-param",
            "no read cheaper",
        ),
        # every round lower, but by less than TIE: not cheaper
        (
            {"inline-param": [1.06, 1.07, 1.08, 1.09], "inline-view": [1.00, 1.01, 1.02, 1.03]},
            "inline-param",
            "no read cheaper",
        ),
        # the simplest read costlier than the view, which is no cheaper than the alias: the view
        (
            {
                "inline-param": [2.0, 2.1, 2.2, 2.05],
                "inline-view": [1.0, 1.1, 0.95, 1.05],
                "inline-alias": [0.97, 1.12, 1.0, 1.03],
            },
            "inline-view",
            "every simpler read is shown costlier",
        ),
        # the simplest read not screened (it failed): the others decide among themselves
        (
            {"inline-view": [1.0, 1.1, 0.95, 1.05], "inline-alias": [0.5, 0.52, 0.49, 0.51]},
            "inline-alias",
            "every simpler read is shown costlier",
        ),
        ({}, "inline-param", "not screened"),
    ],
)
def test_a_read_other_than_the_simplest_must_be_shown_cheaper(screen, chosen, why):
    got, text = choose(screen)
    assert got == chosen
    assert why in text


def test_one_way_of_reading_is_the_simplest_shape_unscreened():
    got, text = choose({}, SHAPES[:2])
    assert (got, "all read the state one way (param)" in text) == ("inline-param", True)


def test_cheaper_needs_both_a_lower_median_and_lower_rounds():
    assert select.cheaper([1.0, 1.01, 1.02, 1.03], [1.5, 1.6, 1.7, 1.8])
    assert not select.cheaper([1.5, 1.6, 1.7, 1.8], [1.0, 1.01, 1.02, 1.03])
    assert not select.cheaper([1.0], [2.0])  # one round each: p = 1/2
    assert not select.cheaper([], [2.0, 2.1])


def test_under_noise_alone_the_simplest_is_kept_and_a_real_difference_is_found():
    """Simulated screens of 4 rounds with the scatter seen here (lognormal, σ = 10 %): two reads
    of the same cost keep the simplest in >= 94 % of screens (at most ALPHA lost to a false
    "cheaper"); a read 40 % cheaper is found in >= 90 % of them."""
    rng = np.random.default_rng(7)
    n, same, found = 2000, 0, 0
    for _ in range(n):
        a, b = rng.lognormal(0, 0.10, 4), rng.lognormal(0, 0.10, 4)
        same += choose({"inline-param": list(a), "inline-view": list(b)})[0] == "inline-param"
        c = rng.lognormal(np.log(0.6), 0.10, 4)
        found += choose({"inline-param": list(a), "inline-view": list(c)})[0] == "inline-view"
    assert same / n >= 0.94
    assert found / n >= 0.90


REFERENCES = {  # {workload: the selection of each pinned reference run (archives read)}
    w: run / "prepare" / "selection.json"
    for w, run in pins.references().items()
    if (run / "prepare" / "selection.json").is_file()
}


@pytest.mark.parametrize("selection", REFERENCES.values(), ids=list(REFERENCES))
def test_each_committed_reference_timed_the_shapes_this_rule_chooses_from_its_screen(selection):
    """A reference is of this harness only if this rule, given its own recorded screen, picks
    every shape it timed (``findings/screen_choices.py``): a new rule means new references."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "screen_choices", ROOT / "findings" / "screen_choices.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    count, differ = module.differences(selection.parent.parent)
    assert count == len(json.loads(selection.read_text())["chosen"]) > 0
    assert differ == []

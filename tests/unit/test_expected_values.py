"""What the oracle expects, per workload and per meaning, against numbers computed by hand.

Each workload's ``expect`` is fed a tiny input written here (monkeypatched ``make_inputs``), so
every expected output and state below is arithmetic a reader can check on paper; none of them is
produced by the code under test. The clip's meaning table (read x order x write semantics) is
written out in full (no MindSpore)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.measured import workloads
from bench.measured.oracle import AFTER, BEFORE
from bench.measured.shapes import Shape
from bench.measured.shapes.codegen import IN_PLACE, REPLACE

F32 = np.float32


def close(got, want, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got, np.float64).reshape(-1), np.ravel(want), 0, atol)


# -- clip ---------------------------------------------------------------------------------------
# N = 10000: each step grows the limit by 1e-4 * 10000 = 1.0, so 1 -> 2 -> 3 -> 3 (the cap).
CLIP_N = 10_000
CLIP_X = np.array([-2.5, -1.5, 0.5, 2.5], F32)
# limit before the step, limit after, output when the read sees the old limit, the new one
CLIP_STEPS = [
    (1.0, 2.0, [-1.0, -1.0, 0.5, 1.0], [-2.0, -1.5, 0.5, 2.0]),
    (2.0, 3.0, [-2.0, -1.5, 0.5, 2.0], [-2.5, -1.5, 0.5, 2.5]),
    (3.0, 3.0, [-2.5, -1.5, 0.5, 2.5], [-2.5, -1.5, 0.5, 2.5]),
]
# (read, order, write semantics) -> what the clip reads under eager semantics
CLIP_MEANINGS = [
    ("param", "after", IN_PLACE, BEFORE),
    ("param", "after", REPLACE, BEFORE),
    ("alias", "after", IN_PLACE, BEFORE),
    ("alias", "after", REPLACE, BEFORE),
    ("view", "after", IN_PLACE, BEFORE),
    ("view", "after", REPLACE, BEFORE),
    ("alias", "before", IN_PLACE, AFTER),  # the same Parameter object: sees any write
    ("alias", "before", REPLACE, AFTER),
    ("view", "before", IN_PLACE, AFTER),  # a view shares the storage an in-place write changes
    ("view", "before", REPLACE, BEFORE),  # a replacement gives the Parameter new storage
    ("copy", "before", IN_PLACE, BEFORE),  # a snapshot never sees the write
    ("copy", "before", REPLACE, BEFORE),
]


@pytest.fixture
def clip(monkeypatch):
    work = workloads.get("clip")
    monkeypatch.setattr(work, "make_inputs", lambda size, seed, small=False: (CLIP_X,))
    return work


@pytest.mark.parametrize("read, order, semantics, meaning", CLIP_MEANINGS)
def test_the_clip_expects_per_meaning_the_values_computed_by_hand(
    clip, read, order, semantics, meaning
):
    shape = Shape((("write", "inline"), ("read", read), ("order", order), ("new", "expr")))
    assert clip.meaning(shape, semantics) == meaning
    state = {"limit": np.array([1.0], F32)}
    for old, new, out_old, out_new in CLIP_STEPS:
        close(state["limit"], [old])
        e = clip.expect(CLIP_N, 0, state, meaning)
        close(e.output, out_new if meaning == AFTER else out_old)
        close(
            e.other[BEFORE if meaning == AFTER else AFTER], out_old if meaning == AFTER else out_new
        )
        close(e.after["limit"], [new])
        state = e.after


def test_the_clip_twin_keeps_its_limit_and_the_closed_form_stops_at_the_cap(clip):
    e = clip.expect(CLIP_N, 0, {"limit": np.array([1.0], F32)}, BEFORE, update=False)
    close(e.after["limit"], [1.0])
    close(e.output, [-1.0, -1.0, 0.5, 1.0])
    close(clip.after_steps(1, CLIP_N)["limit"], [2.0])
    close(clip.after_steps(5, CLIP_N)["limit"], [3.0])
    close(clip.after_steps(5, CLIP_N, update=False)["limit"], [1.0])
    close(clip.after_steps(1, 64)["limit"], [1.0064])


# -- Batch Renormalization -----------------------------------------------------------------
# N = 2, one pixel, 3 channels: channel values (1, 3), (-1, 1), (4, 8): batch means 2, 0, 6 and
# (biased) variances 1, 1, 4. From the initial state (mean 0, var 1, r_max 1, d_max 0, step 0)
# r is clipped to 1 and d to 0, so y = (x - mean) / sqrt(var + 1e-5) = -1, +1 per channel.
BRN_X = np.array([[1.0, -1.0, 4.0], [3.0, 1.0, 8.0]], F32).reshape(2, 3, 1, 1)
BRN_STATE_1 = {  # after step 1: mean += 0.1 (mu - mean), var += 0.1 (var_B - var), ramp 1/8
    "moving_mean": [0.2, 0.0, 0.6],
    "moving_var": [1.0, 1.0, 1.3],
    "r_max": [1.25],
    "d_max": [0.625],
    "step": [1.0],
}
BRN_STATE_2 = {
    "moving_mean": [0.38, 0.0, 1.14],
    "moving_var": [1.0, 1.0, 1.57],
    "r_max": [1.5],
    "d_max": [1.25],
    "step": [2.0],
}
BRN_OUT_0 = [[-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]]
# With state 1: r = clip(sigma_B / sigma, 1/1.25, 1.25) = 1, 1, 1.25 (2 / 1.14 = 1.75, clipped);
# d = clip((mu - mean) / sigma, +-0.625) = 0.625, 0, 0.625 (1.8, 0, 4.7). y = xhat * r + d.
BRN_OUT_1 = [[-0.375, -1.0, -0.625], [1.625, 1.0, 1.875]]


@pytest.fixture
def brn(monkeypatch):
    work = workloads.get("brn")
    monkeypatch.setattr(work, "make_inputs", lambda size, seed, small=False: (BRN_X,))
    return work


def test_brn_means_the_statistics_from_before_the_step(brn):
    shapes = brn.shapes("scalar")
    assert shapes and {brn.meaning(s, REPLACE) for s in shapes} == {BEFORE}
    assert {brn.meaning(s, IN_PLACE) for s in shapes} == {BEFORE}


@pytest.mark.parametrize("meaning", [BEFORE, AFTER])
def test_brn_expects_two_steps_computed_by_hand(brn, meaning):
    state = brn.initial_state(2)
    e = brn.expect(2, 0, state, meaning)
    close(e.output, BRN_OUT_0 if meaning == BEFORE else BRN_OUT_1, 1e-4)
    close(
        e.other[AFTER if meaning == BEFORE else BEFORE],
        BRN_OUT_1 if meaning == BEFORE else BRN_OUT_0,
        1e-4,
    )
    for name, want in BRN_STATE_1.items():
        close(e.after[name], want, 1e-5)
    e2 = brn.expect(2, 1, e.after, meaning)
    if meaning == BEFORE:  # the same input read with state 1
        close(e2.output, BRN_OUT_1, 1e-4)
    for name, want in BRN_STATE_2.items():
        close(e2.after[name], want, 1e-5)


def test_brn_twin_keeps_the_state_and_the_closed_form_follows_the_ramp(brn):
    state = brn.initial_state(2)
    e = brn.expect(2, 0, state, BEFORE, update=False)
    for name, want in {"moving_mean": [0, 0, 0], "moving_var": [1, 1, 1], "step": [0]}.items():
        close(e.after[name], want)
    close(e.output, BRN_OUT_0, 1e-4)
    two = brn.after_steps(2, 2)
    close(two["step"], [2.0]), close(two["r_max"], [1.5]), close(two["d_max"], [1.25])
    nine = brn.after_steps(9, 2)
    close(nine["r_max"], [3.0]), close(nine["d_max"], [5.0])


# -- KV cache ------------------------------------------------------------------------------
# T = 3; step s writes a row of the value s + 1 at t = s mod 3 and reads rows t and t - 1 (mod 3).
# cache after each step (per position), then output if the read sees the cache before / after
KV_T = 3
KV_STEPS = [
    ([1, 0, 0], 0 + 0, 1 + 0),  # t = 0: rows 0 and 2
    ([1, 2, 0], 0 + 1, 2 + 1),  # t = 1: rows 1 and 0
    ([1, 2, 3], 0 + 2, 3 + 2),  # t = 2: rows 2 and 1
    ([4, 2, 3], 1 + 3, 4 + 3),  # t = 0 again: overwritten, rows 0 and 2
]


@pytest.fixture
def kv(monkeypatch):
    from bench.measured.workloads.kvcache.spec import B, D, H

    work = workloads.get("kvcache")
    real = work.make_inputs

    def rows(size, seed, small=False):
        _, t = real(size, seed, small)
        return np.full((B, H, 1, D), seed + 1, F32), t

    monkeypatch.setattr(work, "make_inputs", rows)
    return work


def test_the_kv_cache_means_the_row_it_just_wrote(kv):
    assert kv.intent == AFTER
    assert {kv.meaning(s, m) for s in kv.shapes("scalar") for m in (IN_PLACE, REPLACE)} == {AFTER}


@pytest.mark.parametrize("meaning", [BEFORE, AFTER])
def test_the_kv_cache_expects_writes_that_advance_and_wrap(kv, meaning):
    from bench.measured.workloads.kvcache.spec import B, D, H

    state = kv.initial_state(KV_T)
    for seed, (cache, out_before, out_after) in enumerate(KV_STEPS):
        e = kv.expect(KV_T, seed, state, meaning)
        assert int(e.inputs[1][0]) == seed % KV_T
        got = np.asarray(e.after["cache"]).reshape(B, H, KV_T, D)
        assert (got == np.asarray(cache, F32).reshape(1, 1, KV_T, 1)).all()
        want = out_after if meaning == AFTER else out_before
        other = out_before if meaning == AFTER else out_after
        assert np.asarray(e.output).shape == (B, H, 1, D)
        assert (np.asarray(e.output) == want).all()
        assert (np.asarray(e.other[AFTER if meaning == BEFORE else BEFORE]) == other).all()
        state = e.after
    twin = kv.expect(KV_T, 0, kv.initial_state(KV_T), AFTER, update=False)
    assert not np.asarray(twin.after["cache"]).any() and not np.asarray(twin.output).any()


# -- EMA of weights ------------------------------------------------------------------------
# Two weights, (2, -4) and (10,), as the cell has them (the training loop's weights are read);
# ema = 0.9 ema + 0.1 w from zero.
EMA_W = [np.array([2.0, -4.0], F32), np.array([10.0], F32)]
EMA_STEPS = [([0.2, -0.4], [1.0]), ([0.38, -0.76], [1.9]), ([0.542, -1.084], [2.71])]


@pytest.fixture
def ema(monkeypatch):
    from bench.measured.workloads.ema import runtime

    work = workloads.get("ema")
    monkeypatch.setattr(runtime, "shapes_for", lambda size: [(2,), (1,)])
    monkeypatch.setattr(
        runtime,
        "initial",
        lambda shapes: ([w.copy() for w in EMA_W], [np.zeros(2, F32), np.zeros(1, F32)]),
    )
    monkeypatch.setattr(runtime, "WEIGHT_NAMES", ("w0", "w1"))
    return work


@pytest.mark.parametrize("meaning", [BEFORE, AFTER])
def test_the_ema_expects_three_steps_computed_by_hand(ema, meaning):
    weights = {"w0": EMA_W[0], "w1": EMA_W[1]}
    state = {"ema0": np.zeros(2, F32), "ema1": np.zeros(1, F32), **weights}
    for e0, e1 in EMA_STEPS:
        e = ema.expect(3, 0, state, meaning)
        close(e.after["ema0"], e0), close(e.after["ema1"], e1)
        close(e.output, [0.0])
        assert e.other == {}  # the output does not read the EMAs: one meaning only
        assert e.outdated == {}  # no weight replaced before step 1
        state = {**e.after, **weights}
    twin = ema.expect(3, 0, state, meaning, update=False)
    close(twin.after["ema0"], EMA_STEPS[-1][0]), close(twin.after["ema1"], EMA_STEPS[-1][1])
    # the closed form: mean of every EMA after 2 steps = (1 - 0.81) * mean(2, -4, 10)
    close(ema.after_steps(2, 3)["ema_mean"], [0.19 * 8 / 3])
    close(ema.after_steps(2, 3, update=False)["ema_mean"], [0.0])


def test_the_ema_follows_the_weights_the_cell_has_not_those_it_was_built_with(ema):
    state = {"ema0": np.zeros(2, F32), "ema1": np.zeros(1, F32)}
    moved = {"w0": np.array([-1.0, 1.0], F32), "w1": np.array([0.0], F32)}
    e = ema.expect(3, 0, {**state, **moved}, BEFORE)
    close(e.after["ema0"], [-0.1, 0.1]), close(e.after["ema1"], [0.0])


def test_after_a_reload_the_outdated_ema_is_that_of_the_weights_from_before_it():
    from bench.measured.workloads.ema import spec

    work = workloads.get("ema")
    size = work.gate_schedule[0][0]
    shapes = spec.shapes_for(size)
    state = work.initial_state(size)
    reload = work.expect(size, spec.RELOAD_STEP - 1, state, BEFORE)  # seed = step - 1
    assert "load_param_into_net" in reload.event
    old = spec.weights_at(shapes, spec.RELOAD_STEP - 1)
    for i, w in enumerate(old):
        close(reload.outdated[f"ema{i}"], (F32(0.1) * w).reshape(-1))
        new = spec.weights_at(shapes, spec.RELOAD_STEP)[i]
        close(reload.after[f"ema{i}"], (F32(0.1) * new).reshape(-1))
        assert not np.allclose(w, new)  # the checkpoint is other weights
    assert work.expect(size, 0, state, BEFORE).outdated == {}  # before any reload: none


def test_the_numpy_training_step_is_sgd_on_the_mean_squared_error():
    from bench.measured.workloads.ema import spec

    weights = spec.initial(spec.shapes_for(3 * 21 + 4))[0]
    x, y = spec.batch()

    def loss(ws):
        w1, b1, w2, b2 = (np.asarray(w, np.float64) for w in ws)
        return float(np.mean((np.maximum(x @ w1.T + b1, 0) @ w2.T + b2 - y) ** 2))

    stepped = spec.sgd_step(weights)
    for k, w in enumerate(weights):  # (w - stepped) / LR is the gradient: finite differences
        flat = w.reshape(-1)
        for j in range(min(3, flat.size)):
            bumped = [v.astype(np.float64).copy() for v in weights]
            bumped[k].reshape(-1)[j] += 1e-4
            numeric = (loss(bumped) - loss(weights)) / 1e-4
            analytic = (flat[j] - stepped[k].reshape(-1)[j]) / spec.LR
            assert abs(numeric - analytic) < 1e-2 * max(1.0, abs(numeric))
    assert loss(stepped) < loss(weights)


def test_brn_reads_gamma_and_beta_as_the_optimizer_left_them(brn):
    """The gate trains gamma and beta (nn.SGD after each step's gradient): a step's reference
    takes them from the state read before it; y = gamma * xhat + beta per channel."""
    state = brn.initial_state(2)
    plain = brn.expect(2, 0, state, BEFORE)
    trained = {**state, "gamma": np.array([2.0, 1.0, 0.5], F32), "beta": np.array([1, 0, -1], F32)}
    e = brn.expect(2, 0, trained, BEFORE)
    want = np.asarray(plain.output) * np.array([2.0, 1.0, 0.5]).reshape(1, 3, 1, 1)
    close(e.output, want + np.array([1.0, 0.0, -1.0]).reshape(1, 3, 1, 1), 1e-4)
    for name, v in plain.after.items():  # the state's update does not depend on them
        close(e.after[name], v)
    assert not np.allclose(e.grads["x"], plain.grads["x"])  # d L / d x scales with gamma
    assert "gamma" in brn.read_names and "gamma" not in brn.state_names

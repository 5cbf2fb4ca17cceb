"""BRN's hand-derived gradient (``spec.grads``) against central finite differences in float64,
with r and d held constant as the paper defines them (NumPy only, no MindSpore)."""

from __future__ import annotations

import numpy as np
import pytest

from bench.measured.workloads.brn import spec

AXES = spec.AXES


def _loss(x, gamma, beta, g, state, constants=None):
    """L = sum(y * g) in float64; ``constants`` (r, d) held fixed, else computed from x."""
    mean, var = x.mean(axis=AXES), x.var(axis=AXES)
    sigma_b = np.sqrt(var + spec.EPS)
    sigma = np.sqrt(state.moving_var.astype(np.float64) + spec.EPS)
    if constants is None:
        r = np.clip(sigma_b / sigma, 1.0 / state.r_max, state.r_max)
        d = np.clip((mean - state.moving_mean) / sigma, -state.d_max, state.d_max)
    else:
        r, d = constants
    c = lambda v: np.asarray(v).reshape(1, -1, 1, 1)  # noqa: E731
    y = c(gamma) * ((x - c(mean)) / c(sigma_b) * c(r) + c(d)) + c(beta)
    return float((y * g).sum())


def _numeric(f, value, h=1e-6):
    out = np.zeros_like(value)
    for i in np.ndindex(value.shape):
        up, down = value.copy(), value.copy()
        up[i] += h
        down[i] -= h
        out[i] = (f(up) - f(down)) / (2 * h)
    return out


def _case(seed, step):
    """A small batch, weights and a state ``step`` steps into the schedule: r_max > 1, so r
    is clipped in some channels and free in others (the input scales 1, 2, 0.5)."""
    rng = np.random.default_rng(seed)
    x = spec.make_batch(4, seed, (2, 2)).astype(np.float64)
    gamma = rng.uniform(0.5, 2.0, spec.CHANNELS)
    beta = rng.standard_normal(spec.CHANNELS)
    g = rng.standard_normal(x.shape)
    r_max, d_max = spec.schedule(step)
    state = spec.State(
        rng.standard_normal(spec.CHANNELS).astype(np.float32) * 0.5,
        rng.uniform(0.5, 2.0, spec.CHANNELS).astype(np.float32),
        r_max,
        d_max,
        np.float32(step),
    )
    return x, gamma, beta, g, state


def _constants(x, state):
    mean, var = x.mean(axis=AXES), x.var(axis=AXES)
    sigma_b = np.sqrt(var + spec.EPS)
    sigma = np.sqrt(state.moving_var.astype(np.float64) + spec.EPS)
    r = np.clip(sigma_b / sigma, 1.0 / state.r_max, state.r_max)
    d = np.clip((mean - state.moving_mean) / sigma, -state.d_max, state.d_max)
    return r, d


@pytest.mark.parametrize("seed, step", [(0, 0), (1, 1), (2, 2), (3, 6)])
def test_the_gradient_is_that_of_the_loss_with_r_and_d_constant(seed, step):
    x, gamma, beta, g, state = _case(seed, step)
    rd = _constants(x, state)
    got = spec.grads(x.astype(np.float32), gamma, beta, state, g)
    want = {
        "x": _numeric(lambda v: _loss(v, gamma, beta, g, state, rd), x),
        "gamma": _numeric(lambda v: _loss(x, v, beta, g, state, rd), gamma),
        "beta": _numeric(lambda v: _loss(x, gamma, v, g, state, rd), beta),
    }
    for name, w in want.items():
        assert got[name].dtype == np.float32
        np.testing.assert_allclose(got[name], w, rtol=1e-4, atol=1e-4, err_msg=name)


def test_the_check_tells_a_gradient_through_r_and_d_apart():
    """Where r and d are free (not clipped), differentiating through them gives another
    gradient: the reference is not the gradient of the full function."""
    x, gamma, beta, g, state = _case(2, 2)
    r, _ = _constants(x, state)
    assert np.any((r > 1.0 / state.r_max) & (r < state.r_max))  # some channel's r is free
    got = spec.grads(x.astype(np.float32), gamma, beta, state, g)
    through = _numeric(lambda v: _loss(v, gamma, beta, g, state), x)
    assert not np.allclose(got["x"], through, rtol=1e-4, atol=1e-4)


def test_the_cotangent_is_fixed_by_the_input():
    x = spec.make_batch(4, 0, (2, 2))
    assert np.array_equal(spec.cotangent(x), spec.cotangent(x.copy()))
    assert not np.array_equal(spec.cotangent(x), spec.cotangent(spec.make_batch(4, 1, (2, 2))))
    assert spec.cotangent(x).shape == x.shape and spec.cotangent(x).dtype == np.float32

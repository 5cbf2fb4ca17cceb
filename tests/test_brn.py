"""Batch Renormalization workload: NumPy reference, gate over strategy × mode, training step."""

from __future__ import annotations

import numpy as np
import pytest

from bench.measured import discovery, modes, shapes, workloads
from bench.measured.workloads.brn import spec as brn_spec


def test_schedule_ramps_then_holds():
    assert brn_spec.schedule(0) == (1.0, 0.0)
    r_max, d_max = brn_spec.schedule(brn_spec.RAMP_STEPS // 2)
    assert (r_max, d_max) == pytest.approx((2.0, 2.5))
    assert brn_spec.schedule(10 * brn_spec.RAMP_STEPS) == (3.0, 5.0)


def test_reference_first_step_is_batch_norm_and_r_d_clip_later():
    gamma, beta = np.ones(3, np.float32), np.zeros(3, np.float32)
    x = brn_spec.make_batch(16, seed=1)
    y, state, (_, r, _) = brn_spec.train_step(x, gamma, beta, brn_spec.State.initial())
    assert np.allclose(r, 1.0)  # r_max = 1 and d_max = 0 at step 0: plain batch norm
    assert np.allclose(y.mean(axis=(0, 2, 3)), 0, atol=1e-5)
    assert np.allclose(y.var(axis=(0, 2, 3)), 1, atol=1e-3)
    assert state.step == 1 and state.r_max > 1 and state.d_max > 0
    for _ in range(2, 40):
        y, state, (_, r, _) = brn_spec.train_step(x, gamma, beta, state)
    assert state.r_max == 3.0 and state.d_max == 5.0
    assert np.allclose(state.moving_mean, x.mean(axis=(0, 2, 3)), atol=0.05)
    # the channel scaled by 2 has sigma_B / sigma near 1 once the moving variance caught up
    assert np.all((1 / state.r_max <= r) & (r <= state.r_max))
    inferred = brn_spec.infer(x, gamma, beta, state)
    assert inferred.shape == x.shape and np.all(np.isfinite(inferred))


@pytest.fixture(scope="session")
def brn_gate(gate_runs):
    return gate_runs[0]["brn"][1]


def test_the_generic_strategies_express_brn(brn_gate):
    by = {(v.strategy, v.shape, v.mode): v for v in brn_gate}
    for name in ("assign", "assign_add", "assign_primitive", "index_add", "scatter_nd_update"):
        assert by[(name, "inline-param-construct", "graph")].status == "works"
    assert by[("set_data", "inline-param-construct", "graph")].status == "raises"
    assert by[("host", "-", "graph")].status == "inexpressible"


@pytest.mark.parametrize(
    "strategy, shape", [("assign", "inline-param-construct"), ("index_add", "helper-view-method")]
)
def test_training_step_in_graph_mode_matches_numpy(ms, strategy, shape, tmp_path):
    """forward + backward (value_and_grad) + SGD in GRAPH_MODE: state writes survive autodiff."""
    work = workloads.get("brn")
    variants, _ = work.variants(discovery.load(strategy), tmp_path, only={shape})
    modes.get("graph").activate()
    net = shapes.load_variant(variants[0].path)()
    lr, n = 0.1, 8
    rng = np.random.default_rng(5)
    weights = rng.standard_normal((n, 3, 32, 32)).astype(np.float32)
    w = ms.Tensor(weights)

    def loss_fn(x):
        return (net(x) * w).mean()

    params = net.trainable_params()
    assert [p.name for p in params] == ["gamma", "beta"]
    grad_fn = ms.value_and_grad(loss_fn, None, params)
    optimizer = ms.nn.SGD(params, learning_rate=lr)

    @ms.jit
    def train_step(x):
        loss, grads = grad_fn(x)
        optimizer(grads)
        return loss, grads

    gamma, beta = np.ones(3, np.float32), np.zeros(3, np.float32)
    state = brn_spec.State.initial()
    for step in range(1, 26):
        x = brn_spec.make_batch(n, seed=step)
        y, state, cache = brn_spec.train_step(x, gamma, beta, state)
        dgamma, dbeta = brn_spec.param_grads(weights / weights.size, cache)
        loss, (g_gamma, g_beta) = train_step(ms.Tensor(x))
        where = f"step {step}"
        assert float(loss.asnumpy()) == pytest.approx(float((y * weights).mean()), rel=1e-3), where
        np.testing.assert_allclose(g_gamma.asnumpy(), dgamma, rtol=1e-3, atol=1e-6, err_msg=where)
        np.testing.assert_allclose(g_beta.asnumpy(), dbeta, rtol=1e-3, atol=1e-6, err_msg=where)
        gamma, beta = gamma - lr * dgamma, beta - lr * dbeta
        np.testing.assert_allclose(net.gamma.asnumpy(), gamma, rtol=1e-4, err_msg=where)
        observed = net.state()
        for key, want in state.as_dict().items():
            np.testing.assert_allclose(
                observed[key], np.reshape(want, -1), rtol=1e-4, atol=1e-5, err_msg=f"{key} {where}"
            )
    assert state.r_max == 3.0  # the schedule ran to its end within the test
    inferred = net.infer(ms.Tensor(x)).asnumpy()
    expected = brn_spec.infer(x, gamma, beta, state)
    np.testing.assert_allclose(inferred, expected, rtol=1e-3, atol=1e-4)

"""Batch Renormalization trains through its state writes in GRAPH_MODE; the big-state references
and the bandwidth floor; a reproduction script says NOT REPRODUCED when it sees anything else."""

from __future__ import annotations

import numpy as np
import pytest

from bench.measured import discovery, modes, workloads
from bench.measured.shapes.codegen import load_variant
from bench.measured.workloads.brn import spec as brn_spec
from bench.run import bandwidth

pytestmark = pytest.mark.mindspore


@pytest.mark.parametrize(
    "strategy, shape", [("assign", "inline-param-construct"), ("index_add", "helper-view-method")]
)
def test_training_step_in_graph_mode_matches_numpy(ms, strategy, shape, tmp_path):
    """forward + backward (value_and_grad) + SGD in GRAPH_MODE: state writes survive autodiff."""
    work = workloads.get("brn")
    variants, _ = work.variants(discovery.load(strategy), tmp_path, only={shape})
    modes.get("graph").activate()
    net = load_variant(variants[0].path)()
    lr, n = 0.1, 8
    weights = np.random.default_rng(5).standard_normal((n, 3, 32, 32)).astype(np.float32)
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
        observed = net.state()
        for key, want in state.as_dict().items():
            np.testing.assert_allclose(
                observed[key], np.reshape(want, -1), rtol=1e-4, atol=1e-5, err_msg=f"{key} {where}"
            )
    assert state.r_max == 3.0  # the schedule ran to its end within the test


def test_measured_bandwidth_is_positive():
    result = bandwidth.measure([2**20])
    assert result["points"][0]["copy_GBs"] > 0 and result["llc_bytes"] > 0


@pytest.mark.parametrize("mode", ["GRAPH_MODE", "PYNATIVE_MODE"])
def test_the_emas_training_loop_moves_the_weights_before_every_checked_call(mode):
    """The EMA's loop (issue 50): an SGD step, a checkpoint loaded before call 5, set_data
    before call 8, the training cell built again after each (in PYNATIVE_MODE one built before
    a replacement no longer moves the weights: findings/reload_while_training.py); the weights
    are the NumPy loop's at every call."""
    import mindspore as ms
    from mindspore import nn

    from bench.measured.workloads.ema import spec
    from bench.measured.workloads.ema.cell import EMA

    ms.set_context(mode=getattr(ms, mode))

    class Plain(EMA, nn.Cell):
        def construct(self, x):
            return x

    size = workloads.get("ema").gate_schedule[0][0]
    cell = Plain(size)
    before = [w.asnumpy().copy() for w in cell.weights]
    for call in range(1, workloads.get("ema").gate_schedule[0][1] + 1):
        cell.before_step()
        now = [w.asnumpy().copy() for w in cell.weights]
        assert all(not np.allclose(a, b) for a, b in zip(now, before)), call
        for got, want in zip(now, spec.weights_at(spec.shapes_for(size), call)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        before = now

"""The gate's gradient check on Batch Renormalization (MindSpore on the CPU): each step is one
call of forward (with its writes) and backward; a correct strategy's gradient is the reference's
(r and d constant), and a cell whose r is not under stop_gradient is a wrong gradient."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.core.schema import Status, signature
from bench.measured import discovery, modes, workloads
from bench.measured.oracle import observe
from bench.measured.shapes.codegen import load_variant
from tests.ms.test_gate import observe as gate

pytestmark = pytest.mark.mindspore
BRN = workloads.get("brn")
STOPPED = "r = ops.stop_gradient(ops.clip_by_value(sigma_b / sigma, 1.0 / self.r_max, self.r_max))"
FREE = "r = ops.clip_by_value(sigma_b / sigma, 1.0 / self.r_max, self.r_max)"


def _variant(tmp_path, strategy, shape, edit=None):
    (variant,), _ = BRN.variants(discovery.load(strategy), tmp_path, only={shape})
    if edit:
        path = Path(variant.path)
        assert STOPPED in path.read_text()
        path.write_text(path.read_text().replace(STOPPED, FREE))
    return load_variant(variant.path)


@pytest.mark.parametrize("mode", ["graph", "pynative"])
@pytest.mark.parametrize("strategy", ["assign_primitive", "assign"])
def test_a_correct_strategy_has_the_reference_gradient_at_every_step(ms, tmp_path, mode, strategy):
    got, found = gate(tmp_path, strategy, "helper-param-construct", mode, work=BRN)
    assert got == "works", found.detail
    steps = found.steps
    assert len(steps) == BRN.gate_schedule[0][1] and all("grads" in s for s in steps)
    assert not any(s["grads"] for s in steps)


@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_r_outside_stop_gradient_is_a_wrong_gradient(ms, tmp_path, mode):
    """The same cell with r differentiated (not the paper's): forward and state stay right,
    the gradient with respect to x differs once r_max lets r move (r_max is 1 at step 1)."""
    klass = _variant(tmp_path, "assign_primitive", "helper-param-construct", edit=True)
    found = observe(klass, BRN, modes.get(mode), BRN.intent)
    assert signature(found.status, found.kind, found.detail) == "incorrect: wrong gradient"
    assert found.kinds == ["wrong gradient"], found.detail
    assert "the gradient with respect to x differs from the reference" in found.detail
    assert not found.steps[0]["grads"]  # step 1: r_max = 1 clips r to 1, no gradient through it
    assert all(s["output"] == "ok" and not s["state"] for s in found.steps)


def test_a_network_of_two_layers_has_each_layers_gradient(ms, tmp_path):
    from bench.measured.oracle import observe_network

    klass = _variant(tmp_path, "assign_primitive", "helper-param-construct")
    found = observe_network(klass, BRN, modes.get("graph"), BRN.intent)
    assert found.status == Status.WORKS, found.detail
    klass = _variant(tmp_path / "free", "assign_primitive", "helper-param-construct", edit=True)
    found = observe_network(klass, BRN, modes.get("graph"), BRN.intent)
    assert found.kind == "wrong gradient" and "the network's x" in found.detail

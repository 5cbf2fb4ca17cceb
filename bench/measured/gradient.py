"""The gate's gradient check: a step that is one forward with its writes and its backward.

A workload that declares ``Runtime.grad_weights`` (Batch Renormalization: gamma and beta) is
stepped by the gate as a training loop steps it: each step is ONE call of a wrapper Cell whose
``construct`` is ``mindspore.value_and_grad`` of the loss L = sum(y * g) over the cell (or the
network of cells), with respect to construct's first argument and those weights. The cell is
prepared by ``mode.prepare`` exactly as for a plain step, and the wrapper around it runs in the
mode's context: in GRAPH_MODE forward and backward compile as one graph; under jit the cell's
captured ``construct`` is differentiated by an eager ``value_and_grad`` (a jitted model in an
eager training loop). Its forward output (``has_aux``: no gradient flows through it) is judged
as a plain step's, the gradients against the workload's NumPy reference (``Expected.grads``,
``oracle.judge_gradient``).

Why the jit modes capture the cell, not the wrapper (checked by hand, MindSpore 2.10.0, CPU, on
BRN with ``assign_primitive`` and on BRN with no write at all): with the wrapper's ``construct``
under ``jit(capture_mode="bytecode")``, differentiating a loss Cell, a loss function closed over
the cell, or the tutorial's ``grad_fn`` made outside the jitted step gives zero gradients of
gamma and beta (writes or not: a gradient bug of the capture that the gate would charge to every
strategy), and differentiating a method of the wrapper is not captured (the capture fails,
"Bind helper apply default failed", and the step runs eagerly: the bytecode findings of the
forward would vanish). Capturing the cell as a plain step does keeps every forward verdict
comparable with the gate's without a gradient and gives the reference gradients.

Why the gradient call *is* the step (and not a plain step, then a gradient call and the state
Parameters restored): the state the gate judges stays one forward with its writes per step, and
nothing else writes the state between two judged steps. A separate gradient call would run the
forward, and its writes, a second time; restoring the Parameters afterwards is itself a write
from outside (``set_data``) whose effect differs per mode and per strategy (a host-side strategy
that aliases the Parameter's memory, a graph under bytecode capture), which is what the gate
judges, so the restore could hide or create the very failures it looks for, and a write the
forward drops would be redone by the restore. The cost: a mode where the forward alone runs but
forward and backward together raise is recorded as the step raising; the detail says the step
was taken with its gradient (``during``). A workload without ``grad_weights`` is stepped as
before (``prepare`` returns ``mode.prepare(cell)``, ``check`` does nothing).

The cotangent g is the workload's ``Runtime.cotangent`` of the step's inputs (fixed by the
step's seed, which makes the inputs). MindSpore is imported only when a wrapper is built.
"""

from __future__ import annotations

import numpy as np

from bench.measured.oracle import judge_gradient

DURING = ", the forward with its writes and its gradient in one call"  # what a raise was in


def prepare(runtime, mode, cell, layers=None):
    """The callable that runs one step of ``cell`` in ``mode``: ``mode.prepare(cell)`` for a
    workload that checks no gradient, else a :class:`GradientStep`. ``layers``: the cells whose
    weights are differentiated when ``cell`` is a network of them (default: ``cell`` alone)."""
    if not runtime.grad_weights:
        return mode.prepare(cell)
    return GradientStep(runtime, mode, cell, list(layers) if layers is not None else [cell])


def during(step) -> str:
    """Words for where a step's error happened: ``DURING`` for a gradient step, else ""."""
    return DURING if isinstance(step, GradientStep) else ""


def check(step, expected, records) -> None:
    """Judge the gradients of the step just run by ``step`` (nothing for a plain step):
    ``expected`` and ``records`` (``oracle.Step``) are one per layer (one each for one cell).
    Each layer's weights are judged against its own reference; the input's gradient, the sum of
    every layer's, on the first layer's record."""
    if not isinstance(step, GradientStep) or step.last is None:
        return
    runtime, got, name = step.runtime, step.last, step.runtime.grad_input
    several = len(records) > 1
    for j, (want, record) in enumerate(zip(expected, records)):
        weights = {w: want.grads[w] for w in runtime.grad_weights}
        judge_gradient(runtime, weights, got["weights"][j], record, f"layer {j + 1}'s " * several)
    total = sum(np.asarray(want.grads[name], np.float64) for want in expected)
    of = "the network's " if several else ""
    judge_gradient(runtime, {name: total.astype(np.float32)}, {name: got[name]}, records[0], of)


class GradientStep:
    """One step of a cell with its gradient: called like the cell (``step(*inputs)``), it
    returns the cell's forward output and keeps the gradients as NumPy in ``last``
    (``{grad_input: array, "weights": [{name: array}, ...] per layer}``)."""

    def __init__(self, runtime, mode, cell, layers):
        self.runtime = runtime
        weights = [getattr(c, w) for c in layers for w in runtime.grad_weights]
        self.call = _wrapper(mode.prepare(cell), weights)  # the cell as a plain step has it
        self.layers = len(layers)
        self.last = None
        self.optimizer = None
        if runtime.train_lr:  # a training loop: nn.SGD on the weights after each gradient
            from mindspore import nn

            self.optimizer = nn.SGD(weights, learning_rate=runtime.train_lr)

    def __call__(self, *inputs):
        self.last = None
        host = tuple(np.asarray(t.asnumpy()) for t in inputs)
        import mindspore as ms

        g = ms.Tensor(np.asarray(self.runtime.cotangent(host), np.float32))
        out, dx, dw = self.call(*inputs, g)
        if self.optimizer is not None:  # the weights move: the next step reads them
            self.optimizer(tuple(dw))
        names, dw = self.runtime.grad_weights, [d.asnumpy() for d in dw]
        per = [dict(zip(names, dw[j * len(names) :])) for j in range(self.layers)]
        self.last = {self.runtime.grad_input: dx.asnumpy(), "weights": per}
        return out


def _wrapper(cell, weights):
    """A Cell whose ``construct(x, g)`` returns (the cell's output, d L / d x, d L / d weights)
    for L = sum(y * g) summed over the cell's outputs (a tuple for a network)."""
    import mindspore as ms
    from mindspore import ParameterTuple, nn

    class WithGradient(nn.Cell):
        def __init__(self, net, params):
            super().__init__(auto_prefix=False)
            self.net = net
            self.weights = ParameterTuple(params)

        def loss(self, x, g):
            y = self.net(x)
            if isinstance(y, tuple):
                total = 0.0
                for one in y:
                    total = total + (one * g).sum()
                return total, y
            return (y * g).sum(), y

        def construct(self, x, g):
            grad = ms.value_and_grad(self.loss, 0, self.weights, has_aux=True)
            (_, y), (dx, dw) = grad(x, g)
            return y, dx, dw

    return WithGradient(cell, weights)

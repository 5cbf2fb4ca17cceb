"""EMA of weights: every step, every EMA Parameter of a small CNN moves towards its weight.

Code shapes (dimensions, simplest value first):

- ``write``: each write pasted ``inline`` in the loop over (ema, weight) pairs, through the
  strategy's ``helper`` method, or inside ``depend`` (``x = ops.depend(x, <write>)``).

The no-update twin runs the same loop without writing; what a strategy adds per step is compared
with the bytes an EMA must move (read the EMA and the weight, write the EMA: 12 bytes an element)
at the memory bandwidth this run measured.
"""

from __future__ import annotations

import numpy as np

from bench.measured.shapes import Dimension, Emit, Shape
from bench.measured.workloads.base import Expected, Workload
from bench.measured.workloads.ema import spec

WRITE = Dimension(
    "write",
    (
        ("inline", "the write's own code pasted in the loop"),
        ("helper", "the loop calls the strategy's method self.write(ema, new)"),
        ("depend", "x = ops.depend(x, <write>) in the loop"),
    ),
)


class EMAWorkload(Workload):
    name = "ema"
    title = (
        "an EMA of a small CNN's weights: ema = 0.9 ema + 0.1 w for every weight, 1e4…1e7 elements"
    )
    size_label = "weight elements"
    size_symbol = "E"
    floor_kernel = "triad"
    batch_sizes = (10_000, 100_000, 1_000_000, 10_000_000)
    gate_schedule = ((2_000, 4),)
    rtol, atol = 1e-5, 1e-6
    reserved = frozenset({"x", "ema", "w", "new"})
    template_imports = (
        "from mindspore import ops",
        "from bench.measured.workloads.ema.cell import EMA",
    )
    control_imports = ()
    cost_dims = ("write",)
    base_control = "weights-loop"

    @property
    def state_names(self):  # one EMA Parameter per weight; the gate's size has 10
        return tuple(f"ema{i}" for i in range(10))

    def dimensions(self, layout: str):
        return (WRITE,)

    def control_shape(self, shape: Shape, layout: str) -> Shape:
        return Shape((("layout", "weights"), ("read", "loop")))

    def construct_source(self, shape: Shape, emit: Emit) -> str:
        lines = ["for ema, w in zip(self.emas, self.weights):"]
        if emit.control:
            lines.append("    new = self.decay * ema + self.rest * w")
        else:
            lines.append("    new = self.decay * ema + self.rest * w")
            lines += [
                f"    {ln}" for ln in emit.write(shape.values["write"], "ema", "new", anchor="x")
            ]
        lines.append("return x")
        return "    def construct(self, x):\n" + "".join(f"        {ln}\n" for ln in lines)

    def base_classes(self, strategy_class: str) -> str:
        return f"EMA, {strategy_class}"

    def control_base(self) -> str:
        return "EMA"

    # -- running ------------------------------------------------------------------------------
    def build(self, variant_class, size=None):
        cell = variant_class(size or self.gate_schedule[0][0])
        return cell, dict(cell.parameters_and_names())

    def make_inputs(self, size: int, seed: int, small: bool = False) -> tuple:
        return (np.zeros((1,), np.float32),)

    def reference(self, size, steps, seed, update=True, small=False):
        weights, emas = spec.initial(spec.shapes_for(size))
        x = np.zeros((1,), np.float32)
        for _ in range(steps):
            after = spec.step(emas, weights) if update else emas
            yield Expected(
                (x,), x, {f"ema{i}": e for i, e in enumerate(emas)},
                {f"ema{i}": e for i, e in enumerate(after)},
            )  # fmt: skip
            emas = after

    def probe(self, params: dict):
        return params[self.state_names[-1]]  # written last

    def final_state(self, params: dict, size: int) -> dict:
        emas = [v.asnumpy() for k, v in sorted(params.items()) if k.startswith("ema")]
        return {"ema_mean": [float(np.mean(np.concatenate([e.ravel() for e in emas])))]}

    def after_steps(self, steps: int, size: int, update: bool = True) -> dict:
        weights, _ = spec.initial(spec.shapes_for(size))
        mean = float(np.mean(np.concatenate([w.ravel() for w in weights])))
        return {"ema_mean": [spec.ema_after(steps if update else 0, mean)]}

    def bytes_moved(self, shape_values: dict, size: int) -> int | None:
        return spec.EMA_BYTES_PER_ELEMENT * spec.elements(spec.shapes_for(size))

    def driver(self) -> str:
        return (
            "from bench.measured.workloads.ema.repro import reproduce\n\n"
            "if __name__ == '__main__':\n"
            "    reproduce(Variant, sys.argv[1] if len(sys.argv) > 1 else MODE)\n"
        )


WORKLOAD = EMAWorkload()

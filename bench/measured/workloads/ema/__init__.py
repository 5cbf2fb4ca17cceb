"""EMA of weights: every step, every EMA Parameter of a two-layer network trained by SGD moves
towards its weight.

Code shapes (dimensions, simplest value first):

- ``write``: each write pasted ``inline`` in the loop over (ema, weight) pairs, through the
  strategy's ``helper`` method, or inside ``depend`` (``x = ops.depend(x, <write>)``).

The no-update twin runs the same loop and computes every new EMA (kept alive with
``ops.depend``, so no compiler removes the arithmetic), skipping only the write; what a strategy
adds per step is compared with the bytes an EMA must move (read the EMA and the weight, write the
EMA: 12 bytes an element) at the memory bandwidth this run measured.
"""

from __future__ import annotations

from bench.measured.shapes import Dimension, Shape
from bench.measured.shapes.codegen import Emit
from bench.measured.workloads.ema import spec
from bench.measured.workloads.ema.runtime import EMARuntime
from bench.measured.workloads.template import Workload

WRITE = Dimension(
    "write",
    (
        ("inline", "the write's own code pasted in the loop"),
        ("helper", "the loop calls the strategy's method self.write(ema, new)"),
        ("depend", "x = ops.depend(x, <write>) in the loop"),
    ),
)


class EMAWorkload(EMARuntime, Workload):
    state_kind = "elementwise"  # the kind of state its answer is for (bench.report.answer.KINDS)
    title = (
        "an EMA of the weights of a two-layer network trained by SGD: ema = 0.9 ema + 0.1 w for "
        "every weight, 1e4…1e7 elements"
    )
    floor_kernel = "triad"
    batch_sizes = (10_000, 100_000, 1_000_000, 10_000_000)
    reserved = frozenset({"x", "ema", "w", "new"})
    template_imports = (
        "from mindspore import ops",
        "from bench.measured.workloads.ema.cell import EMA",
    )
    cost_dims = ("write",)
    base_control = "weights"
    code_names = {"write": ("ema", "new")}

    def dimensions(self, layout: str):
        return (WRITE,)

    def twin(self, shape: Shape, layout: str) -> Shape:
        return Shape((("layout", "weights"),))

    def construct_source(self, shape: Shape, emit: Emit) -> str:
        lines = ["for ema, w in zip(self.emas, self.weights):"]
        lines.append("    new = self.decay * ema + self.rest * w")
        write = emit.write(shape.values.get("write", "depend"), "ema", "new", anchor="x")
        lines += [f"    {ln}" for ln in write]
        lines.append("return x")
        return "    def construct(self, x):\n" + "".join(f"        {ln}\n" for ln in lines)

    def forward_source(self) -> str:
        return "    def construct(self, x):\n        return x\n"

    def base_classes(self, strategy_class: str) -> str:
        return f"EMA, {strategy_class}"

    def control_base(self) -> str:
        return "EMA"

    def bytes_moved(self, shape_values: dict, size: int) -> int | None:
        return spec.EMA_BYTES_PER_ELEMENT * spec.elements(spec.shapes_for(size))


WORKLOAD = EMAWorkload()

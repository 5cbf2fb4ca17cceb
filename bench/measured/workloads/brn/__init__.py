"""Batch Renormalization: r_max, d_max, the step and the moving statistics written every step.

Code shapes (dimensions, simplest value first):

- ``write``: each of the five state writes pasted ``inline``, through the strategy's ``helper``
  method ``self.write(param, value)``, or inside ``depend`` (``y = ops.depend(y, <write>)``);
- ``read``: how r_max and d_max bound the clips: the ``param`` itself, or a 0-d ``view``
  (``self.r_max.reshape(())``, of a 1-element vector or of a 0-d Parameter);
- ``block``: the updates written in ``construct``, or in a ``method`` ``self.update_state(mean,
  var)`` that construct calls;
- ``construct``: defined in the variant's ``own`` class (left out of shape names), or inherited
  from the ``base`` class BatchRenorm in another module (only ``helper-param-method-base``).
"""

from __future__ import annotations

from bench.measured.shapes import Dimension, Shape
from bench.measured.shapes.codegen import Emit
from bench.measured.workloads.brn.runtime import BRNRuntime
from bench.measured.workloads.template import Workload

WRITE = Dimension(
    "write",
    (
        ("inline", "each write's own code pasted where the update happens"),
        ("helper", "each write through the strategy's method self.write(param, value)"),
        ("depend", "each write inside ops.depend(..., <write>), as MindSpore's optimizers do"),
    ),
)
READ = (("param", "the clips read self.r_max and self.d_max directly"),)
VIEW = ("view", "the clips read 0-d views self.r_max.reshape(()), self.d_max.reshape(())")
BLOCK = Dimension(
    "block",
    (
        ("construct", "the state updates are written in construct"),
        ("method", "construct calls self.update_state(mean, var), which writes the state"),
    ),
)

FORWARD = """\
mean = x.mean(axis=(0, 2, 3))
centered = x - mean.reshape((1, -1, 1, 1))
var = (centered * centered).mean(axis=(0, 2, 3))
sigma_b = ops.sqrt(var + self.eps)
sigma = ops.sqrt(self.moving_var + self.eps)
r = ops.stop_gradient(ops.clip_by_value(sigma_b / sigma, 1.0 / {r_max}, {r_max}))
d = (mean - self.moving_mean) / sigma
d = ops.stop_gradient(ops.clip_by_value(d, -{d_max}, {d_max}))
xhat = centered / sigma_b.reshape((1, -1, 1, 1)) * r.reshape((1, -1, 1, 1))
xhat = xhat + d.reshape((1, -1, 1, 1))
y = self.gamma.reshape((1, -1, 1, 1)) * xhat + self.beta.reshape((1, -1, 1, 1))"""

CONSTRUCT = Dimension(
    "construct",
    (
        ("own", "construct is defined in the variant's own class"),
        ("base", "construct and update_state are inherited from BatchRenorm, in another module"),
    ),
    implicit="own",
)
BASE_SHAPE = {"write": "helper", "read": "param", "block": "method"}  # BatchRenorm's own

# (Parameter, local holding its new value, how the value is computed)
UPDATES = (
    (
        "self.moving_mean",
        "new_mean",
        "self.moving_mean + self.momentum * (mean - self.moving_mean)",
    ),
    ("self.moving_var", "new_var", "self.moving_var + self.momentum * (var - self.moving_var)"),
    ("self.step", "step", "self.step + 1.0"),
    ("self.r_max", "new_r_max", "1.0 + self.r_span * frac"),
    ("self.d_max", "new_d_max", "self.d_end * frac"),
)


class BatchRenormalization(BRNRuntime, Workload):
    state_kind = "small"  # the kind of state its answer is for (bench.report.answer.KINDS)
    title = "Batch Renormalization (moving mean and variance, r_max and d_max written every step)"
    batch_sizes = (1, 8, 64, 256, 1024)
    reserved = frozenset(
        "x mean centered var sigma_b sigma r d xhat y step frac new_mean new_var new_r_max "
        "new_d_max r_max d_max done".split()
    )
    template_imports = (
        "from mindspore import ops",
        "from bench.measured.workloads.brn.cell import BatchRenorm",
    )
    base_control = "scalar-param-construct"
    code_names = {"write": ("self.r_max", "new_r_max")}
    base_shape = BASE_SHAPE

    def dimensions(self, layout: str):
        return (WRITE, Dimension("read", (*READ, VIEW)), BLOCK, CONSTRUCT)

    def valid(self, shape: Shape) -> bool:
        v = shape.values
        if v.get("construct") == "base":
            return all(v.get(k) == want for k, want in BASE_SHAPE.items())
        return True

    def layout_twins(self) -> list[Shape]:
        return [
            Shape((("layout", layout), ("read", read), ("block", "construct")))
            for layout, read in (("scalar", "param"), ("vector", "param"), ("vector", "view"))
        ]

    def construct_source(self, shape: Shape, emit: Emit) -> str:
        v = shape.values
        view = v.get("read") == "view"
        bounds = {"r_max": "r_max", "d_max": "d_max"} if view else {}
        forward = (
            ["r_max = self.r_max.reshape(())", "d_max = self.d_max.reshape(())"] if view else []
        )
        forward += FORWARD.format(
            r_max=bounds.get("r_max", "self.r_max"), d_max=bounds.get("d_max", "self.d_max")
        ).splitlines()
        placement = v["write"]
        in_method = v["block"] == "method"
        anchor = "done" if in_method else "y"
        update = ["step = self.step + 1.0", "frac = ops.minimum(step / self.ramp_steps, 1.0)"]
        if in_method and placement == "depend":
            update.append("done = step")
        for target, local, value in UPDATES:
            if local != "step":
                update.append(f"{local} = {value}")
            update += emit.write(placement, target, local, anchor)
        stats = ["mean = ops.stop_gradient(mean)", "var = ops.stop_gradient(var)"]
        if not in_method:
            return _method("construct(self, x)", [*forward, *stats, *update, "return y"])
        call = "self.update_state(ops.stop_gradient(mean), ops.stop_gradient(var))"
        tail = [f"y = ops.depend(y, {call})"] if placement == "depend" else [call]
        returns = ["return done"] if placement == "depend" else []
        return (
            _method("construct(self, x)", [*forward, *tail, "return y"])
            + "\n"
            + _method("update_state(self, mean, var)", [*update, *returns])
        )

    def forward_source(self) -> str:
        forward = FORWARD.format(r_max="self.r_max", d_max="self.d_max").splitlines()
        return _method("construct(self, x)", [*forward, "return y"])

    def base_classes(self, strategy_class: str) -> str:
        return f"BatchRenorm, {strategy_class}"

    def control_base(self) -> str:
        return "BatchRenorm"


def _method(signature: str, lines: list[str]) -> str:
    return f"    def {signature}:\n" + "".join(f"        {ln}\n" for ln in lines)


WORKLOAD = BatchRenormalization()

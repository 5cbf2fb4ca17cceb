"""Batch Renormalization: r_max, d_max, the step and the moving statistics written every step.

Code shapes (dimensions, simplest value first):

- ``write``: each of the five state writes pasted ``inline``, through the strategy's ``helper``
  method ``self.write(param, value)``, or inside ``depend`` (``y = ops.depend(y, <write>)``);
- ``read``: how r_max and d_max bound the clips: the ``param`` itself, or, for a 1-element
  vector, a 0-d ``view`` (``self.r_max.reshape(())``);
- ``block``: the updates written in ``construct``, or in a ``method`` ``self.update_state(mean,
  var)`` that construct calls;
- ``construct``: defined in the variant's ``own`` class (left out of shape names), or inherited
  from the ``base`` class BatchRenorm in another module (only ``helper-param-method-base``).
"""

from __future__ import annotations

import numpy as np

from bench.measured.shapes import Dimension, Emit, Shape
from bench.measured.workloads.base import Expected, Workload
from bench.measured.workloads.brn import spec

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


class BatchRenormalization(Workload):
    name = "brn"
    title = "Batch Renormalization (moving mean and variance, r_max and d_max written every step)"
    batch_sizes = (1, 8, 64, 256, 1024)
    gate_schedule = ((16, 7),)  # r_max and d_max ramp over 4 steps (RAMP_STEPS), then hold
    rtol, atol = 1e-4, 1e-4
    state_names = spec.BRN_STATE
    reserved = frozenset(
        "x mean centered var sigma_b sigma r d xhat y step frac new_mean new_var new_r_max "
        "new_d_max r_max d_max done".split()
    )
    template_imports = (
        "from mindspore import ops",
        "from bench.measured.workloads.brn.cell import BatchRenorm",
    )
    control_imports = ()

    def dimensions(self, layout: str):
        read = READ + ((VIEW,) if layout == "vector" else ())
        return (WRITE, Dimension("read", read), BLOCK, CONSTRUCT)

    def valid(self, shape: Shape) -> bool:
        v = shape.values
        if v.get("construct") == "base":
            return all(v.get(k) == want for k, want in BASE_SHAPE.items())
        return True

    def control_shape(self, shape: Shape, layout: str) -> Shape:
        return Shape((("layout", layout), ("read", shape.values.get("read", "param"))))

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
        if emit.control:  # a control: the forward alone
            return _method("construct(self, x)", [*forward, "return y"])
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

    def base_classes(self, strategy_class: str) -> str:
        return f"BatchRenorm, {strategy_class}"

    def control_base(self) -> str:
        return "BatchRenorm"

    # -- running ------------------------------------------------------------------------------
    def make_input(self, n: int, seed: int, small: bool = False) -> np.ndarray:
        return spec.make_batch(n, seed, (4, 4) if small else (32, 32))

    def reference(self, n, steps, seed, update=True, small=False):
        gamma = np.ones(spec.CHANNELS, np.float32)
        beta = np.zeros(spec.CHANNELS, np.float32)
        state = spec.State.initial()
        for i in range(steps):
            x = self.make_input(n, seed + i, small)
            y, after, _ = spec.train_step(x, gamma, beta, state, update=update)
            yield Expected((x,), y, state.as_dict(), after.as_dict())
            state = after

    def probe(self, params: dict):
        return params["d_max"]

    def after_steps(self, steps: int, n: int, update: bool = True):
        step = steps if update else 0
        r_max, d_max = spec.schedule(step)
        return {
            "step": np.asarray([step], np.float32),
            "r_max": np.asarray([r_max], np.float32),
            "d_max": np.asarray([d_max], np.float32),
        }

    def driver(self) -> str:
        return (
            "from bench.measured.workloads.brn.repro import reproduce\n\n"
            "if __name__ == '__main__':\n"
            "    reproduce(Variant, sys.argv[1] if len(sys.argv) > 1 else MODE)\n"
        )


def _method(signature: str, lines: list[str]) -> str:
    return f"    def {signature}:\n" + "".join(f"        {ln}\n" for ln in lines)


WORKLOAD = BatchRenormalization()

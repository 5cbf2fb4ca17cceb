"""The adaptive-clip workload of the original report (``spec.py`` reference, ``cell.py`` base).

Code shapes (dimensions, simplest value first):

- ``write``: where the write sits: pasted ``inline`` in ``construct``, through the strategy's
  ``helper`` method ``self.write(self.limit, new)``, or inside ``depend``: ``x = ops.depend(x,
  <write>)`` as MindSpore's own optimizers do;
- ``read``: how the clip reads the limit: the ``param`` itself (``self.limit`` in the clip's
  arguments), a local ``alias`` (``lim = self.limit``), or, for a 1-element vector, a 0-d
  ``view`` (``lim = self.limit.reshape(())``);
- ``order``: the write ``after`` the clip, or ``before`` it (the clip then uses the local read
  before the write: only with ``alias`` or ``view``);
- ``new``: the new limit bound to a local from an ``expr``ession in ``construct`` or from the
  ``method`` ``self.next_limit(x)``, or that call passed straight as the write's value (``arg``:
  ``self.write(self.limit, self.next_limit(x))``, the shape of this suite's first version);
- ``construct``: defined in the variant's ``own`` class (the default, left out of shape names),
  or inherited from the ``base`` class ClipCell, which lives in another module (only for
  ``helper-param-after-arg``, ClipCell's own construct: ``helper-param-after-arg-base``).
"""

from __future__ import annotations

import numpy as np

from bench.measured.shapes import Dimension, Emit, Shape
from bench.measured.workloads.base import Expected, Workload
from bench.measured.workloads.clip import spec

WRITE = Dimension(
    "write",
    (
        ("inline", "the write's own code pasted into construct"),
        ("helper", "construct calls the strategy's method self.write(self.limit, new)"),
        ("depend", "the write inside ops.depend(..., <write>), as MindSpore's optimizers do"),
    ),
)
READ_SCALAR = (
    ("param", "the clip reads self.limit directly"),
    ("alias", "the clip reads a local alias lim = self.limit"),
)
VIEW = ("view", "the clip reads a 0-d view lim = self.limit.reshape(())")
ORDER = Dimension(
    "order",
    (
        ("after", "the write comes after the clip"),
        ("before", "the write comes before the clip, which uses the local read before it"),
    ),
)
NEW = Dimension(
    "new",
    (
        ("expr", "new = ops.minimum(self.limit + self.inc_step * N, self.max_limit) in construct"),
        ("method", "new = self.next_limit(x), a method of the cell"),
        ("arg", "self.next_limit(x) passed straight as the write's value, no local"),
    ),
)
NEW_EXPR = {
    "expr": "ops.minimum(self.limit + self.inc_step * x.shape[0], self.max_limit)",
    "method": "self.next_limit(x)",
    "arg": "self.next_limit(x)",
}
READ_EXPR = {"param": None, "alias": "self.limit", "view": "self.limit.reshape(())"}
CONSTRUCT = Dimension(
    "construct",
    (
        ("own", "construct is defined in the variant's own class"),
        ("base", "construct is inherited from ClipCell, defined in another module (bench's)"),
    ),
    implicit="own",
)
BASE_SHAPE = {"write": "helper", "read": "param", "order": "after", "new": "arg"}  # ClipCell's


class Clip(Workload):
    name = "clip"
    title = (
        "the adaptive-clip cell of the original report (clip to [-limit, limit], then "
        "limit = min(limit + 1e-4 * N, 3.0))"
    )
    batch_sizes = (1, 8, 64, 256, 1024)
    # N = 8192 grows the limit by 0.8192 a step: it grows twice, then reaches the cap (3.0) at
    # step 3 and stays. A small input (N x 1 x 2 x 2) keeps the gate cheap for every layout; the
    # timed cells check the state again at every batch size they time.
    gate_schedule = ((8192, 4),)
    rtol, atol = 1e-5, 1e-6
    state_names = ("limit",)
    reserved = frozenset({"x", "out", "lim", "new"})
    template_imports = ("from mindspore import ops",)
    control_imports = ("from bench.measured.workloads.clip.cell import ClipCell",)

    def dimensions(self, layout: str):
        read = READ_SCALAR + ((VIEW,) if layout == "vector" else ())
        return (WRITE, Dimension("read", read), ORDER, NEW, CONSTRUCT)

    def valid(self, shape: Shape) -> bool:
        v = shape.values
        if v.get("construct") == "base":  # ClipCell.construct is one shape: helper-param-after-arg
            return all(v.get(k) == want for k, want in BASE_SHAPE.items())
        return not (v.get("order") == "before" and v.get("read") == "param")

    def control_shape(self, shape: Shape, layout: str) -> Shape:
        read = shape.values.get("read", "param")
        return Shape((("layout", layout), ("read", read)))

    def construct_source(self, shape: Shape, emit: Emit) -> str:
        v = shape.values
        read = READ_EXPR[v.get("read", "param")]
        bound = "lim" if read else "self.limit"
        body = [f"lim = {read}"] if read else []
        clip = [f"out = ops.clip_by_value(x, -{bound}, {bound})"]
        if emit.control:  # a control: the forward alone
            lines = [*body, *clip, "return out"]
        else:
            value = NEW_EXPR[v["new"]] if v["new"] == "arg" else "new"
            new = [] if v["new"] == "arg" else [f"new = {NEW_EXPR[v['new']]}"]
            if v["order"] == "after":
                write = emit.write(v["write"], "self.limit", value, anchor="out")
                lines = [*body, *clip, *new, *write, "return out"]
            else:
                write = emit.write(v["write"], "self.limit", value, anchor="lim")
                lines = [*body, *new, *write, *clip, "return out"]
        return "    def construct(self, x):\n" + "".join(f"        {ln}\n" for ln in lines)

    def base_classes(self, strategy_class: str) -> str:
        return strategy_class

    def control_base(self) -> str:
        return "ClipCell"

    # -- running ------------------------------------------------------------------------------
    def make_input(self, n: int, seed: int, small: bool = False) -> np.ndarray:
        return spec.make_input(n, seed, (1, 2, 2) if small else spec.FEATURE_SHAPE)

    def reference(self, n, steps, seed, update=True, small=False):
        inputs = (self.make_input(n, seed + i, small) for i in range(steps))
        for ref in spec.reference(inputs, spec.INITIAL_LIMIT, update=update):
            yield Expected(
                (ref.input,),
                ref.output,
                {"limit": ref.limit_before},
                {"limit": ref.limit_after},
                f"clip limit should be {ref.limit_before:.6g}",
            )

    def probe(self, params: dict):
        return params["limit"]

    def copy_state(self, source: dict, target: dict) -> None:
        """Give the control the subject's limit: the clip's cost depends on it."""
        from mindspore import Tensor

        value = source["limit"].asnumpy().reshape(-1)[0]
        target["limit"].set_data(Tensor(np.full(target["limit"].shape, value, np.float32)))

    def after_steps(self, steps: int, n: int, update: bool = True):
        limit = np.float32(spec.INITIAL_LIMIT)
        for _ in range(steps if update else 0):
            limit = spec.next_limit(limit, n)
            if limit >= spec.MAX_LIMIT:
                break
        return {"limit": np.asarray([limit], np.float32)}

    def driver(self) -> str:
        return (
            "from bench.measured.workloads.clip.repro import reproduce\n\n"
            "if __name__ == '__main__':\n"
            "    reproduce(Variant, sys.argv[1] if len(sys.argv) > 1 else MODE)\n"
        )


WORKLOAD = Clip()

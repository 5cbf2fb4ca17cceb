"""The adaptive-clip workload of the original report (``spec.py`` reference, ``cell.py`` state).

Code shapes (dimensions, simplest value first):

- ``write``: where the write sits: pasted ``inline`` in ``construct``, through the strategy's
  ``helper`` method ``self.write(self.limit, new)``, or inside ``depend``: ``out = ops.depend(out,
  <write>)`` as MindSpore's own optimizers do;
- ``read``: how the clip reads the limit: the ``param`` itself, a local ``alias`` (``lim =
  self.limit``), a ``copy`` (``lim = self.limit.copy()``: a snapshot), or a 0-d ``view`` (``lim =
  self.limit.reshape(())``, of a 1-element vector or of a 0-d Parameter: eager ``reshape`` is a
  view of either, and sees an in-place write);
- ``order``: the write ``after`` the clip, or ``before`` it (the clip then uses the local read
  taken before the write: only with ``alias``, ``view`` or ``copy``; ``copy`` only ``before``);
- ``new``: the new limit bound to a local from an ``expr``ession in ``construct`` or from the
  ``method`` ``self.next_limit(x)``, or that call passed straight as the write's value (``arg``);
- ``construct``: defined in the variant's ``own`` class (left out of shape names), or inherited
  from ``ClipState``, which lives in another module (only ``helper-param-after-arg-base``).

What the code means (``meaning``): the clip reads the limit from before the write unless the read
is taken before the write and is the Parameter itself (an alias) or a view of it that an in-place
write updates; then the clip uses the new limit. The cell's intent is the old limit.
"""

from __future__ import annotations

from bench.measured.oracle import AFTER, BEFORE
from bench.measured.shapes import Dimension, Shape
from bench.measured.shapes.codegen import IN_PLACE, Emit
from bench.measured.workloads.clip.runtime import ClipRuntime
from bench.measured.workloads.template import Workload

WRITE = Dimension(
    "write",
    (
        ("inline", "the write's own code pasted into construct"),
        ("helper", "construct calls the strategy's method self.write(self.limit, new)"),
        ("depend", "the write inside ops.depend(..., <write>), as MindSpore's optimizers do"),
    ),
    code=(
        ("inline", "ops.assign(self.limit, new)"),
        ("helper", "self.write(self.limit, new)"),
        ("depend", "out = ops.depend(out, ops.assign(self.limit, new))"),
    ),
)
READS = (
    ("param", "the clip reads self.limit directly", "out = ops.clip_by_value(x, -self.limit, ...)"),
    ("alias", "the clip reads a local alias lim = self.limit", "lim = self.limit"),
    ("copy", "the clip reads a snapshot lim = self.limit.copy()", "lim = self.limit.copy()"),
    (
        "view",
        "the clip reads a 0-d view lim = self.limit.reshape(())",
        "lim = self.limit.reshape(())",
    ),
)
ORDER = Dimension(
    "order",
    (
        ("after", "the write comes after the clip"),
        ("before", "the write comes before the clip, which uses the local read taken before it"),
    ),
    code=(
        ("after", "lim = ...\nout = ops.clip_by_value(x, -lim, lim)\n<write>"),
        ("before", "lim = ...\n<write>\nout = ops.clip_by_value(x, -lim, lim)"),
    ),
)
NEW = Dimension(
    "new",
    (
        ("expr", "new = ops.minimum(self.limit + self.inc_step * N, self.max_limit) in construct"),
        ("method", "new = self.next_limit(x), a method of the cell"),
        ("arg", "self.next_limit(x) passed straight as the write's value, no local"),
    ),
    code=(
        ("expr", "new = ops.minimum(self.limit + self.inc_step * x.shape[0], self.max_limit)"),
        ("method", "new = self.next_limit(x)"),
        ("arg", "self.write(self.limit, self.next_limit(x))"),
    ),
)
NEW_EXPR = {
    "expr": "ops.minimum(self.limit + self.inc_step * x.shape[0], self.max_limit)",
    "method": "self.next_limit(x)",
    "arg": "self.next_limit(x)",
}
READ_EXPR = {
    "param": None,
    "alias": "self.limit",
    "copy": "self.limit.copy()",
    "view": "self.limit.reshape(())",
}
CONSTRUCT = Dimension(
    "construct",
    (
        ("own", "construct is defined in the variant's own class"),
        ("base", "construct is inherited from ClipState, defined in another module (bench's)"),
    ),
    implicit="own",
    code=(
        ("own", "class Variant(ClipState, Cell):\n    def construct(self, x): ..."),
        ("base", "class Variant(ClipState, Cell):\n    pass  # construct from ClipState"),
    ),
)
BASE_SHAPE = {"write": "helper", "read": "param", "order": "after", "new": "arg"}  # ClipState's


class Clip(ClipRuntime, Workload):
    state_kind = "small"  # the kind of state its answer is for (bench.report.answer.KINDS)
    title = (
        "the adaptive-clip cell of the original report (clip to [-limit, limit], then "
        "limit = min(limit + 1e-4 * N, 3.0))"
    )
    batch_sizes = (1, 8, 64, 256, 1024)
    reserved = frozenset({"x", "out", "lim", "new"})
    template_imports = (
        "from mindspore import ops",
        "from bench.measured.workloads.clip.cell import ClipState",
    )
    base_control = "scalar-param-after-expr"
    code_names = {"write": ("self.limit", "new")}
    scope_text = "the shapes where the write follows the read"
    base_shape = BASE_SHAPE

    def dimensions(self, layout: str):
        read = Dimension(
            "read", tuple((v, m) for v, m, _ in READS), code=tuple((v, c) for v, _, c in READS)
        )
        return (WRITE, read, ORDER, NEW, CONSTRUCT)

    def shapes(self, layout: str) -> list[Shape]:
        """Every valid shape; for a 0-d Parameter the ``view`` reads (a 0-d view of a 0-d
        Parameter: any write can go through a view, not only an index op's) only with the new
        value from an expression, a sixth of the vector layout's view shapes: what the view
        changes is the read, and ``new`` varies in the other reads."""
        every = super().shapes(layout)
        if layout == "vector":
            return every
        return [s for s in every if s.values.get("read") != "view" or s.values.get("new") == "expr"]

    def valid(self, shape: Shape) -> bool:
        v = shape.values
        if v.get("construct") == "base":  # ClipState.construct is one shape
            return all(v.get(k) == want for k, want in BASE_SHAPE.items())
        if v.get("read") == "copy":  # a snapshot only matters when the write comes first
            return v.get("order") == "before" and v.get("new") == "expr"
        return not (v.get("order") == "before" and v.get("read") == "param")

    def meaning(self, shape: Shape, semantics: str = IN_PLACE) -> str:
        v = shape.values
        if v.get("order") != "before":
            return BEFORE
        if v.get("read") == "alias":
            return AFTER
        if v.get("read") == "view" and semantics == IN_PLACE:
            return AFTER
        return BEFORE

    def cost_class(self, dims: dict) -> str:
        """A read of the Parameter itself costs the same through an alias; a 0-d view of a
        (1,) Parameter costs another forward (the layout cells measure how much)."""
        return "view" if dims.get("read") == "view" else "direct"

    def in_scope(self, shape: Shape) -> bool:
        return shape.values.get("order", "after") == "after"

    def layout_twins(self) -> list[Shape]:
        return [
            Shape((("layout", layout), ("read", read), ("order", "after"), ("new", "expr")))
            for layout, read in (
                ("scalar", "param"),
                ("scalar", "alias"),
                ("vector", "param"),
                ("vector", "alias"),
                ("vector", "view"),
            )
        ]

    def construct_source(self, shape: Shape, emit: Emit) -> str:
        v = shape.values
        read = READ_EXPR[v.get("read", "param")]
        bound = "lim" if read else "self.limit"
        body = [f"lim = {read}"] if read else []
        clip = [f"out = ops.clip_by_value(x, -{bound}, {bound})"]
        value = NEW_EXPR[v["new"]] if v["new"] == "arg" else "new"
        new = [] if v["new"] == "arg" else [f"new = {NEW_EXPR[v['new']]}"]
        if v["order"] == "after":
            write = emit.write(v["write"], "self.limit", value, anchor="out")
            lines = [*body, *clip, *new, *write, "return out"]
        else:
            write = emit.write(v["write"], "self.limit", value, anchor="lim")
            lines = [*body, *new, *write, *clip, "return out"]
        return "    def construct(self, x):\n" + "".join(f"        {ln}\n" for ln in lines)

    def forward_source(self) -> str:
        return (
            "    def construct(self, x):\n"
            "        out = ops.clip_by_value(x, -self.limit, self.limit)\n"
            "        return out\n"
        )

    def base_classes(self, strategy_class: str) -> str:
        return f"ClipState, {strategy_class}"

    def control_base(self) -> str:
        return "ClipState"


WORKLOAD = Clip()

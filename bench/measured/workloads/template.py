"""What a workload is: the computation, its NumPy reference, its state, and its code shapes.

A workload turns a strategy file into variant files to gate and time. This module is the shape
half (``Template``): the dimensions, the template that renders ``construct`` in every shape, what
each shape's reads mean under eager semantics, and the no-update twin of every shape. The running
half is ``runtime.Runtime``; a workload is both (``Workload``).
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from functools import partial
from pathlib import Path

from bench.core.io import write_text
from bench.measured.oracle import BEFORE
from bench.measured.shapes import AS_WRITTEN, CONTROL, HEADER, Dimension, Inexpressible, Shape
from bench.measured.shapes import Variant as VariantFile
from bench.measured.shapes.codegen import IN_PLACE, Emit, strategy_text
from bench.measured.workloads.runtime import Runtime

TWIN_DROPS = ("write", "construct")  # dimensions a no-update twin does not have


class Template(ABC):
    """The shape interface every workload implements (see the module docstring)."""

    name: str
    title: str  # one line for the report
    batch_sizes: tuple[int, ...]  # timed by default
    reserved: frozenset[str]  # local names the template uses (a pasted write avoids them)
    cost_dims: tuple[str, ...] = ("read",)  # dimensions that change what the forward costs
    template_imports: tuple[str, ...] = ()  # what a variant's construct uses besides the strategy
    floor_kernel: str | None = None  # "copy" or "triad": the bandwidth that bounds the update
    intent = BEFORE  # what the cell is meant to read: the state before the step's write, or after
    state_names: tuple[str, ...] = ()

    # -- shapes -------------------------------------------------------------------------------
    @abstractmethod
    def dimensions(self, layout: str) -> tuple[Dimension, ...]:
        """The shape dimensions for a strategy of this layout."""

    def valid(self, shape: Shape) -> bool:
        """False for combinations that make no sense (e.g. ordering a read that has no local)."""
        return True

    def shapes(self, layout: str) -> list[Shape]:
        dims = self.dimensions(layout)
        implicit = tuple(d.implicit for d in dims if d.implicit)
        every = (
            Shape(tuple(zip((d.name for d in dims), values)), implicit)
            for values in itertools.product(*(d.values for d in dims))
        )
        return [s for s in every if self.valid(s)]

    def simplicity(self, shape: Shape, layout: str) -> int:
        """Lower is simpler: the sum of each value's position in its dimension."""
        dims = {d.name: d for d in self.dimensions(layout)}
        return sum(dims[k].values.index(v) for k, v in shape.dims if k in dims)

    def describe(self, shape: Shape, layout: str = "vector") -> str:
        if shape.name == AS_WRITTEN:
            return "the strategy file's own construct"
        dims = {d.name: d for d in self.dimensions(layout)}
        parts = [f"{k}={v}: {dims[k].meaning(v)}" for k, v in shape.dims if k in dims]
        if "forward" in shape.values:
            return "a no-update twin: the forward alone (for strategies that run as written)"
        if "layout" in shape.values:
            parts.insert(0, "a no-update twin: the same code, each written value kept alive")
        return "; ".join(parts)

    def cost_class(self, dims: dict) -> str:
        """Shapes of one class cost the same forward (the screen times one of each)."""
        return "-".join(str(dims.get(d, "")) for d in self.cost_dims)

    def meaning(self, shape: Shape, semantics: str = IN_PLACE) -> str:
        """What the shape's reads see under eager semantics (``before`` / ``after``)."""
        return self.intent

    def in_scope(self, shape: Shape) -> bool:
        """Shapes an answer must work in: those whose code means the cell's intent whatever the
        write (for the clip, the write after the read)."""
        return True

    def common(self, shape: Shape) -> bool:
        """The common shapes, those an answer must hold in (issue 51): in scope, the state read
        as the Parameter itself (no local alias, view or copy), ``construct`` defined in the
        cell's own class; the write anywhere (a plain statement, a helper method, inside
        ``ops.depend``). The gate's later checks (a second instance, two layers of a network)
        are part of every verdict. A strategy that fails only outside them is still the answer,
        its failing shapes listed as exceptions under it."""
        v = shape.values
        return (
            self.in_scope(shape)
            and v.get("read", "param") == "param"
            and v.get("construct", "own") == "own"
        )

    common_text = (
        "the common shapes: the write as a plain statement, in a helper method or inside "
        "ops.depend, the state read as the Parameter itself, construct in the cell's own class"
    )

    def twin(self, shape: Shape, layout: str) -> Shape:
        """The no-update twin of ``shape``: the same code minus the write (each written value
        kept alive), so the only difference in a timed pair is the write itself."""
        return Shape((("layout", layout), *shape.without(*TWIN_DROPS).dims))

    def layout_twins(self) -> list[Shape]:
        """The twins timed against the base twin: what the state's layout and read cost."""
        return []

    base_control = ""  # the twin every layout cell is compared with
    code_names: dict = {}  # write method -> the arguments a user's code passes (for the pages)
    scope_text = "every shape"  # the shapes an answer must work in (``in_scope``), in words
    base_shape: dict = {}  # the shape of the state class's own construct (inherited: "-base")

    def custom_twin(self, layout: str) -> Shape:
        """The twin of a strategy that runs as written (a host-side update, a construct of its
        own): the forward alone, so everything the strategy adds to it is its update's cost."""
        return Shape((("layout", layout), ("forward", "forward")))

    @abstractmethod
    def forward_source(self) -> str:
        """``construct`` of the forward alone: no new value, no write (the custom twin)."""

    @abstractmethod
    def construct_source(self, shape: Shape, emit: Emit) -> str:
        """The methods of the variant class (``construct`` and helpers), indented one level."""

    @abstractmethod
    def base_classes(self, strategy_class: str) -> str:
        """The bases of a variant class, e.g. ``ClipState, Cell``."""

    @abstractmethod
    def control_base(self) -> str:
        """The base class of a generated twin (the workload's state class)."""

    def expressible(self, strategy) -> str | None:
        """Why ``strategy`` cannot express this workload's updates, or None if it can."""
        if strategy.workloads is not None and self.name not in strategy.workloads:
            return f"it declares WORKLOADS = {strategy.workloads!r}"
        return None

    def bytes_moved(self, shape_values: dict, size: int) -> int | None:
        """Bytes a step's update must move (the physical floor), where that is meaningful."""
        return None

    # -- generated files ----------------------------------------------------------------------
    def _header(self, who: str, shape: Shape, layout: str) -> list[str]:
        return [
            HEADER,
            f"# {who} · workload {self.name} · layout {layout} · shape {shape.name}",
            *(f"#   {part}" for part in self.describe(shape, layout).split("; ")),
        ]

    def _imports(self, lines: list[str]) -> str:
        return "\n".join(i for i in self.template_imports if i and i not in lines)

    def render(self, strategy, shape: Shape) -> str:
        """The variant file of ``strategy`` in ``shape`` (raises Inexpressible)."""
        who = f"strategy `{strategy.name}` (strategies/{strategy.name}.py)"
        head = self._header(who, shape, strategy.layout)
        body = strategy_text(strategy.path)
        bases = self.base_classes("Cell")
        if shape.name == AS_WRITTEN:  # the strategy's own methods win over the workload's
            own = [m for m in ("construct", "after_step") if m in strategy.overridden]
            lines = "".join(f"    {m} = Cell.{m}\n" for m in own) or "    pass\n"
            cls = f"class Variant({bases}):\n{lines}"
        elif shape.values.get("construct") == "base":
            cls = f"class Variant({bases}):\n    pass  # construct inherited\n"
        else:
            emit = Emit(strategy.cell_class, set(self.reserved))
            cls = f"class Variant({bases}):\n{self.construct_source(shape, emit)}"
        imports = self._imports(body.splitlines())
        return "\n".join(head) + f"\n{imports}\n{body.rstrip()}\n\n\n{cls}"

    def _twin_render_shape(self, twin: Shape) -> Shape:
        names = {d.name for layout in ("scalar", "vector") for d in self.dimensions(layout)}
        dims = twin.without("layout").dims
        extra = (("write", "depend"),) if "write" in names else ()
        return Shape((*extra, *dims))

    def render_twin(self, twin: Shape) -> str:
        layout = twin.values["layout"]
        head = self._header("no-update twin (generated)", twin, layout)
        if "forward" in twin.values:
            methods = self.forward_source()
        else:
            methods = self.construct_source(
                self._twin_render_shape(twin), Emit(None, self.reserved)
            )
        return (
            "\n".join(head)
            + f"\n{self._imports([])}\n\n\nclass Variant({self.control_base()}):\n"
            + f"    layout = {layout!r}\n\n{methods}"
        )

    def variants(self, strategy, folder: Path, only=None) -> tuple[list[VariantFile], dict]:
        """Write every shape of ``strategy`` into ``folder``; (variants, {shape: why not})."""
        shapes = [Shape()] if strategy.custom else self.shapes(strategy.layout)
        semantics = strategy.semantics if not strategy.custom else IN_PLACE
        written, inexpressible = [], {}
        for shape in shapes:
            if only and shape.name not in only and shape.name != AS_WRITTEN:
                continue
            try:
                text = self.render(strategy, shape)
            except Inexpressible as why:
                inexpressible[shape] = str(why)
                continue
            path = Path(folder) / strategy.name / f"{shape.name}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            write_text(path, text)
            custom = shape.name == AS_WRITTEN
            meaning = self.intent if custom else self.meaning(shape, semantics)
            twin = (self.custom_twin if custom else partial(self.twin, shape))(strategy.layout)
            written.append(
                VariantFile(
                    self.name,
                    strategy.name,
                    shape,
                    strategy.layout,
                    str(path),
                    f"{CONTROL}/{twin.name}",
                    meaning=meaning,
                    intended=meaning == self.intent,
                )
            )
        return written, inexpressible

    def twin_variant(self, twin: Shape, folder: Path) -> VariantFile:
        path = Path(folder) / CONTROL / f"{twin.name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, self.render_twin(twin))
        return VariantFile(self.name, CONTROL, twin, twin.values["layout"], str(path), "", BEFORE)


class Workload(Template, Runtime):
    """A workload: its shapes (Template) and how it runs (Runtime)."""

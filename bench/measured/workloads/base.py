"""What a workload is: the computation, its NumPy reference, its state, and its code shapes.

A workload turns a strategy file into things to gate and time. It owns everything that is
specific to what the cell computes: the reference (per step: input, output, state before and
after), how the state is observed and copied, its default batch sizes and gate schedule, and the
template that renders ``construct`` in every code shape (``bench.measured.shapes``). The harness
(``bench.run``) and the report (``bench.report``) only talk to this interface.
"""

from __future__ import annotations

import itertools
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.measured.shapes import (
    AS_WRITTEN,
    CONTROL,
    HEADER,
    Dimension,
    Emit,
    Inexpressible,
    Shape,
    Variant,
    strategy_text,
)


@dataclass(frozen=True)
class Expected:
    """One reference step: input, output, and the state before and after."""

    inputs: tuple  # the step's input arrays (construct's arguments)
    output: np.ndarray
    before: dict[str, np.ndarray]
    after: dict[str, np.ndarray]
    hint: str = ""


class Workload(ABC):
    """The interface every workload implements (see the module docstring)."""

    name: str
    title: str  # one line for the report
    batch_sizes: tuple[int, ...]  # timed by default
    gate_schedule: tuple[tuple[int, int], ...]  # (batch size, steps) checked by the gate
    rtol: float
    atol: float
    state_names: tuple[str, ...]
    reserved: frozenset[str]  # local names the template uses (a pasted write avoids them)
    cost_dims: tuple[str, ...] = ("read",)  # dimensions that change what the forward costs
    template_imports: tuple[str, ...]  # what a variant's construct uses besides the strategy's
    control_imports: tuple[str, ...]  # what a generated control needs besides that

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
        if "layout" in shape.values:
            parts.insert(0, "a control: no write, the forward alone")
        return "; ".join(parts)

    @abstractmethod
    def control_shape(self, shape: Shape, layout: str) -> Shape:
        """The shape of the no-update twin: the dimensions that change the forward only."""

    @abstractmethod
    def construct_source(self, shape: Shape, emit: Emit) -> str:
        """The methods of the variant class (``construct`` and helpers), indented one level."""

    @abstractmethod
    def base_classes(self, strategy_class: str) -> str:
        """The bases of a variant class, e.g. ``Cell`` or ``BatchRenorm, Cell``."""

    @abstractmethod
    def control_base(self) -> str:
        """The base class of a generated control (a cell that writes nothing)."""

    def expressible(self, strategy) -> str | None:
        """Why ``strategy`` cannot express this workload's updates, or None if it can."""
        if strategy.workloads is not None and self.name not in strategy.workloads:
            return f"it declares WORKLOADS = {strategy.workloads!r}"
        return None

    # -- generated files ----------------------------------------------------------------------
    def _header(self, who: str, shape: Shape, layout: str) -> list[str]:
        return [
            HEADER,
            f"# {who} · workload {self.name} · layout {layout} · shape {shape.name}",
            *(f"#   {part}" for part in self.describe(shape, layout).split("; ")),
        ]

    def render(self, strategy, shape: Shape) -> str:
        """The variant file of ``strategy`` in ``shape`` (raises Inexpressible)."""
        who = f"strategy `{strategy.name}` (strategies/{strategy.name}.py)"
        head = self._header(who, shape, strategy.layout)
        body = strategy_text(strategy.path)
        if shape.name == AS_WRITTEN:  # the strategy's own methods win over the workload's
            own = [m for m in ("construct", "after_step") if m in _overridden(strategy.cell_class)]
            lines = "".join(f"    {m} = Cell.{m}\n" for m in own) or "    pass\n"
            cls = f"class Variant({self.base_classes('Cell')}):\n{lines}"
        elif shape.values.get("construct") == "base":
            cls = f"class Variant({self.base_classes('Cell')}):\n    pass  # construct inherited\n"
        else:
            emit = Emit(strategy.cell_class, set(self.reserved))
            methods = self.construct_source(shape, emit)
            cls = f"class Variant({self.base_classes('Cell')}):\n{methods}"
        lines = body.splitlines()
        imports = "\n".join(i for i in self.template_imports if i and i not in lines)
        return "\n".join(head) + f"\n{imports}\n{body.rstrip()}\n\n\n{cls}"

    def render_control(self, shape: Shape, layout: str) -> str:
        head = self._header("no-update control (generated)", shape, layout)
        methods = self.construct_source(shape, Emit(None, set(self.reserved)))
        imports = "\n".join([*self.template_imports, *self.control_imports])
        return (
            "\n".join(head)
            + f"\n{imports}\n\n\nclass Variant({self.control_base()}):\n"
            + f"    layout = {layout!r}\n\n{methods}"
        )

    def variants(self, strategy, folder: Path, only=None) -> tuple[list[Variant], dict]:
        """Write every shape of ``strategy`` into ``folder``; (variants, {shape: why not})."""
        shapes = [Shape()] if strategy.custom else self.shapes(strategy.layout)
        written, inexpressible = [], {}
        for shape in shapes:
            if only and shape.name not in only and shape.name != AS_WRITTEN:
                continue
            control = self.control_shape(shape, strategy.layout)
            try:
                text = self.render(strategy, shape)
            except Inexpressible as why:
                inexpressible[shape] = str(why)
                continue
            path = Path(folder) / strategy.name / f"{shape.name}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            written.append(
                Variant(
                    self.name,
                    strategy.name,
                    shape,
                    strategy.layout,
                    str(path),
                    f"{CONTROL}/{control.name}",
                )
            )
        return written, inexpressible

    def control_variant(self, shape: Shape, folder: Path) -> Variant:
        layout = shape.values.get("layout", "scalar")
        path = Path(folder) / CONTROL / f"{shape.name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.render_control(shape, layout))
        return Variant(self.name, CONTROL, shape, layout, str(path), "")

    # -- running ------------------------------------------------------------------------------
    size_label = "batch size"  # what the size a cell is timed at means
    size_symbol = "N"
    floor_kernel: str | None = None  # "copy" or "triad": the bandwidth that bounds the update
    base_control = "scalar-param"  # the control every layout cell and the screen compare with

    def build(self, variant_class, size: int | None = None):
        """A fresh cell and the Parameters it starts with (observed by identity, not by name).

        ``size`` is the state size for workloads whose state grows (KV cache, EMA)."""
        cell = variant_class()
        return cell, dict(cell.parameters_and_names())

    def make_input(self, n: int, seed: int, small: bool = False) -> np.ndarray:
        """The input batch; ``small`` = a cheap feature size for the gate."""
        raise NotImplementedError

    def make_inputs(self, size: int, seed: int, small: bool = False) -> tuple:
        """construct's arguments for one timed step at ``size``, as NumPy arrays."""
        return (self.make_input(size, seed, small),)

    def final_state(self, params: dict, size: int) -> dict:
        """What the timed cells check after their steps (compared with ``after_steps``)."""
        return {k: np.asarray(v).reshape(-1).tolist() for k, v in self.observe(params).items()}

    def bytes_moved(self, shape_values: dict, size: int) -> int | None:
        """Bytes a step's update must move (the physical floor), where that is meaningful."""
        return None

    @abstractmethod
    def reference(
        self, n: int, steps: int, seed: int, update=True, small=False
    ) -> Iterator[Expected]:
        """The expected output and state for each of ``steps`` steps at batch size ``n``."""

    def observe(self, params: dict) -> dict[str, np.ndarray]:
        """The state (float32 arrays) read from the Parameters a cell started with."""
        return {n: params[n].asnumpy().astype(np.float32).reshape(-1) for n in self.state_names}

    @abstractmethod
    def probe(self, params: dict):
        """The Parameter a step writes last: reading it waits for the step's writes."""

    def copy_state(self, source: dict, target: dict) -> None:  # noqa: B027 - optional hook
        """Make the control's state the subject's when the step's cost depends on it."""

    @abstractmethod
    def after_steps(self, steps: int, n: int, update: bool = True) -> dict[str, np.ndarray]:
        """The state after ``steps`` steps at batch size ``n`` (for the timed cells' check)."""

    @abstractmethod
    def driver(self) -> str:
        """The ``if __name__ == "__main__"`` part of a reproduction script."""


def _overridden(cell_class) -> set[str]:
    """The methods a strategy's Cell defines itself instead of inheriting ClipCell's."""
    from bench.measured.workloads.clip.cell import ClipCell

    return {
        m for m in ("construct", "after_step") if getattr(cell_class, m) is not getattr(ClipCell, m)
    }

"""Execution modes: how a process selects one, how a cell is prepared in it, and every fact the
harness and the report need of a mode (one table: ``MODES``)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mode:
    name: str
    label: str  # MindSpore's own name for it, as a user writes it
    context_mode: str  # name of the mindspore constant passed to set_context(mode=...)
    description: str
    capture_mode: str | None = None  # mindspore.jit(cell.construct, capture_mode=...) in PYNATIVE
    blocking: bool = False  # mindspore.runtime.launch_blocking(): ops run synchronously
    min_steps: int = 1  # a timed block runs at least this many steps (see PYNATIVE below)
    compiled: bool = False  # a graph is built: gated in two processes (capture can differ)
    diagnostic: bool = False  # a controlled configuration, not a mode users run
    concurrent: bool = False  # two timing processes at once measured harmless (findings/)
    distribution: bool = False  # timed at a fixed budget and reported as quartiles
    # every race in a timing process of its own: under bytecode capture a later instance of a
    # class can run the first instance's graph (findings/bytecode_parameter_tuple.py), so the
    # races of the other sizes in the same process would time the first size's state
    race_per_process: bool = False

    @property
    def eager(self) -> bool:
        return not self.compiled

    def activate(self) -> None:
        """Select this mode for the process (MindSpore's context is process-global)."""
        import mindspore as ms

        ms.set_context(mode=getattr(ms, self.context_mode))
        if self.blocking:
            launch_blocking = getattr(getattr(ms, "runtime", None), "launch_blocking", None)
            if launch_blocking is not None:
                launch_blocking()
            else:  # older releases: the deprecated equivalent
                ms.set_context(pynative_synchronize=True)

    def prepare(self, cell, fullgraph: bool = False):
        """Return the callable that runs one step of ``cell`` in this mode."""
        if self.capture_mode:
            import mindspore as ms

            options = {"fullgraph": True} if fullgraph else {}
            cell.construct = ms.jit(cell.construct, capture_mode=self.capture_mode, **options)
        return cell


# The mode names: the one place they are spelled (everything else uses these or MODES).
GRAPH, PYNATIVE, JIT_AST = "graph", "pynative", "jit_ast"
JIT_BYTECODE, PYNATIVE_BLOCKING = "jit_bytecode", "pynative_blocking"

MODES = {
    GRAPH: Mode(
        GRAPH,
        "GRAPH_MODE",
        "GRAPH_MODE",
        "set_context(mode=GRAPH_MODE): the cell is compiled",
        compiled=True,
    ),
    # PYNATIVE as users run it: ops go through queue threads that busy-wait, and some ops
    # (assign, assign_add, stop_gradient, set_data) drain the queue. On a 2-core machine a block
    # of a few steps is dominated by one drain (~4 ms scheduler slices), so blocks run >= 64 steps
    # and the numbers are a distribution (findings/README.md).
    PYNATIVE: Mode(
        PYNATIVE,
        "PYNATIVE_MODE",
        "PYNATIVE_MODE",
        "set_context(mode=PYNATIVE_MODE): eager, as users run it",
        min_steps=64,
        distribution=True,
    ),
    JIT_AST: Mode(
        JIT_AST,
        'jit(capture_mode="ast")',
        "PYNATIVE_MODE",
        'PYNATIVE + cell.construct = jit(construct, capture_mode="ast")',
        capture_mode="ast",
        compiled=True,
    ),
    JIT_BYTECODE: Mode(
        JIT_BYTECODE,
        'jit(capture_mode="bytecode")',
        "PYNATIVE_MODE",
        'PYNATIVE + cell.construct = jit(construct, capture_mode="bytecode")',
        capture_mode="bytecode",
        compiled=True,
        race_per_process=True,
    ),
    # The controlled configuration: launch_blocking() runs every op synchronously, no queue
    # threads. Its numbers are stable on 2 cores; they are not what a default user sees.
    PYNATIVE_BLOCKING: Mode(
        PYNATIVE_BLOCKING,
        "PYNATIVE_MODE + launch_blocking()",
        "PYNATIVE_MODE",
        "PYNATIVE + mindspore.runtime.launch_blocking(): ops run synchronously (diagnostic)",
        blocking=True,
        diagnostic=True,
    ),
}
MODE_NAMES = tuple(MODES)


def get(name: str) -> Mode:
    try:
        return MODES[name]
    except KeyError:
        raise ValueError(f"unknown mode {name!r} (valid: {', '.join(MODES)})") from None


def label(name: str) -> str:
    """MindSpore's name of a mode (its own key when the mode is unknown)."""
    return MODES[name].label if name in MODES else str(name)

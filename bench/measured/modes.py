"""Execution modes: how the process's context is set and how a cell is prepared to run."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mode:
    name: str
    context_mode: str  # name of the mindspore constant passed to set_context(mode=...)
    description: str
    capture_mode: str | None = None  # mindspore.jit(cell.construct, capture_mode=...) in PYNATIVE
    blocking: bool = False  # mindspore.runtime.launch_blocking(): ops run synchronously
    min_steps: int = 1  # a timed block runs at least this many steps (see PYNATIVE below)

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

    def prepare(self, cell):
        """Return the callable that runs one step of ``cell`` in this mode."""
        if self.capture_mode:
            import mindspore as ms

            cell.construct = ms.jit(cell.construct, capture_mode=self.capture_mode)
        return cell


MODES = {
    "graph": Mode("graph", "GRAPH_MODE", "set_context(mode=GRAPH_MODE): the cell is compiled"),
    # PYNATIVE as users run it: ops go through queue threads that busy-wait, and some ops
    # (assign, assign_add, stop_gradient, set_data) drain the queue. On a 2-core machine a block
    # of a few steps is dominated by one drain (~4 ms scheduler slices), so blocks run >= 64 steps.
    "pynative": Mode(
        "pynative",
        "PYNATIVE_MODE",
        "set_context(mode=PYNATIVE_MODE): eager, as users run it",
        min_steps=64,
    ),
    # The controlled configuration: launch_blocking() runs every op synchronously, no queue
    # threads. Its numbers are stable on 2 cores; they are not what a default user sees.
    "pynative_blocking": Mode(
        "pynative_blocking",
        "PYNATIVE_MODE",
        "PYNATIVE + mindspore.runtime.launch_blocking(): ops run synchronously (controlled)",
        blocking=True,
    ),
    "jit_ast": Mode(
        "jit_ast",
        "PYNATIVE_MODE",
        'PYNATIVE + cell.construct = jit(construct, capture_mode="ast")',
        capture_mode="ast",
    ),
    "jit_bytecode": Mode(
        "jit_bytecode",
        "PYNATIVE_MODE",
        'PYNATIVE + cell.construct = jit(construct, capture_mode="bytecode")',
        capture_mode="bytecode",
    ),
}
MODE_NAMES = tuple(MODES)


def get(name: str) -> Mode:
    try:
        return MODES[name]
    except KeyError:
        raise ValueError(f"unknown mode {name!r} (valid: {', '.join(MODES)})") from None

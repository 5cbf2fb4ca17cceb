"""Execution modes: how the process's context is set and how a cell is prepared to run."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Mode:
    name: str
    context_mode: str  # name of the mindspore constant passed to set_context(mode=...)
    description: str
    capture_mode: str | None = None  # mindspore.jit(cell.construct, capture_mode=...) in PYNATIVE

    def activate(self) -> None:
        """Select this mode for the process (MindSpore's context is process-global)."""
        import mindspore as ms

        ms.set_context(mode=getattr(ms, self.context_mode))

    def prepare(self, cell):
        """Return the callable that runs one step of ``cell`` in this mode."""
        if self.capture_mode:
            import mindspore as ms

            cell.construct = ms.jit(cell.construct, capture_mode=self.capture_mode)
        return cell


MODES = {
    "graph": Mode("graph", "GRAPH_MODE", "set_context(mode=GRAPH_MODE): the cell is compiled"),
    "pynative": Mode("pynative", "PYNATIVE_MODE", "set_context(mode=PYNATIVE_MODE): eager"),
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

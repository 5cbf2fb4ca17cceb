"""Execution modes: how the process's context is set and how a cell is prepared to run."""

from __future__ import annotations

from dataclasses import dataclass

MODE_NAMES = ("graph", "pynative")


@dataclass(frozen=True)
class Mode:
    name: str
    context_mode: str  # name of the mindspore constant passed to set_context(mode=...)
    description: str

    def activate(self) -> None:
        """Select this mode for the process (MindSpore's context is process-global)."""
        import mindspore as ms

        ms.set_context(mode=getattr(ms, self.context_mode))

    def prepare(self, cell):
        """Return the callable that runs one step of ``cell`` in this mode."""
        return cell


MODES = {
    "graph": Mode("graph", "GRAPH_MODE", "set_context(mode=GRAPH_MODE): the cell is compiled"),
    "pynative": Mode("pynative", "PYNATIVE_MODE", "set_context(mode=PYNATIVE_MODE): eager"),
}


def get(name: str) -> Mode:
    try:
        return MODES[name]
    except KeyError:
        raise ValueError(f"unknown mode {name!r} (valid: {', '.join(MODES)})") from None

"""The user's file: ``PATH.py:CellName`` parsed, loaded and checked (``BadInput`` otherwise).

The module is registered in ``sys.modules`` under its file's stem before anything compiles it:
GRAPH_MODE re-imports a Cell's module by name (DESIGN.md §2)."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path


class BadInput(ValueError):
    """The check cannot run on what it was given (exit 2, nothing written)."""


@dataclass
class Target:
    path: Path
    cell_name: str
    module: object = None

    @property
    def cls(self):
        return getattr(self.module, self.cell_name)

    def make_cell(self):
        return self.module.make_cell()

    def make_inputs(self, step: int):
        return self.module.make_inputs(step)

    @property
    def source(self) -> str:
        return self.path.read_text()


def parse(spec: str) -> tuple[Path, str]:
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise BadInput(f"expected PATH.py:CellName, got {spec!r}")
    if not name.isidentifier():
        raise BadInput(f"{name!r} is not a Python class name (in {spec!r})")
    return Path(path), name


def load(spec: str) -> Target:
    """Import the user's file and check it defines what the check needs."""
    path, name = parse(spec)
    if not path.is_file():
        raise BadInput(f"no such file: {str(path)!r}")
    if path.suffix != ".py":
        raise BadInput(f"{str(path)!r} is not a Python file (.py)")
    module_name = path.stem
    if not module_name.isidentifier():
        raise BadInput(f"{path.name!r}: the file name must be a Python module name")
    known = sys.modules.get(module_name)
    if known is not None and getattr(known, "__file__", None) != str(path.resolve()):
        raise BadInput(
            f"{path.name!r} has the name of an installed module ({module_name!r}); rename the file"
        )
    spec_ = importlib.util.spec_from_file_location(module_name, path.resolve())
    module = importlib.util.module_from_spec(spec_)
    sys.modules[module_name] = module  # before anything compiles the Cell (DESIGN.md)
    try:
        spec_.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[module_name]
        raise BadInput(
            f"{str(path)!r} does not import: {type(exc).__name__}: {exc}".strip()
        ) from exc
    target = Target(path.resolve(), name, module)
    cls = getattr(module, name, None)
    if cls is None:
        classes = [n for n, v in vars(module).items() if inspect.isclass(v) and
                   v.__module__ == module_name]  # fmt: skip
        raise BadInput(
            f"{path.name!r} defines no {name!r}"
            + (f" (classes there: {', '.join(classes)})" if classes else "")
        )
    from mindspore import nn

    if not (inspect.isclass(cls) and issubclass(cls, nn.Cell)):
        raise BadInput(f"{name!r} in {path.name!r} is not a mindspore.nn.Cell subclass")
    needed = (
        ("make_cell", "make_cell() returns the Cell to check"),
        ("make_inputs", "make_inputs(step) returns a tuple of the step's inputs"),
    )
    for fn, how in needed:
        if not callable(getattr(module, fn, None)):
            raise BadInput(f"{path.name!r} has no {fn}(): define one ({how})")
    return target

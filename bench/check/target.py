"""The user's file: ``PATH.py:CellName`` parsed, loaded and checked (``BadInput`` otherwise).

The module is registered in ``sys.modules`` under its file's stem before anything compiles it:
GRAPH_MODE re-imports a Cell's module by name (DESIGN.md §2)."""

from __future__ import annotations

import importlib.util
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

# What ``--inputs SHAPE:DTYPE,...`` generates (the check runs this code, and the repro inlines
# it as the file's ``make_inputs``): step ``s`` draws from ``default_rng(s)``, floats standard
# normal, integers in [0, 10), booleans fair.
INPUTS_SOURCE = """
INPUT_SPECS = {specs!r}  # (shape, dtype) of each input, from --inputs


def make_inputs(step):
    rng = np.random.default_rng(step)
    out = []
    for shape, dtype in INPUT_SPECS:
        kind = np.dtype(dtype).kind
        if kind == "f":
            out.append(rng.standard_normal(shape).astype(dtype))
        elif kind == "b":
            out.append(rng.random(shape) < 0.5)
        else:
            out.append(rng.integers(0, 10, shape).astype(dtype))
    return tuple(out)
"""
DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")


class BadInput(ValueError):
    """The check cannot run on what it was given (exit 2, nothing written)."""


def parse_inputs(texts: list[str]) -> tuple[tuple[tuple[int, ...], str], ...]:
    """``["4x3x32x32:float32", "4:int32,2x2"]`` -> ((shape, dtype), ...) (dtype default
    float32; ``scalar`` for a 0-d input)."""
    specs = []
    for text in texts:
        for item in filter(None, (t.strip() for t in text.split(","))):
            shape_text, _, dtype = item.partition(":")
            dtype = dtype or "float32"
            if dtype not in DTYPES:
                raise BadInput(f"--inputs {item!r}: unknown dtype {dtype!r} (one of "
                               f"{', '.join(DTYPES)})")  # fmt: skip
            if shape_text == "scalar":
                shape: tuple[int, ...] = ()
            else:
                dims = shape_text.lower().split("x")
                if not all(d.isdigit() and int(d) > 0 for d in dims):
                    raise BadInput(f"--inputs {item!r}: expected a shape like 4x3x32x32 (or "
                                   "'scalar'), then an optional :dtype")  # fmt: skip
                shape = tuple(int(d) for d in dims)
            specs.append((shape, dtype))
    return tuple(specs)


def spec_inputs_source(specs) -> str:
    """The ``make_inputs`` of ``--inputs`` as source (run by the check, inlined by the repro)."""
    return INPUTS_SOURCE.format(specs=tuple(specs))


@dataclass
class Target:
    path: Path
    cell_name: str
    module: object = None
    input_specs: tuple = ()  # --inputs: (shape, dtype) per input, instead of make_inputs
    _generated: dict = field(default_factory=dict, repr=False)

    def __reduce__(self):
        """A spawned child loads the user's file again (a module does not pickle)."""
        return _reload, (str(self.path), self.cell_name, self.input_specs)

    @property
    def cls(self):
        return getattr(self.module, self.cell_name)

    def make_cell(self):
        return self.module.make_cell()

    def make_inputs(self, step: int):
        if self.input_specs:
            if "make_inputs" not in self._generated:
                self._generated["np"] = np
                exec(spec_inputs_source(self.input_specs), self._generated)
            return self._generated["make_inputs"](step)
        return self.module.make_inputs(step)

    @property
    def inputs_source(self) -> str:
        """Source of the ``make_inputs`` the repro needs beside the user's file ("" when the file
        defines it)."""
        return spec_inputs_source(self.input_specs) if self.input_specs else ""

    @property
    def source(self) -> str:
        return self.path.read_text(encoding="utf-8")


def _reload(path: str, cell_name: str, input_specs: tuple) -> Target:
    """The ``Target`` of a parent, in a spawned child: the same file loaded the same way."""
    return load(f"{path}:{cell_name}", input_specs)


def parse(spec: str) -> tuple[Path, str]:
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise BadInput(f"expected PATH.py:CellName, got {spec!r}")
    if not name.isidentifier():
        raise BadInput(f"{name!r} is not a Python class name (in {spec!r})")
    return Path(path), name


def load(spec: str, input_specs: tuple = ()) -> Target:
    """Import the user's file and check it defines what the check needs (``make_inputs`` unless
    ``input_specs`` say how to make the inputs)."""
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
    except (Exception, SystemExit) as exc:  # SyntaxError, ImportError, whatever its code raises
        del sys.modules[module_name]
        raise BadInput(
            f"{str(path)!r} does not import: {type(exc).__name__}: {exc}".strip()
        ) from exc
    target = Target(path.resolve(), name, module, tuple(input_specs))
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
        if fn == "make_inputs" and input_specs:
            continue
        if not callable(getattr(module, fn, None)):
            also = " or give --inputs SHAPE:DTYPE" if fn == "make_inputs" else ""
            raise BadInput(f"{path.name!r} has no {fn}(): define one ({how}){also}")
    return target

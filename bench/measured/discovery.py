"""Find strategies: every ``*.py`` module in a folder that defines ``Cell`` and ``DESCRIPTION``.

Names come from file names, so listing strategies needs no import (and no MindSpore); loading one
imports only that file. A module that fails to load, or breaks the contract, is reported by name
with the reason. The contract (README, "Add a strategy"):

- ``class Cell(ClipCell)`` (from ``bench.cell``) with ``write(self, param, value)``: how one value
  is written into one Parameter. The harness pastes or calls it in every code shape.
- ``layout = "vector"`` when the API needs a 1-element vector Parameter (index ops); it also picks
  the no-update control the strategy is timed against (same layout, same read).
- A Cell that overrides ``construct`` or ``after_step`` is run as written (one shape) and must say
  which workloads it fits: ``WORKLOADS = ("clip",)``.
- ``EXPECTED_FAILURES``: ``{"[workload/][shape/]mode": "regex"}``; the regex is searched in the
  gate's finding, ``"<status>: <detail>"``. ``--gate-only`` prints the exact lines to paste.
"""

from __future__ import annotations

import fnmatch
import importlib.util
import re
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from bench.core.paths import STRATEGIES_DIR


@dataclass(frozen=True)
class Strategy:
    """One loaded strategy module: its cell class and what it declares."""

    name: str
    description: str
    cell_class: type
    expected_failures: dict[str, str] = field(default_factory=dict)
    path: Path | None = None
    workloads: tuple[str, ...] | None = None  # None: every workload (through write)
    custom: bool = False  # overrides construct or after_step: run as written, one shape
    api: str = ""  # the documented MindSpore API its write uses (API = "mindspore.ops.assign")

    @property
    def layout(self) -> str:
        return self.cell_class.layout

    def facts(self) -> dict:
        """What the report needs to know of the strategy (it reads no strategy file itself)."""
        import ast
        import inspect
        import textwrap

        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(self.cell_class.write)))
            size = sum(1 for _ in ast.walk(tree))
        except (OSError, TypeError, SyntaxError):
            size = 0
        return {
            "description": self.description,
            "layout": self.layout,
            "api": self.api,
            "custom": self.custom,
            "workloads": self.workloads,
            "write_size": size,
        }

    def expected(self, workload: str, shape: str, mode: str) -> str | None:
        """The declared failure's regex for this cell; the most specific key wins."""
        found = []
        for key, regex in self.expected_failures.items():
            parts = key.split("/")
            if len(parts) == 1:
                pattern = ["*", "*", parts[0]]
            elif len(parts) == 2:
                pattern = [parts[0], "*", parts[1]]
            else:
                pattern = parts
            values = (workload, shape, mode)
            if all(fnmatch.fnmatchcase(v, p) for v, p in zip(values, pattern)):
                found.append((len(parts), regex))
        return max(found, key=lambda f: f[0])[1] if found else None


class StrategyLoadError(Exception):
    """A strategy module could not be imported or does not follow the contract."""

    def __init__(self, name: str, reason: str):
        super().__init__(f"strategy {name!r} failed to load: {reason}")
        self.name = name
        self.reason = reason


def strategy_names(folder: Path = STRATEGIES_DIR) -> list[str]:
    """Names of the candidate strategy modules in ``folder`` (``_private`` files skipped)."""
    return sorted(p.stem for p in Path(folder).glob("*.py") if not p.stem.startswith("_"))


def _import(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"strategies_{name}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[spec.name]
        raise
    return module


def _check_expected(name: str, expected) -> dict[str, str]:
    if not isinstance(expected, dict):
        raise StrategyLoadError(name, "EXPECTED_FAILURES must be a dict {key: regex}")
    for key, regex in expected.items():
        if (
            not (isinstance(key, str) and isinstance(regex, str))
            or not 1 <= len(key.split("/")) <= 3
        ):
            raise StrategyLoadError(
                name,
                f"EXPECTED_FAILURES key {key!r}: use 'mode', 'workload/mode' or "
                "'workload/shape/mode' (globs allowed) with a regex string",
            )
        try:
            re.compile(regex)
        except re.error as exc:
            raise StrategyLoadError(
                name,
                f"EXPECTED_FAILURES[{key!r}] is not a valid regex ({exc}); "
                "escape pasted error text with re.escape",
            ) from None
    return dict(expected)


def load(name: str, folder: Path = STRATEGIES_DIR) -> Strategy:
    """Import one strategy module and check its contract; raise StrategyLoadError if it fails."""
    path = Path(folder) / f"{name}.py"
    if not path.is_file():
        valid = ", ".join(strategy_names(folder)) or "(none)"
        raise StrategyLoadError(name, f"no file {path} (known: {valid})")
    try:
        module = _import(name, path)
    except Exception as exc:  # a broken user file must not take the suite down
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        raise StrategyLoadError(name, last) from exc
    if getattr(module, "CONTROL", False):
        raise StrategyLoadError(
            name,
            "CONTROL files are not needed: the harness generates each strategy's "
            "no-update twin (same layout, same read) itself",
        )
    missing = [attr for attr in ("Cell", "DESCRIPTION") if not hasattr(module, attr)]
    if missing:
        raise StrategyLoadError(name, f"module does not define {', '.join(missing)}")
    from bench.measured.workloads.clip.cell import LAYOUTS, ClipCell

    cell_class = module.Cell
    if not (isinstance(cell_class, type) and issubclass(cell_class, ClipCell)):
        raise StrategyLoadError(name, "Cell must be a subclass of bench.cell.ClipCell")
    if cell_class.layout not in LAYOUTS:
        raise StrategyLoadError(
            name, f"unknown layout {cell_class.layout!r} (one of {list(LAYOUTS)})"
        )
    overridden = [
        m for m in ("construct", "after_step") if getattr(cell_class, m) is not getattr(ClipCell, m)
    ]
    workloads = tuple(module.WORKLOADS) if hasattr(module, "WORKLOADS") else None
    if overridden and workloads is None:
        raise StrategyLoadError(
            name,
            f"Cell overrides {' and '.join(overridden)}, so it runs as written and cannot "
            "be reshaped or mixed into other workloads: say which workloads it fits, e.g. "
            'WORKLOADS = ("clip",)',
        )
    return Strategy(
        name=name,
        description=str(module.DESCRIPTION),
        cell_class=cell_class,
        expected_failures=_check_expected(name, getattr(module, "EXPECTED_FAILURES", {})),
        path=path,
        workloads=workloads,
        custom=bool(overridden),
        api=str(getattr(module, "API", "")),
    )


def discover(folder: Path = STRATEGIES_DIR) -> tuple[list[Strategy], list[StrategyLoadError]]:
    """Load every strategy in ``folder``; the broken ones come back as errors, not exceptions."""
    loaded, broken = [], []
    for name in strategy_names(folder):
        try:
            loaded.append(load(name, folder))
        except StrategyLoadError as err:
            broken.append(err)
    return loaded, broken

"""Find strategies: every ``*.py`` module in a folder that defines ``Cell`` and ``DESCRIPTION``.

Names come from file names, so listing strategies needs no import (and no MindSpore); loading one
imports only that file. A module that fails to load is reported by name with its error.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

STRATEGIES_DIR = Path(__file__).resolve().parent.parent / "strategies"


@dataclass(frozen=True)
class Strategy:
    """One loaded strategy module: its cell class and what it declares."""

    name: str
    description: str
    cell_class: type
    # "<mode>" or "<workload>/<mode>" -> regex of the declared failure: the error raised, or the
    # gate's "incorrect" detail
    expected_failures: dict[str, str] = field(default_factory=dict)
    control: bool = False
    path: Path | None = None
    workloads: tuple[str, ...] | None = None  # None: every workload (through write)

    @property
    def layout(self) -> str:
        return self.cell_class.layout

    def expected_failure(self, workload: str, mode: str) -> str | None:
        """The declared failure in ``mode``: key ``"<workload>/<mode>"``, else ``"<mode>"``."""
        return self.expected_failures.get(f"{workload}/{mode}", self.expected_failures.get(mode))


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
    missing = [attr for attr in ("Cell", "DESCRIPTION") if not hasattr(module, attr)]
    if missing:
        raise StrategyLoadError(name, f"module does not define {', '.join(missing)}")
    from bench.cell import LAYOUTS, ClipCell

    cell_class = module.Cell
    if not (isinstance(cell_class, type) and issubclass(cell_class, ClipCell)):
        raise StrategyLoadError(name, "Cell must be a subclass of bench.cell.ClipCell")
    if cell_class.layout not in LAYOUTS:
        raise StrategyLoadError(
            name, f"unknown layout {cell_class.layout!r} (one of {list(LAYOUTS)})"
        )
    expected = dict(getattr(module, "EXPECTED_FAILURES", {}))
    return Strategy(
        name=name,
        description=str(module.DESCRIPTION),
        cell_class=cell_class,
        expected_failures=expected,
        control=bool(getattr(module, "CONTROL", False)),
        path=path,
        workloads=tuple(module.WORKLOADS) if hasattr(module, "WORKLOADS") else None,
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

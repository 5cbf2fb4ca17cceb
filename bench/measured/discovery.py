"""Find strategies: every ``*.py`` module in a folder that defines ``Cell`` and ``DESCRIPTION``.

Names come from file names, so listing strategies needs no import (and no MindSpore); loading one
imports only that file. A module that fails to load, or breaks the contract, is reported by name
with one reason per broken rule. The contract is the table ``CONTRACT`` below: load checks it,
and README's list ("Add a strategy") is generated from it (``contract_lines``).

What a strategy does in each mode is not part of the file: the gate observes it, and the expected
verdicts of a MindSpore release live in ``expected/`` (``bench.core.expected``).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import sys
import textwrap
import traceback
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from bench.core.paths import STRATEGIES_DIR
from bench.measured import apis
from bench.measured.shapes.codegen import semantics_check, write_semantics

CUSTOM_METHODS = ("construct", "after_step")
PRIVATE = "_"  # files whose names start with it are skipped (with a note)

# The contract of a strategy file: (rule, what README says). ``load`` refuses a file with one
# message per broken rule; README's list is generated from this table.
CONTRACT = (
    (
        "Cell",
        "`class Cell(Strategy)` (from `bench.strategy`; files that subclass `bench.cell.ClipCell`, "
        "the same class, still load).",
    ),
    (
        "write",
        "`write(self, param, value)` of its own: how one value is written into one Parameter (the "
        "base class writes nothing, so a Cell that does not override it is refused); "
        "`write_row(self, param, index, row)` too when it can write one row of a cache.",
    ),
    (
        "DESCRIPTION",
        '`DESCRIPTION = "..."`: one line saying what the write does (the report shows it).',
    ),
    (
        "layout",
        '`layout = "vector"` when the API needs 1-element vector Parameters (index ops).',
    ),
    (
        "API",
        '`API = "mindspore.ops.assign_add"`: the documented API the write uses. It must be listed '
        "in `bench/measured/apis.py` (platforms, page, and whether it writes in place or "
        "replaces): a new API needs an entry there. Without `API`, the write's semantics are "
        "guessed from its source (with a warning).",
    ),
    (
        "WORKLOADS",
        "A `Cell` that overrides `construct` or `after_step` runs as written, in one shape, and "
        'must say which workloads it fits: `WORKLOADS = ("clip",)` (it needs no `write`).',
    ),
    (
        "private",
        f"A file whose name starts with `{PRIVATE}` is not a strategy: it is skipped, with a note.",
    ),
)


def contract_lines() -> list[str]:
    """README's list of the contract, from ``CONTRACT`` (wrapped at 100 columns)."""
    import textwrap as tw

    out = []
    for _, text in CONTRACT:
        out += tw.wrap(text, 100, initial_indent="- ", subsequent_indent="  ")
    return out


@dataclass(frozen=True)
class StrategyFile:
    """One loaded strategy module: its cell class and what it declares."""

    name: str
    description: str
    cell_class: type
    path: Path | None = None
    workloads: tuple[str, ...] | None = None  # None: every workload (through write)
    overridden: tuple[str, ...] = ()  # construct / after_step of its own: run as written
    api: str = ""  # the documented MindSpore API its write uses (API = "mindspore.ops.assign")

    @property
    def custom(self) -> bool:
        return bool(self.overridden)

    @property
    def layout(self) -> str:
        return self.cell_class.layout

    @property
    def semantics(self) -> str:
        """How its write changes a Parameter (``apis.IN_PLACE`` / ``apis.REPLACE``): as its API's
        page says; guessed from its source only for a strategy that names no API."""
        declared = apis.writes(self.api)
        if declared:
            return declared
        scanned = write_semantics(self.cell_class)
        return scanned if scanned in apis.SEMANTICS else apis.IN_PLACE

    def semantics_warning(self) -> str:
        """Why the declared semantics may be wrong for this file (``""`` when the source agrees)."""
        if self.custom:
            return ""
        return semantics_check(apis.writes(self.api), self.cell_class, self.api)

    def code(self, method: str) -> str:
        """The body of one of its methods, as a user would write it (``""`` if it has none)."""
        func = self.cell_class.__dict__.get(method) or getattr(self.cell_class, method, None)
        if func is None or (method == "write_row" and not hasattr(self.cell_class, method)):
            return ""
        try:
            node = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
        except (OSError, TypeError, SyntaxError):
            return ""
        body = [
            s
            for s in node.body
            if not isinstance(s, ast.Expr)
            or not isinstance(getattr(s, "value", None), ast.Constant)
        ]
        return "\n".join(ast.unparse(s) for s in body)

    def facts(self) -> dict:
        """What the report needs to know of the strategy (it reads no strategy file itself)."""
        code = {m: self.code(m) for m in ("write", "write_row", *self.overridden)}
        size = sum(len(list(ast.walk(ast.parse(c)))) for c in code.values() if c)
        doc = apis.doc(self.api)
        return {
            "description": self.description,
            "layout": self.layout,
            "api": self.api,
            "custom": self.custom,
            "workloads": self.workloads,
            "write_size": size,
            "semantics": self.semantics if not self.custom else "",
            "code": {k: v for k, v in code.items() if v},
            "platforms": list(doc.platforms) if doc else [],
            "doc_url": doc.url if doc else "",
            "doc_note": doc.note if doc else "",
            "deprecated": doc.deprecated if doc else False,
        }


class StrategyLoadError(Exception):
    """A strategy module could not be imported or does not follow the contract."""

    def __init__(self, name: str, reason: str):
        super().__init__(f"strategy {name!r} failed to load: {reason}")
        self.name = name
        self.reason = reason


def strategy_names(folder: Path = STRATEGIES_DIR) -> list[str]:
    """Names of the candidate strategy modules in ``folder`` (``_private`` files skipped)."""
    return sorted(p.stem for p in Path(folder).glob("*.py") if not p.stem.startswith(PRIVATE))


def skipped_notes(folder: Path = STRATEGIES_DIR) -> list[str]:
    """A note for every ``_private`` file of ``folder``, which is not loaded as a strategy."""
    return [
        f"note: {p.name} skipped: a file whose name starts with {PRIVATE!r} is not a strategy"
        for p in sorted(Path(folder).glob(f"{PRIVATE}*.py"))
        if p.name != "__init__.py"
    ]


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


def load(name: str, folder: Path = STRATEGIES_DIR) -> StrategyFile:
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
            "CONTROL files are not needed: the harness generates each shape's no-update twin",
        )
    from bench.strategy import LAYOUTS, Strategy

    broken = []
    cell_class = getattr(module, "Cell", None)
    if cell_class is None:
        broken.append("module does not define Cell (class Cell(Strategy))")
    elif not (isinstance(cell_class, type) and issubclass(cell_class, Strategy)):
        broken.append("Cell must be a subclass of bench.strategy.Strategy")
        cell_class = None
    if not hasattr(module, "DESCRIPTION"):
        broken.append('module does not define DESCRIPTION (one line: DESCRIPTION = "...")')
    api = str(getattr(module, "API", ""))
    if api and apis.doc(api) is None:
        broken.append(
            f"API {api!r} is not in bench/measured/apis.py: add an ApiDoc for it there "
            "(platforms, page, writes=IN_PLACE or REPLACE, and the words of the page), "
            "or leave API out"
        )
    overridden, workloads = (), None
    if cell_class is not None:
        if cell_class.layout not in LAYOUTS:
            broken.append(f"unknown layout {cell_class.layout!r} (one of {list(LAYOUTS)})")
        overridden = tuple(
            m for m in CUSTOM_METHODS if getattr(cell_class, m) is not getattr(Strategy, m)
        )
        workloads = tuple(module.WORKLOADS) if hasattr(module, "WORKLOADS") else None
        if overridden and workloads is None:
            broken.append(
                f"Cell overrides {' and '.join(overridden)}, so it runs as written and cannot "
                "be reshaped or mixed into other workloads: say which workloads it fits, e.g. "
                'WORKLOADS = ("clip",)'
            )
        if not overridden and cell_class.write is Strategy.write:
            broken.append(
                "Cell does not define write(self, param, value): the base class writes nothing"
            )
    if broken:
        raise StrategyLoadError(name, "; ".join(broken))
    return StrategyFile(
        name=name,
        description=str(module.DESCRIPTION),
        cell_class=cell_class,
        path=path,
        workloads=workloads,
        overridden=overridden,
        api=api,
    )


def discover(folder: Path = STRATEGIES_DIR) -> tuple[list[StrategyFile], list[StrategyLoadError]]:
    """Load every strategy in ``folder``; the broken ones come back as errors, not exceptions."""
    loaded, broken = [], []
    for name in strategy_names(folder):
        try:
            loaded.append(load(name, folder))
        except StrategyLoadError as err:
            broken.append(err)
    return loaded, broken

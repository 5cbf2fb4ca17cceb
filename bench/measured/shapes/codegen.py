"""Paste a strategy's write into a workload's template; read a generated variant back.

A strategy's ``write(self, param, value)`` body is taken from its source, its arguments renamed to
what the shape writes (``self.limit``, ``new``), and pasted inline, called as a helper, or wrapped
in ``ops.depend``. A generated no-update twin gets, in place of each write, a line that keeps the
written value alive (``anchor = ops.depend(anchor, value)``): a compiler removes work whose result
is unused, and a twin must do everything its subject does except the write.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import sys
import textwrap
from pathlib import Path

from bench.measured.apis import IN_PLACE, REPLACE
from bench.measured.shapes.model import Inexpressible

UNKNOWN = "unknown"  # the scan could not read the write's source


class _Rename(ast.NodeTransformer):
    def __init__(self, mapping: dict[str, ast.expr]):
        self.mapping = mapping

    def visit_Name(self, node: ast.Name):
        if node.id in self.mapping:
            return ast.copy_location(self.mapping[node.id], node)
        return node


def _expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def _method_node(cell_class, method: str) -> ast.FunctionDef:
    func = getattr(cell_class, method, None)
    if func is None:
        raise Inexpressible(f"it defines no {method}()")
    try:
        node = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
    except (OSError, TypeError, SyntaxError) as exc:
        raise Inexpressible(f"the source of {method}() is not available ({exc})") from None
    if not isinstance(node, ast.FunctionDef):
        raise Inexpressible(f"{method} is not a plain method")
    return node


def _function_node(func) -> ast.FunctionDef | None:
    try:
        node = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
    except (OSError, TypeError, SyntaxError):
        return None
    return node if isinstance(node, ast.FunctionDef) else None


def _scan(node: ast.FunctionDef, selves: set[str], cell_class, seen: set) -> str:
    """REPLACE if ``node`` (or a helper it calls with ``self``) gives a Parameter new data."""
    module = sys.modules.get(getattr(cell_class, "__module__", ""), None)
    for n in ast.walk(node):
        if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = n.targets if isinstance(n, ast.Assign) else [n.target]
            for target in targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                    if target.value.id in selves:  # self.x = v, self.x += v: Cell.__setattr__
                        return REPLACE
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        if isinstance(f, ast.Attribute) and f.attr == "set_data":
            return REPLACE
        if isinstance(f, ast.Name) and f.id == "setattr" and n.args:
            if isinstance(n.args[0], ast.Name) and n.args[0].id in selves:
                return REPLACE
        # a helper: a method called on self, or a module function given self
        callee, bound = None, set()
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name):
            if f.value.id in selves and callable(getattr(cell_class, f.attr, None)):
                callee = getattr(cell_class, f.attr)
                bound = {0}
        elif isinstance(f, ast.Name) and module is not None:
            callee = getattr(module, f.id, None)
            bound = {i for i, a in enumerate(n.args) if isinstance(a, ast.Name) and a.id in selves}
        if callee is None or not inspect.isfunction(callee) or callee in seen:
            continue
        seen.add(callee)
        inner = _function_node(callee)
        if inner is None:
            return UNKNOWN
        names = {a.arg for i, a in enumerate(inner.args.args) if i in bound}
        found = _scan(inner, names, cell_class, seen)
        if found != IN_PLACE:
            return found
    return IN_PLACE


def write_semantics(cell_class, method: str = "write") -> str:
    """What the write's source looks like: ``replace`` when it gives a Parameter new data
    (``set_data``; ``self.x = v``, ``self.x += v`` or ``setattr(self, ...)``, which
    ``Cell.__setattr__`` turns into ``set_data``; also inside a helper it calls), ``in-place``
    otherwise, ``unknown`` when a source cannot be read.

    A check only: the semantics the oracle uses are declared per API in ``bench.measured.apis``
    (``semantics_check`` compares the two). Under eager semantics both kinds are seen through an
    alias; a view taken before the write sees an in-place write and keeps the old data after a
    replacement (checked in PYNATIVE on MindSpore 2.10, see findings/README.md)."""
    try:
        node = _method_node(cell_class, method)
    except Inexpressible:
        return UNKNOWN
    return _scan(node, {node.args.args[0].arg} if node.args.args else set(), cell_class, set())


def semantics_check(declared: str | None, cell_class, api: str = "") -> str:
    """A warning when the source scan disagrees with what ``api``'s page says (``declared``),
    or cannot tell; ``""`` when they agree."""
    scanned = write_semantics(cell_class)
    if declared is None:
        if scanned == UNKNOWN:
            return "no API declared and the source of write() cannot be read: taken as in-place"
        return f"no API declared: write semantics guessed from its source ({scanned})"
    if scanned == UNKNOWN:
        return f"the source of write() cannot be read to check {api}'s declared {declared}"
    if scanned != declared:
        return (
            f"{api} is documented as {declared} but write() looks like {scanned} "
            "(the declared one is used)"
        )
    return ""


class WriteCode:
    """The body of a strategy's ``write(self, param, value)`` (or another write method, e.g.
    ``write_row(self, param, index, row)``), ready to be pasted elsewhere."""

    def __init__(self, func: ast.FunctionDef, method: str = "write"):
        a = func.args
        if a.vararg or a.kwarg or a.kwonlyargs or len(a.args) < 2:
            raise Inexpressible(f"{method} must take (self, param, ...) only")
        self.method = method
        self.self_name, *self.args = [x.arg for x in a.args]
        body = list(func.body)
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            body = body[1:]  # the docstring
        if body and isinstance(body[-1], ast.Return) and body[-1].value is not None:
            body[-1] = ast.Expr(body[-1].value)
        self.body = body or [ast.Pass()]  # a write that writes nothing is gated like any other
        self.locals = {
            n.id
            for stmt in self.body
            for n in ast.walk(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))
        }
        self.reason = None
        if self.locals & {*self.args, self.self_name}:
            self.reason = (
                f"its {method}() assigns to its argument {sorted(self.locals & set(self.args))}"
            )
        elif any(
            isinstance(n, (ast.Return, ast.Yield, ast.YieldFrom))
            for s in self.body
            for n in ast.walk(s)
        ):
            self.reason = f"its {method}() returns early"

    @classmethod
    def of(cls, cell_class, method: str = "write") -> WriteCode:
        """The ``method`` a strategy's Cell class defines (its own or an inherited override)."""
        return cls(_method_node(cell_class, method), method)

    def _body(self, values: tuple[str, ...], reserved: set[str]) -> list[ast.stmt]:
        if self.reason:
            raise Inexpressible(self.reason)
        if len(values) != len(self.args):
            raise Inexpressible(
                f"{self.method} takes {len(self.args)} arguments, not {len(values)}"
            )
        mapping: dict[str, ast.expr] = {a: _expr(v) for a, v in zip(self.args, values)}
        mapping[self.self_name] = _expr("self")
        for name in self.locals & reserved:  # a local of the write that the template also uses
            mapping[name] = ast.Name(f"{name}_w", ast.Load())
        out = []
        for stmt in self.body:
            new = _Rename(mapping).visit(ast.parse(ast.unparse(stmt)).body[0])
            out.append(ast.fix_missing_locations(new))
        return out

    def statements(self, values: tuple[str, ...], reserved: set[str]) -> list[str]:
        """The write's statements with its arguments replaced by ``values``."""
        return [ast.unparse(s) for s in self._body(values, reserved)]

    def expression(self, values: tuple[str, ...], reserved: set[str]) -> tuple[list[str], str]:
        """(statements before, the expression of its last statement), for ``ops.depend``."""
        body = self._body(values, reserved)
        if not isinstance(body[-1], ast.Expr):
            raise Inexpressible("the write's last statement is not an expression")
        return [ast.unparse(s) for s in body[:-1]], ast.unparse(body[-1].value)


class Emit:
    """How a template asks for one write, in the shape's placement. ``cell_class`` None: a
    no-update twin, which keeps each written value alive instead of writing it."""

    def __init__(self, cell_class, reserved: set[str]):
        self.cell_class = cell_class
        self.reserved = reserved
        self._codes: dict[str, WriteCode] = {}

    @property
    def control(self) -> bool:
        return self.cell_class is None

    def code(self, method: str) -> WriteCode:
        if method not in self._codes:
            self._codes[method] = WriteCode.of(self.cell_class, method)
        return self._codes[method]

    def write(self, placement: str, target: str, value, anchor: str, method: str = "write"):
        """Lines that write ``value`` (or a tuple of arguments) into ``target`` with the
        strategy's ``method``; ``depend`` attaches the write to ``anchor``. A twin attaches the
        value itself (the last argument) to ``anchor`` so no compiler removes it."""
        if self.control:
            kept = value[-1] if isinstance(value, tuple) else value
            return [f"{anchor} = ops.depend({anchor}, {kept})"]
        values = (target, *value) if isinstance(value, tuple) else (target, value)
        code = self.code(method)  # Inexpressible if the strategy has no such method
        if placement == "helper":
            return [f"self.{method}({', '.join(values)})"]
        if placement == "inline":
            return code.statements(values, self.reserved)
        if placement == "depend":
            before, expr = code.expression(values, self.reserved)
            return [*before, f"{anchor} = ops.depend({anchor}, {expr})"]
        raise ValueError(f"unknown placement {placement!r}")


def strip_docstring(text: str) -> str:
    """A module's code without its docstring (kept verbatim otherwise)."""
    tree = ast.parse(text)
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        lines = text.splitlines(keepends=True)
        return "".join(lines[first.end_lineno :]).lstrip("\n")
    return text


def strategy_text(path: Path) -> str:
    """A strategy file's code without its docstring."""
    return strip_docstring(Path(path).read_text(encoding="utf-8"))


def load_variant(path: Path | str, fresh: bool = False):
    """Import a generated variant file; returns its ``Variant`` class. ``fresh``: import it
    again as a module of its own (a class with its own code objects, not the one already
    loaded)."""
    path = Path(path)
    digest = hashlib.sha1(str(path).encode()).hexdigest()[:10]
    name = f"bench_variant_{path.stem.replace('-', '_')}_{digest}"
    if fresh:
        name += f"_fresh{sum(k.startswith(name) for k in sys.modules)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module.Variant

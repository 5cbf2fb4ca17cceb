"""Write out the code a generated variant imports from ``bench``: only the definitions it needs.

A standalone reproduction script may import nothing of the suite. ``collect`` follows each name a
variant imports from a ``bench`` module to where it is defined (through re-exports), then every
name that definition uses, and returns those definitions in dependency order with the imports
they need (NumPy, MindSpore, the standard library). Docstrings and methods that nothing refers
to are left out (``prune``), so what a reader sees is the code that runs.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import re
import textwrap
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

BUILTINS = frozenset(dir(builtins))


class InlineError(ValueError):
    """A name that cannot be written out (a module imported by name, two definitions of it)."""


def is_bench(module: str | None) -> bool:
    return (module or "").split(".")[0] == "bench"


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, AttributeError, ValueError):  # the parent is a module, not a package
        return False


@cache
def _module(name: str) -> tuple[str, dict, dict]:
    """(source, {name: top-level node defining it}, {name: (module, attr) it is imported as})."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise InlineError(f"cannot find the source of module {name!r}")
    text = Path(spec.origin).read_text(encoding="utf-8")
    return (text, *_namespace(ast.parse(text), name))


def _namespace(tree: ast.Module, module: str = "") -> tuple[dict, dict]:
    defined, imported = {}, {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            defined[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        defined[n.id] = node
        elif isinstance(node, ast.ImportFrom):
            if node.module == "__future__":
                continue
            base = node.module or ""
            if node.level:  # a relative import: resolve it against this module's package
                parts = module.split(".")[: -node.level]
                base = ".".join([*parts, *([node.module] if node.module else [])])
            for a in node.names:
                imported[a.asname or a.name] = (base, a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                bound = a.asname or a.name.split(".")[0]
                imported[bound] = (a.name if a.asname else a.name.split(".")[0], None)
    return defined, imported


class _Uses(ast.NodeVisitor):
    """Names a node reads, annotations left out (every module here defers them)."""

    def __init__(self):
        self.names: set[str] = set()

    def visit_Name(self, node):
        self.names.add(node.id)

    def visit_arg(self, node):  # an argument's annotation is not evaluated
        pass

    def visit_FunctionDef(self, node):
        for d in node.decorator_list:
            self.visit(d)
        for default in [*node.args.defaults, *node.args.kw_defaults]:
            if default is not None:
                self.visit(default)
        for stmt in node.body:
            self.visit(stmt)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit(node.value)


def uses(node: ast.AST) -> set[str]:
    found = _Uses()
    found.visit(node)
    return found.names


@dataclass
class Inlined:
    """What ``collect`` found: external imports (module -> names, or None for ``import m``),
    the definitions in dependency order (source text), and the names they define."""

    imports: dict = field(default_factory=dict)  # (module, asname-or-None) -> set of (name, as)
    blocks: list[str] = field(default_factory=list)
    defined: dict = field(default_factory=dict)  # name -> (module, node)

    def source(self, keep: set[str], overridden=frozenset()) -> str:
        """The definitions as one module, pruned (``prune``) to what ``keep`` refers to."""
        blocks = [prune(b, keep, overridden=overridden) for b in self.blocks]
        return module_text(self.import_lines(), blocks)

    def import_lines(self) -> list[str]:
        lines = []
        for (module, bound), names in sorted(self.imports.items(), key=lambda kv: kv[0][0]):
            if names is None:
                lines.append(f"import {module}" + (f" as {bound}" if bound else ""))
        froms: dict[str, set] = {}
        for (module, _), names in self.imports.items():
            if names is not None:
                froms.setdefault(module, set()).update(names)
        for module in sorted(froms):
            parts = sorted(n if n == a else f"{n} as {a}" for n, a in froms[module])
            lines.append(f"from {module} import {', '.join(parts)}")
        return lines


def annotated(text: str) -> bool:
    return any(
        (isinstance(n, ast.arg) and n.annotation is not None)
        or (isinstance(n, ast.FunctionDef) and n.returns is not None)
        or isinstance(n, ast.AnnAssign)
        for n in ast.walk(ast.parse(text))
    )


def segment(text: str, node: ast.AST) -> str:
    """The source of a top-level ``node`` of ``text``, decorators included."""
    lines = text.splitlines()
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return "\n".join(lines[first - 1 : node.end_lineno])


def collect(wanted: list[tuple[str, str]]) -> Inlined:
    """The definitions of ``wanted`` ((bench module, name) pairs) and of all they use."""
    out = Inlined()
    done: set[tuple[str, int]] = set()

    def external(module: str, attr: str | None, bound: str) -> None:
        if attr is None:
            out.imports[(module, bound if bound != module else None)] = None
        else:
            out.imports.setdefault((module, ""), set()).add((attr, bound))

    def need(module: str, name: str, bound: str) -> None:
        text, defined, imported = _module(module)
        if name in defined:
            node = defined[name]
            if bound != name:
                raise InlineError(f"`{name}` of {module} is imported as `{bound}`")
            key = (module, id(node))
            if key in done:
                return
            done.add(key)
            for used in sorted(uses(node) - BUILTINS):
                if used in defined and defined[used] is node:
                    continue
                if used in defined or used in imported:
                    need(module, used, used)
            names = [n for n, v in defined.items() if v is node]
            for n in names:
                if n in out.defined and out.defined[n][0] != module:
                    raise InlineError(f"`{n}` is defined in both {out.defined[n][0]} and {module}")
                out.defined[n] = (module, node)
            out.blocks.append(textwrap.dedent(segment(text, node)))
        elif name in imported:
            source, attr = imported[name]
            if is_bench(source) and attr is not None:
                if _is_module(f"{source}.{attr}"):
                    raise InlineError(f"`from {source} import {attr}` imports a module")
                need(source, attr, bound)
            elif is_bench(source):
                raise InlineError(f"`import {source}` imports a bench module by name")
            else:
                external(source, attr, bound)
        else:
            raise InlineError(f"{module} defines no `{name}`")

    for module, name in wanted:
        need(module, name, name)
    return out


def module_text(imports: list[str], blocks: list[str], future: bool = True) -> str:
    """A module of ``blocks`` (top-level definitions): one-line assignments in a row stay
    together, everything else two blank lines apart; ``from __future__ import annotations``
    first where they are annotated (unless ``future`` is False: the caller puts it first)."""
    parts: list[str] = []
    for block in blocks:
        simple = "\n" not in block.strip() and not block.startswith(("class ", "def ", "@"))
        if simple and parts and parts[-1][0]:
            parts[-1] = (True, parts[-1][1] + "\n" + block)
        else:
            parts.append((simple, block))
    body = "\n\n\n".join(b for _, b in parts)
    head = ["from __future__ import annotations", ""] if future and annotated(body) else []
    return "\n".join([*head, *imports]) + "\n\n\n" + body + "\n"


def _drop_ranges(text: str, ranges: list[tuple[int, int, str | None]]) -> str:
    """``text`` with each 1-based line range replaced by a line (or removed when None)."""
    lines = text.splitlines()
    for first, last, repl in sorted(ranges, reverse=True):
        lines[first - 1 : last] = [] if repl is None else [repl]
    return "\n".join(lines)


def prune(block: str, keep: set[str], docstrings: bool = True, overridden=frozenset()) -> str:
    """``block`` (one top-level definition) without its docstrings (unless ``docstrings`` is
    False) and without the methods of its classes that no code refers to (``keep``: attribute
    names used anywhere; dunders and ``construct`` always stay) or that a subclass overrides
    (``overridden``: (class, method) pairs). A body left empty gets ``pass``."""
    tree = ast.parse(block)
    ranges = []

    def body_of(node, body):
        removed, left = [], list(body)
        first = left[0] if left and docstrings else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            if isinstance(left[0].value.value, str):
                removed.append(left.pop(0))
        if isinstance(node, ast.ClassDef):
            for stmt in list(left):
                if not isinstance(stmt, ast.FunctionDef):
                    continue
                used = stmt.name.startswith("__") or stmt.name == "construct" or stmt.name in keep
                if not used or (node.name, stmt.name) in overridden:
                    removed.append(stmt)
                    left.remove(stmt)
        for stmt in removed:
            first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
            ranges.append((first, stmt.end_lineno, None))
        if not left and removed:
            indent = " " * removed[0].col_offset
            first, last, _ = ranges.pop()
            ranges.append((first, last, f"{indent}pass"))
        for stmt in left:
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                body_of(stmt, stmt.body)

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            body_of(node, node.body)
    text = re.sub(r"\n(?:[ \t]*\n){2,}", "\n\n", _drop_ranges(block, ranges))
    return re.sub(r"^(class [^\n]*:\n)\s*\n", r"\1", text).rstrip()  # no blank after a header


def overrides(blocks: list[str]) -> set[tuple[str, str]]:
    """(base class, method) of every method a class of ``blocks`` defines over a direct base:
    in any class deriving from it, the base's method is never called."""
    out = set()
    for block in blocks:
        for node in ast.parse(block).body:
            if isinstance(node, ast.ClassDef):
                mine = {m.name for m in node.body if isinstance(m, ast.FunctionDef)}
                bases = [b.id for b in node.bases if isinstance(b, ast.Name)]
                calls_up = {m for m in mine if f"super().{m}" in block}
                out |= {(b, m) for b in bases for m in mine - calls_up if m != "__init__"}
    return out


def attributes(text: str) -> set[str]:
    """Every attribute name ``text`` refers to (``x.name``), and every string given to
    ``getattr`` and friends."""
    out = set()
    for n in ast.walk(ast.parse(text)):
        if isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.isidentifier():
            out.add(n.value)
    return out

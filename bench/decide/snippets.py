"""The code a user pastes: one strategy's write in one workload, from its strategy file (its
imports, the lines of ``__init__`` and of ``construct``, named as the workload's code names
them), run verbatim by ``tests/ms/test_snippets.py``."""

from __future__ import annotations

import ast
import importlib
import io
import textwrap
import tokenize
from dataclasses import dataclass
from pathlib import Path

from bench.core.paths import STRATEGIES_DIR
from bench.decide.load import RunData


def code_for(run: RunData, strategy: str, shape: str = "") -> str:
    """The lines a user writes for ``strategy`` in this workload (the row write for the cache)."""
    facts = run.manifest.strategies.get(strategy, {})
    code = facts.get("code", {})
    row = shape.split("-", maxsplit=1)[0] == "row" and "write_row" in code
    method = "write_row" if row and "write_row" in run.work.code_names else "write"
    text = code.get(method, "")
    names = run.work.code_names.get(method)
    if not text or facts.get("custom"):
        return facts.get("description", "")
    if names:
        args = {"write": ("param", "value"), "write_row": ("param", "index", "row")}[method]
        mapping = dict(zip(args, names))
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in mapping:
                node.id = mapping[node.id]
        text = ast.unparse(tree)
    return text


# What a kind's construct lines are given, named as the workload's code names them (the snippet
# test's templates provide exactly these and nothing else).
GIVEN = {
    "small": "once the new value `{value}` is computed",
    "rows": "given the new row `row` (B, H, 1, D) and its position `t` (int32, shape (1,))",
    "elementwise": "for each EMA Parameter `{param}` and its new value `{value}`",
}
# A full rewrite of the cache (a strategy without ``write_row``) first computes the new cache from
# the row, as the kvcache workload's ``full`` shape does (its ``full_row_mask`` inlined).
NEW_CACHE = (
    "at_t = ops.equal(ops.arange(self.cache.shape[2]).astype(t.dtype), t).reshape((1, 1, -1, 1))",
    "new = ops.where(at_t, row, self.cache)",
)
HOST = "net"  # how a host-side snippet names the Cell


@dataclass(frozen=True)
class Snippet:
    """Paste-ready code of one strategy in one workload, from its strategy file: the imports,
    the lines of ``__init__``, the lines of ``construct`` (names as the workload's code uses
    them) and, for a host-side update, the lines that run on the host after each step. Printed
    by ``markdown`` and run verbatim by ``tests/ms/test_snippets.py``."""

    imports: tuple[str, ...]
    init: tuple[str, ...]
    construct: tuple[str, ...]
    vector: str = ""  # the Parameter the write needs stored as a 1-element vector, not 0-d
    given: str = "once the new value is computed"  # what the construct lines are given
    host: tuple[str, ...] = ()  # after each step, on the host (``HOST`` is the Cell)
    call: str = ""  # how a step is called, for the host lines: ``out = net(x)``

    def markdown(self, indent: str = "") -> list[str]:
        body = [*self.imports, ""] if self.imports else []
        if self.vector:
            body += [
                f"# {self.vector} must be a 1-element vector Parameter "
                "(Tensor([1.0]), not Tensor(1.0)): the index ops need an axis",
                "",
            ]
        if self.init:
            body += ["# in __init__, after super().__init__():", *self.init, ""]
        if self.construct:
            body += [f"# in construct, {self.given}:", *self.construct]
        else:
            body += ["# in construct: no write (the host writes after each step)"]
        if self.host:
            body += ["", f"# after each step, on the host ({HOST}: the Cell; {self.call}):"]
            body += list(self.host)
        return [f"{indent}```python", *(f"{indent}{x}" if x else "" for x in body), f"{indent}```"]


def _imports(tree, used: set[str] | None = None) -> tuple[list[str], dict[str, object]]:
    """The file's imports a user can paste, and {name: value} of the constants it imports from
    the suite (inlined: a snippet imports nothing from ``bench``); a suite name that is not a
    constant maps to None. Only the suite modules of names in ``used`` are imported (the rest,
    e.g. ``bench.strategy``, would import MindSpore)."""
    plain, suite = [], {}
    for n in tree.body:
        if not isinstance(n, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("bench"):
            for a in n.names:
                name = a.asname or a.name
                if used is not None and name not in used:
                    continue
                try:
                    value = getattr(importlib.import_module(n.module), a.name, None)
                except ImportError:
                    value = None
                ok = isinstance(value, (int, float, str)) and not isinstance(value, bool)
                suite[name] = value if ok else None
            continue
        plain.append(ast.unparse(n))
    return plain, suite


def _rename(source: str, mapping: dict[str, str]) -> str:
    """``source`` with every name (not an attribute) in ``mapping`` replaced, comments kept."""
    lines = source.splitlines(keepends=True)
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    for prev, tok in reversed(list(zip([None, *tokens], tokens))):
        if tok.type != tokenize.NAME or tok.string not in mapping:
            continue
        if prev is not None and prev.type == tokenize.OP and prev.string == ".":
            continue
        (row, col), (_, end) = tok.start, tok.end
        lines[row - 1] = lines[row - 1][:col] + mapping[tok.string] + lines[row - 1][end:]
    return "".join(lines)


def _body(source: str, fn: ast.FunctionDef, mapping: dict[str, str]) -> list[str]:
    """A method's body lines as written (comments kept), without a final ``return <first
    argument>``, names renamed."""
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    args = [a.arg for a in fn.args.args]
    last = body[-1] if body else None
    if (
        isinstance(last, ast.Return)
        and isinstance(last.value, ast.Name)
        and args[1:2] == [last.value.id]
    ):
        body = body[:-1]
    if not body:
        return []
    lines = source.splitlines()[body[0].lineno - 1 : body[-1].end_lineno]
    return _rename(textwrap.dedent("\n".join(lines)), mapping).splitlines()


def _host_snippet(run: RunData, tree, source: str) -> Snippet | None:
    """A host-side update's snippet: its ``__init__`` lines, no write in construct, and its
    ``after_step`` lines as the host runs them (``self`` is the Cell, ``HOST``); None when it
    overrides construct with a forward of its own or needs more of the suite than a constant."""
    methods = {
        n.name: n
        for c in tree.body
        if isinstance(c, ast.ClassDef)
        for n in c.body
        if isinstance(n, ast.FunctionDef)
    }
    step = methods.get("after_step")
    if step is None:
        return None
    construct = methods.get("construct")
    if construct is not None and _body(source, construct, {}):
        return None  # a forward of its own: not a write a user adds to their construct
    raw = _body(source, step, {})
    plain, suite = _imports(tree, _names("\n".join(raw), []))
    mapping = {"self": HOST, **{k: repr(v) for k, v in suite.items() if v is not None}}
    host = _body(source, step, mapping)
    init = [
        x
        for x in (_body(source, methods["__init__"], mapping) if "__init__" in methods else [])
        if "super().__init__" not in x
    ]
    used = _names("\n".join(host), init)
    if any(k in used for k, v in suite.items() if v is None):
        return None
    out, *inputs = [a.arg for a in step.args.args[1:]] or ["out"]
    x = inputs[0] if inputs else "x"
    call = f"{out} = {HOST}({x})" if x == "x" else f"{out} = {HOST}(*{x})"
    imports = tuple(i for i in plain if any(_bound(i, name) for name in used))
    return Snippet(imports, tuple(init), (), host=tuple(host), call=call)


def snippet(run: RunData, strategy: str, shape: str = "", root: Path = STRATEGIES_DIR):
    """The strategy's ``Snippet`` in this workload, or None when it has no code a user can paste
    (tests/ms/test_snippets.py fails on an answer printed without one)."""
    facts = run.manifest.strategies.get(strategy, {})
    path = root / f"{strategy}.py"
    if not path.exists():
        return None
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    if facts.get("custom"):
        return _host_snippet(run, tree, source)
    code = code_for(run, strategy, shape)
    if code == facts.get("description", ""):
        return None
    plain, _ = _imports(tree, set())
    init: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            init = [
                ast.unparse(x)
                for x in node.body
                if "super().__init__" not in ast.unparse(x)
                and not (isinstance(x, ast.Expr) and isinstance(x.value, ast.Constant))
            ]
    kind = getattr(run.work, "state_kind", "")
    lines = code.splitlines()
    if kind == "rows" and "write_row" not in facts.get("code", {}):
        lines = [*NEW_CACHE, *lines]  # a full rewrite: the new cache from the row first
        plain = [*plain, "from mindspore import ops"]
    used = _names("\n".join(lines), init)
    imports = tuple(dict.fromkeys(i for i in plain if any(_bound(i, n) for n in used)))
    vector = ""
    if kind == "small" and facts.get("layout") == "vector":
        vector = run.work.code_names.get("write", ("the Parameter",))[0]
    param, value = run.work.code_names.get("write", ("the Parameter", "the new value"))
    given = GIVEN.get(kind, "once the new value is computed").format(param=param, value=value)
    return Snippet(imports, tuple(init), tuple(lines), vector, given)


def _names(code: str, init: list[str]) -> set[str]:
    out = set()
    for text in (code, *init):
        out |= {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
    return out


def _bound(statement: str, name: str) -> bool:
    node = ast.parse(statement).body[0]
    return any((a.asname or a.name).split(".")[0] == name for a in node.names)

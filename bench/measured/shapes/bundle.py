"""Turn a generated variant into a standalone reproduction script.

A script is the variant file the gate compiled plus a driver. What the variant and the driver
import from ``bench`` they import from ``<workload>_suite.py`` next to the script: one module
holding the code of those bench modules (``suite_module``), so a script needs only MindSpore and
NumPy, and the module boundaries of the run stay as they were (they can change a verdict: a
``construct`` inherited from another module is captured differently under bytecode capture).
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

from bench.measured.shapes.model import HEADER

ROOT = Path(__file__).resolve().parents[3]


def _module_path(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        raise ImportError(f"cannot find module {name!r}")
    return Path(spec.origin)


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, AttributeError, ValueError):  # the parent is a module, not a package
        return False


def _is_bench(node) -> bool:
    return isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "bench"


def _split(text: str) -> tuple[list[str], list[str], list[str]]:
    """(bench modules imported, other import lines, the rest) of a module's source."""
    tree = ast.parse(text)
    bench, imports, rest = [], [], []
    lines = text.splitlines()
    for node in tree.body:
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        source = "\n".join(lines[first - 1 : node.end_lineno])
        if _is_bench(node):
            for alias in node.names:  # a module imported by name would be flattened away
                if _is_module(f"{node.module}.{alias.name}"):
                    raise ImportError(
                        f"`from {node.module} import {alias.name}` imports a module: a repro "
                        "bundle inlines names, so import the names from that module instead"
                    )
            bench.append(node.module)
        elif isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.append(source)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and not rest:
            continue  # the module docstring
        else:
            rest.append(source)
    return bench, imports, rest


def bench_imports(text: str) -> list[str]:
    """The bench modules ``text`` imports from (``from bench.x import ...``), in order."""
    return list(dict.fromkeys(_split(text)[0]))


def suite_module(modules: list[str]) -> str:
    """One module holding the code of ``modules`` and of every bench module they import."""
    seen: list[str] = []
    imports: list[str] = []
    blocks: list[str] = []

    def inline(module: str) -> None:
        if module in seen:
            return
        seen.append(module)
        path = _module_path(module)
        deps, own_imports, rest = _split(path.read_text())
        for dep in deps:
            inline(dep)
        imports.extend(own_imports)
        if rest:
            rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name
            blocks.append(f"# ---- from {rel}\n" + "\n\n\n".join(rest))

    for module in modules:
        inline(module)
    head = (
        f"{HEADER}\n# The suite's code the scripts next to this file import: {', '.join(modules)}"
    )
    imports = ["from __future__ import annotations", *dict.fromkeys(imports)]
    return "\n\n\n".join([head, "\n".join(imports), *blocks]) + "\n"


def script(text: str, suite: str) -> str:
    """``text`` with its ``from bench... import`` lines reading from the module ``suite`` instead
    (found next to the script). Only the leading comment block stays above the path fix."""
    tree = ast.parse(text)
    lines = text.splitlines()
    for node in reversed(tree.body):
        if _is_bench(node):
            names = ", ".join(
                a.name if not a.asname else f"{a.name} as {a.asname}" for a in node.names
            )
            lines[node.lineno - 1 : node.end_lineno] = [f"from {suite} import {names}"]
    head = 0
    while head < len(lines) and lines[head].startswith("#"):
        head += 1
    path_fix = [
        "import os",
        "import sys",
        "",
        f"sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # for {suite}.py",
    ]
    return "\n".join([*lines[:head], *path_fix, *lines[head:]]) + "\n"

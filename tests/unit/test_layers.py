"""The flow of the packages (issue 51): what is decided does not read its words. ``bench.decide``
turns run folders into verdicts, comparisons and answers as data; ``bench.causes`` buckets the
findings into root causes with their repros; ``bench.report`` renders pages from both. Neither
of the first two imports the renderer (a decision made in words could not be tested as data),
and ``bench.core`` imports none of them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
NEVER = {
    "core": {"decide", "causes", "report", "check", "run"},
    "decide": {"report", "causes", "check"},
    "causes": {"report", "check"},
}


def imported(package: str) -> dict[str, set[str]]:
    """{bench subpackage: the files of ``package`` importing it}, at any depth of the file (a
    function's own import counts)."""
    out: dict[str, set[str]] = {}
    for path in (BENCH / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                parts = name.split(".")
                if parts[0] == "bench" and len(parts) > 1:
                    out.setdefault(parts[1], set()).add(path.name)
    return out


@pytest.mark.parametrize("package", sorted(NEVER))
def test_a_layer_never_imports_the_ones_above_it(package):
    found = imported(package)
    wrong = {top: sorted(files) for top, files in found.items() if top in NEVER[package]}
    assert wrong == {}


def test_the_check_sees_an_import_inside_a_function(tmp_path, monkeypatch):
    pkg = tmp_path / "decide"
    pkg.mkdir()
    (pkg / "a.py").write_text("def f():\n    from bench.report import words\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["BENCH"]), "BENCH", tmp_path)
    assert imported("decide") == {"report": {"a.py"}}

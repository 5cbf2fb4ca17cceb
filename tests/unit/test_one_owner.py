"""One owner per word: a status, a kind of silent failure, a mode name or a run status is spelled
as a string in its owner module only; everything else imports it (``Status.WORKS``,
``modes.GRAPH``, ``RunStatus.COMPLETE``). The scan reads ``bench/`` with ``ast`` (string
constants that are exactly one of the words; docstrings and sentences do not count)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

from bench.causes import repro
from bench.core.rundir import parse_verdict_name, verdict_name
from bench.core.schema import Kind, RunStatus, Status
from bench.measured.modes import MODES

BENCH = Path(__file__).resolve().parents[2] / "bench"

OWNERS = {
    **{str(s): "core/schema.py" for s in Status},
    **{str(k): "core/schema.py" for k in Kind},
    **{str(r): "core/schema.py" for r in RunStatus},
    **{m: "measured/modes.py" for m in MODES},
}

# Spellings left in modules not yet cleaned (they may only go down; none are left).
LEFT: dict[str, dict[str, int]] = {}


def spelled(path: Path) -> Counter:
    return Counter(
        n.value
        for n in ast.walk(ast.parse(path.read_text()))
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in OWNERS
    )


def test_the_words_have_owners():
    assert set(OWNERS) >= {"works", "stale read", "graph", "interrupted"}
    for word, owner in OWNERS.items():
        assert spelled(BENCH / owner)[word] >= 1, (word, owner)


def test_no_word_is_spelled_outside_its_owner():
    found = {}
    for path in sorted(BENCH.rglob("*.py")):
        name = path.relative_to(BENCH).as_posix()
        extra = {
            word: n - LEFT.get(name, {}).get(word, 0)
            for word, n in spelled(path).items()
            if OWNERS[word] != name and n > LEFT.get(name, {}).get(word, 0)
        }
        if extra:
            found[name] = extra
    assert not found, (
        "use the owner's name (Status.X / Kind.X / RunStatus.X from bench.core.schema, the mode "
        f"constants of bench.measured.modes) instead of these literals: {found}"
    )


def test_the_left_list_only_shrinks():
    for name, words in LEFT.items():
        now = spelled(BENCH / name)
        for word, n in words.items():
            assert now[word] <= n, (name, word)


@pytest.mark.parametrize(
    "name, want",
    [
        ("assign@inline-param-after-expr-graph", ("assign", "inline-param-after-expr", "graph")),
        ("copy_@as-written-jit_bytecode.py", ("copy_", "as-written", "jit_bytecode")),
        ("a@b-c-d-pynative_blocking", ("a", "b-c-d", "pynative_blocking")),
    ],
)
def test_one_parser_reads_a_verdict_name(name, want):
    assert parse_verdict_name(name) == want
    assert verdict_name(*want) == name.removesuffix(".py")
    assert repro.script_name(*want) == verdict_name(*want) + ".py"


@pytest.mark.parametrize("name", ["assign-graph", "@x-graph", "assign@shape", "a@b-GRAPH"])
def test_a_name_that_is_not_a_verdict_is_refused(name):
    with pytest.raises(ValueError, match="not a verdict name"):
        parse_verdict_name(name)


def test_the_run_folder_layout_has_one_owner():
    from bench.core.rundir import RunDir

    run = RunDir("/r/raw/RUN")
    assert run.fixed == Path("/r/raw/RUN/gate/fixed.jsonl")
    assert "gate/fixed.jsonl" in (BENCH / "core" / "rundir.py").read_text()  # described there
    for path in sorted(BENCH.rglob("*.py")):
        if path.name != "rundir.py":
            assert '"fixed.jsonl"' not in path.read_text(), path

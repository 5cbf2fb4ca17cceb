"""The committed pages never disagree: every claim a page makes about a strategy in a workload and
mode ("fastest", "equivalent", "slower", "undetermined", "not timed", "the answer", "silently
wrong") is parsed from the Markdown as a reader sees it, and two claims that cannot both hold fail.

``claims`` reads the pages; ``contradictions`` is a pure function tested on hand-made claims."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

from markdown_it import MarkdownIt

from bench.core.paths import ROOT
from bench.measured import workloads
from bench.measured.modes import MODES, label
from bench.report import phrases
from bench.report.answer import KINDS

RESULTS = ROOT / "results"
OUTCOMES = ("fastest", "equivalent", "faster", "slower", "undetermined", "not timed")
WRONG = ("silently wrong", "raises", "crashes", "hangs", "wrong")


@dataclass(frozen=True)
class Claim:
    page: str
    workload: str  # "*" : across every workload of the claim's scope
    mode: str
    strategy: str
    what: str  # an outcome, "answer" or "wrong"


def contradictions(claims: list[Claim], scopes: dict[str, set[str]] | None = None) -> list[str]:
    """Every pair of claims that cannot both hold: two different outcomes of one strategy in one
    workload and mode; a strategy called fastest or the answer where a page says it is wrong;
    two different answers for one mode and scope. ``scopes``: {"kind:<kind>": its workloads}
    (an answer scoped ``*`` holds in every workload)."""
    scopes = scopes or {}
    out = []
    by: dict[tuple, list[Claim]] = {}
    for c in claims:
        by.setdefault((c.workload, c.mode, c.strategy), []).append(c)
    for (w, mode, s), found in sorted(by.items()):
        timed = {c.what: c for c in found if c.what in OUTCOMES}
        if len(timed) > 1:
            what = "; ".join(f"{k} on {c.page}" for k, c in sorted(timed.items()))
            out.append(f"{w}/{mode}/{s}: {what}")
        wrong = [c for c in found if c.what == "wrong"]
        praised = [c for c in found if c.what in ("fastest", "answer")]
        if wrong and praised:
            out.append(
                f"{w}/{mode}/{s}: {praised[0].what} on {praised[0].page}, "
                f"not correct on {wrong[0].page}"
            )
    answers: dict[tuple, dict[str, str]] = {}
    for c in claims:
        if c.what == "answer":
            answers.setdefault((c.workload, c.mode), {})[c.page] = c.strategy
    for (w, mode), pages in sorted(answers.items()):
        if len(set(pages.values())) > 1:
            out.append(f"{w}/{mode}: answers differ: {pages}")
    # an answer across workloads must be correct wherever it claims to hold
    for c in claims:
        if c.what == "answer" and (c.workload == "*" or c.workload in scopes):
            for (w, mode, s), found in by.items():
                if c.workload != "*" and w not in scopes[c.workload]:
                    continue
                if mode == c.mode and s == c.strategy and any(x.what == "wrong" for x in found):
                    bad = next(x for x in found if x.what == "wrong")
                    out.append(f"{w}/{mode}/{s}: the answer on {c.page}, not correct on {bad.page}")
    return out


# --- reading the pages -------------------------------------------------------------------------

_MD = MarkdownIt("commonmark").enable("table")
_MODE_OF = {label(m): m for m in MODES}


def _blocks(text: str):
    """(context, rows) per table, rows as lists of cell texts with the header first; the context
    is the list of headings and bold lines above the table, nearest last."""
    tokens = _MD.parse(text)
    context: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.type == "heading_open":
            context.append(tokens[i + 1].content)
        elif t.type == "paragraph_open" and re.fullmatch(r"\*\*.+\*\*", tokens[i + 1].content):
            context.append(tokens[i + 1].content.strip("*"))
        elif t.type == "table_open":
            rows, row = [], None
            while tokens[i].type != "table_close":
                if tokens[i].type == "tr_open":
                    row = []
                elif tokens[i].type == "inline" and row is not None:
                    row.append(tokens[i].content)
                elif tokens[i].type == "tr_close":
                    rows.append(row)
                i += 1
            yield list(context), rows
        i += 1


def _name(cell: str) -> str:
    m = re.match(r"`([^`]+)`", cell.strip())
    return m.group(1) if m else ""


def _outcome(cell: str) -> str:
    text = cell.strip().lstrip("*").lower()
    for w in OUTCOMES:
        if text.startswith(w):
            return w
    for w in WRONG:
        if text.startswith(w):
            return "wrong"
    return ""


def _code_names() -> dict[str, str]:
    """{code as a page prints it: strategy} for every workload, from the committed manifests."""
    out = {}
    for w in ("clip", "brn", "kvcache", "ema"):
        for path in sorted((RESULTS / w / "raw").glob("*/manifest.json")):
            facts = json.loads(path.read_text())["strategies"]
            run = SimpleNamespace(manifest=SimpleNamespace(strategies=facts), work=workloads.get(w))
            for s in facts:
                for shape in ("", "row"):  # the cache's pages print the row write
                    code = phrases.code_for(run, s, shape)
                    out[code] = out[code.replace("\n", "; ")] = s
    return out


def _answer(cell: str, codes: dict[str, str]) -> str:
    m = re.match(r"`([^`]+)`", cell.strip())
    return codes.get(m.group(1), f"?{m.group(1)}") if m else ""


def _kind_answers(text: str, page: str, codes: dict[str, str]) -> list[Claim]:
    """The answers per kind of state (``**To <what a user does>**`` then ``- **<mode>**:
    `<strategy>` …``), scoped ``kind:<kind>``; the older one-line-of-code bullets, scoped ``*``."""
    out, kind = [], None
    names = {f"**To {v}**": k for k, v in KINDS.items()}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        kind = next((k for head, k in names.items() if line.startswith(head)), kind)
        m = re.match(r"- \*\*([^*]+)\*\*: `([^`]+)`", line)
        if m and m.group(1) in _MODE_OF and kind:
            out.append(Claim(page, f"kind:{kind}", _MODE_OF[m.group(1)], m.group(2), "answer"))
            continue
        m = re.match(r"- \*\*([^*]+)\*\*:", line)
        if m and m.group(1) in _MODE_OF and not kind and lines[i + 2 : i + 3] == ["  ```python"]:
            code = lines[i + 3][2:]
            out.append(
                Claim(page, "*", _MODE_OF[m.group(1)], codes.get(code, f"?{code}"), "answer")
            )
    return out


def claims(root: Path = ROOT) -> list[Claim]:
    codes = _code_names()
    out: list[Claim] = []
    for page in sorted((root / "results").glob("*/summary.md")):
        w, name = page.parent.name, str(page.relative_to(root))
        for context, rows in _blocks(page.read_text()):
            head = rows[0]
            mode = next((_MODE_OF[c] for c in reversed(context) if c in _MODE_OF), None)
            against = ("against the fastest", "against the fastest candidate")
            if head[0] == "strategy (shape)" and head[1] in against and mode:
                for r in rows[1:]:
                    if _outcome(r[1]):
                        out.append(Claim(name, w, mode, _name(r[0]), _outcome(r[1])))
            elif head[:2] == ["mode", "write this"]:
                for r in rows[1:]:
                    if r[0] in _MODE_OF and _answer(r[1], codes):
                        out.append(Claim(name, w, _MODE_OF[r[0]], _answer(r[1], codes), "answer"))
    summary = root / "results" / "summary.md"
    for context, rows in _blocks(summary.read_text()):
        head = rows[0]
        mode = next((_MODE_OF[c] for c in reversed(context) if c in _MODE_OF), None)
        if head[0] == "strategy" and mode and "documented" in head:
            for r in rows[1:]:
                for w, cell in zip(head[1:-1], r[1:-1]):
                    if _outcome(cell):
                        out.append(
                            Claim("results/summary.md", w, mode, _name(r[0]), _outcome(cell))
                        )
        elif head[:2] == ["mode", "write this instead of `self.limit.set_data(new)`"]:
            for r in rows[1:]:
                if r[0] in _MODE_OF and _answer(r[1], codes):
                    out.append(
                        Claim(
                            "results/summary.md",
                            "*",
                            _MODE_OF[r[0]],
                            _answer(r[1], codes),
                            "answer",
                        )
                    )
    for page in (root / "README.md", summary):
        out += _kind_answers(page.read_text(), str(page.relative_to(root)), codes)
    return out


def kind_scopes() -> dict[str, set[str]]:
    return {
        f"kind:{k}": {w for w in workloads.WORKLOADS if workloads.get(w).state_kind == k}
        for k in KINDS
    }


# --- the tests ----------------------------------------------------------------------------------


def test_contradictions_on_hand_made_claims():
    ok = [
        Claim("a", "ema", "graph", "assign", "fastest"),
        Claim("b", "ema", "graph", "assign", "fastest"),
        Claim("a", "ema", "graph", "copy_", "wrong"),
        Claim("b", "*", "graph", "assign", "answer"),
        Claim("c", "*", "graph", "assign", "answer"),
    ]
    assert contradictions(ok) == []
    bad = [
        Claim("a", "ema", "graph", "assign", "fastest"),
        Claim("b", "ema", "graph", "assign", "slower"),
    ]
    assert contradictions(bad) == ["ema/graph/assign: fastest on a; slower on b"]
    wrong = [
        Claim("a", "ema", "graph", "copy_", "fastest"),
        Claim("b", "ema", "graph", "copy_", "wrong"),
    ]
    assert contradictions(wrong) == ["ema/graph/copy_: fastest on a, not correct on b"]
    two = [
        Claim("a", "*", "graph", "assign", "answer"),
        Claim("b", "*", "graph", "copy_", "answer"),
    ]
    assert contradictions(two) == ["*/graph: answers differ: {'a': 'assign', 'b': 'copy_'}"]
    everywhere = [
        Claim("a", "*", "graph", "copy_", "answer"),
        Claim("b", "ema", "graph", "copy_", "wrong"),
    ]
    assert contradictions(everywhere) == ["ema/graph/copy_: the answer on a, not correct on b"]
    kind = [Claim("a", "kind:small", "graph", "copy_", "answer"), *everywhere[1:]]
    assert contradictions(kind, {"kind:small": {"clip", "brn"}}) == []
    assert contradictions(kind, {"kind:small": {"ema"}}) == [
        "ema/graph/copy_: the answer on a, not correct on b"
    ]
    timed = [Claim("a", "kv", "graph", "s", "not timed"), Claim("b", "kv", "graph", "s", "slower")]
    assert len(contradictions(timed)) == 1


def test_the_parser_reads_the_committed_pages():
    found = claims()
    pages = {c.page for c in found}
    assert "README.md" in pages and "results/summary.md" in pages
    assert {c.what for c in found} >= {"fastest", "slower", "answer", "wrong"}
    assert not [c for c in found if c.strategy.startswith("?")], (
        "an answer's code names no strategy"
    )


def test_the_committed_pages_agree():
    """(Its first run, on the pages committed before issue 28, found 34 contradictions.)"""
    assert contradictions(claims(), kind_scopes()) == []

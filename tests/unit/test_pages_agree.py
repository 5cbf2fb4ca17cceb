"""The committed pages never disagree: every claim a page makes about a strategy in a workload and
mode ("fastest", "equivalent", "slower", "undetermined", "not timed", "the answer", "silently
wrong", "drawn" as a cost on a plot, "in this workload alone, X is as fast") is parsed from the
Markdown as a reader sees it (and from the plots' label data, as the plot functions build it),
and two claims that cannot both hold fail.

``claims`` reads the pages; ``contradictions`` is a pure function tested on hand-made claims."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest
from markdown_it import MarkdownIt

from bench.core import paths
from bench.core.paths import ROOT
from bench.decide import snippets
from bench.decide.answer import KINDS
from bench.measured import workloads
from bench.measured.modes import MODES, label

RESULTS = ROOT / "results"
OUTCOMES = ("fastest", "equivalent", "faster", "slower", "undetermined", "not timed")
WRONG = ("silently wrong", "raises", "crashes", "hangs", "wrong")


@dataclass(frozen=True)
class Claim:
    page: str
    workload: str  # "*" : across every workload of the claim's scope
    mode: str
    strategy: str
    what: str  # an outcome, "answer", "wrong", "drawn", "alone" or "admits slower"


AS_FAST = ("fastest", "equivalent", "faster")


def _in(scope: str, w: str, scopes: dict[str, set[str]]) -> bool:
    return scope in ("*", w) or w in scopes.get(scope, set())


def contradictions(claims: list[Claim], scopes: dict[str, set[str]] | None = None) -> list[str]:
    """Every pair of claims that cannot both hold:

    - two different outcomes of one strategy in one workload and mode;
    - a strategy called fastest, the answer or drawn as a cost where a page says it is wrong;
    - two different answers for one mode and scope;
    - an answer across workloads that is wrong, or slower, in a workload of its scope (slower
      only where the answer itself says so: "admits slower");
    - a workload page's answer that is not its kind's answer, unless that page says "in this
      workload alone, <its answer> is as fast";
    - "in this workload alone, X is as fast" where a page says X is not as fast there.

    ``scopes``: {"kind:<kind>": its workloads} (an answer scoped ``*`` holds in every workload)."""
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
        praised = [c for c in found if c.what in ("fastest", "answer", "drawn")]
        if wrong and praised:
            out.append(
                f"{w}/{mode}/{s}: {praised[0].what} on {praised[0].page}, "
                f"not correct on {wrong[0].page}"
            )
        for alone in (c for c in found if c.what == "alone"):
            slow = [c for c in found if c.what in OUTCOMES and c.what not in AS_FAST]
            if slow:
                out.append(
                    f"{w}/{mode}/{s}: as fast in this workload alone on {alone.page}, "
                    f"{slow[0].what} on {slow[0].page}"
                )
    answers: dict[tuple, dict[str, str]] = {}
    for c in claims:
        if c.what == "answer":
            answers.setdefault((c.workload, c.mode), {})[c.page] = c.strategy
    for (w, mode), pages in sorted(answers.items()):
        if len(set(pages.values())) > 1:
            out.append(f"{w}/{mode}: answers differ: {pages}")
    # an answer across workloads must be correct, and not slower, wherever it claims to hold
    for c in claims:
        if c.what != "answer":
            continue
        for (w, mode, s), found in sorted(by.items()):
            if mode != c.mode or s != c.strategy or not _in(c.workload, w, scopes):
                continue
            bad = next((x for x in found if x.what == "wrong"), None)
            if bad:
                out.append(f"{w}/{mode}/{s}: the answer on {c.page}, not correct on {bad.page}")
            slow = next((x for x in found if x.what == "slower"), None)
            admitted = any(
                x.what == "admits slower" and x.page == c.page and _in(x.workload, w, scopes)
                for x in claims
                if x.mode == mode and x.strategy == s
            )
            if slow and not admitted:
                out.append(f"{w}/{mode}/{s}: the answer on {c.page}, slower on {slow.page}")
    # a workload page leads with its kind's answer, or says why its own data pick another
    kinds = {(c.workload, c.mode): c for c in claims if c.what == "answer" and c.workload in scopes}
    for c in claims:
        if c.what != "answer" or c.workload in scopes or c.workload == "*":
            continue
        for (scope, mode), k in sorted(kinds.items()):
            if mode != c.mode or c.workload not in scopes[scope] or k.strategy == c.strategy:
                continue
            noted = any(
                x.what == "alone" and x.page == c.page and x.strategy == c.strategy
                for x in by.get((c.workload, mode, c.strategy), [])
            )
            if not noted:
                out.append(
                    f"{c.workload}/{mode}: {c.page} answers `{c.strategy}`, the kind's answer on "
                    f"{k.page} is `{k.strategy}`, and the page does not say 'in this workload "
                    "alone'"
                )
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
    """{code as an older page printed it in its "write this" column: strategy}, from the
    committed manifests (pages before issue 28's snippets named the code, not the strategy)."""
    out = {}
    for w in ("clip", "brn", "kvcache", "ema"):
        for path in sorted((RESULTS / w / "raw").glob("*/manifest.json")):
            facts = json.loads(path.read_text())["strategies"]
            run = SimpleNamespace(manifest=SimpleNamespace(strategies=facts), work=workloads.get(w))
            for s in facts:
                for shape in ("", "row"):  # the cache's pages print the row write
                    code = snippets.code_for(run, s, shape)
                    out[code] = out[code.replace("\n", "; ")] = s
    return out


def _strategy_of(cell: str, known: set[str], codes: dict[str, str]) -> str:
    """The strategy a "write this" cell names: its first backticked word, or the code it prints."""
    m = re.match(r"`([^`]+)`", cell.strip())
    if not m:
        return ""
    return m.group(1) if m.group(1) in known else codes.get(m.group(1), "")


def _strategies() -> set[str]:
    """Every strategy the committed manifests list."""
    out: set[str] = set()
    for raw in sorted(RESULTS.glob("*/raw")):
        for run in paths.runs(raw):  # folders and archives
            out |= set(json.loads((run / "manifest.json").read_text())["strategies"])
    return out


SLOWER_THAN = re.compile(
    r"slower than the \[?fastest candidate\]?(?:\(#glossary\))? \(((?:`[^`]+` in [\w-]+(?:, )?)+)\)"
)
ALONE = re.compile(
    r"in this workload alone, `([^`]+)` (is as fast|would be the pick) \((\w+) here\)", re.I
)


SLOWER_SOMEWHERE = re.compile(r"slower than another candidate at some size in ((?:[\w-]+(?:, )?)+)")


def _admitted(text: str) -> list[str]:
    """The workloads where an answer's own text says it is slower than another candidate."""
    named = [w for m in SLOWER_THAN.finditer(text) for w in re.findall(r"` in ([\w-]+)", m[1])]
    return named + [w for m in SLOWER_SOMEWHERE.finditer(text) for w in m[1].split(", ")]


def _kind_answers(text: str, page: str) -> list[Claim]:
    """The answers per kind of state (``**To <what a user does>**`` then ``- **<mode>**:
    `<strategy>` …``), scoped ``kind:<kind>``, with the workloads they admit being slower in."""
    out, kind = [], None
    names = {f"**To {v}**": k for k, v in KINDS.items()}
    for line in text.splitlines():
        kind = next((k for head, k in names.items() if line.startswith(head)), kind)
        m = re.match(r"- \*\*([^*]+)\*\*: `([^`]+)`", line)
        if m and m.group(1) in _MODE_OF and kind:
            mode, s = _MODE_OF[m.group(1)], m.group(2)
            out.append(Claim(page, f"kind:{kind}", mode, s, "answer"))
            out += [Claim(page, w, mode, s, "admits slower") for w in _admitted(line)]
    return out


def _prose(text: str, page: str, workload: str, known: set[str]) -> list[Claim]:
    """Sentences outside tables that call a strategy the fastest or the answer (shapes.md,
    findings.md): in the modes the sentence or its section names (every mode if none)."""
    out, context = [], []
    for line in text.splitlines():
        if line.startswith("#"):
            context.append(line)
            w = re.match(r"## ([\w-]+): ", line)
            workload = w.group(1) if w and page.endswith("findings.md") else workload
            continue
        if line.startswith("|") or not re.search(r"\bfastest\b|\bthe answer\b", line, re.I):
            continue
        what = "fastest" if re.search(r"\bfastest\b", line, re.I) else "answer"
        modes = [m for lab, m in _MODE_OF.items() if lab in line]
        modes = modes or [m for lab, m in _MODE_OF.items() if context and lab in context[-1]]
        for s in set(re.findall(r"`([^`]+)`", line)) & known:
            for mode in modes or list(MODES):
                out.append(Claim(page, workload, mode, s, what))
    return out


def _plot_claims() -> list[Claim]:
    """What the plots label and draw, from the functions that build them (``main.write`` passes
    each workload's plots its kind's answer; ``answer_figure`` draws ``answer_panels``)."""
    from bench.decide import provenance
    from bench.report import main, overview_plots, plots, readme

    runs = provenance.page_runs(RESULTS)  # the runs the pages stand on (results/pages.json)
    out = []
    for w, run in runs.items():
        picks = main.picks(main.kind_answers(run, RESULTS / w, runs))
        for mode in run.modes:
            data = plots.added_series(run, mode, picks.get(mode))
            for s in (data or {}).get("series", []):
                page = f"plots/{w}/added-{mode}.png"
                out.append(Claim(page, w, mode, s["strategy"], "drawn"))
                if "the answer" in s["label"]:
                    out.append(Claim(page, w, mode, s["strategy"], "answer"))
                    out += [
                        Claim(page, x, mode, s["strategy"], "admits slower")
                        for x in _admitted(s["label"])
                    ]
    for panels in overview_plots.answer_panels(runs, readme.kind_answers(runs)):
        for p in panels:
            for s in p["series"]:
                out.append(
                    Claim("plots/answer.png", p["workload"], p["mode"], s["strategy"], "drawn")
                )
                if s["answer"]:
                    scope = f"kind:{p['kind']}"
                    out.append(Claim("plots/answer.png", scope, p["mode"], s["strategy"], "answer"))
                    out += [
                        Claim("plots/answer.png", x, p["mode"], s["strategy"], "admits slower")
                        for x in _admitted(s["label"])
                    ]
    return out


def _pages_pinned(root: Path) -> bool:
    """Every workload's pages stand on its pinned reference (as README does)."""
    from bench.core import pins
    from bench.decide import provenance

    pinned = pins.read(root / "results").references
    return all(pinned.get(w) == r for w, r in provenance.read_pages(root / "results").items())


def claims(root: Path = ROOT, plots: bool = True) -> list[Claim]:
    known, codes = _strategies(), _code_names()
    out: list[Claim] = []
    for page in sorted((root / "results").glob("*/summary.md")):
        w, name = page.parent.name, str(page.relative_to(root))
        for context, rows in _blocks(page.read_text()):
            head = rows[0]
            mode = next((_MODE_OF[c] for c in reversed(context) if c in _MODE_OF), None)
            against = ("against the fastest", "against the fastest candidate")
            if (
                head[0] == "strategy (shape)"
                and re.sub(r"\[|\]\(#glossary\)", "", head[1]) in against
                and mode
            ):
                for r in rows[1:]:
                    if _outcome(r[1]):
                        out.append(Claim(name, w, mode, _name(r[0]), _outcome(r[1])))
            elif head[0] == "mode" and head[1].startswith("write this"):
                for r in rows[1:]:
                    s = _strategy_of(r[1], known, codes)
                    if r[0] not in _MODE_OF or not s:
                        continue
                    mode_ = _MODE_OF[r[0]]
                    out.append(Claim(name, w, mode_, s, "answer"))
                    out += [Claim(name, x, mode_, s, "admits slower") for x in _admitted(r[1])]
                    for m in ALONE.finditer(r[1]):
                        # "would be the pick (undetermined here)" claims no speed, only its outcome
                        fast = m.group(2).lower() == "is as fast"
                        what = "alone" if fast else m.group(3).lower()
                        out.append(Claim(name, w, mode_, m.group(1), what))
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
    # README stands on the pinned references; the pages on the runs results/pages.json names
    # (a user's published run among them): README is held to the pages when they are the same
    for page in (root / "README.md", summary) if _pages_pinned(root) else (summary,):
        out += _kind_answers(page.read_text(), str(page.relative_to(root)))
    for page in sorted((root / "results").glob("*/shapes.md")):
        out += _prose(page.read_text(), str(page.relative_to(root)), page.parent.name, known)
    findings = root / "results" / "findings.md"
    out += _prose(findings.read_text(), str(findings.relative_to(root)), "*", known)
    if plots:
        out += _plot_claims()
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


@pytest.fixture(scope="module")
def committed() -> list[Claim]:
    return claims()


def test_the_parser_reads_the_committed_pages(committed):
    pages = {c.page for c in committed}
    readme = {"README.md"} if _pages_pinned(ROOT) else set()  # else README is not compared
    assert {"results/summary.md", "plots/answer.png", *readme} <= pages
    assert {f"results/{w}/summary.md" for w in ("clip", "brn", "kvcache", "ema")} <= pages
    assert any(p.startswith("plots/brn/added-") for p in pages)
    assert {c.what for c in committed} >= {"fastest", "slower", "answer", "wrong", "drawn"}
    answers = {c.page for c in committed if c.what == "answer"}
    assert {"results/brn/summary.md", "plots/brn/added-graph.png", *readme} <= answers


def test_the_committed_pages_agree(committed):
    """(Its first run, on the pages committed before issue 28, found 34 contradictions; the
    extended test's first run, on the pages committed before this change, found 2: brn's page
    answered `scatter_nd_update` in GRAPH_MODE and `assign_primitive` in PYNATIVE_MODE where the
    kind's answer is `assign_primitive` and `set_data`, without saying "in this workload alone";
    with the old per-workload plots' labels, 2 more.)"""
    assert contradictions(committed, kind_scopes()) == []


def test_a_workload_page_leads_with_its_kinds_answer_or_says_why_not():
    scopes = {"kind:small": {"clip", "brn"}}
    kind = Claim("README.md", "kind:small", "graph", "assign_primitive", "answer")
    page = "results/brn/summary.md"
    other = Claim(page, "brn", "graph", "scatter_nd_update", "answer")
    assert contradictions([kind, other], scopes) == [
        "brn/graph: results/brn/summary.md answers `scatter_nd_update`, the kind's answer on "
        "README.md is `assign_primitive`, and the page does not say 'in this workload alone'"
    ]
    noted = Claim(page, "brn", "graph", "scatter_nd_update", "alone")
    assert contradictions([kind, other, noted], scopes) == []
    same = Claim(page, "brn", "graph", "assign_primitive", "answer")
    assert contradictions([kind, same, noted], scopes) == []
    # "as fast in this workload alone" where the page calls it slower
    slow = Claim(page, "brn", "graph", "scatter_nd_update", "slower")
    assert contradictions([kind, same, noted, slow], scopes) == [
        "brn/graph/scatter_nd_update: as fast in this workload alone on results/brn/summary.md, "
        "slower on results/brn/summary.md"
    ]


def test_an_answer_slower_somewhere_must_say_so():
    scopes = {"kind:small": {"clip", "brn"}}
    kind = Claim("README.md", "kind:small", "graph", "index_add", "answer")
    slow = Claim("results/clip/summary.md", "clip", "graph", "index_add", "slower")
    assert contradictions([kind, slow], scopes) == [
        "clip/graph/index_add: the answer on README.md, slower on results/clip/summary.md"
    ]
    said = Claim("README.md", "clip", "graph", "index_add", "admits slower")
    assert contradictions([kind, slow, said], scopes) == []
    # a workload page's own answer called slower on another page
    mine = Claim("results/clip/summary.md", "clip", "graph", "index_add", "answer")
    other = Claim("results/summary.md", "clip", "graph", "index_add", "slower")
    assert contradictions([mine, other]) == [
        "clip/graph/index_add: the answer on results/clip/summary.md, slower on results/summary.md"
    ]


def test_a_plot_draws_no_wrong_strategy_and_labels_the_answer_the_pages_give():
    drawn = Claim("plots/ema/added-graph.png", "ema", "graph", "copy_", "drawn")
    wrong = Claim("results/ema/summary.md", "ema", "graph", "copy_", "wrong")
    assert contradictions([drawn, wrong]) == [
        "ema/graph/copy_: drawn on plots/ema/added-graph.png, not correct on results/ema/summary.md"
    ]
    label = Claim("plots/clip/added-graph.png", "clip", "graph", "assign", "answer")
    page = Claim("results/clip/summary.md", "clip", "graph", "assign_primitive", "answer")
    assert contradictions([label, page]) == [
        "clip/graph: answers differ: {'plots/clip/added-graph.png': 'assign', "
        "'results/clip/summary.md': 'assign_primitive'}"
    ]


def test_the_answer_plot_admits_every_workload_where_the_answer_is_slower():
    """The answer figure draws one workload of a kind (brn for small state); its answer's label
    must admit the others where the kind's outcome table says it is slower (a user's clip run
    that decided the answer slower there failed the pages' test on a fresh clone: the label
    admitted only the drawn workload)."""
    from bench.decide import answer, provenance
    from bench.report import overview_plots, readme

    runs = provenance.page_runs(RESULTS)
    answers = readme.kind_answers(runs)
    seen = 0
    for kind, per_mode in answers.items():
        mine = [w for w, r in runs.items() if answer.kind_of(r.work) == kind]
        for mode, (choice, table) in per_mode.items():
            slower = {choice.strategy: {w: answer.SLOWER for w in mine}} if choice.strategy else {}
            per_mode[mode] = (choice, {**table, **slower})  # hand-made: slower everywhere
    for panels in overview_plots.answer_panels(runs, answers):
        for p in panels:
            labels = [s["label"] for s in p["series"] if s["answer"]]
            mine = [w for w, r in runs.items() if answer.kind_of(r.work) == p["kind"]]
            for text in labels:
                assert sorted(_admitted(text)) == sorted(mine), text
                seen += 1
    assert seen  # some answer is drawn on the committed pages


def test_prose_claims_of_fastest_or_answer_are_read():
    text = "## GRAPH_MODE\n\nHere `copy_` is the fastest.\n\n| `assign` | fastest |\n"
    found = _prose(text, "results/ema/shapes.md", "ema", {"copy_", "assign"})
    assert found == [Claim("results/ema/shapes.md", "ema", "graph", "copy_", "fastest")]
    findings = "## kvcache: write dropped\n\n- `slice_ellipsis` is the answer in PYNATIVE_MODE\n"
    assert _prose(findings, "results/findings.md", "*", {"slice_ellipsis"}) == [
        Claim("results/findings.md", "kvcache", "pynative", "slice_ellipsis", "answer")
    ]


def test_the_answer_texts_admissions_are_read():
    line = (
        "*Not decided: slower than the [fastest candidate](#glossary) (`a` in clip, `b` in brn).*"
    )
    assert _admitted(line) == ["clip", "brn"]
    assert _admitted("whether it costs the same as the fastest candidate (`a` in clip)") == []
    assert _admitted("*Not decided: slower than another candidate at some size in ema, brn.*") == [
        "ema",
        "brn",
    ]
    assert _admitted("whether another candidate is faster by more than the margin") == []

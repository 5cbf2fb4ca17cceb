"""One vocabulary for every page, CSV and plot: the words, what each means, the glossary.

A results page uses only the words defined here and ends with the glossary of the ones it used
(``glossary``). The glossary is one data file, ``glossary.json``; the status and kind words come
from the result model (``Status.label``, ``Kind``), the mode names from ``bench.measured.modes``
(MindSpore's own names).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bench.core.schema import KINDS, MEANINGS, Kind, Status
from bench.decide.decisions import size_term
from bench.measured.modes import MODES

ORIGINAL_REPORT = (
    "on CPU, a MindSpore 2.5 user's `self.limit.set_data(...)` inside "
    "`construct` fails to compile in GRAPH_MODE (`RuntimeError: Failed to compile in "
    "GRAPH_MODE because the 'Parameter' object's method 'set_data' is not supported in "
    "'construct'`) while PYNATIVE_MODE runs it. The cell clips its input to ±limit and grows "
    "the limit a little every step, as Batch Renormalization's r_max and d_max do "
    "([the report, in Chinese](https://github.com/mindspore-ai/mindspore/issues/327))"
)

GLOSSARY = Path(__file__).with_name("glossary.json")  # the glossary, as data


def _terms() -> dict[str, str]:
    """{term: what it means} in the glossary's order (``glossary.json``): a term of its own, a
    status of the result model (its meaning, and what ``then`` adds), or every kind."""
    data = json.loads(GLOSSARY.read_text(encoding="utf-8"))
    out: dict[str, str] = {}
    for e in data["terms"]:
        if "kinds" in e:
            out.update({str(k): k.meaning for k in KINDS})
        elif "status" in e:
            out[e["term"]] = MEANINGS[Status(e["status"])] + e.get("then", "")
        else:
            out[e["term"]] = e["text"]
    return out


TERMS = _terms()


def mode_terms() -> dict[str, str]:
    out = {}
    for m in MODES.values():
        text = m.description
        if m.diagnostic:  # say it once: the description may already say "(diagnostic)"
            text = text.replace(" (diagnostic)", "") + " (diagnostic, not a mode users run)"
        out[m.label] = text
    return out


def size_terms(works) -> dict[str, str]:
    """The glossary entries of the size symbols of ``works`` (N, T, E), each with its workloads."""
    out: dict[str, list] = {}
    for w in works:
        sym, what = size_term(w)
        out.setdefault(sym, [what, []])[1].append(w.name)
    return {sym: f"{what} ({', '.join(names)})" for sym, (what, names) in out.items()}


# Words the suite coined: where a page first uses one, it is defined there (emphasised, with its
# meaning) or links to the page's glossary (``link_first``); tests/unit/test_report.py checks.
COINED = (
    "common shapes",
    "code shape",
    "fastest candidate",
    "candidate",
    "twin",
    "margin",
    "equivalent",
    "undetermined",
    "rounds' quartiles",
    "no detectable cost",
    "A/A",
    "stage",
    "as-written",
)


def _pattern(term: str) -> str:
    word = re.escape(term)
    return rf"(?<![\w`/-]){word}(?:s|es)?(?![\w`-])" if term[-1].isalnum() else word


_SKIP = re.compile(r"`[^`\n]*`|\[[^\]\n]*\]\([^)\n]*\)|<[^>\n]*>|https?://\S+")
_EMPHASIS = re.compile(r"(?<![*\w])\*\*?([^*\n]+?)\*\*?(?![*\w])")


def defines(line: str, term: str) -> bool:
    """Whether ``line`` defines ``term`` in place: the term emphasised (``*candidates*``) or
    linked (``[candidate](#glossary)``)."""
    inner = [m.group(1) for m in _EMPHASIS.finditer(line)]
    inner += re.findall(r"\[([^\]\n]*)\]\(", line)
    short = [x for x in inner if len(x.split()) <= 4]  # a term, not an emphasised sentence
    return any(re.search(_pattern(term), x, re.I) for x in short)


def link_first(text: str, terms=COINED, done: set | None = None) -> str:
    """``text`` with the first use of each of ``terms`` linked to the page's glossary
    (``[term](#glossary)``), unless it is defined there already (emphasised or linked: a
    ``defines`` line at or before the first use); code, links, HTML, headings, fenced blocks and
    the glossary itself are left alone. ``done``: terms defined earlier on the page (updated)."""
    done = set() if done is None else done
    lines = text.split("\n")
    fence = False
    for i in range(len(lines)):
        line = lines[i]
        if line.startswith("## Glossary"):
            break
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        if fence or line.startswith(("#", "![", "<!--")):
            continue
        for term in terms:
            if term in done:
                continue
            if defines(line, term):
                done.add(term)
                continue
            spans = [(m.start(), m.end()) for m in _SKIP.finditer(line)]
            for longer in (t for t in terms if t != term and term in t):  # "fastest candidate"
                spans += [(m.start(), m.end()) for m in re.finditer(_pattern(longer), line, re.I)]
            for m in re.finditer(_pattern(term), line, re.I):
                if any(a <= m.start() < b for a, b in spans):
                    continue
                line = f"{line[: m.start()]}[{m.group(0)}](#glossary){line[m.end() :]}"
                done.add(term)
                break
        lines[i] = line
    return "\n".join(lines)


def glossary(text: str, extra: dict | None = None) -> list[str]:
    """The glossary lines of the terms ``text`` uses (case-insensitive), in the order above."""
    terms = {**TERMS, **mode_terms(), **(extra or {})}
    low = text.lower()
    used = [(t, d) for t, d in terms.items() if t.lower() in low]
    return [f"- **{t}**: {d}" for t, d in used] + [""]


ONLY_WHERE_SEEN = (Kind.OUTDATED, Kind.WRONG_GRADIENT)  # kinds only some gates can show


def kind_columns(seen) -> list[str]:
    """The kinds a table of verdicts counts (``seen``: the kinds its cells show), in precedence
    order: every kind, a wrong gradient or the old values followed after a reload only where a
    cell shows one (only a workload that checks a gradient or reloads its weights can, and runs
    gated before the gate did never could: a column of zeros would say they were checked)."""
    seen = {str(k) for k in seen}
    return [str(k) for k in KINDS if k not in ONLY_WHERE_SEEN or str(k) in seen]

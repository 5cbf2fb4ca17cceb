"""One vocabulary for every page, CSV and plot: the words, what each means, the glossary.

A results page uses only the words defined here and ends with the glossary of the ones it used
(``glossary``); the status and kind words come from the result model (``Status.label``,
``Kind``), the mode names from ``bench.measured.modes`` (MindSpore's own names).
"""

from __future__ import annotations

import re

from bench.core.schema import KINDS, MEANINGS, Kind, Status
from bench.measured.modes import MODES

ORIGINAL_REPORT = (
    "on CPU, a MindSpore 2.5 user's `self.limit.set_data(...)` inside "
    "`construct` fails to compile in GRAPH_MODE (`RuntimeError: Failed to compile in "
    "GRAPH_MODE because the 'Parameter' object's method 'set_data' is not supported in "
    "'construct'`) while PYNATIVE_MODE runs it. The cell clips its input to ±limit and grows "
    "the limit a little every step, as Batch Renormalization's r_max and d_max do "
    "([the report, in Chinese](https://github.com/mindspore-ai/mindspore/issues/327))"
)

TERMS = {
    "common shapes": "the code shapes an answer must hold in: the write as a plain statement, in "
    "a helper method or inside `ops.depend`, the state read as the Parameter itself, `construct` "
    "in the cell's own class. Every verdict also covers a second instance and two layers of one "
    "network. The shapes where an answer fails outside them are listed under it",
    "code shape": "how the same update is written in `construct`: inline, through a helper "
    "method, inside `ops.depend`; read through the Parameter, a local alias, a copy or a view; "
    "before or after the read. The shapes page shows the lines each one produces",
    "eager semantics": "what the code means when run line by line as NumPy or PyTorch would. A "
    "local name bound to a Parameter is that Parameter, a `reshape` of it is a view that sees "
    "in-place writes, a `copy()` is a snapshot. Every verdict compares a mode with this meaning",
    Status.WORKS.label: MEANINGS[Status.WORKS],
    "silently wrong": MEANINGS[Status.INCORRECT] + "; the kind says how",
    Status.RAISES.label: MEANINGS[Status.RAISES],
    "crashes": MEANINGS[Status.CRASHED],
    "hangs": MEANINGS[Status.TIMEOUT],
    "n/a": MEANINGS[Status.INEXPRESSIBLE],
    **{str(k): k.meaning for k in KINDS},
    "twin": "(no-update twin) the same generated code with every write removed and the written "
    "value kept alive (`ops.depend`), so the compiler keeps the work. What a write adds is its "
    "step minus its twin's. A twin is invalid when a compiler dropped its work (its step does not "
    "grow with the state as in the other modes) or a strategy beats it beyond the margin; no "
    "added time is shown against it",
    "base twin": "the plainest no-update twin of a workload (a 0-d Parameter read directly); "
    "every other twin and the A/A copy are timed against it",
    "as-written": "the one shape of a strategy that writes its own construct or updates on the "
    "host after each step: timed as the strategy wrote it, against the forward alone",
    "stage": "one pass of timing; a later stage re-times only the cells whose comparison the "
    "earlier stages left undetermined",
    "rounds' quartiles": "the 25th, 50th (median) and 75th percentiles of the per-round added "
    "time: half the rounds fall between the first and the last. Not a confidence interval. Shown "
    "only from 20 rounds on (with fewer, a quartile is one or two rounds)",
    "`write=depend`": "a shape named by its dimension and value: here the dimension `write` "
    "takes the value `depend` (the write wrapped in `ops.depend`); shapes.md shows the code of "
    "every value",
    "`construct=base`": "the state class's construct is inherited from a base class in another "
    "module (`construct=own`: defined in the class itself)",
    "`read=view`": "the new value is computed from a 0-d view `self.p.reshape(())` of a "
    "1-element vector Parameter (`read=copy`: from a copy); the view sees in-place writes "
    "eagerly, not in GRAPH_MODE",
    "added time": "time per step the update adds: the strategy's step minus its twin's, from "
    "paired blocks, with a 95 % interval that covers the spread between processes and between "
    "runs of this machine (results/between_runs.json). A block is k "
    "steps synchronized once at its end; each round times one block of each, in ABBA order",
    "candidate": "an API documented for the CPU that computes what the code means in the common "
    "shapes of every workload of its kind of state, in code a user can paste. A host-side update "
    "that replaces the step's own forward is not one. A deprecated API is one only where no "
    "current one is",
    "margin": "how close two steps must be to count as the same cost: the larger of a share of "
    "the candidate's whole step (2 % today; older runs 5 %) and 5 µs",
    "fastest candidate": "the candidate with the lowest whole step over the sizes, timed head to "
    "head in the same rounds (older runs: the lowest added time over a common step). A table "
    "calls it the fastest only where it is also shown within the margin of every other candidate",
    "equivalent": "no other candidate is faster than it by more than the margin, with 95 % "
    "confidence (compared head to head with each one: it is within the margin of the best "
    "candidate, whichever measured fastest)",
    "slower": "another candidate is faster than it by more than the margin, with 95 % confidence",
    "undetermined": "not yet known whether another candidate is faster than it by more than the "
    "margin: an interval of a difference straddles the margin. More rounds are needed "
    "(`nox -s bench -- --rigorous` measures longer). Not a failure of the tool",
    "A/A": "the base twin timed against a second copy of itself: what the harness itself adds "
    "(ideally nothing; about 95 % of the A/A 95 % intervals should contain 1). At a size whose "
    "A/A interval lies wholly outside ±margin, every decision of that mode is undetermined",
    "no detectable cost": "the added time's 95 % interval contains 0: the data cannot tell the "
    "step from the same step without the write. The bound after ≤ is the interval's upper end "
    "(a one-sided bound at 97.5 %), the most the write can cost at this precision, also as a "
    "share of the step without the write",
    "faster than the same step without the write": "the added time's whole 95 % interval is "
    "below 0. It is possible because the twin is another program: the write changes what later "
    "steps compute (a clip limit that grows clips fewer elements) or how the compiler lays out "
    "the step",
    "layout": "how the small state is stored: a 0-d Parameter (scalar) or a 1-element vector "
    "(vector, needed by the index ops)",
    "gate": "the correctness check: every strategy in every shape and mode, output and state "
    "compared with the code's meaning after every step (compiled modes in two processes)",
    "tier": "how long the timing ran: quick (a rough pass), default, rigorous",
    "× floor": "time per step divided by the time the update's bytes take at this machine's "
    "measured memory bandwidth (1 = as fast as memory allows)",
}


def mode_terms() -> dict[str, str]:
    out = {}
    for m in MODES.values():
        text = m.description
        if m.diagnostic:  # say it once: the description may already say "(diagnostic)"
            text = text.replace(" (diagnostic)", "") + " (diagnostic, not a mode users run)"
        out[m.label] = text
    return out


def size_term(work) -> tuple[str, str]:
    """(symbol, what it is) of the size a workload is timed at: ("N", "the batch size")."""
    what = work.size_label.removesuffix(f" {work.size_symbol}")
    if work.size_unit and work.size_unit in what:  # "weight elements", in elements
        return work.size_symbol, f"the number of {what}"
    unit = f", in {work.size_unit}" if work.size_unit else ""
    return work.size_symbol, f"the {what}{unit}"


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

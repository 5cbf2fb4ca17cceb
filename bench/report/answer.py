"""The answer per mode: which API to write, the code, its cost, and whether the data decide it.

A strategy is a *candidate* in a mode when it is correct in every shape the answer must hold in
(``Template.in_scope``: the shapes whose code means the cell's intent, e.g. the clip's write after
its read) and its API is documented for the platform measured (``bench.measured.apis``). Each
candidate's cost is decided against the fastest candidate (``bench.core.analysis``):
equivalent, slower, or undetermined. The answer is the simplest candidate equivalent to the
fastest; if a simpler candidate is still undetermined, the answer is "undetermined at this
precision". A working strategy that is not a candidate (say, documented for Ascend only) but adds
less is named beside the answer (``faster``). Simplicity: a documented API first, then a scalar
Parameter, then the shorter write, then the name. Across workloads (``cross_answer``) a candidate
must be correct in every workload and equivalent in each.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass, field

from bench.core.cellstats import EQUIVALENT, FASTER, SLOWER, UNDETERMINED
from bench.measured.apis import PLATFORM
from bench.measured.shapes import Shape
from bench.report import fmt
from bench.report.load import RunData

NOT_TIMED = "not timed"
NO_CANDIDATE = f"no API documented for the {PLATFORM} is correct in every shape here"


def simplicity(facts: dict, name: str) -> tuple:
    return (
        bool(facts.get("custom")),
        PLATFORM not in facts.get("platforms", []),
        facts.get("layout", "scalar") != "scalar",
        facts.get("write_size", 0),
        name,
    )


def scope_failures(run: RunData, strategy: str, mode: str) -> list[tuple[str, str]] | None:
    """[(shape, what it does)] of the in-scope shapes that are not correct; None when the
    strategy has no in-scope shape here (it cannot be written in this workload)."""
    v = run.verdicts
    rows = v[(v.strategy == strategy) & (v["mode"] == mode) & (v.status != "inexpressible")]
    rows = rows[
        rows.dims.map(lambda d: run.work.in_scope(Shape(tuple(d.items()))) if d else True).astype(
            bool
        )
    ]
    if rows.empty:
        return None
    bad = rows[rows.status != "works"]
    return [(r.shape, f"{r.label}: {r.kind}" if r.kind else r.label) for r in bad.itertuples()]


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


def cost_phrase(run: RunData, mode: str, strategy: str) -> str:
    """What the update adds, as a user reads it: ``+7 µs a step (+4 %) at N=1; not measurable
    at N ≥ 64`` (a distribution mode: the median and quartiles of the rounds)."""
    m = run.analysis.get(mode)
    cells = m.candidates.get(strategy) if m else None
    if not cells:
        return NOT_TIMED
    parts: list[tuple[str, int]] = []
    for n in sorted(cells):
        c = cells[n]
        if run.work and _distribution(mode):
            q1, q2, q3 = c.added_quartiles()
            text = (
                f"{fmt.signed(q2)} a step (rounds' quartiles {fmt.signed(q1)} … {fmt.signed(q3)})"
            )
        else:
            e, margin = c.estimate, run.margin.at(c.control_step_s)
            low, high = e.added_interval
            if math.isfinite(low) and -margin <= low and high <= margin:
                text = "not measurable"
            else:
                text = f"{fmt.signed(e.added_s)} a step ({(e.ratio - 1) * 100:+.0f} %)"
        if parts and parts[-1][0] == text and text == "not measurable":
            continue
        parts.append((text, n))
    sym = run.symbol
    sizes = sorted(cells)
    out = []
    for i, (text, n) in enumerate(parts):
        last = i == len(parts) - 1
        where = (
            f"{sym} ≥ {n}" if last and text == "not measurable" and n != sizes[-1] else f"{sym}={n}"
        )
        out.append(f"{text} at {where}")
    return "; ".join(out)


def _distribution(mode: str) -> bool:
    from bench.measured.modes import MODES

    return mode in MODES and MODES[mode].distribution


@dataclass
class Choice:
    """The answer of one mode (in one workload, or across them)."""

    mode: str
    strategy: str | None  # None: no answer
    decided: bool  # False: undetermined at this precision
    why: str
    equivalent: list[str] = field(default_factory=list)
    undetermined: list[str] = field(default_factory=list)
    p_fastest: float = math.nan
    fastest: str | None = None
    rejected: dict[str, str] = field(default_factory=dict)  # candidate -> why not
    faster: list[str] = field(default_factory=list)  # working non-candidates that add less


def _pick(names: list[str], outcome: dict[str, str], facts: dict, mode: str, fastest) -> Choice:
    """The simplest candidate not slower than the fastest: decided when it is equivalent (or
    faster) and no simpler candidate is still undetermined; otherwise named, as undetermined."""
    order = sorted(names, key=lambda s: simplicity(facts.get(s, {}), s))
    eq = [s for s in order if outcome.get(s) in (EQUIVALENT, FASTER)]
    und = [s for s in order if outcome.get(s) == UNDETERMINED]
    if not order:
        return Choice(mode, None, True, NO_CANDIDATE, eq, und, fastest=fastest)
    if not eq and not und:
        return Choice(
            mode,
            None,
            True,
            "no candidate is as fast as the fastest everywhere",
            eq,
            und,
            fastest=fastest,
        )
    best = (eq or und)[0]
    simpler = [s for s in und if order.index(s) < order.index(best)]
    if not eq:
        return Choice(
            mode,
            best,
            False,
            "correct everywhere; whether it costs the same as the fastest candidate is "
            "undetermined at this precision",
            eq,
            und,
            fastest=fastest,
        )
    if simpler:
        return Choice(
            mode,
            best,
            False,
            f"{', '.join(simpler)} (simpler) {'are' if len(simpler) > 1 else 'is'} "
            "undetermined at this precision",
            eq,
            und,
            fastest=fastest,
        )
    return Choice(
        mode,
        best,
        True,
        "the simplest correct, documented API equivalent to the fastest",
        eq,
        und,
        fastest=fastest,
    )


def alternatives(c: Choice) -> str:
    """The other candidates not shown slower: equivalent ones, then undetermined ones."""
    eq = ", ".join(f"`{s}`" for s in c.equivalent if s != c.strategy)
    und = ", ".join(f"`{s}`" for s in c.undetermined if s != c.strategy)
    parts = [eq] if eq else []
    if und:
        parts.append(f"undetermined: {und}")
    return "; ".join(parts) or "none"


def workload_answer(run: RunData, mode: str) -> Choice:
    """The answer of one mode in one workload."""
    facts = run.manifest.strategies
    m = run.analysis.get(mode)
    names, rejected = [], {}
    for s in sorted(facts):
        failing = scope_failures(run, s, mode)
        if failing is None:
            continue
        if failing:
            rejected[s] = f"{failing[0][1]} in `{failing[0][0]}`" + (
                f" and {len(failing) - 1} more shapes" if len(failing) > 1 else ""
            )
        elif PLATFORM not in facts[s].get("platforms", []):
            rejected[s] = f"its API is not documented for the {PLATFORM}"
        else:
            names.append(s)
    if m is None or m.fastest is None:
        return Choice(mode, None, True, "nothing was timed in this mode", rejected=rejected)
    standings = m.rank(names)
    outcome = {s: standings[s].outcome if s in standings else NOT_TIMED for s in names}
    best = m.fastest_of(names)
    choice = _pick(names, outcome, facts, mode, best)
    choice.rejected = rejected
    if choice.strategy:
        choice.p_fastest = m.p_fastest.get(choice.strategy, math.nan)
        mine = m.candidates[choice.strategy]
        choice.faster = [
            s
            for s, cells in m.candidates.items()
            if s not in names
            and all(
                cells[n].estimate.added_interval[1] < mine[n].estimate.added_interval[0]
                for n in m.sizes
            )
        ]
    return choice


def cross_answer(runs: dict[str, RunData], mode: str) -> tuple[Choice, dict]:
    """The answer of one mode across workloads, and {strategy: {workload: what it did}}: for a
    strategy correct in a workload, its cost against that workload's fastest candidate (also for
    strategies that are not candidates, so a faster undocumented API is visible)."""
    facts: dict = {}
    for run in runs.values():
        facts.update(run.manifest.strategies)
    table: dict[str, dict[str, str]] = {}
    outcome: dict[str, list[str]] = {}
    names, correct = [], {}
    for s in sorted(facts):
        row, ok = {}, True
        for w, run in runs.items():
            if mode not in run.modes:
                continue
            failing = scope_failures(run, s, mode)
            if failing is None:
                row[w], ok = "cannot be written here", False
            elif failing:
                row[w], ok = f"{failing[0][1]} in `{failing[0][0]}`", False
            else:
                row[w] = "correct"
                correct.setdefault(w, []).append(s)
        if PLATFORM not in facts[s].get("platforms", []):
            row["docs"], ok = f"not documented for the {PLATFORM}", False
        table[s] = row
        if ok:
            names.append(s)
    for w, run in runs.items():  # costs against each workload's fastest candidate
        m = run.analysis.get(mode)
        standings = m.rank(names, others=correct.get(w, [])) if m else {}
        for s in correct.get(w, []):
            st = standings.get(s)
            o = NOT_TIMED if st is None else "fastest" if st.reference else st.outcome
            table[s][w] = o
            if s in names:
                outcome.setdefault(s, {})[w] = EQUIVALENT if o == "fastest" else o
    decided = {}
    for s, found in outcome.items():
        timed = [o for o in found.values() if o != NOT_TIMED]
        if timed:
            decided[s] = (
                SLOWER
                if SLOWER in timed
                else EQUIVALENT
                if all(o in (EQUIVALENT, FASTER) for o in timed)
                else UNDETERMINED
            )
    choice = _pick(names, decided, facts, mode, None)
    if choice.strategy is None and names and outcome:
        choice = _least_slower(names, outcome, facts, mode)
    return choice, table


def _least_slower(names: list[str], outcome: dict, facts: dict, mode: str) -> Choice:
    """Every candidate is slower than some workload's fastest: the one slower in the fewest
    workloads (then as fast as the fastest in the most, then the simplest), named with where."""

    def key(s):
        found = outcome.get(s, {})
        slower = sum(o == SLOWER for o in found.values())
        good = sum(o in (EQUIVALENT, FASTER) for o in found.values())
        return (slower, -good, simplicity(facts.get(s, {}), s))

    best = min(names, key=key)
    found = outcome.get(best, {})
    by = {o: [w for w, x in found.items() if x == o] for o in (EQUIVALENT, UNDETERMINED, SLOWER)}
    parts = [
        f"{what} in {', '.join(by[o])}"
        for o, what in (
            (EQUIVALENT, "as fast as the fastest candidate"),
            (UNDETERMINED, "undetermined"),
            (SLOWER, "slower than the fastest candidate"),
        )
        if by[o]
    ]
    return Choice(
        mode,
        best,
        False,
        "correct everywhere, but no candidate is as fast as the fastest in every workload; "
        "this one is " + "; ".join(parts),
    )

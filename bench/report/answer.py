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

import math
from dataclasses import dataclass, field

from bench.core.cellstats import EQUIVALENT, SLOWER, UNDETERMINED, across, as_fast
from bench.core.schema import Status
from bench.measured.apis import PLATFORM
from bench.measured.shapes import Shape
from bench.report.load import RunData
from bench.report.phrases import NOT_TIMED

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
    rows = v[
        (v.strategy == strategy) & (v["mode"] == mode) & (v.status != Status.INEXPRESSIBLE.value)
    ]
    rows = rows[
        rows.dims.map(lambda d: run.work.in_scope(Shape(tuple(d.items()))) if d else True).astype(
            bool
        )
    ]
    if rows.empty:
        return None
    bad = rows[rows.status != Status.WORKS.value]
    return [(r.shape, f"{r.label}: {r.kind}" if r.kind else r.label) for r in bad.itertuples()]


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
    short: str = ""  # why it is not decided, in a few words (README)


def _pick(names: list[str], outcome: dict[str, str], facts: dict, mode: str, fastest) -> Choice:
    """The simplest candidate not slower than the fastest: decided when it is equivalent (or
    faster) and no simpler candidate is still undetermined; otherwise named, as undetermined."""
    order = sorted(names, key=lambda s: simplicity(facts.get(s, {}), s))
    eq = [s for s in order if as_fast(outcome.get(s, ""))]
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
            short="its cost against the fastest candidate is undetermined at this precision",
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
            short=f"simpler {', '.join(simpler)} undetermined at this precision",
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
        choice.p_fastest = m.p_fastest_of(names).get(choice.strategy, math.nan)
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
            decided[s] = across(timed)
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
        good = sum(as_fast(o) for o in found.values())
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
        short="slower than the fastest candidate in " + ", ".join(by[SLOWER]),
    )

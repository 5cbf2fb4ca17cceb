"""The answer per mode: which API to write, the code, its cost, and whether the data decide it.

A strategy is a *candidate* in a mode when it is correct in every shape the answer must hold in
(``Template.common``: the common shapes, a plain read of the Parameter in the cell's own
``construct``, the write anywhere; the shapes where it fails outside them are its exceptions,
listed under the answer) and its API is documented for the platform measured
(``bench.measured.apis``). Each candidate's cost is decided against the best candidate
(``bench.core.analysis``: head to head with each other candidate, so the outcome does not
follow whichever measured fastest):
equivalent, slower, or undetermined. The answer is the simplest candidate not shown slower:
decided when it is equivalent, "undetermined at this precision" when the data cannot yet tell
whether another candidate is faster by more than the margin. A working strategy that is not a
candidate (say, documented for Ascend only) but adds less is named beside the answer
(``faster``). Simplicity: a documented API first, then a scalar Parameter, then the shorter
write, then the name. Across the workloads of a kind of state (``kind_answer``) a candidate must
be correct in every one and equivalent in each.

One source of truth (issue 28): ``outcomes`` says, for one workload and mode, what every strategy
is — the fastest candidate, equivalent, faster, slower, undetermined, not timed, silently wrong or
not writable — and every page, plot label and README block reads it. ``decide`` is the answer per
*kind of state* (``KINDS``: a workload declares ``state_kind``), a pure function of those outcome
tables: the simplest candidate not shown slower than the fastest in any workload of the kind
(decided where it is equivalent in every one), a current API before a deprecated one.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field, replace

from bench.core.cellstats import EQUIVALENT, FASTER, SLOWER, UNDETERMINED, across, as_fast
from bench.core.schema import Status
from bench.decide import snippets
from bench.decide.load import RunData
from bench.measured.apis import PLATFORM
from bench.measured.modes import MODES
from bench.measured.shapes import Shape

NOT_TIMED = "not timed"  # an outcome: correct, not timed in a workload
PASTABLE = "pastable"  # a fact the report adds: the page can print code a user pastes
NOT_PASTABLE = "no code a user can paste: it replaces the step's own forward"

NO_CANDIDATE = f"no API documented for the {PLATFORM} is correct in the common shapes here"
CANNOT = "cannot be written here"
WRONG = "silently wrong"  # prefix of an outcome: not correct in a shape the answer must hold in
FASTEST = "fastest"
SLOWER_SOMEWHERE = "slower than another candidate at some size"  # an answer that admits it
TIMED = (FASTEST, EQUIVALENT, FASTER, SLOWER, UNDETERMINED)

KINDS = {  # state_kind -> what a user is doing
    "small": "replace a small Parameter every step",
    "rows": "write rows into a large buffer",
    "elementwise": "update a large Parameter elementwise",
}


def kind_of(work) -> str:
    """The kind of state a workload updates (its ``state_kind``)."""
    kind = getattr(work, "state_kind", "")
    if kind not in KINDS:
        raise ValueError(
            f"workload {work.name!r} declares state_kind {kind!r}; one of {list(KINDS)}"
        )
    return kind


def deprecated(facts: dict) -> bool:
    """Whether the documentation of the release measured marks the strategy's API deprecated:
    the manifest's ``deprecated`` flag (``bench.measured.apis.ApiDoc.deprecated``). A manifest
    written before the flag existed: its note says so, in a clause without "not" ("the r2.9 pages
    mark it deprecated" is; "not marked deprecated" is not)."""
    if "deprecated" in facts:
        return bool(facts["deprecated"])
    clauses = re.split(r"[;.]", facts.get("doc_note", "").lower())
    return any(re.search(r"\bdeprecated\b", c) and not re.search(r"\bnot\b", c) for c in clauses)


def simplicity(facts: dict, name: str) -> tuple:
    return (
        deprecated(facts),
        bool(facts.get("custom")),
        PLATFORM not in facts.get("platforms", []),
        facts.get("layout", "scalar") != "scalar",
        facts.get("write_size", 0),
        name,
    )


def scope_failures(run: RunData, strategy: str, mode: str) -> list[tuple[str, str]] | None:
    """[(shape, what it does)] of the common shapes (``Template.common``) that are not
    correct; None when the strategy has no common shape here (it cannot be written in this
    workload: a strategy that runs as written has its one shape)."""
    v = run.verdicts
    rows = v[
        (v.strategy == strategy) & (v["mode"] == mode) & (v.status != Status.INEXPRESSIBLE.value)
    ]
    rows = rows[
        rows.dims.map(lambda d: run.work.common(Shape(tuple(d.items()))) if d else True).astype(
            bool
        )
    ]
    if rows.empty:
        return None
    bad = rows[rows.status != Status.WORKS.value]
    return [(r.shape, f"{r.label}: {r.kind}" if r.kind else r.label) for r in bad.itertuples()]


OPEN, SLOWER_IN, NOT_TIMED_IN = "open", "slower_in", "not_timed_in"  # Reason.code: undecided
NO_ANSWER, NONE_AS_FAST = "no_candidate", "none_as_fast"  # Reason.code: no answer


@dataclass(frozen=True)
class Reason:
    """Why an answer is not decided, as data (``decisions.json``'s ``reason``; its words are
    ``templates/reason.md.j2``, ``templating.reason_words``): ``code`` one of ``OPEN`` (an interval
    straddles the margin), ``SLOWER_IN`` (slower than another candidate at some size of ``where``),
    ``NOT_TIMED_IN`` (correct, not timed in ``where``), ``NO_ANSWER`` / ``NONE_AS_FAST`` (why there
    is no answer), or "" (no reason in a few words); ``rivals``: (strategy, workload) the fastest
    candidate it is not told apart from; ``deprecated``: its API is, and no current API is
    correct."""

    code: str = ""
    where: tuple[str, ...] = ()
    rivals: tuple[tuple[str, str], ...] = ()
    deprecated: bool = False


def distribution(mode: str) -> bool:
    """Whether a mode's step times are a distribution (PYNATIVE as users run it: queue drains):
    it is not raced to a decision, and its pages show the rounds' quartiles beside the
    interval."""
    return mode in MODES and MODES[mode].distribution


@dataclass
class Choice:
    """The answer of one mode (in one workload, or across them)."""

    mode: str
    strategy: str | None  # None: no answer
    decided: bool  # False: the data cannot tell it from the fastest yet
    why: str
    equivalent: list[str] = field(default_factory=list)
    undetermined: list[str] = field(default_factory=list)
    fastest: str | None = None
    fastest_by: dict[str, str | None] = field(default_factory=dict)  # workload -> its fastest
    rejected: dict[str, str] = field(default_factory=dict)  # candidate -> why not
    faster: list[str] = field(default_factory=list)  # working non-candidates that add less
    reason: Reason = field(default_factory=Reason)  # why it is not decided, as data


def _pick(names: list[str], outcome: dict[str, str], facts: dict, mode: str, fastest) -> Choice:
    """The simplest candidate not slower than the fastest: decided when it is equivalent (or
    faster), otherwise named, as undetermined. A more complex candidate is named only where every
    simpler one is shown slower: which candidate is the fastest (the lowest of noisy estimates)
    can change from run to run, and so would the name if the fastest, equivalent to itself, came
    before simpler candidates the data cannot yet tell from it (issue 27: the brn GRAPH answer
    moved between two runs in which no comparison was decided differently)."""
    order = sorted(names, key=lambda s: simplicity(facts.get(s, {}), s))
    eq = [s for s in order if as_fast(outcome.get(s, ""))]
    und = [s for s in order if outcome.get(s) == UNDETERMINED]
    if not order:
        return Choice(
            mode, None, True, NO_CANDIDATE, eq, und, fastest=fastest, reason=Reason(NO_ANSWER)
        )
    if not eq and not und:
        return Choice(
            mode,
            None,
            True,
            "no candidate is as fast as the fastest everywhere",
            eq,
            und,
            fastest=fastest,
            reason=Reason(NONE_AS_FAST),
        )
    best = next(s for s in order if s in eq or s in und)
    if best in und:
        return Choice(
            mode,
            best,
            False,
            "correct everywhere and the simplest candidate not shown slower; whether another "
            "candidate is faster than it by more than the margin is not known yet (an interval "
            "straddles the margin: more rounds would tell)",
            eq,
            und,
            fastest=fastest,
            reason=Reason(OPEN),
        )
    return Choice(
        mode,
        best,
        True,
        "the simplest correct, documented API equivalent to the best candidate",
        eq,
        und,
        fastest=fastest,
    )


def _least_slower(
    names: list[str], outcome: dict, facts: dict, mode: str, fastest: dict | None = None
) -> Choice:
    """Every candidate is slower than another somewhere (at some size of some workload: the
    cheaper one depends on the size): the one slower in the fewest workloads, then as fast as
    the best in the most, then the fastest over the sizes (``fastest``: {workload: the candidate
    with the lowest score there}) in the most, then the simplest; named with where."""
    fastest = fastest or {}

    def key(s):
        found = outcome.get(s, {})
        slower = sum(o == SLOWER for o in found.values())
        good = sum(as_fast(o) for o in found.values())
        lowest = sum(f == s for f in fastest.values())
        return (slower, -good, -lowest, simplicity(facts.get(s, {}), s))

    best = min(names, key=key)
    found = outcome.get(best, {})
    by = {o: [w for w, x in found.items() if x == o] for o in (EQUIVALENT, UNDETERMINED, SLOWER)}
    parts = [
        f"{what} in {', '.join(by[o])}"
        for o, what in (
            (EQUIVALENT, "as fast as the best candidate"),
            (UNDETERMINED, "undetermined"),
            (SLOWER, SLOWER_SOMEWHERE),
        )
        if by[o]
    ]
    return Choice(
        mode,
        best,
        False,
        "correct everywhere, but no candidate is as fast as the best at every size of every "
        "workload; this one is " + "; ".join(parts),
        reason=Reason(SLOWER_IN, tuple(by[SLOWER])) if by[SLOWER] else Reason(),
    )


def _sets(run: RunData, mode: str) -> tuple[dict[str, str], list[str], list[str]]:
    """({strategy: why it is not correct here}, the candidates, every correct strategy): a
    candidate is correct in every in-scope shape, documented for the platform and ``pastable``."""
    key = ("sets", mode)
    if key not in run.memo:
        run.memo[key] = _find_sets(run, mode)
    out, names, correct = run.memo[key]
    return dict(out), list(names), list(correct)


def candidates(run: RunData, mode: str) -> list[str]:
    """The strategies an answer in this workload and mode is chosen among: correct in every
    in-scope shape, documented for the platform and ``pastable`` (the glossary's candidate)."""
    return _sets(run, mode)[1]


def _find_sets(run: RunData, mode: str) -> tuple[dict[str, str], list[str], list[str]]:
    facts = run.manifest.strategies
    out, names, correct = {}, [], []
    for s in sorted(facts):
        failing = scope_failures(run, s, mode)
        if failing is None:
            out[s] = CANNOT
        elif failing:
            what, shape = failing[0][1], failing[0][0]
            more = f" and {len(failing) - 1} more shapes" if len(failing) > 1 else ""
            out[s] = f"{what} in `{shape}`{more}"
        else:
            correct.append(s)
            if PLATFORM in facts[s].get("platforms", []) and pastable(run, s):
                names.append(s)
    return out, names, correct


def outcomes(run: RunData, mode: str) -> dict[str, str]:
    """{strategy: what it is in this workload and mode}, the one source every page reads:
    ``cannot be written here``; ``silently wrong: <what> in `<shape>` ``, ``raises …``
    (not correct in a shape the answer must hold in); else its cost against the best
    *candidate* (correct here and documented for the platform): ``fastest`` (the fastest point
    estimate, where it is shown equivalent), ``equivalent``, ``faster``, ``slower``,
    ``undetermined``, or ``not timed``."""
    key = ("outcomes", mode)
    if key in run.memo:
        return dict(run.memo[key])
    out, _, correct = _sets(run, mode)
    ranked = standings(run, mode)
    for s in correct:
        st = ranked.get(s)
        out[s] = NOT_TIMED if st is None else FASTEST if _fastest(st) else st.outcome
    run.memo[key] = out
    return dict(out)


def standings(run: RunData, mode: str) -> dict:
    """{strategy: ``analysis.Standing``} of every correct strategy timed here against the best
    candidate (``ModeAnalysis.rank``), computed once per run and mode: ``outcomes`` labels them,
    ``compare`` counts their per-size outcomes."""
    key = ("standings", mode)
    if key not in run.memo:
        m = run.analysis.get(mode)
        _, names, correct = _sets(run, mode)
        run.memo[key] = m.rank(names, others=correct) if m else {}
    return run.memo[key]


@dataclass(frozen=True)
class Bound:
    """A strategy's excess over the best candidate at one size: the upper end of its
    versus-best interval (``ModeAnalysis.rank``), in seconds and as a share of its own step."""

    size: int
    high_s: float
    share: float  # high_s / the strategy's whole step


def excess_bound(run: RunData, mode: str, strategy: str) -> Bound | None:
    """How much slower than the best ``strategy`` can be at the run's largest size, as the
    data bound it (issue 52: costs as bounds, never a ranking of noise): None when it is not
    timed against the best there, the only candidate, or its bound is not finite; a mode timed
    as a distribution is not raced to a decision and has none."""
    st = standings(run, mode).get(strategy)
    m = run.analysis.get(mode)
    if st is None or m is None or not st.comparisons or distribution(mode):
        return None
    n = max(st.comparisons)
    comp, cell = st.comparisons[n], m.candidates.get(strategy, {}).get(n)
    if not st.against.get(n):  # no other candidate: nothing to be slower than
        return None
    if cell is None or not math.isfinite(comp.high_s) or not cell.step_s > 0:
        return None
    return Bound(n, max(0.0, comp.high_s), max(0.0, comp.high_s) / cell.step_s)


def resolution(run: RunData, mode: str) -> float | None:
    """The smallest difference from the best this run's mode could decide, as a share of the
    step: the median upper half-width (bound minus estimate) of the versus-best comparisons
    of its candidates at every size (a difference within about one half-width of the margin
    stays undetermined); None without one."""
    m = run.analysis.get(mode)
    if m is None or distribution(mode):
        return None
    widths = []
    for s, st in standings(run, mode).items():
        for n, comp in st.comparisons.items():
            cell = m.candidates.get(s, {}).get(n)
            if cell is None or not cell.step_s > 0:
                continue
            half = comp.high_s - comp.difference_s
            if math.isfinite(half) and half > 0:
                widths.append(half / cell.step_s)
    return float(statistics.median(widths)) if widths else None


def _fastest(st) -> bool:
    """Whether a standing is labelled "fastest": the fastest point estimate, and shown within
    the margin of every other candidate (equivalent to the best). A fastest point estimate the
    data cannot yet tell from another candidate is "undetermined", as that one is."""
    return st.reference and st.outcome == EQUIVALENT


def point_fastest(run: RunData, mode: str) -> str | None:
    """The candidate with the lowest score (``ModeAnalysis.fastest_of`` over the candidates):
    labelled "fastest" only where it is shown equivalent."""
    m = run.analysis.get(mode)
    return m.fastest_of(_sets(run, mode)[1]) if m else None


def _combined(found: dict[str, str]) -> str:
    """One strategy's outcome across workloads: slower if slower in one; equivalent if as fast as
    the fastest in all; not timed if not timed in one; otherwise undetermined."""
    values = [EQUIVALENT if o == FASTEST else o for o in found.values()]
    if NOT_TIMED in values and SLOWER not in values:
        return NOT_TIMED
    return across(values)  # the one rule of cellstats: slower, equivalent or undetermined


def decide(
    table: dict[str, dict[str, str]],
    facts: dict,
    workloads: list[str],
    mode: str,
    fastest: dict[str, str | None] | None = None,
) -> Choice:
    """The answer for one kind of state in one mode, from hand-checkable tables.

    ``table``: {strategy: {workload: outcome}} as ``outcomes`` gives it, for every workload of the
    kind (``workloads``); ``facts``: the strategies' manifest facts (platforms, doc_note, layout,
    write_size, custom, ``PASTABLE``). A *candidate* is correct (timed or not) in every workload,
    documented for the platform and code a user can paste (``PASTABLE`` false: a host-side update
    that replaces the step's own forward, which no snippet can print). Current APIs are chosen
    from first; a deprecated one only when no current candidate exists, and the answer says so.
    Among them: the simplest not shown slower in any workload (decided where equivalent in every
    one, else undetermined); where each is slower somewhere, the one slower in the fewest
    workloads (``_least_slower``). ``fastest``: {workload: the candidate with the lowest score
    there} (``point_fastest``), named beside an answer not decided; default: the one labelled
    "fastest" in ``table``."""
    documented = [
        s
        for s, row in table.items()
        if all(row.get(w) in (*TIMED, NOT_TIMED) for w in workloads)
        and PLATFORM in facts.get(s, {}).get("platforms", [])
    ]
    correct = [s for s in documented if facts.get(s, {}).get(PASTABLE, True)]
    current = [s for s in correct if not deprecated(facts.get(s, {}))]
    pool = current or correct
    found = {s: {w: table[s][w] for w in workloads} for s in pool}
    combined = {s: _combined(f) for s, f in found.items()}
    order = sorted(pool, key=lambda s: simplicity(facts.get(s, {}), s))
    eq = [s for s in order if combined[s] == EQUIVALENT]
    und = [s for s in order if combined[s] in (UNDETERMINED, NOT_TIMED)]
    labelled = {w: next((s for s in table if table[s].get(w) == FASTEST), None) for w in workloads}
    fastest = {w: (fastest or {}).get(w) or labelled[w] for w in workloads}
    if not pool:
        return Choice(mode, None, True, NO_CANDIDATE, fastest=None, reason=Reason(NO_ANSWER))
    if eq or und:
        choice = _pick(
            pool, {s: EQUIVALENT if s in eq else UNDETERMINED for s in eq + und}, facts, mode, None
        )
        best = choice.strategy
        if combined.get(best) == NOT_TIMED:
            where = [w for w, o in found[best].items() if o == NOT_TIMED]
            choice.decided = False
            choice.reason = Reason(NOT_TIMED_IN, tuple(where))
            choice.why = f"correct everywhere, but not timed in {', '.join(where)}"
    else:
        as_eq = {
            s: {w: EQUIVALENT if o == FASTEST else o for w, o in f.items()}
            for s, f in found.items()
        }
        choice = _least_slower(pool, as_eq, facts, mode, fastest)
    choice.fastest = ", ".join(sorted({f for f in fastest.values() if f})) or None
    choice.fastest_by = fastest
    if choice.strategy and not choice.decided:  # name the fastest it is not told apart from
        mine = found[choice.strategy]
        worst = SLOWER if SLOWER in mine.values() else UNDETERMINED
        rivals = tuple(
            (fastest[w], w)
            for w, o in mine.items()
            if o == worst and fastest.get(w) not in (None, choice.strategy)
        )
        choice.reason = replace(choice.reason, rivals=rivals)
    choice.rejected = {
        **{s: NOT_PASTABLE for s in documented if s not in correct},
        **{s: "deprecated" for s in correct if s not in pool},
    }
    if choice.strategy and deprecated(facts.get(choice.strategy, {})):
        choice.why += "; its API is deprecated, but no current API is correct here"
        choice.reason = replace(choice.reason, deprecated=True)
    return choice


@dataclass(frozen=True)
class Crossover:
    """Another candidate whose whole step, head to head, is faster than the answer's at some
    sizes (``slower``: where the answer is slower) and slower at others (``faster``)."""

    other: str
    faster: tuple  # sizes where the answer's step is faster than ``other``'s
    slower: tuple  # sizes where it is slower


def crossing(per_size: dict) -> tuple[tuple, tuple] | None:
    """(sizes where it is faster, sizes where it is slower) from {size: outcome} of one
    head-to-head comparison, or None unless both exist: the cheaper one depends on the size."""
    faster = tuple(sorted(n for n, o in per_size.items() if o == FASTER))
    slower = tuple(sorted(n for n, o in per_size.items() if o == SLOWER))
    return (faster, slower) if faster and slower else None


def crossovers(run: RunData, mode: str, strategy: str) -> list[Crossover]:
    """The ``candidates`` of this workload and mode, timed here, that ``strategy``'s whole step
    beats at some sizes and loses to at others, compared head to head (``ModeAnalysis.rank``
    with the other as the reference)."""
    key = ("crossovers", mode, strategy)  # README, summary.md and each workload page ask
    if key in run.memo:
        return list(run.memo[key])
    m = run.analysis.get(mode)
    said = outcomes(run, mode)
    out = []
    for other in candidates(run, mode) if m and strategy in m.candidates else []:
        if other == strategy or said.get(other) not in TIMED or other not in m.candidates:
            continue
        standing = m.rank([other], others=[strategy]).get(strategy)
        if not standing:
            continue
        found = crossing({n: c.outcome for n, c in standing.comparisons.items()})
        if found:
            out.append(Crossover(other, *found))
    run.memo[key] = out
    return list(out)


def pastable(run: RunData, strategy: str) -> bool:
    """Whether the page can print code a user pastes for ``strategy`` in this workload
    (``snippets.snippet``; not: a host-side update that replaces the step's own forward)."""
    key = ("pastable", strategy)
    if key not in run.memo:
        shape = "row" if kind_of(run.work) == "rows" else ""
        run.memo[key] = snippets.snippet(run, strategy, shape) is not None
    return run.memo[key]


def with_pastable(run: RunData, facts: dict) -> dict:
    """The strategies' facts with ``PASTABLE`` (``pastable``) for ``decide``."""
    return {s: {**f, PASTABLE: pastable(run, s)} for s, f in facts.items()}


def kind_answer(runs: dict[str, RunData], kind: str, mode: str) -> tuple[Choice, dict]:
    """The answer for one kind of state in one mode across the workloads of that kind, and the
    outcome table it was decided from."""
    mine = {w: r for w, r in runs.items() if kind_of(r.work) == kind and mode in r.modes}
    facts: dict = {}
    for run in mine.values():
        facts.update(with_pastable(run, run.manifest.strategies))
    table: dict[str, dict[str, str]] = {s: {} for s in facts}
    for w, run in mine.items():
        for s, o in outcomes(run, mode).items():
            table[s][w] = o
    for s in facts:  # a strategy a workload does not list cannot be written there
        for w in mine:
            table[s].setdefault(w, CANNOT)
    lowest = {w: point_fastest(run, mode) for w, run in mine.items()}
    return decide(table, facts, list(mine), mode, lowest), table


def workload_choice(run: RunData, mode: str) -> Choice:
    """The answer in one workload (its own page): ``decide`` on that workload's outcomes alone,
    so a page's answer follows the same rules as the answer per kind."""
    said = outcomes(run, mode)
    table = {s: {run.workload: o} for s, o in said.items()}
    facts = with_pastable(run, run.manifest.strategies)
    lowest = {run.workload: point_fastest(run, mode)}
    return decide(table, facts, [run.workload], mode, lowest)

"""What a user acts on, as data: per kind of state × mode, what to write, where it fails, what
to avoid and what it costs (``results/decisions.json``), decided from the pinned references;
README's first screen is rendered from it (``first_screen``), and the check tool quotes it
(``bench.check.answers``): one file, so they agree without reading each other back.

- **write**: the kind's answer (``answer.kind_answer``): the simplest candidate not shown slower;
  ``none`` when no API documented for the CPU is correct in every shape of the kind.
- **except**: where the written API (or, when there is none, the candidate correct in the most
  shapes, ``nearest``) fails: each shape with its workload and what goes wrong.
- **avoid**: the APIs wrong in most of the kind's shapes in that mode, the ones users try first
  (``FIRST_TRIED``) on top, each with the failure seen most (write dropped, stale read, raises…).
- **cost**: what the written API adds to the step at the kind's largest size, as the pages say it.
- **over_best** / **not_slower**: how much slower than the best candidate the written API, and
  each candidate not shown slower than it, can be at the largest size (``answer.Bound``: the
  upper end of its versus-best interval, in seconds and as a share of its step), and the mode's
  **resolution** (``answer.resolution``): costs as bounds, never a ranking of noise (issue 52).

Schema 2 added the last three; a schema-1 file reads with them empty. Schema 3 holds no
English: ``reason`` is ``answer.Reason`` (a code, workloads, rivals) and ``cost`` a ``Cost``
(numbers); their words are the templates' (``templates/``, ``templating``). It also holds
the write's ``snippet`` (code) and every mode, the diagnostic one too (``diagnostic``: not on
README's table). A file of schema 1 or 2 reads with reason and cost empty (their English
cannot be turned back into data). Schema 4 adds what README's answer block and summary.md
print beside the write (``answers``): ``where`` the workload whose code and costs are shown,
the kind's ``workloads``, the ``costs`` at the smallest and the largest size timed there, and
the ``crossings`` (another candidate's step shorter at some sizes); older files read with them
empty.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.core.schema import Status
from bench.decide import answer, snippets
from bench.measured.modes import MODES

SCHEMA_VERSION = 4
READS = (1, 2, 3, 4)
SCHEMA_FILE = (
    Path(__file__).parent / "schemas" / "decisions.schema.json"
)  # its JSON Schema  # schema versions from_json upgrades
# what users write first, from the original report and its answers (set_data, ops.assign), then
# what PyTorch users port (in-place Tensor methods), then the index ops the maintainers named
FIRST_TRIED = (
    "set_data",
    "assign",
    "rebind",
    "copy_",
    "add_",
    "assign_add",
    "index_add",
    "inplace_index_add",
    "fill_",
    "mul_",
    "index_copy_",
    "index_put_",
    "masked_fill_",
)
NOT_GATED = ("n/a", "broken file")


@dataclass(frozen=True)
class Failure:
    """One strategy's failures over a kind's shapes in one mode."""

    strategy: str
    api: str
    works: int  # shapes where it computes what the code means
    gated: int  # shapes it could be written in
    what: str  # the failure seen most: "write dropped", "stale read", "raises", "crashes", ...
    shapes: tuple = ()  # "workload:shape" where it fails (for an exception list)


@dataclass(frozen=True)
class Cost:
    """What the written API adds to a step at the kind's largest size, in one workload: the
    added time with its 95 % interval (``Cell.estimate``), the ratio to its twin's step, and in
    a distribution mode the rounds' quartiles of the added time. ``timed`` False: no cell of
    it was timed; ``twin_invalid``: its twin cannot measure what the write adds."""

    workload: str
    size: int
    size_term: str  # the workload's name for its size ("batch size")
    timed: bool = True
    twin_invalid: bool = False
    added_s: float = math.nan
    low_s: float = math.nan
    high_s: float = math.nan
    ratio: float = math.nan
    step_s: float = math.nan  # the twin's step: the step without the write
    quartiles: tuple = ()  # (q1, median, q3) of the per-round added time
    rounds: int = 0


@dataclass(frozen=True)
class Decision:
    kind: str
    mode: str
    write: str | None  # strategy name, None: no candidate is correct in every shape
    api: str
    decided: bool  # the data decide it is not slower than another candidate by the margin
    reason: answer.Reason  # why it is not decided (empty when it is, or when there is none)
    cost: Cost | None  # what it adds at the kind's largest size (None: no answer to cost)
    nearest: Failure | None = None  # with no answer: the candidate correct in most shapes
    avoid: tuple = field(default_factory=tuple)  # Failure, first tried first
    host: bool = False  # the write is host-side code (a custom strategy), then ``api``
    over_best: answer.Bound | None = None  # the written API's excess over the best, bounded
    not_slower: tuple = field(default_factory=tuple)  # (strategy, Bound | None), not shown slower
    resolution: float | None = None  # the smallest share of the step the mode could decide
    snippet: tuple = ()  # the write's code as the pages print it (Markdown lines), () if none
    description: str = ""  # the strategy file's own words, for a write without a snippet
    diagnostic: bool = False  # a mode users do not run (launch_blocking): not on README's table
    where: str = ""  # the workload whose code and costs are shown (the kind's snippet source)
    workloads: tuple = ()  # the kind's workloads it is decided over
    costs: tuple = ()  # Cost at the smallest and the largest size timed in ``where``
    crossings: tuple = ()  # Crossing: where another candidate's step is shorter at some sizes


@dataclass(frozen=True)
class Crossing:
    """In ``workload``, head to head, the written API's whole step is shorter than ``other``'s
    at the sizes ``faster`` and longer at ``slower`` (``answer.crossovers``)."""

    workload: str
    other: str
    faster: tuple
    slower: tuple


def _failure(runs: dict, kind: str, mode: str, strategy: str) -> Failure:
    works = gated = 0
    what: Counter = Counter()
    shapes = []
    api = ""
    for w, run in runs.items():
        if answer.kind_of(run.work) != kind or mode not in run.modes:
            continue
        api = api or run.manifest.strategies.get(strategy, {}).get("api", "")
        v = run.verdicts
        rows = v[(v.strategy == strategy) & (v["mode"] == mode) & ~v.label.isin(NOT_GATED)]
        for r in rows.itertuples():
            gated += 1
            if r.label == Status.WORKS.label:
                works += 1
                continue
            what[r.kind or r.label] += 1
            shapes.append(f"{w}:{r.shape}")
    top = what.most_common(1)[0][0] if what else ""
    return Failure(strategy, api, works, gated, top, tuple(sorted(shapes)))


def _strategies(runs: dict, kind: str) -> list[str]:
    names = {
        s
        for r in runs.values()
        if answer.kind_of(r.work) == kind
        for s in r.verdicts.strategy
        if s != "control"
    }
    first = [s for s in FIRST_TRIED if s in names]
    return first + sorted(names - set(first))


def _cost(runs: dict, kind: str, mode: str, strategy: str | None, where: str) -> Cost | None:
    """What ``strategy`` adds at the largest size timed in ``where``."""
    found = costs_at(runs.get(where), mode, strategy, where, "largest")
    return found[-1] if found else None


def costs_at(run, mode: str, strategy: str | None, where: str, sizes: str = "ends") -> tuple:
    """``Cost`` of ``strategy`` in ``run`` at each size timed (``sizes`` "all"), the smallest
    and the largest ("ends") or the largest alone ("largest"); one untimed ``Cost`` when no cell
    was timed; () with no strategy."""
    if strategy is None or run is None:
        return ()
    m = run.analysis.get(mode)
    cells = m.candidates.get(strategy) if m else None
    if not cells:
        return (Cost(where, 0, "", timed=False),)
    timed = sorted(cells)
    chosen = {"all": timed, "ends": sorted({timed[0], timed[-1]}), "largest": timed[-1:]}[sizes]
    return tuple(_cell_cost(run, where, cells[n], n) for n in chosen)


def size_term(work) -> tuple[str, str]:
    """(symbol, what it is) of the size a workload is timed at: ("N", "the batch size"). Not in
    the workload's runtime: its source is part of the gate's fingerprint (``gate_cache``)."""
    what = work.size_label.removesuffix(f" {work.size_symbol}")
    if work.size_unit and work.size_unit in what:  # "weight elements", in elements
        return work.size_symbol, f"the number of {what}"
    unit = f", in {work.size_unit}" if work.size_unit else ""
    return work.size_symbol, f"the {what}{unit}"


def _cell_cost(run, where: str, cell, n: int) -> Cost:
    term = size_term(run.work)[1].removeprefix("the ")  # in words: no symbol to define
    return cell_cost(cell, where, n, term)


def cell_cost(cell, where: str = "", n: int = 0, term: str = "") -> Cost:
    """One timed cell's ``Cost`` (``Cell.estimate``; nothing but the flag against an invalid
    twin)."""
    if cell.twin_invalid:
        return Cost(where, n, term, twin_invalid=True)
    e = cell.estimate
    low, high = e.added_interval
    return Cost(
        where,
        n,
        term,
        added_s=e.added_s,
        low_s=low,
        high_s=high,
        ratio=e.ratio,
        step_s=e.control_step_s,
        quartiles=cell.added_quartiles(),
        rounds=cell.rounds,
    )


SNIPPET_FROM = {"small": "brn"}  # whose names a kind's code uses: BRN's r_max (the report's case)
NOT_SLOWER = (answer.FASTEST, answer.EQUIVALENT, answer.FASTER, answer.UNDETERMINED)


def not_slower(table: dict[str, dict[str, str]]) -> list[str]:
    """The candidates no workload shows slower than another (``table``: {strategy: {workload:
    outcome}}, ``answer.kind_answer``'s): what the data cannot rank apart. Not a ranking: which
    of these measured fastest changes from run to run (the fastest point estimate's name changed in
    5 of 9 modes back to back, so no probability of being the fastest is printed)."""
    return sorted(s for s, by in table.items() if by and all(o in NOT_SLOWER for o in by.values()))


def decide(runs: dict, answers: dict) -> list[Decision]:
    """Every kind × mode users run (``answers``: ``readme.kind_answers(runs)``)."""
    out = []
    for kind, per_mode in answers.items():
        mine = [w for w, r in runs.items() if answer.kind_of(r.work) == kind]
        where = SNIPPET_FROM.get(kind) if SNIPPET_FROM.get(kind) in mine else mine[0]
        for mode, (choice, _) in per_mode.items():
            failures = [_failure(runs, kind, mode, s) for s in _strategies(runs, kind)]
            failures = [f for f in failures if f.gated]
            avoid = tuple(f for f in failures if f.works * 2 < f.gated)
            nearest = None
            if choice.strategy is None:
                ranked = sorted(
                    (f for f in failures if f.works and f.works < f.gated),
                    key=lambda f: (-f.works / f.gated, -f.gated, f.strategy),
                )
                nearest = ranked[0] if ranked else None
            else:
                mine_f = next((f for f in failures if f.strategy == choice.strategy), None)
                nearest = mine_f if mine_f and mine_f.works < mine_f.gated else None
            facts = runs[where].manifest.strategies.get(choice.strategy or "", {})
            run = runs[where]
            rivals = [s for s in not_slower(per_mode[mode][1]) if s != choice.strategy]
            out.append(
                Decision(
                    kind=kind,
                    mode=mode,
                    write=choice.strategy,
                    api=facts.get("api", ""),
                    decided=bool(choice.decided),
                    reason=choice.reason,
                    cost=_cost(runs, kind, mode, choice.strategy, where),
                    nearest=nearest,
                    avoid=avoid,
                    host=bool(facts.get("custom")),
                    over_best=(
                        answer.excess_bound(run, mode, choice.strategy) if choice.strategy else None
                    ),
                    not_slower=tuple((s, answer.excess_bound(run, mode, s)) for s in rivals),
                    resolution=answer.resolution(run, mode),
                    snippet=_snippet(run, choice.strategy, kind),
                    description=facts.get("description", ""),
                    diagnostic=MODES[mode].diagnostic,
                    where=where,
                    workloads=tuple(mine),
                    costs=costs_at(run, mode, choice.strategy, where),
                    crossings=_crossings(runs, mine, mode, choice.strategy),
                )
            )
    return out


def _crossings(runs: dict, mine: list[str], mode: str, strategy: str | None) -> tuple:
    """Where, in each workload of the kind, another candidate's whole step is shorter than the
    written API's at some sizes and longer at others (``answer.crossovers``)."""
    if strategy is None:
        return ()
    return tuple(
        Crossing(w, x.other, tuple(x.faster), tuple(x.slower))
        for w in mine
        if mode in runs[w].modes
        for x in answer.crossovers(runs[w], mode, strategy)
    )


def _snippet(run, strategy: str | None, kind: str) -> tuple[str, ...]:
    """The write's code as README prints it (``snippets.snippet``), () when it has none."""
    code = snippets.snippet(run, strategy, "row" if kind == "rows" else "") if strategy else None
    return tuple(code.markdown("")) if code is not None else ()


def to_json(decisions: list[Decision], runs: dict) -> str:
    data = {
        "schema_version": SCHEMA_VERSION,
        "runs": {w: r.manifest.run_id for w, r in runs.items()},
        "mindspore": sorted({str(r.environment.get("mindspore", "?")) for r in runs.values()}),
        "decisions": [_strict(asdict(d)) for d in decisions],
    }
    return json.dumps(data, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


def _strict(value):
    """``value`` with every non-finite number as null: strict JSON (read back as NaN)."""
    if isinstance(value, dict):
        return {k: _strict(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_strict(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def from_json(text: str) -> list[Decision]:
    data = json.loads(text)
    version = data.get("schema_version")
    if version not in READS:
        raise ValueError(f"decisions schema_version {version!r}")
    out = []
    for read in data["decisions"]:
        d = {
            **{k: v for k, v in read.items() if k != "why"},
            "over_best": _bound(read.get("over_best")),
            "not_slower": tuple((s, _bound(b)) for s, b in read.get("not_slower", ())),
            "reason": _reason(read.get("reason")) if version >= 3 else answer.Reason(),
            "cost": _cost_of(read.get("cost")) if version >= 3 else None,
            "snippet": tuple(read.get("snippet", ())),
            "workloads": tuple(read.get("workloads", ())),
            "costs": tuple(_cost_of(c) for c in read.get("costs", ())),
            "crossings": tuple(
                Crossing(c["workload"], c["other"], tuple(c["faster"]), tuple(c["slower"]))
                for c in read.get("crossings", ())
            ),
        }
        nearest = (
            Failure(**{**d["nearest"], "shapes": tuple(d["nearest"]["shapes"])})
            if d["nearest"]
            else None
        )
        avoid = tuple(Failure(**{**f, "shapes": tuple(f["shapes"])}) for f in d["avoid"])
        out.append(Decision(**{**d, "nearest": nearest, "avoid": avoid}))
    return out


def _reason(data: dict | None) -> answer.Reason:
    if not data:
        return answer.Reason()
    return answer.Reason(
        data.get("code", ""),
        tuple(data.get("where", ())),
        tuple(tuple(r) for r in data.get("rivals", ())),
        bool(data.get("deprecated", False)),
    )


def _cost_of(data: dict | None) -> Cost | None:
    if not data:
        return None
    floats = ("added_s", "low_s", "high_s", "ratio", "step_s")
    nan = {k: math.nan for k in floats if data.get(k) is None}
    quartiles = tuple(math.nan if q is None else q for q in data.get("quartiles", ()))
    return Cost(**{**data, **nan, "quartiles": quartiles})


def _bound(data: dict | None) -> answer.Bound | None:
    return answer.Bound(**data) if data else None


def shared_apis(failures) -> set[str]:
    """The APIs named by more than one of ``failures`` (an avoid-list): said with the strategy
    beside them, or two entries would read the same."""
    apis = Counter(f.api for f in failures)
    return {a for a, n in apis.items() if a and n > 1}


__all__ = [
    "Cost",
    "Crossing",
    "Decision",
    "Failure",
    "decide",
    "from_json",
    "to_json",
]

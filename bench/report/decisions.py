"""What a user acts on, as data: per kind of state × mode, what to write, where it fails, what
to avoid and what it costs (``results/decisions.json``, schema_version 1), decided from the
pinned references; README's first screen is rendered from it (``first_screen``).

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

Schema 2 added the last three; a schema-1 file reads with them empty.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field

from bench.core.schema import Status
from bench.measured.modes import MODES, label
from bench.report import answer, phrases, words

SCHEMA_VERSION = 2
READS = (1, 2)  # schema versions from_json upgrades
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
class Decision:
    kind: str
    mode: str
    write: str | None  # strategy name, None: no candidate is correct in every shape
    api: str
    decided: bool  # the data decide it is not slower than another candidate by the margin
    why: str  # why it is not decided, or why there is none
    cost: str  # what it adds at the kind's largest size, in the pages' words
    nearest: Failure | None = None  # with no answer: the candidate correct in most shapes
    avoid: tuple = field(default_factory=tuple)  # Failure, first tried first
    host: bool = False  # the write is host-side code (a custom strategy), then ``api``
    over_best: answer.Bound | None = None  # the written API's excess over the best, bounded
    not_slower: tuple = field(default_factory=tuple)  # (strategy, Bound | None), not shown slower
    resolution: float | None = None  # the smallest share of the step the mode could decide


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


def _cost(runs: dict, kind: str, mode: str, strategy: str | None, where: str) -> str:
    run = runs.get(where)
    if strategy is None or run is None:
        return ""
    m = run.analysis.get(mode)
    cells = m.candidates.get(strategy) if m else None
    if not cells:
        return phrases.NOT_TIMED
    n = max(cells)
    what = words.size_term(run.work)[1].removeprefix("the ")  # in words: no symbol to define
    return f"{phrases.cell_cost(cells[n], mode, why=False)} at {n:,} ({what}; {where})"


def decide(runs: dict, answers: dict) -> list[Decision]:
    """Every kind × mode users run (``answers``: ``readme.kind_answers(runs)``)."""
    from bench.report.readme import SNIPPET_FROM, not_slower

    out = []
    for kind, per_mode in answers.items():
        mine = [w for w, r in runs.items() if answer.kind_of(r.work) == kind]
        where = SNIPPET_FROM.get(kind) if SNIPPET_FROM.get(kind) in mine else mine[0]
        for mode, (choice, _) in per_mode.items():
            if MODES[mode].diagnostic:
                continue
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
                    why=choice.short or choice.why or "",
                    cost=_cost(runs, kind, mode, choice.strategy, where),
                    nearest=nearest,
                    avoid=avoid,
                    host=bool(facts.get("custom")),
                    over_best=(
                        answer.excess_bound(run, mode, choice.strategy) if choice.strategy else None
                    ),
                    not_slower=tuple((s, answer.excess_bound(run, mode, s)) for s in rivals),
                    resolution=answer.resolution(run, mode),
                )
            )
    return out


def to_json(decisions: list[Decision], runs: dict) -> str:
    data = {
        "schema_version": SCHEMA_VERSION,
        "runs": {w: r.manifest.run_id for w, r in runs.items()},
        "mindspore": sorted({str(r.environment.get("mindspore", "?")) for r in runs.values()}),
        "decisions": [asdict(d) for d in decisions],
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def from_json(text: str) -> list[Decision]:
    data = json.loads(text)
    if data.get("schema_version") not in READS:
        raise ValueError(f"decisions schema_version {data.get('schema_version')!r}")
    out = []
    for read in data["decisions"]:
        d = {
            **read,
            "over_best": _bound(read.get("over_best")),
            "not_slower": tuple((s, _bound(b)) for s, b in read.get("not_slower", ())),
        }
        nearest = (
            Failure(**{**d["nearest"], "shapes": tuple(d["nearest"]["shapes"])})
            if d["nearest"]
            else None
        )
        avoid = tuple(Failure(**{**f, "shapes": tuple(f["shapes"])}) for f in d["avoid"])
        out.append(Decision(**{**d, "nearest": nearest, "avoid": avoid}))
    return out


def _bound(data: dict | None) -> answer.Bound | None:
    return answer.Bound(**data) if data else None


def _api(f: Failure | None, api: str = "", strategy: str = "", shared=()) -> str:
    """An API as a user writes it (``ops.Assign``); the strategy's name beside it where the API
    alone does not say which way of writing is meant (``shared``: APIs named more than once)."""
    api, strategy = (f.api, f.strategy) if f else (api, strategy)
    name = f"`{(api or strategy).removeprefix('mindspore.')}`"
    return f"{name} as `{strategy}`" if api and api in shared else name


def first_screen(decisions: list[Decision], shown: int = 4) -> list[str]:
    """README's first table: kind × mode → write (or none, and the nearest with its count),
    avoid (the first ``shown`` APIs, with what goes wrong), cost."""
    rows = [
        "| to … | mode | write | avoid (what goes wrong) | cost (largest size) |",
        "|---|---|---|---|---|",
    ]
    for d in decisions:
        if d.write is None:
            near = d.nearest
            write = "none correct in the common shapes" + (
                f"; nearest {_api(near)}: {near.works} of {near.gated} shapes" if near else ""
            )
        else:
            write = _api(None, d.api, d.write)
            if d.host:
                write = f"`{d.write}`: host-side code, then {write}"
            write += "" if d.decided else " (not decided)"
            if d.nearest:
                write += f"; fails in {len(d.nearest.shapes)} of {d.nearest.gated} shapes"
        apis = Counter(f.api for f in d.avoid)
        shared = {a for a, n in apis.items() if n > 1}
        avoid = ", ".join(f"{_api(f, shared=shared)} ({f.what})" for f in d.avoid[:shown])
        more = len(d.avoid) - shown
        avoid += f", {more} more" if more > 0 else ""
        what = answer.KINDS[d.kind].split(" every step")[0]
        rows.append(f"| {what} | {label(d.mode)} | {write} | {avoid or '–'} | {d.cost or '–'} |")
    return rows


__all__ = ["Decision", "Failure", "decide", "first_screen", "from_json", "to_json"]

"""Root causes: the findings' entries of every workload grouped by the MindSpore behaviour they
show (issue 54), the way crash triage buckets crashes (ClusterFuzz, syzkaller).

An entry (``findings.Entry``) is one divergence of one workload: a rule from minimal pairs (a
construct: "write dropped whenever ``construct=base`` instead of ``construct=own``") or the cells
of the strategies that fail the same way. A root cause is one *trigger* — the construct of a rule,
else the API the failing strategies call — with one outcome (the kind of divergence, or the error
with its numbers and names of this run taken out) at the same calls, over every workload, mode
and strategy where it shows. Ordered by cells: how many of the suite's code shapes it affects.

The evidence is the trigger as the gate's data name it (the dimension of a minimal pair, the API
of a strategy file), not a title; repros are the entries' own, not yet minimized (the issue's
shrink to 30 lines is not done).

A cause is then checked as one bucket (``bench.causes.reduce.confirm``): its short program,
written again for every strategy and mode the cause names. Where that program does not show the
outcome for some strategy × mode (``Tensor.add_`` drops the write in PYNATIVE in any shape, but
under jit only in some shapes), the cause is two: the cells the program shows, and the rest as a
cause of its own, "in some code shapes only" (``narrow``). The split is recorded in
``results/causes/reduced.json`` (``Split``) keyed by the cause's trigger, outcome and calls, not
by its title or slug, so it holds when another run changes the cause's modes or counts.

The other way round, causes whose short programs are one program (up to their titles) are one
cause (``Merge``): ``write=helper`` against ``write=depend`` and against ``write=inline`` are the
same helper dropping two Parameters' writes. The merge is recorded beside the splits, keyed the
same way, and the merged cause names every trigger it took in (``merged``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from bench.causes.findings import Entry, entries, version_key
from bench.core.schema import Status
from bench.measured.modes import MODE_NAMES, label


def _error(outcome: str) -> str:
    """An error's class and message without what changes from run to run (numbers, paths,
    addresses): ``raises: RuntimeError: The kernel InplaceIndexPut unregistered.``"""
    text = re.sub(r"0x[0-9a-f]+", "…", outcome)
    text = re.sub(r"(/[^\s:'\"]+)+", "…", text)
    return re.sub(r"\d+(\.\d+)?", "N", text)


def outcome_class(e: Entry) -> str:
    """What goes wrong, run-independent: the kind of a silent divergence, else the error."""
    return e.kind or _error(e.outcome.split(" (")[0])


@dataclass(frozen=True)
class Trigger:
    """What in the code makes MindSpore diverge: a construct (``dim``, the failing value, the
    working one) or the APIs of the failing strategies."""

    construct: tuple[str, str, str] | None = None
    apis: tuple[str, ...] = ()

    @property
    def words(self) -> str:
        if self.construct:
            dim, bad, good = self.construct
            return f"`{dim}={bad}` (works with `{dim}={good}`)"
        return ", ".join(f"`{a.removeprefix('mindspore.')}`" for a in self.apis)


@dataclass
class Cause:
    """One root cause and the entries it explains (``narrow``: the part of a split cause that
    its short program does not show: some code shapes only, ``Split``)."""

    trigger: Trigger
    outcome: str  # outcome_class
    calls: str
    entries: list[Entry] = field(default_factory=list)
    narrow: bool = False
    # the (trigger, outcome, calls) of the causes a ``Split`` took this one's entries from: the
    # split is still in force while a cause names it (``reduce.splits_kept``)
    split_from: set = field(default_factory=set)
    # the (trigger, outcome, calls) of the causes a ``Merge`` joined to this one: one program
    # shows them all (``reduce.merges_kept`` keeps it while a cause names them)
    merged: set = field(default_factory=set)

    @property
    def cells(self) -> int:
        return sum(len(e.cells) for e in self.entries)

    @property
    def modes(self) -> list[str]:
        found = {m for e in self.entries for m in e.modes}
        return sorted(found, key=lambda m: (MODE_NAMES.index(m) if m in MODE_NAMES else 99, m))

    @property
    def workloads(self) -> list[str]:
        return sorted({e.workload for e in self.entries})

    @property
    def strategies(self) -> list[str]:
        return sorted({s for e in self.entries for s in e.strategies})

    @property
    def eager(self) -> bool:
        return all(e.eager for e in self.entries)

    @property
    def words(self) -> str:
        """Its trigger's words, with those of the causes merged into it (``merged_words``)."""
        return merged_words([self.trigger, *sorted({t for t, _, _ in self.merged}, key=str)])

    @property
    def title(self) -> str:
        """``jit(capture_mode="bytecode"): `ops.assign` — write dropped at every call``."""
        modes = ", ".join(label(m) for m in self.modes)
        what = f"{self.outcome} {self.calls}".strip()
        return f"{modes}: {self.words}{NARROW if self.narrow else ''} — {what}"

    n: int = 1  # the n-th cause with the same slug text (``group`` numbers them)

    @property
    def slug(self) -> str:
        narrow = NARROW if self.narrow else ""
        text = f"{self.outcome}-{self.calls}-{self.words}{narrow}-{'-'.join(self.modes)}"
        slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80].rstrip("-")
        return slug if self.n == 1 else f"{slug}-{self.n}"

    @property
    def witness(self) -> Entry:
        """The entry a maintainer reproduces first: the one with the most cells, then the
        shortest failing shape (``Entry.example``), then by workload."""
        return min(
            self.entries,
            key=lambda e: (-len(e.cells), len(str(e.example.get("shape", ""))), e.workload),
        )


NARROW = ", in some code shapes only"  # a split cause's part its short program does not show


def merged_words(triggers: list[Trigger]) -> str:
    """The words of one or more triggers: constructs of one failing value, each working value
    named (```write=helper` (works with `write=depend`, `write=inline`)``), else each trigger's
    words in turn."""
    found = [t.construct for t in triggers]
    if len(triggers) > 1 and all(found) and len({c[:2] for c in found}) == 1:
        dim, bad = found[0][:2]
        goods = ", ".join(f"`{dim}={c[2]}`" for c in found)
        return f"`{dim}={bad}` (works with {goods})"
    return "; ".join(t.words for t in triggers)


@dataclass(frozen=True)
class Merge:
    """Causes found to be one (``bench.causes.reduce.merges_of``): their short programs are the
    same program up to their titles. Keyed by what groups each (trigger, outcome class, calls)."""

    keys: frozenset  # {(Trigger, outcome, calls)}

    def to_dict(self) -> dict:
        rows = _key_dicts(self.keys)
        return {"causes": sorted(rows, key=lambda r: json.dumps(r, sort_keys=True))}

    @classmethod
    def from_dict(cls, data: dict) -> Merge:
        return cls(frozenset(_key_of(r) for r in data["causes"]))


def _key_of(record: dict) -> tuple:
    """(Trigger, outcome, calls) of a record naming them (a cause, a merge's part)."""
    t = record.get("trigger") or {}
    construct = tuple(t["construct"]) if t.get("construct") else None
    return (Trigger(construct, tuple(t.get("apis", ()))), record["outcome"], record["calls"])


@dataclass(frozen=True)
class Split:
    """A cause found to be two (``reduce.confirm``): its short program does not show its outcome
    for the strategy × mode pairs ``missed``, though the cause's cells there fail the same way.
    Keyed by what groups a cause (trigger, outcome class, calls), not by its slug."""

    trigger: Trigger
    outcome: str
    calls: str
    missed: frozenset  # {(strategy, mode)}

    @property
    def key(self) -> tuple:
        return (self.trigger, self.outcome, self.calls)

    def to_dict(self) -> dict:
        return {
            "trigger": _trigger_dict(self.trigger),
            "outcome": self.outcome,
            "calls": self.calls,
            "missed": sorted([list(x) for x in self.missed]),
        }

    @classmethod
    def from_dict(cls, data: dict) -> Split:
        return cls(*_key_of(data), frozenset(tuple(x) for x in data["missed"]))


def _key_dicts(keys) -> list[dict]:
    """(Trigger, outcome, calls) keys as records (``_key_of`` reads one back)."""
    return [{"trigger": _trigger_dict(t), "outcome": o, "calls": c} for t, o, c in keys]


def _trigger_dict(t: Trigger) -> dict:
    return {"construct": list(t.construct) if t.construct else None, "apis": list(t.apis)}


def parts(e: Entry, apis: dict[str, str], splits=()) -> list[tuple[Entry, bool]]:
    """The entry as the causes take it, [(part, narrow)]: whole, or, where a ``Split`` of its
    cause names some of its strategy × mode pairs, the cells the short program shows and the
    rest (narrow)."""
    key = (trigger_of(e, apis), outcome_class(e), e.calls)
    missed = set().union(*(s.missed for s in splits if s.key == key))
    if not missed:
        return [(e, False)]
    shown = [c for c in e.cells if (c[0], c[2]) not in missed]
    rest = [c for c in e.cells if (c[0], c[2]) in missed]
    if not rest:
        return [(e, False)]
    if not shown:
        return [(e.only(rest), True)]
    return [(e.only(shown), False), (e.only(rest), True)]


def trigger_of(e: Entry, apis: dict[str, str]) -> Trigger:
    """The construct of a rule, else the APIs of the entry's strategies (``apis``: strategy ->
    the API its file names; the strategy's own name where it names none)."""
    if e.rule:
        dim, good, bad = e.rule
        return Trigger(construct=(dim, bad, good))
    return Trigger(apis=tuple(sorted({apis.get(s) or s for s in e.strategies})))


def group(found: list[Entry], apis: dict[str, str], splits=(), merges=()) -> list[Cause]:
    """The root causes of ``found`` (every workload's entries), most cells first; a cause with a
    ``Split`` is two (``parts``); the causes of a ``Merge`` are one (``merge``)."""
    causes: dict[tuple, Cause] = {}
    for whole in found:
        taken = parts(whole, apis, splits)
        origin = (trigger_of(whole, apis), outcome_class(whole), whole.calls)
        for e, narrow in taken:
            trigger = trigger_of(e, apis)
            key = (trigger, outcome_class(e), e.calls, narrow)
            cause = causes.setdefault(key, Cause(trigger, key[1], e.calls, narrow=narrow))
            cause.entries.append(e)
            if taken != [(whole, False)]:  # a split took it apart
                cause.split_from.add(origin)
    out = sorted(merge(list(causes.values()), merges), key=lambda c: (-c.cells, c.title))
    seen: dict[str, int] = {}
    for c in out:  # slugs are cut at 80 characters: number the ones that meet
        seen[c.slug] = seen.get(c.slug, 0) + 1
        c.n = seen[c.slug]
    return out


def merge(causes: list[Cause], merges=()) -> list[Cause]:
    """``causes`` with those of each ``Merge`` joined into its cause of most cells (a split's
    narrow part is never merged: its program is not the cause's)."""
    out = list(causes)
    for m in merges:
        mine = [c for c in out if not c.narrow and (c.trigger, c.outcome, c.calls) in m.keys]
        if len(mine) < 2:
            continue
        head, *rest = sorted(mine, key=lambda c: (-c.cells, c.title))
        for c in rest:
            head.entries += c.entries
            head.merged |= {(c.trigger, c.outcome, c.calls), *c.merged}
            head.split_from |= c.split_from
            out.remove(c)
    return out


def apis_of(runs) -> dict[str, str]:
    """{strategy: the API its file names} over ``runs`` (RunData)."""
    apis: dict[str, str] = {}
    for run in runs:
        for s, facts in run.manifest.strategies.items():
            apis.setdefault(s, facts.get("api", ""))
    return apis


def of_runs(runs: dict, splits=None, merges=None) -> list[Cause]:
    """The root causes of every run's entries (``runs``: {workload: RunData}); ``splits`` and
    ``merges``: default the committed ones (``read_splits``, ``read_merges``)."""
    found = [e for run in runs.values() for e in entries(run)]
    splits = read_splits() if splits is None else splits
    merges = read_merges() if merges is None else merges
    return group(found, apis_of(runs.values()), splits, merges)


REDUCED = "causes/reduced.json"  # under results/: bench.causes.reduce's record


def _recorded(results, key: str) -> list[dict]:
    """The records ``bench.causes.reduce`` kept under ``key`` ([] when it has not run)."""
    from bench.core import paths

    path = (results or paths.RESULTS_DIR) / REDUCED
    if not path.is_file():
        return []
    return json.loads(path.read_text(encoding="utf-8")).get(key, [])


def read_splits(results=None) -> list[Split]:
    """The splits ``bench.causes.reduce`` recorded ([] when it has not run or found none)."""
    return [Split.from_dict(d) for d in _recorded(results, "splits")]


def read_merges(results=None) -> list[Merge]:
    """The merges ``bench.causes.reduce`` recorded ([] when it has not run or found none)."""
    return [Merge.from_dict(d) for d in _recorded(results, "merges")]


def reduced(results=None) -> dict[str, dict]:
    """{slug: the cause's short program as ``bench.causes.reduce`` recorded it} (``script``,
    ``lines``, ``releases``, ``why_not``), {} when it has not run. A program is used only for the
    cause of the same slug (a cause that changed is not shown another's program)."""
    from bench.core import paths

    path = (results or paths.RESULTS_DIR) / REDUCED
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {r["slug"]: r for r in data.get("reduced", [])}


def repro_words(r: dict | None, prefix: str = "") -> str:
    """``[28 lines](causes/01-….py), reproduces on 2.7.2, 2.8.0, 2.9.0, 2.10.0``; "" when the
    cause has no short program."""
    if not r or not r.get("script"):
        return ""
    on = [v for v, got in r["releases"].items() if got["result"] == "reproduces"]
    off = [v for v, got in r["releases"].items() if got["result"] != "reproduces"]
    path = prefix + r["script"].removeprefix("results/")
    said = f"[{r['lines']} lines]({path})"
    if on:
        said += f", reproduces on {', '.join(sorted(on, key=version_key))}"
    for instead, versions in _instead(r["releases"], off).items():
        said += f"; not on {', '.join(sorted(versions, key=version_key))}"
        said += f" ({instead} there)" if instead else ""
    return said


def _instead(releases: dict, off: list[str]) -> dict[str, list[str]]:
    """{what the program did instead, as words ("it shows write dropped at call 1": its words
    after ``NOT REPRODUCED:``; "it did not end"; "" when it said nothing): the releases it did it
    on}, in release order: a maintainer learns that 2.7.2 drops the write at call 1 where later
    releases follow the old values after a reload, not only that 2.7.2 differs."""
    out: dict[str, list[str]] = {}
    for v in sorted(off, key=version_key):
        got = releases[v]
        printed = " ".join((got.get("printed") or "").split())
        _, marked, shown = printed.partition("NOT REPRODUCED:")
        if got.get("result") == "did not end":  # reduce.on_release: no exit code
            instead = "it did not end"
        else:
            shown = shown.strip()[:80] if marked else ""
            works = shown == Status.WORKS.value  # what the program prints when it works
            instead = "it works" if works else f"it shows {shown}" if shown else ""
        out.setdefault(instead, []).append(v)
    return out


def bucket_words(bucket: list[dict]) -> str:
    """``the same program shows it for 5 of 5 API × mode``: the bucket's evidence
    (``reduce.confirm``); "" when not checked."""
    if not bucket:
        return ""
    shown = sum(b["code"] == 0 for b in bucket)
    said = f"the same program shows it for {shown} of {len(bucket)} API × mode"
    missed = [f"`{b['strategy']}` {b['mode']}" for b in bucket if b["code"] != 0]
    return said + (f" (not: {', '.join(missed)})" if missed else "")


def lines(
    causes: list[Cause], shown: int = 8, link: str = "results/findings.md", short=None
) -> list[str]:
    """README's list: the ``shown`` causes that affect most shapes, one line each, then one line
    for the rest."""
    out = []
    for c in causes[:shown]:
        where = ", ".join(c.workloads)
        eager = " (an eager-mode bug)" if c.eager else ""
        repro = repro_words((short or {}).get(c.slug), "results/")
        out.append(
            f"- [{c.title}]({link}#{c.witness.slug}){eager}: {c.cells} cells "
            f"({len(c.strategies)} strategies; {where})" + (f"; repro: {repro}" if repro else "")
        )
    rest = causes[shown:]
    if rest:
        out.append(
            f"- and {len(rest)} more root causes of {sum(c.cells for c in rest)} cells: "
            f"[the findings]({link})"
        )
    return out or ["- none"]


def issue_head(cause: Cause, rank: int, of: int, short: dict | None = None) -> str:
    """What an exported issue says of its root cause before its witness entry's body: its
    short program inline, with where it reproduces (``short``: its ``reduced()`` record)."""
    entries_ = "; ".join(f"{e.workload}: {e.title}" for e in cause.entries)
    program = []
    if short and short.get("script"):
        from bench.core import paths

        text = (paths.ROOT / short["script"]).read_text(encoding="utf-8")
        releases = short["releases"]
        instead = {v: i for i, vs in _instead(releases, list(releases)).items() for v in vs}
        runs = "; ".join(
            f"{v}: {releases[v]['result']}"
            + (f" ({instead[v]})" if instead[v] and releases[v]["result"] != "reproduces" else "")
            for v in sorted(releases, key=version_key)
        )
        program = [
            f"**Short repro** ({short['lines']} lines, imports only `mindspore` and `numpy`; "
            f"exits 0 when it reproduces; alone in a fresh process: {runs}):",
            "",
            "```python",
            *text.rstrip("\n").split("\n"),
            "```",
            "",
        ]
    elif short and short.get("why_not"):
        program = [f"No short repro: {short['why_not'][:300]}", ""]
    return "\n".join(
        [
            f"<!-- root cause {rank} of {of}: {cause.title} -->",
            "",
            f"**Root cause {rank} of {of}** (ordered by the code shapes affected): {cause.title}.",
            "",
            f"- cells (strategy × shape × mode): {cause.cells}",
            f"- workloads: {', '.join(cause.workloads)}",
            f"- modes: {', '.join(label(m) for m in cause.modes)}",
            f"- strategies: {', '.join(f'`{s}`' for s in cause.strategies)}",
            f"- entries of the findings page: {entries_}",
            "",
            *program,
            "The witness below is the entry with the most cells, with its own script (the "
            "workload's whole cell, as the gate ran it).",
            "",
            "",
        ]
    )


def table(causes: list[Cause], short=None) -> list[str]:
    """findings.md's first section: every root cause with its count, its entries and its short
    program (``short``: ``reduced()``; else the entries' own scripts)."""
    rows = [
        "| # | root cause | cells | strategies | workloads | entries | short repro |",
        "|---|---|---|---|---|---|---|",
    ]
    for rank, c in enumerate(causes, 1):
        links = [f"[{e.workload}](#{e.slug})" for e in c.entries]
        mine = (short or {}).get(c.slug)
        repro = repro_words(mine) or "the entries' scripts"
        checked = bucket_words(mine.get("bucket", []) if mine and mine.get("script") else [])
        repro += f"; {checked}" if checked else ""
        rows.append(
            f"| {rank} | {c.title} | {c.cells} | {len(c.strategies)} | {', '.join(c.workloads)} "
            f"| {', '.join(links)} | {repro} |"
        )
    return rows


SCHEMA_VERSION = 4  # results/causes.json; 2: ``narrow``; 3: ``split_from``; 4: ``merged``
READS = (1, 2, 3, 4)
CAUSES_FILE = "causes.json"


def records(causes: list[Cause], repro_links: dict[str, dict] | None = None) -> list[dict]:
    """Every root cause as data (``results/causes.json``: what the check tool matches a user's
    divergence against): its rank, title, trigger, outcome, calls, modes, and its entries, each
    with the rule or the strategies that show it, its failing shapes per mode and the repro of
    its example (``repro_links``: {workload: {(strategy, shape, mode): path under results/W/}})."""
    links = repro_links or {}
    out = []
    for rank, c in enumerate(causes, 1):
        rows = []
        for e in c.entries:
            ex = e.example
            key = (ex.get("strategy"), ex.get("shape"), ex.get("mode"))
            path = links.get(e.workload, {}).get(key)
            rows.append(
                {
                    "workload": e.workload,
                    "anchor": e.slug,
                    "title": f"{e.workload}: {e.title}",
                    "outcome": e.outcome,
                    "rule": f"{e.rule[0]}={e.rule[2]}" if e.rule else "",
                    "strategies": list(e.strategies),
                    "modes": list(e.modes),
                    "shapes": {m: list(s) for m, s in e.shapes.items()},
                    "example": {"strategy": key[0], "shape": key[1], "mode": key[2]},
                    "pair": (  # the minimal pair: a shape one change away that works
                        {"strategy": e.pair[0], "mode": e.pair[1], "working_shape": e.pair[2]}
                        if e.pair
                        else None
                    ),
                    "repro": f"results/{e.workload}/{path}" if path else "",
                    "cells": len(e.cells),
                    "pairs": sorted({(c[0], c[2]) for c in e.cells}),  # (strategy, mode) of them
                }
            )
        out.append(
            {
                "rank": rank,
                "slug": c.slug,
                "title": c.title,
                "trigger": _trigger_dict(c.trigger),
                "outcome": c.outcome,
                "calls": c.calls,
                "narrow": c.narrow,
                "split_from": _key_dicts(sorted(c.split_from, key=str)),
                "merged": _key_dicts(sorted(c.merged, key=str)),
                "modes": c.modes,
                "workloads": c.workloads,
                "strategies": c.strategies,
                "cells": c.cells,
                "eager": c.eager,
                "witness": c.witness.slug,
                "entries": rows,
            }
        )
    return out


def to_json(causes: list[Cause], runs: dict, repro_links: dict[str, dict] | None = None) -> str:
    """``results/causes.json``: the root causes of the pinned runs, typed and versioned."""
    data = {
        "schema_version": SCHEMA_VERSION,
        "runs": {w: r.manifest.run_id for w, r in runs.items()},
        "mindspore": sorted({str(r.environment.get("mindspore", "?")) for r in runs.values()}),
        "causes": records(causes, repro_links),
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def from_json(text: str) -> list[dict]:
    """The causes of a ``causes.json`` (its records); ValueError on a schema it cannot read."""
    data = json.loads(text)
    if data.get("schema_version") not in READS:
        raise ValueError(f"causes schema_version {data.get('schema_version')!r}")
    return [{"narrow": False, "split_from": [], "merged": [], **c} for c in data["causes"]]


__all__ = [
    "CAUSES_FILE",
    "Cause",
    "Merge",
    "Split",
    "Trigger",
    "bucket_words",
    "from_json",
    "group",
    "issue_head",
    "lines",
    "merge",
    "merged_words",
    "of_runs",
    "outcome_class",
    "parts",
    "read_merges",
    "read_splits",
    "records",
    "reduced",
    "repro_words",
    "table",
    "to_json",
    "trigger_of",
]

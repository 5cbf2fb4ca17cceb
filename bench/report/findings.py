"""Findings a maintainer can act on: one entry per real divergence, built from the verdicts.

A divergence is a set of silently wrong cells that fail the same way (one kind, or one error).
Where a one-dimension change of the code flips the verdict in every minimal pair that has it, for
two or more strategies, the entry is that *rule* ("stale read whenever ``read=view`` instead of
``read=alias``"); the other failing cells are grouped by strategy. Each entry carries the
MindSpore version, the modes, expected (the code's meaning) against observed (the first divergent
step), one minimal pair with a reproduction script for each side, the graph breaks of the pair
under bytecode capture, and what MindSpore's documentation says (``DOCUMENTED``, a fact about the
documentation, not a result). A divergence in an eager mode is an eager-mode bug: its entry says
so. README's findings and every page's rules come only from these entries.
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from itertools import combinations

import pandas as pd

from bench.core.schema import INSTANCE_QUALIFIERS, Kind, Status
from bench.measured.modes import GRAPH, JIT_AST, JIT_BYTECODE, MODES
from bench.report.load import RunData
from bench.report.pairs import minimal_pairs

SILENT_OR_ERROR = (
    Status.INCORRECT.value,
    Status.RAISES.value,
    Status.CRASHED.value,
    Status.TIMEOUT.value,
)
STATIC = "https://www.mindspore.cn/tutorials/en/r2.10.0/compile/static_graph.html"
# What a mode's own documentation says of a kind of divergence (facts about pages), per mode: a
# mode with no entry is "not found" (another mode's page is not cited for it).
VIEW_DOC = (
    "partly: the static-graph tutorial documents view operations in graph mode for Ascend "
    "only, and the view guide says `reshape` may copy; nothing says a CPU view keeps the "
    f"old value ([static graph: view and in-place operations]({STATIC}#view-and-in-place-"
    "operations))"
)
SET_DATA_DOC = (
    "yes, as an error message: `set_data` is not supported in `construct` or `@jit` (the "
    "message names the static-graph syntax page); see the original report, "
    "[mindspore#327](https://github.com/mindspore-ai/mindspore/issues/327)"
)
DOCUMENTED = {
    (Kind.STALE_READ.value, GRAPH): VIEW_DOC,
    (Kind.STALE_READ.value, JIT_AST): VIEW_DOC,
    (Kind.WRITE_DROPPED.value, JIT_BYTECODE): (
        "no: bytecode capture is documented to run what it cannot capture eagerly (a graph "
        "break), not to drop a write "
        f"([static graph: bytecode]({STATIC}#syntax-based-on-bytecode-graph-construction))"
    ),
    (Status.RAISES.value, GRAPH): SET_DATA_DOC,
    (Status.RAISES.value, JIT_AST): SET_DATA_DOC,
    (Status.RAISES.value, JIT_BYTECODE): SET_DATA_DOC,
}
NOT_FOUND = "not found (no page of this mode's documentation that we found covers it)"


def documented(kind: str, mode: str, shapes: list[str]) -> str:
    """What ``mode``'s own documentation says of ``kind`` for these failing shapes; the view
    pages only for a read through a view."""
    if kind == Kind.STALE_READ.value and not any("view" in s.split("-") for s in shapes):
        return NOT_FOUND
    return DOCUMENTED.get((kind, mode), NOT_FOUND)


def family(mode: str) -> str:
    return "compiled" if MODES.get(mode) and MODES[mode].compiled else "eager"


def cover(failing: set[str], every: set[str]) -> list[str]:
    """Few shape globs that match exactly the failing shapes among ``every`` (checked with
    fnmatch): ``*`` for all of them, else one or two values fixed, else the names themselves."""
    if failing == every:
        return ["*"]
    width = Counter(len(s.split("-")) for s in every).most_common(1)[0][0]
    regular = {s for s in failing if len(s.split("-")) == width}
    for size in (1, 2):
        for dims in combinations(range(width), size):
            globs = set()
            for s in regular:
                parts = s.split("-")
                globs.add("-".join(p if i in dims else "*" for i, p in enumerate(parts)))
            good = [g for g in sorted(globs) if set(fnmatch.filter(every, g)) <= failing]
            covered = set().union(*(fnmatch.filter(every, g) for g in good)) if good else set()
            if regular <= covered and len(good) < len(regular):
                return good + sorted(failing - covered)
    return sorted(failing)


@dataclass
class Entry:
    """One divergence."""

    workload: str
    outcome: str  # "incorrect: stale read", "raises: RuntimeError: ..."
    strategies: list[str]
    modes: list[str]
    shapes: dict[str, list[str]]  # mode -> failing shapes
    rule: tuple | None = None  # (dim, works value, fails value): the minimal-pair rule
    pair: tuple | None = None  # (strategy, mode, works shape, fails shape)
    example: dict = field(default_factory=dict)  # a failing verdict row, as a dict
    pair_breaks: tuple | None = None  # graph breaks (works side, fails side) under bytecode
    mindspore: str = ""
    n: int = 1  # the n-th entry with the same slug text (anchors must be unique)

    @property
    def kind(self) -> str:
        if not self.outcome.startswith(Status.INCORRECT.value):
            return ""
        return CALLS.sub("", self.outcome.split(": ", 1)[1])

    @property
    def calls(self) -> str:
        """ "at the first call only", "at every call", ... ("" when not known)."""
        found = (
            CALLS.search(self.outcome) if self.outcome.startswith(Status.INCORRECT.value) else None
        )
        return found.group(1) if found else ""

    @property
    def eager(self) -> bool:
        return all(family(m) == "eager" for m in self.modes)

    @property
    def title(self) -> str:
        what = f"{self.kind} {self.calls}".strip() or self.outcome
        if self.rule:
            dim, good, bad = self.rule
            return f"{what} whenever `{dim}={bad}` instead of `{dim}={good}`"
        return f"{what}: {', '.join(f'`{s}`' for s in self.strategies)}"

    @property
    def slug(self) -> str:
        text = (
            f"{self.workload}-{self.kind or self.outcome.split(':')[0]}-"
            + ("-".join(self.rule) if self.rule else "-".join(self.strategies))
            + "-"
            + "-".join(self.modes)
        )
        slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80]
        return slug if self.n == 1 else f"{slug}-{self.n}"

    @property
    def documented(self) -> str:
        """Per mode, what that mode's own pages say ("not found" rather than another's)."""
        if self.eager:
            return "no: PYNATIVE itself departs from eager semantics here (an eager-mode bug)"
        kind = self.kind or self.outcome.split(":")[0]
        said = {m: documented(kind, m, self.shapes.get(m, [])) for m in self.modes}
        if len(set(said.values())) == 1:
            return next(iter(said.values()))
        return "; ".join(f"{m}: {text}" for m, text in said.items())


CALLS = re.compile(
    r" (at every call|at the first .*|from call .*|at calls .*|"
    + "|".join(re.escape(q) for q in INSTANCE_QUALIFIERS)
    + ")$"
)


def qualified(verdicts: pd.DataFrame) -> pd.DataFrame:
    """The verdicts with each silent failure's outcome qualified by the calls it shows at
    ("incorrect: stale read at the first call only"): a first call that differs from the
    later ones is another bug than a failure at every call, so they are other entries."""
    if "calls" not in verdicts or verdicts.empty:
        return verdicts
    q = verdicts.copy()
    extra = q["calls"].fillna("").astype(str)
    silent = q.status.eq(Status.INCORRECT.value) & extra.ne("") & ~extra.str.contains(";")
    q.loc[silent, "outcome"] = q.loc[silent, "outcome"] + " " + extra[silent]
    return q


def _failing(run: RunData) -> pd.DataFrame:
    v = qualified(run.verdicts)
    return v[v.status.isin(SILENT_OR_ERROR) & (v.strategy != "control")]


def rules(run: RunData) -> list[tuple]:
    """(mode, dim, works value, fails value, outcome, strategies): one-dimension changes that
    flip every minimal pair that has them, for two or more strategies."""
    pairs = minimal_pairs(qualified(run.verdicts))
    if pairs.empty:
        return []
    pairs = pairs[(pairs.pairs == pairs["of"]) & (pairs.works_outcome == Status.WORKS.value)]
    out = []
    for key, g in pairs.groupby(["mode", "dim", "works_value", "fails_value", "fails_outcome"]):
        if g.strategy.nunique() >= 2:
            out.append((*key, tuple(sorted(set(g.strategy)))))
    return out


def entries(run: RunData) -> list[Entry]:
    """Every divergence of one run, rules first, biggest first."""
    fail = _failing(run)
    pairs = minimal_pairs(qualified(run.verdicts))
    version = run.environment.get("mindspore") or run.plan.get("mindspore", "?")
    explained: set[tuple] = set()
    merged: dict[tuple, list[str]] = defaultdict(list)
    for mode, dim, good, bad, outcome, strategies in rules(run):
        merged[(dim, good, bad, outcome, strategies)].append(mode)
    out = []
    for (dim, good, bad, outcome, strategies), modes in merged.items():
        hit = fail[
            fail["mode"].isin(modes)
            & fail.strategy.isin(strategies)
            & (fail.outcome == outcome)
            & fail.dims.map(lambda d, dim=dim, bad=bad: d.get(dim) == bad)
        ]
        explained |= {(r.strategy, r.shape, r.mode) for r in hit.itertuples()}
        out.append(_entry(run, hit, outcome, sorted(modes), pairs, (dim, good, bad), version))
    keys = pd.Series(list(zip(fail.strategy, fail["shape"], fail["mode"])), index=fail.index)
    rest = fail[~keys.isin(explained).astype(bool)] if len(fail) else fail
    groups: dict[tuple, list] = defaultdict(list)
    for (strategy, outcome), g in rest.groupby(["strategy", "outcome"]):
        shapes = tuple(sorted((m, tuple(sorted(gm["shape"]))) for m, gm in g.groupby("mode")))
        groups[(outcome, shapes)].append(strategy)
    for (outcome, shapes), strategies in groups.items():
        modes = [m for m, _ in shapes]
        hit = rest[
            rest.strategy.isin(strategies) & (rest.outcome == outcome) & rest["mode"].isin(modes)
        ]
        out.append(_entry(run, hit, outcome, modes, pairs, None, version))
    out.sort(key=lambda e: (e.rule is None, -sum(len(s) for s in e.shapes.values())))
    seen: Counter = Counter()
    for e in out:
        seen[e.slug] += 1
        e.n = seen[e.slug]
    return out


def _entry(run, hit, outcome, modes, pairs, rule, version) -> Entry:
    shapes = {m: sorted(set(g["shape"])) for m, g in hit.groupby("mode")}
    example = hit.sort_values(["shape"], key=lambda s: s.str.len()).iloc[0]
    pair = None
    if not pairs.empty:
        p = pairs[
            (pairs.strategy.isin(set(hit.strategy)))
            & pairs["mode"].isin(modes)
            & (pairs.fails_outcome == outcome)
            & (pairs.works_outcome == Status.WORKS.value)
        ]
        if rule:
            p = p[(p.dim == rule[0]) & (p.works_value == rule[1]) & (p.fails_value == rule[2])]
        if len(p):
            best = p.sort_values("works_shape", key=lambda s: s.str.len()).iloc[0]
            pair = (best.strategy, best["mode"], best.works_shape, best.fails_shape)
    breaks = None
    if pair and family(pair[1]) == "compiled":
        v = run.verdicts
        got = [
            v[(v.strategy == pair[0]) & (v["mode"] == pair[1]) & (v["shape"] == s)].graph_breaks
            for s in pair[2:]
        ]
        if all(len(g) and pd.notna(g.iloc[0]) for g in got):
            breaks = tuple(int(g.iloc[0]) for g in got)
    return Entry(
        run.workload,
        outcome,
        sorted(set(hit.strategy)),
        modes,
        shapes,
        rule,
        pair,
        example.to_dict(),
        breaks,
        version,
    )


# -- entries as issues ------------------------------------------------------------------------
def _steps_table(steps: list, symbol: str) -> list[str]:
    rows = ["| step | expected (the code's meaning) vs observed |", "|---|---|"]
    for s in steps or []:
        note = (s.get("note") or "as the code means").replace("|", "\\|")
        rows.append(f"| {s.get('step')} ({symbol}={s.get('size')}) | {note} |")
    return rows if len(rows) > 2 else ["(no per-step record: the cell did not run a step)"]


def issue(run: RunData, e: Entry, script: str | None) -> str:
    """One entry as a Markdown issue body for MindSpore's tracker."""
    env = run.environment or {}
    ex = e.example
    modes = ", ".join(MODES[m].label if m in MODES else m for m in e.modes)
    out = [
        f"# [CPU] {e.title} ({modes})",
        "",
        "## Environment",
        "",
        f"- MindSpore {e.mindspore or env.get('mindspore', '?')} (CPU)",
        f"- OS: {env.get('platform', '?')}",
        f"- Python: {env.get('python', '?')}",
        f"- CPU: {env.get('cpu', env.get('machine', '?'))} ({env.get('cpu_count', '?')} cores)",
        "",
        "## What happens",
        "",
        f"`{ex.get('strategy')}` in the shape `{ex.get('shape')}` under "
        f"{MODES[ex['mode']].label if ex.get('mode') in MODES else ex.get('mode')}: "
        f"{ex.get('outcome', e.outcome)}" + (f" ({e.calls})" if e.calls else "") + ".",
        "",
        *_steps_table(ex.get("steps") or [], run.work.size_symbol),
        "",
    ]
    if e.pair:
        s, mode, good, bad = e.pair
        label = MODES[mode].label if mode in MODES else mode
        out += [
            "## Minimal pair",
            "",
            f"Under {label}, `{s}`: the shape `{good}` works, `{bad}` does not "
            "(one dimension of the code changed).",
            "",
        ]
    out += ["## Documentation", "", e.documented, "", "## Reproduce", ""]
    if script:
        suite = re.search(r"^from (\w+_suite) import", script, re.M)
        if suite:  # a bundled script (bytecode capture keeps module boundaries)
            out += [
                f"Needs `{suite.group(1)}.py` next to it (`nox -s repro` writes both): under "
                "bytecode capture the module a class is defined in changes what is captured.",
                "",
            ]
        out += ["```python", script.rstrip(), "```", ""]
    else:
        out += ["No standalone script for this cell (it varies between processes or hangs).", ""]
    return "\n".join(out)


def export(runs: dict[str, RunData], out_dir) -> list:
    """Write one Markdown issue per entry of every run into ``out_dir``; the paths written."""
    import tempfile
    from pathlib import Path

    from bench.core.io import write_text_atomic
    from bench.report import repro

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for run in runs.values():
        for e in entries(run):
            ex = e.example
            with tempfile.TemporaryDirectory() as tmp:
                links = repro.write(run, [ex], Path(tmp) / "repros")
                key = (ex.get("strategy"), ex.get("shape"), ex.get("mode"))
                script = None
                if key in links:
                    script = (Path(tmp) / links[key]).read_text()
            path = out_dir / f"{e.slug}.md"
            write_text_atomic(path, issue(run, e, script))
            written.append(path)
    return written


def main(argv=None) -> int:
    """``python -m bench.report.findings --export DIR [--run RUN_DIR ...]``."""
    import argparse
    import sys
    from pathlib import Path

    from bench.core import paths
    from bench.measured import workloads
    from bench.report import load

    parser = argparse.ArgumentParser(prog="python -m bench.report.findings")
    parser.add_argument("--export", required=True, metavar="DIR", help="write one .md per entry")
    parser.add_argument(
        "--run", action="append", default=[], help="a run folder (default: every reference run)"
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    folders = [Path(r) for r in args.run]
    if not folders:
        for w in workloads.WORKLOADS:
            ref = paths.reference(paths.raw_dir(paths.results_dir(w)))
            if ref is not None:
                folders.append(ref)
    if not folders:
        print("findings: no run to export (no reference run, no --run)", file=sys.stderr)
        return 2
    runs = {}
    for folder in folders:
        if not folder.is_dir():
            print(f"findings: {folder}: not a run folder", file=sys.stderr)
            return 2
        run = load.load(folder)
        runs[f"{run.workload}:{folder.name}"] = run
    written = export(runs, args.export)
    print(f"findings: wrote {len(written)} issue(s) into {args.export}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

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
import importlib.util
import re
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from itertools import combinations

import pandas as pd

from bench.core.schema import INSTANCE_QUALIFIERS, Kind, Status
from bench.decide.load import RunData
from bench.decide.pairs import minimal_pairs
from bench.measured.modes import GRAPH, JIT_AST, JIT_BYTECODE, MODES

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
    "only, and the view guide says `reshape` may copy. Nothing says a CPU view keeps the "
    f"old value ([static graph: view and in-place operations]({STATIC}#view-and-in-place-"
    "operations))"
)
SET_DATA_DOC = (
    "yes, as an error message: `set_data` is not supported in `construct` or `@jit` (the "
    "message names the static-graph syntax page). See the original report, "
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
}
# An error is documented by its own message, in the mode that raises it: (mode, the start of
# the error) -> what that mode's documentation says. GRAPH_MODE's compile error for `set_data`
# names `construct` and `@jit` (so jit(capture_mode="ast") too); bytecode capture's
# AttributeError is another error, with no page of its own ("not found").
SET_DATA_ERROR = "RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'"
RAISES_DOCUMENTED = {
    (GRAPH, SET_DATA_ERROR): SET_DATA_DOC,
    (JIT_AST, SET_DATA_ERROR): SET_DATA_DOC,
}
NOT_FOUND = "not found (no page of this mode's documentation that we found covers it)"


def documented(kind: str, mode: str, shapes: list[str], outcome: str = "") -> str:
    """What ``mode``'s own documentation says of ``kind`` for these failing shapes; the view
    pages only for a read through a view; an error (``kind`` raises) by its message, the
    ``outcome`` ("raises: RuntimeError: Failed to compile ...")."""
    if kind == Status.RAISES.value:
        error = outcome.split(": ", 1)[1] if ": " in outcome else ""
        found = (
            d
            for (m, start), d in RAISES_DOCUMENTED.items()
            if m == mode and error.startswith(start)
        )
        return next(found, NOT_FOUND)
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
    cells: list = field(default_factory=list)  # (strategy, shape, mode) of every failing cell
    anchor: str = ""  # a part of an entry (``only``): the whole entry's slug, where it is shown

    def only(self, cells) -> Entry:
        """The part of this entry of ``cells`` (some of its (strategy, shape, mode)): its
        strategies, modes and shapes narrowed to them, its example one of them (the shortest
        shape where the whole entry's is not), its pair kept where it is of them; it keeps the
        whole entry's anchor (the findings page shows entries whole)."""
        keep = set(cells)
        mine = [c for c in self.cells if c in keep]
        if not mine:
            raise ValueError(f"{self.slug}: no cell of the entry among {sorted(keep)}")
        modes = [m for m in self.modes if any(c[2] == m for c in mine)]
        shapes = {
            m: [x for x in self.shapes.get(m, []) if (m, x) in {(c[2], c[1]) for c in mine}]
            for m in modes
        }
        example = dict(self.example)
        key = (example.get("strategy"), example.get("shape"), example.get("mode"))
        if key not in keep:
            s, shape, m = min(mine, key=lambda c: (len(c[1]), c[1], c[2], c[0]))
            example.update(strategy=s, shape=shape, mode=m)
        ran = {(c[0], c[2]) for c in mine}
        pair = self.pair if self.pair and (self.pair[0], self.pair[1]) in ran else None
        return replace(
            self,
            strategies=[s for s in self.strategies if any(c[0] == s for c in mine)],
            modes=modes,
            shapes=shapes,
            example=example,
            pair=pair,
            pair_breaks=self.pair_breaks if pair else None,
            cells=mine,
            anchor=self.slug,
        )

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
        if self.anchor:
            return self.anchor
        text = (
            f"{self.workload}-{self.kind or self.outcome.split(':')[0]}-"
            + ("-".join(self.rule) if self.rule else "-".join(self.strategies))
            + "-"
            + "-".join(self.modes)
        )
        slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80]
        return slug if self.n == 1 else f"{slug}-{self.n}"

    @property
    def documented_by_mode(self) -> dict[str, str]:
        """Per mode, what that mode's own pages say ("not found" rather than another's); one
        entry, keyed "", when every mode's pages say the same."""
        if self.eager:
            return {"": "no: PYNATIVE itself departs from eager semantics here (an eager-mode bug)"}
        kind = self.kind or self.outcome.split(":")[0]
        said = {m: documented(kind, m, self.shapes.get(m, []), self.outcome) for m in self.modes}
        if len(set(said.values())) == 1:
            return {"": next(iter(said.values()))}
        return {MODES[m].label if m in MODES else m: text for m, text in said.items()}

    @property
    def documented(self) -> str:
        """``documented_by_mode`` as one paragraph."""
        said = self.documented_by_mode
        return ". ".join(f"{m}: {t}" if m else t for m, t in said.items())


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


def _pairs(run: RunData):
    """The run's minimal pairs (``minimal_pairs`` of its qualified verdicts), found once per run:
    ``rules`` and ``entries`` both read them, and the report asks for both more than once."""
    if "minimal_pairs" not in run.memo:
        run.memo["minimal_pairs"] = minimal_pairs(qualified(run.verdicts))
    return run.memo["minimal_pairs"]


def rules(run: RunData) -> list[tuple]:
    """(mode, dim, works value, fails value, outcome, strategies): one-dimension changes that
    flip every minimal pair that has them, for two or more strategies."""
    pairs = _pairs(run)
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
    pairs = _pairs(run)
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


def _shortest(frame, column: str, ties: list[str]):
    """The row whose ``column`` is the shortest string, ties broken by ``ties`` in order: one
    row on every machine (pandas' default sort is not stable, and numpy picks its sorting
    kernel by the CPU's instruction set, so equal lengths came out in a machine's order)."""
    order = frame.assign(_len=frame[column].str.len()).sort_values(["_len", *ties], kind="stable")
    return order.drop(columns="_len").iloc[0]


def _entry(run, hit, outcome, modes, pairs, rule, version) -> Entry:
    shapes = {m: sorted(set(g["shape"])) for m, g in hit.groupby("mode")}
    example = _shortest(hit, "shape", ["shape", "mode", "strategy"])
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
            best = _shortest(p, "works_shape", ["works_shape", "fails_shape", "mode", "strategy"])
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
        cells=sorted(zip(hit.strategy, hit["shape"], hit["mode"])),
    )


# -- entries as issues ------------------------------------------------------------------------
def _steps_table(steps: list, symbol: str) -> list[str]:
    rows = ["| step | expected (the code's meaning) vs observed |", "|---|---|"]
    for s in steps or []:
        note = (s.get("note") or "as the code means").replace("|", "\\|")
        rows.append(f"| {s.get('step')} ({symbol}={s.get('size')}) | {note} |")
    return rows if len(rows) > 2 else ["(no per-step record: the cell did not run a step)"]


FAILING, WORKING = "failing", "working"  # the two scripts of an issue: the entry's, its pair's


def _label(mode: str) -> str:
    return MODES[mode].label if mode in MODES else mode


def _code(script: str) -> list[str]:
    return ["```python", script.rstrip(), "```", ""]


def issue(
    run: RunData,
    e: Entry,
    scripts: dict | str | None,
    traceback: str = "",
    releases: list[str] | None = None,
) -> str:
    """One entry as a Markdown issue body for MindSpore's tracker. ``scripts``: the standalone
    script of the entry's example (``FAILING``) and of the working side of its minimal pair
    (``WORKING``); ``traceback``: the native traceback of a crash; ``releases``: one line per
    release (``affected``)."""
    if not isinstance(scripts, dict):
        scripts = {FAILING: scripts} if scripts else {}
    env = run.environment or {}
    ex = e.example
    modes = ", ".join(_label(m) for m in e.modes)
    version = e.mindspore or env.get("mindspore", "?")
    out = [
        f"# [CPU] {e.title} ({modes})",
        "",
        "## Environment",
        "",
        f"- MindSpore {version} (CPU)",
        f"- OS: {env.get('platform', '?')}",
        f"- Python: {env.get('python', '?')}",
        f"- CPU: {env.get('cpu', env.get('machine', '?'))} ({env.get('cpu_count', '?')} cores)",
        "",
        "## Releases affected",
        "",
        *(f"- {line}" for line in (releases or [f"{version}: the only release measured"])),
        "",
        "## What happens",
        "",
        f"`{ex.get('strategy')}` in the shape `{ex.get('shape')}` under "
        f"{_label(ex.get('mode'))}: "
        f"{ex.get('outcome', e.outcome)}" + (f" ({e.calls})" if e.calls else "") + ".",
        "",
        *_steps_table(ex.get("steps") or [], run.work.size_symbol),
        "",
    ]
    if traceback:
        out += ["Native traceback of the crash (`PYTHONFAULTHANDLER=1`):", "", "```", traceback]
        out += ["```", ""]
    if e.pair:
        s, mode, good, bad = e.pair
        out += [
            "## Minimal pair",
            "",
            f"Under {_label(mode)}, `{s}`: the shape `{good}` works, `{bad}` does not "
            "(one dimension of the code changed).",
            "",
        ]
    said = e.documented_by_mode
    doc = [f"- {m}: {t}" if m else t for m, t in said.items()]
    out += ["## Documentation", "", *doc, "", "## Reproduce", ""]
    if scripts.get(FAILING):
        out += [
            "Only `mindspore` and `numpy` needed: `python repro.py` prints expected vs observed "
            "per step and exits 0 when it shows the divergence, 1 when it does not.",
            "",
            *_code(scripts[FAILING]),
        ]
    else:
        out += ["No standalone script for this cell (no variant code in the run).", ""]
    if e.pair and scripts.get(WORKING):
        s, mode, good, _ = e.pair
        out += [
            f"The working side of the minimal pair (`{s}`, shape `{good}`, {_label(mode)}):",
            "",
            *_code(scripts[WORKING]),
        ]
    return "\n".join(out)


def _outcomes(verdicts: pd.DataFrame) -> dict:
    """{(strategy, shape, mode): qualified outcome} of a verdict table."""
    q = qualified(verdicts)
    return dict(zip(zip(q.strategy, q["shape"], q["mode"]), q.outcome))


def affected(e: Entry, releases: dict[str, pd.DataFrame], measured: str) -> list[str]:
    """One line per release: whether its gate shows the entry's divergence in the entry's cells
    (``releases``: {version: verdict table}, e.g. ``release_verdicts``). Without release data,
    only the measured version."""
    lines = [f"{measured}: measured here ({len(e.cells)} cell(s))"]
    for version, verdicts in releases.items():
        if version == measured:
            continue
        seen = _outcomes(verdicts)
        got = [seen.get(c) for c in e.cells]
        gated = [g for g in got if g is not None]
        same = sum(g == e.outcome for g in gated)
        if not gated:
            lines.append(f"{version}: not gated (its run has none of these cells)")
            continue
        others = Counter(g for g in gated if g != e.outcome)
        rest = "; ".join(f"{o} in {n}" for o, n in others.most_common(3))
        if same == len(e.cells):
            lines.append(f"{version}: the same divergence in every cell ({same})")
        elif same:
            lines.append(
                f"{version}: the same divergence in {same} of {len(e.cells)} cells ({rest})"
            )
        else:
            lines.append(f"{version}: not seen in {len(gated)} gated cell(s) ({rest})")
    if len(lines) == 1:
        lines = [f"{measured}: the only release measured (no release run in results/releases/)"]
    return lines


def release_verdicts(folder, workload: str) -> dict[str, pd.DataFrame]:
    """{MindSpore version: final verdict table} of the newest run of ``workload`` per release
    under ``folder`` (``results/releases/<version>/``, its runs in ``raw/<run-id>/`` as
    ``nox -s bench_release`` writes them, or in ``<workload>/raw/<run-id>/``), oldest first."""
    import json
    from pathlib import Path

    from bench.core import paths, pins
    from bench.decide import load

    if pins.read(Path(folder).parent).releases:  # the committed matrix: the pinned runs only
        pinned = pins.release_runs(Path(folder).parent)
        found = {v: by[workload] for v, by in pinned.items() if workload in by}
        return {v: load.load(found[v]).verdicts for v in sorted(found, key=version_key)}
    newest: dict[str, Path] = {}  # a folder of one's own: its newest run per release
    for raw in sorted(Path(folder).glob("*/**/raw")):  # folders and archives (paths.runs)
        for run in paths.runs(raw):
            manifest = run / "manifest.json"
            try:
                data = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            plan = data.get("plan", {})
            if plan.get("workload") != workload:
                continue
            version_dir = raw.relative_to(folder).parts[0]
            version = (data.get("environment") or {}).get("mindspore") or plan.get("mindspore")
            version = version or version_dir
            if version not in newest or run.name > newest[version].name:
                newest[version] = run
    out = {}
    for version in sorted(newest, key=version_key):
        try:
            out[version] = load.load(newest[version]).verdicts
        except Exception as err:  # a run this suite cannot read: named, not compared
            print(f"findings: {newest[version]}: {err}", file=sys.stderr)
    return out


def version_key(version: str) -> tuple:
    """A release's sort key: 2.10.0 after 2.9.0."""
    return tuple(int(p) if p.isdigit() else p for p in version.replace("-", ".").split("."))


FAULT = re.compile(r"^(Fatal Python error:.*?)(?=^Extension modules:|^recorded by the suite|\Z)",
                   re.M | re.S)  # fmt: skip


def traceback_of(run: RunData, e: Entry, script_path, run_scripts: bool = True) -> str:
    """The native traceback of a crash entry: the gate's record of it when it kept one
    (``diagnostics["traceback"]``), else what the script's child prints under
    ``PYTHONFAULTHANDLER=1`` (the script is run when ``run_scripts`` and MindSpore is here)."""
    from bench.core.records import Records

    if not e.outcome.startswith(Status.CRASHED.value):
        return ""
    key = (e.example.get("strategy"), e.example.get("shape"), e.example.get("mode"))
    for v in Records(run.run_dir).verdicts:
        kept = v.diagnostics.get("traceback") or v.evidence.get("traceback")
        if v.key == key and kept:
            return str(kept).strip()
    if not run_scripts or script_path is None or importlib.util.find_spec("mindspore") is None:
        return ""
    try:
        done = subprocess.run([sys.executable, str(script_path)], capture_output=True, text=True,
                              timeout=900, cwd=str(script_path.parent), check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return ""
    found = FAULT.search(done.stdout + done.stderr)
    return found.group(1).strip() if found else ""


def entry_issue(run: RunData, e: Entry, others: dict, run_scripts: bool = True) -> str:
    """One entry as an issue body: the standalone script of the entry and of the working side of
    its minimal pair, the native traceback of a crash (``run_scripts``: run the script to get it
    when the gate kept none) and the releases in ``others`` ({version: verdicts},
    ``release_verdicts``) that show the same divergence."""
    import tempfile
    from pathlib import Path

    from bench.causes import repro

    version = run.environment.get("mindspore") or run.plan.get("mindspore", "?")
    v = run.verdicts
    ex = e.example
    keys = {FAILING: (ex.get("strategy"), ex.get("shape"), ex.get("mode"))}
    if e.pair:
        keys[WORKING] = (e.pair[0], e.pair[2], e.pair[1])
    rows = []
    for s, shape, mode in keys.values():
        hit = v[(v.strategy == s) & (v["shape"] == shape) & (v["mode"] == mode)]
        rows += [hit.iloc[0].to_dict()] if len(hit) else []
    with tempfile.TemporaryDirectory() as tmp:
        links = repro.write(run, rows, Path(tmp) / "repros")
        scripts = {
            side: (Path(tmp) / links[k]).read_text(encoding="utf-8")
            for side, k in keys.items()
            if k in links
        }
        crash = Path(tmp) / links[keys[FAILING]] if keys[FAILING] in links else None
        trace = traceback_of(run, e, crash, run_scripts)
    return issue(run, e, scripts, trace, affected(e, others, version))


def export(
    runs: dict[str, RunData], out_dir, releases_dir=None, run_scripts: bool = True, short=None
) -> list:
    """Write one Markdown issue per root cause of every run (``causes``) into ``out_dir``, most
    cells first (``NN-<slug>.md``); the paths written. Each names the cause, what it covers (its
    entries, workloads, strategies, modes) and embeds its witness entry's issue (``entry_issue``;
    the releases under ``releases_dir``, default ``results/releases``); ``short``: each cause's
    short program by slug (``causes.reduced()``: the pinned references' causes), inline."""
    from pathlib import Path

    from bench.causes import causes
    from bench.core import paths
    from bench.core.io import write_text_atomic

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    releases_dir = Path(releases_dir or paths.RESULTS_DIR / "releases")
    by_workload = {run.workload: run for run in runs.values()}
    others = {
        w: release_verdicts(releases_dir, w) if releases_dir.is_dir() else {} for w in by_workload
    }
    written = []
    found = causes.of_runs(by_workload)
    short = short or {}
    for rank, cause in enumerate(found, 1):
        e = cause.witness
        run = by_workload[e.workload]
        body = entry_issue(run, e, others[e.workload], run_scripts)
        path = out_dir / f"{rank:02d}-{cause.slug}.md"
        head = causes.issue_head(cause, rank, len(found), short.get(cause.slug))
        write_text_atomic(path, head + body)
        written.append(path)
    return written


def main(argv=None) -> int:
    """``python -m bench.causes.findings --export DIR [--run RUN_DIR ...]``."""
    import argparse
    from pathlib import Path

    from bench.decide import load
    from bench.measured import workloads

    parser = argparse.ArgumentParser(prog="python -m bench.causes.findings")
    parser.add_argument(
        "--export", required=True, metavar="DIR", help="write one .md per root cause"
    )
    parser.add_argument(
        "--run", action="append", default=[], help="a run folder (default: every reference run)"
    )
    parser.add_argument(
        "--releases", type=Path, default=None, help="release runs (default results/releases)"
    )
    parser.add_argument(
        "--no-run",
        action="store_true",
        help="do not run a crash's script to capture its native traceback",
    )
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    from bench.core import paths

    folders = [paths.run_folder(r) or Path(r) for r in args.run]
    if not folders:
        from bench.core import pins

        try:
            folders = list(pins.references(workloads=list(workloads.WORKLOADS)).values())
        except pins.PinError as err:
            print(f"findings: {err}", file=sys.stderr)
            return 2
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
    from bench.causes import causes

    short = causes.reduced() if not args.run else {}  # the pinned references' own programs
    written = export(runs, args.export, args.releases, run_scripts=not args.no_run, short=short)
    print(f"findings: wrote {len(written)} issue(s) into {args.export}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

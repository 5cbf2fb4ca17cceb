"""summary.md: the answer first, then the evidence (pure functions: RunData -> Markdown)."""

from __future__ import annotations

from pathlib import Path

from bench.core import stats
from bench.core.schema import MEANINGS
from bench.report import answer, costs, fmt, matrix
from bench.report.load import RunData

SECTIONS = (
    "The answer",
    "Support matrix",
    "What flips a verdict",
    "What it costs",
    "Layout",
    "Shape screen",
    "First call",
    "Errors",
    "Provenance",
    "Plots",
    "Missing cells and problems",
)


def _title(run: RunData, title: str) -> list[str]:
    env = run.environment
    status = run.manifest.status
    head = [
        f"# {title}",
        "",
        f"Run `{run.manifest.run_id}` ({status}) · MindSpore {env.get('mindspore', '?')} · "
        f"{env.get('cpu', '?')} · {str(run.manifest.started)[:10]} · command "
        f"`{run.manifest.command}` · see [Provenance](#provenance).",
        "",
    ]
    if status != "complete":
        head += [f"> **This run is {status}**: some cells are missing (listed at the end).", ""]
    return head


def _errors(run: RunData) -> list[str]:
    v = run.verdicts
    rows = v[v.status == "raises"]
    if rows.empty:
        return ["No strategy raised an error.", ""]
    out = []
    for failure, group in rows.groupby("failure"):
        example = group.iloc[0]
        where = sorted({f"`{r.strategy}` {fmt.mode_label(r.mode)}" for r in group.itertuples()})
        out += [
            f"- **{failure.split(': ', 1)[-1]}** ({len(group)} shapes: {', '.join(where)}):",
            "",
            "  ```",
            f"  {example.detail}",
            "  ```",
            "",
        ]
    return out


def _provenance(run: RunData, n_boot: int) -> list[str]:
    env, m = run.environment, run.manifest
    precision = ", ".join(f"{k}={v}" for k, v in m.plan.get("precision", {}).items())
    phases = ", ".join(f"{k} {v:.0f} s" for k, v in m.phases.items())
    facts = [
        ["run", f"`{m.run_id}` ({m.status}), started {m.started}, finished {m.finished or '–'}"],
        ["first measurement", str(env.get("first_measurement"))],
        ["wall time per phase", phases or "–"],
        ["command", f"`{m.command}`"],
        ["machine", f"{env.get('cpu')}, {env.get('cpu_count')} CPUs, {env.get('platform')}"],
        ["threads", ", ".join(f"{k}={v}" for k, v in (env.get("threads") or {}).items())],
        [
            "versions",
            f"Python {env.get('python')}, MindSpore {env.get('mindspore')}, NumPy "
            f"{env.get('numpy')}, pytest-benchmark {env.get('pytest_benchmark')}",
        ],
        ["git commit", f"{env.get('commit')}" + (" (dirty)" if env.get("dirty") else "")],
        ["precision", precision],
    ]
    return [
        *fmt.table(["", ""], facts),
        "**Step time** is throughput: a round times a block of k steps synchronized once at its "
        "end (k fixed per control and batch size for the whole run); per-step = block / k. Each "
        "round's paired no-update block (same layout, same read, same state) runs right before or "
        "after it in random order. **Intervals** are 95 % two-level bootstrap intervals (resample "
        f"processes, then rounds; {n_boot} resamples), so they cover between-process spread. In "
        "each process a cell gets the rounds a pilot of paired rounds says the target needs (the "
        "pilot's ratios are in each timing record, `pilot_ratios`; runs before pilots, and "
        "`--quick` runs, give every cell `cell_seconds` of rounds), at most `cell_seconds` of "
        "them; a cell gets more processes until its overhead interval is narrower than the "
        "target or the maximum is reached.",
        "",
    ]


def _timed_failures(run: RunData) -> list[str]:
    """Shapes the gate passed whose timed cells then failed the final-state check."""
    cells = run.cells
    if not len(cells):
        return []
    bad = cells[(cells.status == "incorrect") & (cells.role == "update")]
    out = []
    for (strategy, shape, mode), group in bad.groupby(["strategy", "shape", "mode"]):
        sizes = ", ".join(str(n) for n in sorted(group.batch_size))
        first = str(group.detail.iloc[0]).split("; ")[0]
        out.append(
            f"- `{strategy}` (`{shape}`) {fmt.mode_label(mode)}, N = {sizes}: {fmt.cell(first)}"
        )
    return out


def _missing(run: RunData) -> list[str]:
    cells = run.cells
    bad = cells[cells.status != "works"] if len(cells) else cells
    lines = []
    for r in bad.itertuples():
        details = str(r.detail).split("; ")
        more = f" (and {len(details) - 1} more processes)" if len(details) > 1 else ""
        lines.append(
            f"- `{r.strategy}` (`{r.shape}`) {fmt.mode_label(r.mode)} N={r.batch_size}: "
            f"{r.status}: {details[0]}{more}"
        )
    lines += [f"- problem: {p}" for p in run.problems]
    return (lines or ["- none"]) + [""]


def render(
    run: RunData,
    title: str,
    plots: list[str],
    links: dict,
    pages: dict,
    n_boot: int = stats.N_BOOTSTRAP,
) -> str:
    table, _ = answer.answer_table(run, n_boot)
    rules, explained = answer.shape_rules(run)
    silent = answer.failure_lines(run, "incorrect", links.get("failures", {}), explained)
    raises = answer.failure_lines(run, "raises", links.get("failures", {}))
    crashes = answer.failure_lines(run, "crashed", links.get("failures", {}))
    out = _title(run, title)
    out += ["## The answer", "", *table]
    out += [
        "Each strategy is timed in the fastest of its working code shapes (see Shape screen) "
        "against its no-update twin; ties (not significantly slower at any batch size) are broken "
        "by simplicity. [Every shape of every strategy]"
        f"({pages.get('shapes', 'shapes.md')}).",
        "",
    ]
    if rules:
        out += ["**Code shapes that fail for every strategy that has them**:", "", *rules, ""]
    if silent:
        head = "**Silent failures** (no error; the output or the Parameter is wrong)"
        out += [head + (", besides those rules:" if rules else ":"), "", *silent, ""]
    timed = _timed_failures(run)
    if timed:
        out += [
            "**Passed the gate, wrong while timed** (the gate's steps matched the reference; the "
            "state after the timed steps did not, so these cells are not timed as working):",
            "",
            *timed,
            "",
        ]
    if raises:
        out += ["**Errors** (full text under Errors):", "", *raises, ""]
    if crashes:
        out += ["**Crashes** (the process dies):", "", *crashes, ""]
    finding = costs.layout_finding(run)
    if finding:
        repro = links.get("layout")
        out += [f"**Layout.** {finding}" + (f" [Repro]({repro})." if repro else ""), ""]
    legend = [f"- **{s}**: {MEANINGS[s]}" for s in MEANINGS if str(s) in set(run.verdicts.status)]
    out += [
        "## Support matrix",
        "",
        "Shapes per strategy and mode:",
        "",
        *matrix.support(run),
        *legend,
        "",
    ]
    out += ["## What flips a verdict", "", *matrix.pairs_section(run, links.get("shapes", {}))]
    out += ["## What it costs", "", *costs.per_mode(run)]
    state = costs.big_state(run)
    if state:
        out += ["## Against the memory-bandwidth floor", "", *state]
    out += ["## Layout", "", *costs.layout(run)]
    out += ["## Shape screen", "", *costs.screen(run)]
    out += ["## First call", "", *costs.first_call(run)]
    out += ["## Errors", "", *_errors(run)]
    out += ["## Provenance", "", *_provenance(run, n_boot)]
    out += ["## Plots", "", *(f"![{Path(p).stem}]({p})" for p in plots), ""]
    out += ["## Missing cells and problems", "", *_missing(run)]
    related = pages.get("related", [])
    if related:
        out += ["## Related pages", "", *related, ""]
    return "\n".join(out)

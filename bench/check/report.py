"""The check's report: typed and versioned (``report.json``), rendered as Markdown (``report.md``)
and as the terminal summary."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.check import kinds as K
from bench.core.io import write_text
from bench.measured.modes import label

SCHEMA_VERSION = 4  # 2: a divergence's answers per kind of state (``answers``); 3: root causes
# (``cause``, ``cause_title``, ``repro``); 4: an answer's ``except`` and ``avoid`` (decisions.json)


@dataclass
class Quote:
    """A matched finding: its title, link and bullets (quoted), and its root cause (the rank in
    ``results/causes.json``, its title and the script that reproduces its entry)."""

    title: str
    link: str
    lines: list = field(default_factory=list)
    cause: int = 0
    cause_title: str = ""
    repro: str = ""


@dataclass
class Divergence:
    mode: str
    kinds: list
    detail: str
    meaning: list  # what each kind means
    findings: list  # Quote
    no_match: str = ""  # known.NO_MATCH when no finding matches
    constructs: dict = field(default_factory=dict)  # construct -> where, in the user's code
    write_instead: str = ""  # the suite's answers for this mode, in one line
    repro: str = ""  # the repro script's path, relative to the report
    answers: list = field(default_factory=list)  # per kind of state: bench.check.answers.quote


@dataclass
class Report:
    target: str
    cell: str
    mindspore: str
    command: str
    steps: int
    modes: list  # kinds.ModeVerdict as dicts
    tolerances: dict  # array -> how it is compared
    float64: str  # how the float64 eager run went
    first_calls: dict  # mode -> {first, later} seconds
    divergences: list  # Divergence
    verdict: str  # agrees | diverges
    exit_code: int
    seconds: float
    shrink: str = ""
    schema_version: int = SCHEMA_VERSION
    start_method: str = "fork"  # how each run's process started (bench.core.procs)

    def to_dict(self) -> dict:
        return asdict(self)


def write(report: Report, out: Path, links_from: Path | None = None) -> None:
    """``report.json`` and ``report.md`` into ``out`` (links relative to ``links_from``, where
    the folder ends up; default ``out``)."""
    out.mkdir(parents=True, exist_ok=True)
    write_text(out / "report.json", json.dumps(report.to_dict(), indent=1, default=str) + "\n")
    write_text(out / "report.md", markdown(report, links_from or out))


def _rel(path: str, out: Path) -> str:
    root = Path(__file__).resolve().parents[2]
    return os.path.relpath(root / path.split("#", maxsplit=1)[0], out.resolve()) + (
        "#" + path.split("#", 1)[1] if "#" in path else ""
    )


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(r: Report, out: Path) -> str:
    lines = [
        f"# Check of `{r.cell}` ({r.target})",
        "",
        f"**{r.verdict}**: "
        + (
            "every mode agrees with eager (PYNATIVE_MODE) at every step."
            if r.verdict == K.AGREES
            else f"{len(r.divergences)} mode(s) compute something eager does not."
        )
        + f" MindSpore {r.mindspore}, {r.steps} steps, {r.seconds:.0f} s. Command: `{r.command}`",
        "",
        "| mode | verdict | kinds | first call / later calls | what it showed |",
        "|---|---|---|---|---|",
    ]
    for m in r.modes:
        t = r.first_calls.get(m["mode"], {})
        calls = f"{t['first'] * 1e3:.0f} ms / {t['later'] * 1e3:.1f} ms" if t else "–"
        lines.append(
            f"| {_cell(label(m['mode']))} | {m['verdict']} | {_cell(', '.join(m['kinds']) or '–')}"
            f" | {calls} | {_cell(m['detail'])} |"
        )
    lines += [
        "",
        f"Each compiled mode ran in two {'spawned' if r.start_method == 'spawn' else 'forked'} "
        "processes, and process 1 then built a second "
        "instance of the class and ran it (a second instance can stop writing under bytecode "
        "capture). Every step is judged against what eager computes from the state the cell "
        "really had before that step.",
        "",
    ]
    for d in r.divergences:
        head, *rest = d["detail"].split("; ")  # one line per array the detail names
        lines += [f"## {label(d['mode'])}: {', '.join(d['kinds'])}", "", head]
        lines += [*(f"- {part}" for part in rest), ""] if rest else [""]
        lines += [f"- *{k}*: {m}" for k, m in zip(d["kinds"], d["meaning"])]
        if d["constructs"]:
            lines += [
                "",
                "In your code: "
                + "; ".join(f"{c} ({where})" for c, where in d["constructs"].items()),
            ]
        lines.append("")
        if d["findings"]:
            lines.append("**What it means** (the suite's findings):")
            lines.append("")
            for q in d["findings"]:
                lines.append(f"- [{q['title']}]({_rel(q['link'], out)})")
                if q.get("cause"):
                    lines.append(f"  - root cause {q['cause']}: {q['cause_title']}")
                if q.get("repro"):
                    lines.append(f"  - its repro: `python {q['repro']}`")
                lines += [f"  > {ln}" for ln in q["lines"][:3]]
        else:
            lines.append(f"**What it means**: {d['no_match']}.")
        for q in d.get("answers", []):
            names = ", ".join(f"`{n}`" for n in q["parameters"])
            lines += [
                "",
                f"**What to write** in {q['mode']} for {names}: the suite's answer **to "
                f"{q['kind_words']}**.",
                "",
                f"- Why this kind: {q['why']}.",
                f"- The answer: {q['answer']}",
                *([f"- Except: it {q['except']}."] if q.get("except") else []),
                *([f"- Avoid in this mode: {', '.join(q['avoid'])}."] if q.get("avoid") else []),
            ]
            if q["code"]:
                lines += ["", "```python", *q["code"], "```"]
            if q["source"]:
                said = f"(read from {q['source']}, the file README's table is rendered from)"
                lines += ["", said]
        if d["repro"]:
            lines += ["", f"**Repro**: `python {d['repro']}` (exits 0 when it reproduces)"]
        lines.append("")
    lines += ["## How values are compared", "", "| array | comparison |", "|---|---|"]
    lines += [f"| `{name}` | {_cell(text)} |" for name, text in r.tolerances.items()]
    lines += ["", f"Float64 eager run: {r.float64}", ""]
    if r.shrink:
        lines += ["## Shrink", "", r.shrink, ""]
    return "\n".join(lines)


def terminal(r: Report) -> str:
    rows = [f"{r.cell}: {r.verdict} (exit {r.exit_code}, {r.seconds:.0f} s)"]
    width = max(len(label(m["mode"])) for m in r.modes) if r.modes else 10
    for m in r.modes:
        rows.append(f"  {label(m['mode']):<{width}}  {m['verdict']:<8} {', '.join(m['kinds'])}")
    for d in r.divergences:
        rows.append(f"- {label(d['mode'])}: {d['detail'][:300]}")
        for q in d["findings"][:2]:
            rows.append(f"    known: {q['title']} ({q['link']})")
            if q.get("cause"):
                rows.append(f"      root cause {q['cause']}: {q['cause_title']}")
            if q.get("repro"):
                rows.append(f"      repro: python {q['repro']}")
        if not d["findings"]:
            rows.append(f"    {d['no_match']}")
        for q in d.get("answers", []):
            rows.append(f"    write instead ({q['kind_words']}): {q['answer'][:200]}")
        if d["repro"]:
            rows.append(f"    repro: {d['repro']}")
    if r.shrink:
        rows.append(f"shrink: {r.shrink}")
    return "\n".join(rows)

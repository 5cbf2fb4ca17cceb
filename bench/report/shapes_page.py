"""The support matrix (strategy × mode, over shapes) and shapes.md: every dimension value with the
code it produces, every minimal pair, every strategy × shape × mode verdict."""

from __future__ import annotations

from collections import Counter

import pandas as pd

from bench.core import fmt
from bench.core.schema import Status
from bench.decide.load import RunData
from bench.decide.pairs import minimal_pairs, rules
from bench.measured.modes import label
from bench.report import words


def phrase(row) -> str:
    """One short phrase for a table cell: ``works``, ``silently wrong: stale read``, ..."""
    if row.status == Status.RAISES.value:
        label = Status.RAISES.label
        return f"{label} " + row.outcome.split(": ")[1] if ": " in row.outcome else label
    return f"{row.label}: {row.kind}" if row.kind else row.label


def matrix_cell(rows: pd.DataFrame) -> str:
    rows = rows[rows.status != Status.INEXPRESSIBLE.value]
    if rows.empty:
        return "n/a"
    if (rows.status == Status.BROKEN.value).all():
        return "broken file"
    phrases = [phrase(r) for r in rows.itertuples()]
    if len(set(phrases)) == 1:
        return f"{phrases[0]} ({len(rows)}/{len(rows)})"
    counts = Counter(p for p in phrases if p != Status.WORKS.label)
    works = phrases.count(Status.WORKS.label)
    return f"works {works}/{len(rows)} · " + " · ".join(f"{k} {n}" for k, n in counts.most_common())


def not_applicable(v: pd.DataFrame) -> list[str]:
    """Strategies with no shape that can be written in this workload (e.g. ``WORKLOADS``)."""
    names = set(v.strategy) - {"control"}
    return sorted(
        s for s in names if (v.status[v.strategy == s] == Status.INEXPRESSIBLE.value).all()
    )


def support(run: RunData) -> list[str]:
    v = run.verdicts
    skip = not_applicable(v)
    names = sorted(s for s in set(v.strategy) if s != "control" and s not in skip)
    facts = run.manifest.strategies
    rows = [
        [
            f"`{s}`",
            facts.get(s, {}).get("layout", "?"),
            *(matrix_cell(v[(v.strategy == s) & (v["mode"] == m)]) for m in run.modes),
        ]
        for s in names
    ]
    out = fmt.table(["strategy", "layout", *map(label, run.modes)], rows)
    if skip:
        out += [
            f"Not for this workload (no shape can be written here): "
            f"{', '.join(f'`{s}`' for s in skip)}.",
            "",
        ]
    return out


def dimensions(run: RunData) -> list[str]:
    """Each dimension value with the lines of code it produces (shown for `ops.assign`)."""
    dims = {d.name: d for layout in ("scalar", "vector") for d in run.work.dimensions(layout)}
    out = []
    for name, d in dims.items():
        out += [f"**`{name}`**", ""]
        for value, meaning in d.meanings:
            code = d.lines(value)
            out.append(f"- `{value}`: {meaning}" + (":" if code else ""))
            if code:
                out += ["", "  ```python", *(f"  {ln}" for ln in code.splitlines()), "  ```"]
        out.append("")
    return out


def pairs_section(run: RunData, links: dict, limit: int | None = 12) -> list[str]:
    pairs = minimal_pairs(run.verdicts)
    if pairs.empty:
        return [
            "No minimal pair: within each strategy and mode, every shape gets the same verdict.",
            "",
        ]
    out = [
        "Two shapes one change apart that get different verdicts. *holds in k of n* = the flip "
        "holds in k of the n shape pairs that differ only in this change; k = n makes it a rule "
        "for that strategy and mode.",
        "",
    ]
    general = [r for r in rules(pairs).itertuples() if len(r.strategies) > 1]
    if general:
        out += ["Changes that flip the verdict of more than one strategy:", ""]
        for r in general:
            names = ", ".join(f"`{s}`" for s in r.strategies)
            scope = "in every such pair" if r.consistent else "in some pairs"
            out.append(
                f"- {label(r.mode)}: `{r.dim}={r.works_value}` → `{r.dim}={r.fails_value}` "
                f"gives {r.fails_outcome} ({scope}) for {names}"
            )
        out.append("")
    rows = []
    shown = pairs if limit is None else pairs.head(limit)
    for p in shown.itertuples():
        a = links.get((p.strategy, p.works_shape, p.mode))
        b = links.get((p.strategy, p.fails_shape, p.mode))
        pair = f"`{p.works_shape}` / `{p.fails_shape}`"
        if a and b:
            pair += f" ([repro]({a}), [repro]({b}))"
        rows.append(
            [
                f"`{p.strategy}`",
                label(p.mode),
                f"`{p.dim}`: {p.works_value} → {p.fails_value}",
                p.works_outcome,
                p.fails_outcome,
                f"{p.pairs} of {p.of}",
                pair,
            ]
        )
    head = ["strategy", "mode", "one change", "before", "after", "holds in", "example pair"]
    out += fmt.table(head, rows)
    if limit is not None and len(pairs) > limit:
        out += [f"{len(pairs) - limit} more pairs on the shapes page.", ""]
    return out


SHOWN = {"scalar": "assign", "vector": "index_add"}  # whose write each layout's code shows
FALLBACK = ("index_add", "slice_ellipsis", "assign")  # for shapes the first cannot write


def shape_code(run: RunData) -> list[str]:
    """Each shape's ``construct`` (and helpers) as the gate generated it, for a workload whose
    dimension values have no lines of their own (all but the clip): ``ops.assign`` for a scalar
    Parameter, ``ops.index_add`` for a 1-element vector (another strategy where that one cannot
    write the shape, e.g. the cache's row writes; each block names whose write it shows)."""
    dims = [d for layout in SHOWN for d in run.work.dimensions(layout)]
    if any(d.lines(v) for d in dims for v in d.values):
        return []
    from bench.measured import discovery
    from bench.measured.shapes.codegen import Emit, Inexpressible

    out = ["## The code of each shape", ""]
    classes = {}
    for name in dict.fromkeys([*SHOWN.values(), *FALLBACK]):
        try:
            classes[name] = discovery.load(name).cell_class
        except Exception as exc:
            out += [f"(the `{name}` code could not be loaded: {exc})", ""]
    for layout, first in SHOWN.items():
        for shape in run.work.shapes(layout):
            code, used = "# no strategy shown here expresses this shape", first
            for name in dict.fromkeys([first, *FALLBACK]):
                if name not in classes:
                    continue
                try:
                    emit = Emit(classes[name], set(run.work.reserved))
                    code, used = run.work.construct_source(shape, emit), name
                    break
                except Inexpressible:
                    continue
            out += [
                f"<details><summary><code>{shape.name}</code> ({layout}, `{used}`)</summary>",
                "",
                "```python",
                *code.rstrip().splitlines(),
                "```",
                "",
                "</details>",
                "",
            ]
    return out


def shapes_page(run: RunData, links: dict) -> str:
    """Markdown of every dimension, every minimal pair, every verdict."""
    v = run.verdicts
    out = [
        f"# Code shapes of the {run.workload} workload: run `{run.manifest.run_id}`",
        "",
        "Every strategy is written in every code shape below and gated in every mode: the "
        "output and the state after every step compared with what the code means under eager "
        "semantics. Find your own code's shape by its lines; a shape's name joins its values "
        "(e.g. `inline-alias-after-expr`). The code is shown for `ops.assign`; every strategy's "
        "own write takes its place.",
        "",
        *dimensions(run),
        *shape_code(run),
        "## Minimal pairs: what flips a verdict",
        "",
        *pairs_section(run, links, limit=None),
        "## Every shape",
        "",
    ]
    first: dict = {}  # (strategy, shape, mode): its first row (one pass, not a filter per cell)
    for row in v.itertuples():
        first.setdefault((row.strategy, row.shape, row.mode), row)
    for strategy in sorted(
        s for s in set(v.strategy) if s != "control" and s not in not_applicable(v)
    ):
        rows = v[v.strategy == strategy]
        table = []
        for shape in dict.fromkeys(rows["shape"]):
            cells = []
            for mode in run.modes:
                hit = first.get((strategy, shape, mode))
                text = phrase(hit) if hit is not None else "–"
                link = links.get((strategy, shape, mode))
                cells.append(f"[{text}]({link})" if link else text)
            table.append([f"`{shape}`", *cells])
        out += [f"### `{strategy}`", "", *fmt.table(["shape", *map(label, run.modes)], table)]
    text = "\n".join(out)
    return text + "\n## Glossary\n\n" + "\n".join(words.glossary(text)) + "\n"

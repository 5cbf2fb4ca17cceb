"""The support matrix (strategy × mode, counted over shapes) and the shapes page (every shape).

A cell of the compact matrix is one short phrase: ``works (18/18)`` when every shape works, the
one finding when every shape fails the same way, else the counts (``works 9/18 · silent 6 ·
crashes 3``). The shapes page lists every strategy × shape × mode, and the minimal pairs.
"""

from __future__ import annotations

from collections import Counter

import pandas as pd

from bench.report import fmt
from bench.report.load import RunData
from bench.report.pairs import minimal_pairs, rules

KIND = {
    "works": "works",
    "incorrect": "silent",
    "raises": "raises",
    "crashed": "crashes",
    "timeout": "hangs",
}


def _matrix_cell(rows: pd.DataFrame) -> str:
    rows = rows[~rows.status.isin(["inexpressible"])]
    if rows.empty:
        return "n/a"
    if (rows.status == "broken").all():
        return "broken file"
    total = len(rows)
    phrases = set(rows.phrase)
    if len(phrases) == 1:
        return f"{rows.phrase.iloc[0]} ({total}/{total})"
    counts = Counter(KIND.get(s, s) for s in rows.status)
    works = counts.pop("works", 0)
    rest = " · ".join(f"{k} {n}" for k, n in counts.most_common())
    return f"works {works}/{total} · {rest}"


def not_applicable(v: pd.DataFrame) -> list[str]:
    """Strategies with no shape that can be written in this workload (e.g. ``WORKLOADS``)."""
    names = set(v.strategy) - {"control"}
    return sorted(s for s in names if (v.status[v.strategy == s] == "inexpressible").all())


def support(run: RunData) -> list[str]:
    v = run.verdicts
    modes = list(run.plan.get("modes", sorted(set(v["mode"]))))
    skip = not_applicable(v)
    names = [s for s in dict.fromkeys(v.strategy) if s != "control" and s not in skip]
    facts = run.manifest.strategies
    rows = [
        [f"`{s}`", facts.get(s, {}).get("layout", "?")]
        + [_matrix_cell(v[(v.strategy == s) & (v["mode"] == m)]) for m in modes]
        for s in sorted(names)
    ]
    out = fmt.table(["strategy", "layout", *map(fmt.mode_label, modes)], rows)
    if skip:
        out += [
            "Not for this workload (no shape can be written here): "
            + ", ".join(f"`{s}`" for s in skip)
            + ".",
            "",
        ]
    return out


def shapes_page(run: RunData, dims_help: dict[str, str], links: dict) -> str:
    """Markdown of every strategy × shape × mode verdict and every minimal pair."""
    v = run.verdicts
    modes = list(run.plan.get("modes", sorted(set(v["mode"]))))
    out = [
        f"# Code shapes: run `{run.manifest.run_id}`",
        "",
        "Every strategy in every code shape the workload defines, gated in every mode (the output "
        "and the state compared with the NumPy reference after every step). A shape's name joins "
        "its values:",
        "",
        *(f"- {line}" for line in dims_help.values()),
        "",
        "## Minimal pairs: what flips a verdict",
        "",
        *pairs_section(run, links, limit=None),
        "## Every shape",
        "",
    ]
    skip = not_applicable(v)
    for strategy in sorted(s for s in set(v.strategy) if s != "control" and s not in skip):
        rows = v[v.strategy == strategy]
        out += [f"### `{strategy}`", ""]
        table = []
        for shape in dict.fromkeys(rows["shape"]):
            cells = []
            for mode in modes:
                hit = rows[(rows["shape"] == shape) & (rows["mode"] == mode)]
                text = hit.phrase.iloc[0] if len(hit) else "–"
                link = links.get((strategy, shape, mode))
                cells.append(f"[{text}]({link})" if link else text)
            table.append([f"`{shape}`", *cells])
        out += fmt.table(["shape", *map(fmt.mode_label, modes)], table)
    return "\n".join(out) + "\n"


def pairs_section(run: RunData, links: dict, limit: int | None = 12) -> list[str]:
    pairs = minimal_pairs(run.verdicts)
    if pairs.empty:
        return [
            "No minimal pair: within each strategy and mode, every shape gets the same verdict.",
            "",
        ]
    out = [
        "Two shapes one change apart, one works (or fails one way), the other fails (another "
        "way). *k of n* = the flip holds in k of the n shape pairs that differ only in this "
        "change; k = n makes it a rule for that strategy and mode.",
        "",
    ]
    rule = rules(pairs)
    general = rule[rule.strategies.map(len) > 1]
    if len(general):
        out += ["Changes that flip the verdict of more than one strategy:", ""]
        for r in general.itertuples():
            names = ", ".join(f"`{s}`" for s in r.strategies)
            scope = "in every such pair" if r.consistent else "in some pairs"
            out.append(
                f"- {fmt.mode_label(r.mode)}: `{r.dim}={r.works_value}` → "
                f"`{r.dim}={r.fails_value}` gives {r.fails_outcome} ({scope}) for {names}"
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
                fmt.mode_label(p.mode),
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
        out += [f"{len(pairs) - limit} more pairs in the shapes page.", ""]
    return out

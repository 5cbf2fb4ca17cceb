"""How the answer reads: the code a user writes for a strategy in a workload, and what it adds
as a user reads it."""

from __future__ import annotations

import ast
import math

from bench.measured.modes import MODES
from bench.report import fmt
from bench.report.load import RunData

NOT_TIMED = "not timed"


def code_for(run: RunData, strategy: str, shape: str = "") -> str:
    """The lines a user writes for ``strategy`` in this workload (the row write for the cache)."""
    facts = run.manifest.strategies.get(strategy, {})
    code = facts.get("code", {})
    row = shape.split("-", maxsplit=1)[0] == "row" and "write_row" in code
    method = "write_row" if row and "write_row" in run.work.code_names else "write"
    text = code.get(method, "")
    names = run.work.code_names.get(method)
    if not text or facts.get("custom"):
        return facts.get("description", "")
    if names:
        args = {"write": ("param", "value"), "write_row": ("param", "index", "row")}[method]
        mapping = dict(zip(args, names))
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and node.id in mapping:
                node.id = mapping[node.id]
        text = ast.unparse(tree)
    return text


def cost_phrase(run: RunData, mode: str, strategy: str, ends: bool = False) -> str:
    """What the update adds, as a user reads it: ``+7 µs a step (+4 %) at N=1; not measurable
    at N ≥ 64`` (a distribution mode: the median and quartiles of the rounds); ``ends``: the
    smallest and the largest size only."""
    m = run.analysis.get(mode)
    cells = m.candidates.get(strategy) if m else None
    if not cells:
        return NOT_TIMED
    parts: list[tuple[str, int]] = []
    for n in sorted(cells):
        c = cells[n]
        if c.twin_invalid:
            text = "not measured (its twin is invalid in this mode)"
        elif run.work and _distribution(mode):
            q1, q2, q3 = c.added_quartiles()
            text = (
                f"{fmt.signed(q2)} a step (rounds' quartiles {fmt.signed(q1)} … {fmt.signed(q3)})"
            )
        else:
            e, margin = c.estimate, run.margin.at(c.control_step_s)
            low, high = e.added_interval
            if math.isfinite(low) and -margin <= low and high <= margin:
                text = "not measurable"
            else:
                text = f"{fmt.signed(e.added_s)} a step ({(e.ratio - 1) * 100:+.0f} %)"
        if parts and parts[-1][0] == text and text == "not measurable":
            continue
        parts.append((text, n))
    sym = run.symbol
    sizes = sorted(cells)
    out = []
    for i, (text, n) in enumerate(parts):
        last = i == len(parts) - 1
        where = (
            f"{sym} ≥ {n}" if last and text == "not measurable" and n != sizes[-1] else f"{sym}={n}"
        )
        out.append(f"{text} at {where}")
    if ends and len(out) > 2:  # the smallest and the largest size only (README)
        out = [out[0], out[-1]]
    return "; ".join(out)


def _distribution(mode: str) -> bool:
    return mode in MODES and MODES[mode].distribution

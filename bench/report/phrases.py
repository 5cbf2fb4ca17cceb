"""How the answer reads: the code a user writes for a strategy in a workload, and what it adds
as a user reads it."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from pathlib import Path

from bench.core.paths import STRATEGIES_DIR
from bench.measured.modes import MODES
from bench.report import fmt
from bench.report.load import RunData

NOT_TIMED = "not timed"
NO_COST = "no detectable cost"  # the 95 % interval lies within the margin
QUEUE_DRAIN = (
    "PYNATIVE_MODE on this 2-vCPU machine: ops such as assign, assign_add, stop_gradient and "
    "set_data make the eager queue drain, and one drain (a scheduler slice of ~4 ms) dominates a "
    "few steps, so these numbers are a distribution of drains, not a per-op cost; a machine "
    "with more cores drains faster "
    "(reproduced by `findings/pynative_queue_drain.py`, explained in `findings/README.md`)"
)


def relative(ratio: float) -> str:
    """A step's ratio to its twin as a user reads it: a percentage up to doubling, then ×N (a
    percentage of a tiny twin, "+360726 %", says nothing)."""
    if not math.isfinite(ratio):
        return "–"
    if 0.5 <= ratio <= 2.0:
        return f"{(ratio - 1) * 100:+.0f} %"
    return f"×{ratio:.3g}"


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


@dataclass(frozen=True)
class Snippet:
    """Paste-ready code of one strategy in one workload, from its strategy file: the imports,
    the lines of ``__init__`` and the lines of ``construct`` (names as the workload's code uses
    them). Printed by ``markdown`` and run verbatim by ``tests/ms/test_snippets.py``."""

    imports: tuple[str, ...]
    init: tuple[str, ...]
    construct: tuple[str, ...]
    vector: str = ""  # the Parameter the write needs stored as a 1-element vector, not 0-d

    def markdown(self, indent: str = "") -> list[str]:
        body = [*self.imports, ""] if self.imports else []
        if self.vector:
            body += [
                f"# {self.vector} must be a 1-element vector Parameter "
                "(Tensor([1.0]), not Tensor(1.0)): the index ops need an axis",
                "",
            ]
        if self.init:
            body += ["# in __init__, after super().__init__():", *self.init, ""]
        body += ["# in construct, once the new value is computed:", *self.construct]
        return [f"{indent}```python", *(f"{indent}{x}" if x else "" for x in body), f"{indent}```"]


def snippet(run: RunData, strategy: str, shape: str = "", root: Path = STRATEGIES_DIR):
    """The strategy's ``Snippet`` in this workload, or None when it has no code a user pastes
    (a custom strategy, a host-side update: the pages describe it in words)."""
    facts = run.manifest.strategies.get(strategy, {})
    path = root / f"{strategy}.py"
    if facts.get("custom") or not path.exists():
        return None
    code = code_for(run, strategy, shape)
    if code == facts.get("description", ""):
        return None
    tree = ast.parse(path.read_text())
    imports = tuple(
        ast.unparse(n)
        for n in tree.body
        if isinstance(n, (ast.Import, ast.ImportFrom))
        and not (isinstance(n, ast.ImportFrom) and (n.module or "").startswith("bench"))
    )
    init: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            init = [
                ast.unparse(x)
                for x in node.body
                if "super().__init__" not in ast.unparse(x)
                and not (isinstance(x, ast.Expr) and isinstance(x.value, ast.Constant))
            ]
    used = [i for i in imports if any(_bound(i, name) for name in _names(code, init))]
    small = getattr(run.work, "state_kind", "") == "small"
    vector = ""
    if small and facts.get("layout") == "vector":
        vector = run.work.code_names.get("write", ("the Parameter",))[0]
    return Snippet(tuple(used), tuple(init), tuple(code.splitlines()), vector)


def _names(code: str, init: list[str]) -> set[str]:
    out = set()
    for text in (code, *init):
        out |= {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
    return out


def _bound(statement: str, name: str) -> bool:
    node = ast.parse(statement).body[0]
    return any((a.asname or a.name).split(".")[0] == name for a in node.names)


def cost_phrase(run: RunData, mode: str, strategy: str, ends: bool = False) -> str:
    """What the update adds, as a user reads it: ``+7 µs a step (+4 %) at N=1; no detectable
    cost (95 % bound +3 µs) at N ≥ 64`` (a distribution mode: the median and quartiles of the
    rounds); ``ends``: the smallest and the largest size only."""
    m = run.analysis.get(mode)
    cells = m.candidates.get(strategy) if m else None
    if not cells:
        return NOT_TIMED
    parts: list[tuple[str, int]] = []
    bounds: dict[int, float] = {}
    bound = 0.0
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
                text = NO_COST
                bound = max(bound, high) if parts and parts[-1][0] == NO_COST else high
            else:
                text = f"{fmt.signed(e.added_s)} a step ({relative(e.ratio)})"
        if parts and parts[-1][0] == text and text == NO_COST:
            bounds[len(parts) - 1] = bound
            continue
        parts.append((text, n))
        bounds[len(parts) - 1] = bound
    sym = run.symbol
    sizes = sorted(cells)
    out = []
    for i, (text, n) in enumerate(parts):
        last = i == len(parts) - 1
        where = f"{sym} ≥ {n}" if last and text == NO_COST and n != sizes[-1] else f"{sym}={n}"
        shown = text  # no detectable cost: say what the data exclude (the interval's upper end)
        if text == NO_COST:
            shown = f"{NO_COST} (95 % bound {fmt.signed(bounds[i])})"
        out.append(f"{shown} at {where}")
    if ends and len(out) > 2:  # the smallest and the largest size only (README)
        out = [out[0], out[-1]]
    return "; ".join(out)


def _distribution(mode: str) -> bool:
    return mode in MODES and MODES[mode].distribution

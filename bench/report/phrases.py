"""How the answer reads: the code a user writes for a strategy in a workload, and what it adds
as a user reads it (the one phrasing module: every page, table and README block says a cost
through ``cost`` / ``cell_cost``, or the templates' filter over ``decisions.Cost`` built on
them; ``tests/unit/test_phrasing.py`` holds their table).

- An interval that contains 0: "no detectable cost: ≤ +x µs, y % of a z step (97.5 % bound)",
  against the step without the write: the upper end of the 95 % interval, a one-sided 97.5 %
  bound on what the write can cost at this precision, named for what it is (issue 52); never a
  bare "not measurable".
- An interval above 0: the added time with its interval.
- An interval below 0: "faster than the same step without the write", with its interval and why
  that can happen (``WHY_FASTER``): the no-update twin is a different program, not the same one
  minus a free operation.
- Quartiles of the per-round added time only from ``QUARTILE_ROUNDS`` rounds or more: with fewer,
  a quartile is one or two rounds, not a spread.
"""

from __future__ import annotations

import ast
import importlib
import io
import math
import textwrap
import tokenize
from dataclasses import dataclass
from pathlib import Path

from bench.core.paths import STRATEGIES_DIR
from bench.measured.modes import MODES
from bench.report import fmt
from bench.report.load import RunData

NOT_TIMED = "not timed"
NOT_MEASURED = "not measured"
NO_COST = "no detectable cost"  # the 95 % interval of the added time contains 0
FASTER_THAN_WITHOUT = "faster than the same step without the write"
WHY_FASTER = (
    "possible because the twin is another program: the write changes what later steps compute "
    "(a clip limit that grows clips fewer elements) or how the compiler lays out the step"
)
TWIN_INVALID = f"{NOT_MEASURED} (its twin is invalid in this mode)"
ROUNDS_QUARTILES = "rounds' quartiles"
QUARTILE_ROUNDS = 20  # 20 rounds leave 5 beyond each quartile
QUEUE_DRAIN = (
    "PYNATIVE_MODE on a machine with few cores: ops such as assign, assign_add, stop_gradient and "
    "set_data make the eager queue drain. One drain (a scheduler slice of ~4 ms) dominates a few "
    "steps, so these numbers are a distribution of drains, not a per-op cost. A machine with more "
    "cores drains faster (`findings/pynative_queue_drain.py` reproduces it, `findings/README.md` "
    "explains it)"
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


# What a kind's construct lines are given, named as the workload's code names them (the snippet
# test's templates provide exactly these and nothing else).
GIVEN = {
    "small": "once the new value `{value}` is computed",
    "rows": "given the new row `row` (B, H, 1, D) and its position `t` (int32, shape (1,))",
    "elementwise": "for each EMA Parameter `{param}` and its new value `{value}`",
}
# A full rewrite of the cache (a strategy without ``write_row``) first computes the new cache from
# the row, as the kvcache workload's ``full`` shape does (its ``full_row_mask`` inlined).
NEW_CACHE = (
    "at_t = ops.equal(ops.arange(self.cache.shape[2]).astype(t.dtype), t).reshape((1, 1, -1, 1))",
    "new = ops.where(at_t, row, self.cache)",
)
HOST = "net"  # how a host-side snippet names the Cell


@dataclass(frozen=True)
class Snippet:
    """Paste-ready code of one strategy in one workload, from its strategy file: the imports,
    the lines of ``__init__``, the lines of ``construct`` (names as the workload's code uses
    them) and, for a host-side update, the lines that run on the host after each step. Printed
    by ``markdown`` and run verbatim by ``tests/ms/test_snippets.py``."""

    imports: tuple[str, ...]
    init: tuple[str, ...]
    construct: tuple[str, ...]
    vector: str = ""  # the Parameter the write needs stored as a 1-element vector, not 0-d
    given: str = "once the new value is computed"  # what the construct lines are given
    host: tuple[str, ...] = ()  # after each step, on the host (``HOST`` is the Cell)
    call: str = ""  # how a step is called, for the host lines: ``out = net(x)``

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
        if self.construct:
            body += [f"# in construct, {self.given}:", *self.construct]
        else:
            body += ["# in construct: no write (the host writes after each step)"]
        if self.host:
            body += ["", f"# after each step, on the host ({HOST}: the Cell; {self.call}):"]
            body += list(self.host)
        return [f"{indent}```python", *(f"{indent}{x}" if x else "" for x in body), f"{indent}```"]


def _imports(tree, used: set[str] | None = None) -> tuple[list[str], dict[str, object]]:
    """The file's imports a user can paste, and {name: value} of the constants it imports from
    the suite (inlined: a snippet imports nothing from ``bench``); a suite name that is not a
    constant maps to None. Only the suite modules of names in ``used`` are imported (the rest,
    e.g. ``bench.strategy``, would import MindSpore)."""
    plain, suite = [], {}
    for n in tree.body:
        if not isinstance(n, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("bench"):
            for a in n.names:
                name = a.asname or a.name
                if used is not None and name not in used:
                    continue
                try:
                    value = getattr(importlib.import_module(n.module), a.name, None)
                except ImportError:
                    value = None
                ok = isinstance(value, (int, float, str)) and not isinstance(value, bool)
                suite[name] = value if ok else None
            continue
        plain.append(ast.unparse(n))
    return plain, suite


def _rename(source: str, mapping: dict[str, str]) -> str:
    """``source`` with every name (not an attribute) in ``mapping`` replaced, comments kept."""
    lines = source.splitlines(keepends=True)
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    for prev, tok in reversed(list(zip([None, *tokens], tokens))):
        if tok.type != tokenize.NAME or tok.string not in mapping:
            continue
        if prev is not None and prev.type == tokenize.OP and prev.string == ".":
            continue
        (row, col), (_, end) = tok.start, tok.end
        lines[row - 1] = lines[row - 1][:col] + mapping[tok.string] + lines[row - 1][end:]
    return "".join(lines)


def _body(source: str, fn: ast.FunctionDef, mapping: dict[str, str]) -> list[str]:
    """A method's body lines as written (comments kept), without a final ``return <first
    argument>``, names renamed."""
    body = list(fn.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    args = [a.arg for a in fn.args.args]
    last = body[-1] if body else None
    if (
        isinstance(last, ast.Return)
        and isinstance(last.value, ast.Name)
        and args[1:2] == [last.value.id]
    ):
        body = body[:-1]
    if not body:
        return []
    lines = source.splitlines()[body[0].lineno - 1 : body[-1].end_lineno]
    return _rename(textwrap.dedent("\n".join(lines)), mapping).splitlines()


def _host_snippet(run: RunData, tree, source: str) -> Snippet | None:
    """A host-side update's snippet: its ``__init__`` lines, no write in construct, and its
    ``after_step`` lines as the host runs them (``self`` is the Cell, ``HOST``); None when it
    overrides construct with a forward of its own or needs more of the suite than a constant."""
    methods = {
        n.name: n
        for c in tree.body
        if isinstance(c, ast.ClassDef)
        for n in c.body
        if isinstance(n, ast.FunctionDef)
    }
    step = methods.get("after_step")
    if step is None:
        return None
    construct = methods.get("construct")
    if construct is not None and _body(source, construct, {}):
        return None  # a forward of its own: not a write a user adds to their construct
    raw = _body(source, step, {})
    plain, suite = _imports(tree, _names("\n".join(raw), []))
    mapping = {"self": HOST, **{k: repr(v) for k, v in suite.items() if v is not None}}
    host = _body(source, step, mapping)
    init = [
        x
        for x in (_body(source, methods["__init__"], mapping) if "__init__" in methods else [])
        if "super().__init__" not in x
    ]
    used = _names("\n".join(host), init)
    if any(k in used for k, v in suite.items() if v is None):
        return None
    out, *inputs = [a.arg for a in step.args.args[1:]] or ["out"]
    x = inputs[0] if inputs else "x"
    call = f"{out} = {HOST}({x})" if x == "x" else f"{out} = {HOST}(*{x})"
    imports = tuple(i for i in plain if any(_bound(i, name) for name in used))
    return Snippet(imports, tuple(init), (), host=tuple(host), call=call)


def snippet(run: RunData, strategy: str, shape: str = "", root: Path = STRATEGIES_DIR):
    """The strategy's ``Snippet`` in this workload, or None when it has no code a user can paste
    (tests/ms/test_snippets.py fails on an answer printed without one)."""
    facts = run.manifest.strategies.get(strategy, {})
    path = root / f"{strategy}.py"
    if not path.exists():
        return None
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    if facts.get("custom"):
        return _host_snippet(run, tree, source)
    code = code_for(run, strategy, shape)
    if code == facts.get("description", ""):
        return None
    plain, _ = _imports(tree, set())
    init: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "__init__":
            init = [
                ast.unparse(x)
                for x in node.body
                if "super().__init__" not in ast.unparse(x)
                and not (isinstance(x, ast.Expr) and isinstance(x.value, ast.Constant))
            ]
    kind = getattr(run.work, "state_kind", "")
    lines = code.splitlines()
    if kind == "rows" and "write_row" not in facts.get("code", {}):
        lines = [*NEW_CACHE, *lines]  # a full rewrite: the new cache from the row first
        plain = [*plain, "from mindspore import ops"]
    used = _names("\n".join(lines), init)
    imports = tuple(dict.fromkeys(i for i in plain if any(_bound(i, n) for n in used)))
    vector = ""
    if kind == "small" and facts.get("layout") == "vector":
        vector = run.work.code_names.get("write", ("the Parameter",))[0]
    param, value = run.work.code_names.get("write", ("the Parameter", "the new value"))
    given = GIVEN.get(kind, "once the new value is computed").format(param=param, value=value)
    return Snippet(imports, tuple(init), tuple(lines), vector, given)


def _names(code: str, init: list[str]) -> set[str]:
    out = set()
    for text in (code, *init):
        out |= {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
    return out


def _bound(statement: str, name: str) -> bool:
    node = ast.parse(statement).body[0]
    return any((a.asname or a.name).split(".")[0] == name for a in node.names)


def share(x: float) -> str:
    """A share of a step: ``6 %``, ``0.5 %`` below 10 %."""
    return f"{100 * x:.1f} %" if abs(x) < 0.1 else f"{100 * x:.0f} %"


def cost(
    added_s: float,
    low_s: float,
    high_s: float,
    ratio: float = math.nan,
    why: bool = True,
    step_s: float = math.nan,
) -> str:
    """The added time per step of a write, with its 95 % interval, as a sentence fragment:

    - an interval that contains 0: "no detectable cost: ≤ +x, y % of a z step (97.5 % bound)"
      against ``step_s``, the step without the write (the step the user pays); without it "no
      detectable cost (97.5 % upper bound +x)". The bound is the most the write can cost at
      this precision, a one-sided 97.5 % bound (never a bare "not measurable");
    - an interval above 0: the added time with its interval (and ``ratio`` to the twin's step);
    - an interval below 0: "faster than the same step without the write", with its interval and
      (``why``) why that can happen (``WHY_FASTER``)."""
    if not math.isfinite(added_s):
        return NOT_MEASURED
    rel = f" ({relative(ratio)})" if math.isfinite(ratio) else ""
    if not (math.isfinite(low_s) and math.isfinite(high_s)):
        return f"{fmt.signed(added_s)} a step{rel} (no interval: too few rounds to have one)"
    if low_s <= 0 <= high_s:
        if math.isfinite(step_s) and step_s > 0:
            return (
                f"{NO_COST}: ≤ {fmt.signed(high_s)}, {share(high_s / step_s)} of a "
                f"{fmt.duration(step_s)} step (97.5 % bound)"
            )
        return f"{NO_COST} (97.5 % upper bound {fmt.signed(high_s)})"
    if low_s > 0:
        return f"{fmt.signed(added_s, low_s, high_s)} a step{rel}"
    because = f" ({WHY_FASTER})" if why else ""
    return f"{FASTER_THAN_WITHOUT}: {fmt.signed(added_s, low_s, high_s)} a step{rel}{because}"


def quartiles(q1_s: float, q2_s: float, q3_s: float, rounds: int) -> str:
    """The per-round added time's quartiles, or "" below ``QUARTILE_ROUNDS`` rounds (with fewer,
    a quartile is one or two rounds, not a spread)."""
    if rounds < QUARTILE_ROUNDS or not all(map(math.isfinite, (q1_s, q2_s, q3_s))):
        return ""
    return (
        f"{ROUNDS_QUARTILES} {fmt.signed(q1_s)} … {fmt.signed(q3_s)} "
        f"(median {fmt.signed(q2_s)}, {rounds} rounds)"
    )


def distribution(mode: str) -> bool:
    """Whether a mode's step times are a distribution (PYNATIVE as users run it: queue drains),
    so its pages show the rounds' quartiles beside the interval."""
    return mode in MODES and MODES[mode].distribution


def cell_cost(cell, mode: str, why: bool = True) -> str:
    """What one timed cell's write adds (``cost``), and in a distribution mode the rounds'
    quartiles when there are enough rounds (``quartiles``); nothing against an invalid twin."""
    if cell.twin_invalid:
        return TWIN_INVALID
    e = cell.estimate
    text = cost(e.added_s, *e.added_interval, ratio=e.ratio, why=why, step_s=e.control_step_s)
    if distribution(mode):
        spread = quartiles(*cell.added_quartiles(), cell.rounds)
        if spread:
            text += f"; {spread}"
    return text


CROSSOVER = "the cheaper one depends on the size"


def crossover_words(symbol: str, strategy: str, found) -> str:
    """What ``answer.crossovers`` found, as a user reads it: "the cheaper one depends on the size:
    head to head, `a`'s whole step is shorter than `b`'s and `c`'s at N=1, 64 and longer at
    N=1024" (one clause per set of sizes; "" when there is none)."""
    groups: dict[tuple, list[str]] = {}
    for x in found:
        groups.setdefault((x.faster, x.slower), []).append(x.other)
    if not groups:
        return ""

    def at(sizes):
        return f"{symbol}={', '.join(str(n) for n in sizes)}"

    def names(others):
        quoted = [f"`{o}`'s" for o in sorted(others)]
        return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"

    clauses = [
        f"shorter than {names(others)} at {at(faster)} and longer at {at(slower)}"
        for (faster, slower), others in sorted(groups.items())
    ]
    return (
        f"{CROSSOVER}: head to head, `{strategy}`'s whole step is {'; it is '.join(clauses)}. "
        "The answer is decided over every size; at yours, the shorter step is the cheaper"
    )

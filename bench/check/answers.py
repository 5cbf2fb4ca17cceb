"""What to write instead: the kind of state the user's Cell writes, and the suite's answer for
that kind and mode, read from the file README's table is rendered from (``results/decisions.json``:
the write, its code, its cost, what to avoid, where it fails).

The kind of state of each Parameter the Cell writes (``kind_of_state``, pure):

- **rows**: rows written into a larger buffer: one eager step changes at most ``ROWS_FRACTION``
  of its elements, and the write is an index or slice write (``known.Constructs.indexed``) or
  the Parameter is large (at least ``LARGE`` elements);
- **elementwise**: a large Parameter (at least ``LARGE`` elements) updated elementwise;
- **small**: a small Parameter replaced (anything else: a layer's statistics, a bound).

``LARGE`` lies between the largest state the suite's small-Parameter workloads measure (BRN's
statistics at N = 1024) and the smallest its elementwise one does (the EMA at E = 10000).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from bench.measured.modes import MODES, label

SMALL, ROWS, ELEMENTWISE = "small", "rows", "elementwise"  # bench.decide.answer.KINDS' keys
LARGE = 4096  # elements
ROWS_FRACTION = 0.25  # at most this share of a buffer's elements changes in one step


@dataclass(frozen=True)
class Written:
    """A Parameter the Cell writes, as eager ran it."""

    name: str
    size: int  # elements
    changed: float  # the largest share of its elements one eager step changed
    indexed: bool = False  # written by an index or slice write in the source


def kind_of_state(w: Written) -> tuple[str, str, str]:
    """(kind, what the Parameter is, the rule that decided) of one written Parameter: a pure
    function of its size, how much of it one step changes and how the source writes it."""
    elements = f"{w.size} element{'s' if w.size != 1 else ''}"
    share = f"{elements}, at most {w.changed:.0%} of them changed a step"
    if w.size > 1 and w.changed <= ROWS_FRACTION and (w.indexed or w.size >= LARGE):
        how = "written by index or slice" if w.indexed else f"at least {LARGE} elements"
        return (
            ROWS,
            f"{share}, {how}",
            (
                f"at most {ROWS_FRACTION:.0%} of a buffer changed a step: rows written into a "
                "larger buffer"
            ),
        )
    if w.size >= LARGE:
        return (
            ELEMENTWISE,
            share,
            f"at least {LARGE} elements: a large Parameter updated elementwise",
        )
    return SMALL, elements, f"fewer than {LARGE} elements: a small Parameter replaced"


def written(trajectory: dict, indexed: set[str] = frozenset()) -> list[Written]:
    """The Parameters an eager trajectory changes (``{"initial", "steps": [{"after"}]}``);
    ``indexed``: attribute names the source writes by index or slice."""
    out = []
    before = trajectory["initial"]
    shares: dict[str, float] = {name: 0.0 for name in before}
    for step in trajectory["steps"]:
        for name, value in step["after"].items():
            old = np.asarray(before.get(name))
            new = np.asarray(value)
            if old.shape != new.shape or not new.size:
                shares[name] = 1.0
                continue
            changed = np.count_nonzero(~((old == new) | (np.isnan(old) & np.isnan(new))))
            shares[name] = max(shares.get(name, 0.0), changed / new.size)
        before = step["after"]
    for name, share in shares.items():
        if share > 0:
            size = int(np.asarray(trajectory["initial"][name]).size)
            out.append(Written(name, size, share, name.rsplit(".", 1)[-1] in indexed))
    return out


def kinds_of(ws: list[Written]) -> dict[str, list[tuple[str, str, str]]]:
    """{kind: [(Parameter, what it is, rule)]} in the order small, rows, elementwise (pure)."""
    out: dict[str, list[tuple[str, str, str]]] = {}
    for w in ws:
        kind, what, rule = kind_of_state(w)
        out.setdefault(kind, []).append((w.name, what, rule))
    return {k: out[k] for k in (SMALL, ROWS, ELEMENTWISE) if k in out}


def why(params: list[tuple[str, str, str]]) -> str:
    """``moving_mean``, ``moving_var``: 8 elements; ``r_max``: 1 element (fewer than ...)."""
    groups: dict[str, list[str]] = {}
    for name, what, _ in params:
        groups.setdefault(what, []).append(f"`{name}`")
    rules = dict.fromkeys(rule for *_, rule in params)
    return "; ".join(f"{', '.join(n)}: {what}" for what, n in groups.items()) + (
        f" ({'; '.join(rules)})"
    )


@dataclass
class Answer:
    """The suite's answer for one kind of state in one mode, as the pages print it."""

    kind: str
    mode: str
    strategy: str | None  # None: no answer in this mode
    text: str  # "`assign_primitive` (brn's step: +19 µs ...). *Not decided: ...*" or "none — ..."
    code: list  # the snippet's lines (imports, __init__, construct), [] when none
    source: str = "results/decisions.json"


def answer(kind: str, mode: str) -> Answer | None:
    """The answer for ``kind`` in ``mode`` from ``results/decisions.json`` (None when it has
    none): the write, its cost at the largest size, why it is not decided, and its code, as
    README's table and answer block say them (``templates/check_answer.md.j2``)."""
    from bench.report import templating

    d = _decisions().get((kind, mode))
    if d is None:
        return None
    text = templating.render(
        "check_answer.md.j2", d=d, drain=MODES[mode].distribution if mode in MODES else False
    )
    code = [ln for ln in d.snippet if not ln.startswith("```")]
    return Answer(kind, mode, d.write, text, code)


@functools.lru_cache(maxsize=1)
def _decisions() -> dict:
    """{(kind, mode): Decision} of ``results/decisions.json``, the file README's table is
    rendered from ({} when it is missing or unreadable: the report then names nothing to avoid)."""
    from bench.core import paths
    from bench.decide import decisions

    try:
        path = paths.RESULTS_DIR / "decisions.json"
        found = decisions.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {(d.kind, d.mode): d for d in found}


def avoid(kind: str, mode: str, shown: int = 4) -> list[str]:
    """What not to write for ``kind`` in ``mode``, as README's table says it: the APIs users try
    first on top, each with what goes wrong (``decisions.json``'s ``avoid``;
    ``templates/check_avoid.md.j2``)."""
    from bench.report import templating

    d = _decisions().get((kind, mode))
    if d is None:
        return []
    text = templating.render("check_avoid.md.j2", d=d, shown=shown)
    return [line for line in text.split("\n") if line]


def exceptions(kind: str, mode: str) -> str:
    """Where the answer itself fails (its ``nearest`` record when it has one): ``fails in 2 of
    50 shapes (stale read: ...)``; "" when it holds in every shape checked."""
    from bench.report import templating

    d = _decisions().get((kind, mode))
    f = d.nearest if d is not None and d.write else None
    if f is None or f.works == f.gated:
        return ""
    return templating.render("check_except.md.j2", f=f).strip()


def kind_words(kind: str) -> str:
    from bench.decide.answer import KINDS

    return KINDS[kind]


def quote(mode: str, kinds: dict[str, list[tuple[str, str, str]]]) -> list[dict]:
    """For each kind of state the Cell writes: its Parameters, why that kind, and the answer in
    ``mode`` (as dicts, for the report)."""
    out = []
    for kind, params in kinds.items():
        found = answer(kind, mode)
        out.append(
            {
                "kind": kind,
                "kind_words": kind_words(kind),
                "parameters": [name for name, *_ in params],
                "why": why(params),
                "mode": label(mode),
                "strategy": found.strategy if found else None,
                "answer": found.text if found else "the reference runs have no answer here",
                "code": found.code if found else [],
                "source": found.source if found else "",
                "except": exceptions(kind, mode),
                "avoid": avoid(kind, mode),
            }
        )
    return out

"""What a divergence means: the constructs of the user's source (``ast``), the suite's root
causes and their findings (``results/causes.json``, data the report writes beside
``results/findings.md``), and the match between a divergence and them (pure, given the data)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

from bench.check import kinds as K
from bench.core.paths import STRATEGIES_DIR
from bench.core.schema import Kind, Status
from bench.measured.discovery import PRIVATE

ROOT = Path(__file__).resolve().parents[2]
FINDINGS = ROOT / "results" / "findings.md"
CAUSES = ROOT / "results" / "causes.json"
NO_MATCH = "no known finding matches: this may be a new MindSpore bug"

# constructs a finding's minimal pair isolates -> its rule in findings.md
VIEW_READ = "view read before an in-place write"
DEPEND_WRITE = "write inside ops.depend"
INHERITED = "construct inherited from a class in another module"
SET_DATA = "set_data in construct"
REBIND = "self.<Parameter> = ... in construct"
RULES = {"read=view": VIEW_READ, "construct=base": INHERITED, "write=depend": DEPEND_WRITE}


def _snake(name: str) -> str:
    """``InplaceUpdateV2`` -> ``inplace_update_v2``: the functional spelling of a primitive."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _camel(name: str) -> str:
    """``scatter_nd_update`` -> ``ScatterNdUpdate``: the primitive spelling of an ops function."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def write_calls(folder: Path = STRATEGIES_DIR) -> tuple[dict[str, str], dict[str, str]]:
    """(call name -> strategy, primitive class -> strategy), derived from the strategy files'
    ``API`` (read with ``ast``, nothing imported), so a new strategy is covered without editing
    this module. A call name is the API's last part (``ops.index_add``, ``Tensor.add_``) and, for
    a primitive class, its functional spelling too (``ops.ScatterUpdate`` -> ``scatter_update``);
    an ``ops`` function its primitive spelling (``ops.scatter_nd_update`` ->
    ``ScatterNdUpdate``); a primitive is also matched where the user's ``__init__`` builds it
    (``self.op = ops.ScatterUpdate()``, then ``self.op(param, ...)``). Where several strategies
    share an API
    (``set_data``: the host-side ones), the strategy named like the call owns it; index
    assignment (``Tensor.__setitem__``) is the ``param[...] = v`` syntax, matched apart."""
    apis: dict[str, list[str]] = {}
    in_ops: set[str] = set()
    for path in sorted(folder.glob("*.py")):
        if path.name.startswith(PRIVATE):
            continue
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "API" for t in node.targets)
                and isinstance(node.value, ast.Constant)
            ):
                where, _, name = str(node.value.value).rpartition(".")
                apis.setdefault(name, []).append(path.stem)
                if where == "mindspore.ops":
                    in_ops.add(name)
    calls: dict[str, str] = {}
    primitives: dict[str, str] = {}
    for name, owners in apis.items():
        if name.startswith("__"):  # __setitem__: syntax, not a call
            continue
        owner = name if name in owners else owners[0]
        calls[name] = owner
        if name[:1].isupper():
            primitives[name] = owner
    for name in sorted(in_ops - set(primitives)):  # ops.scatter_nd_update: P.ScatterNdUpdate()
        primitives.setdefault(_camel(name), calls[name])
    for name, owner in primitives.items():  # an exact API name wins (``assign``, ``Assign``)
        calls.setdefault(_snake(name), owner)
        calls.setdefault(name, owner)
    return calls, primitives


# calls that write a Parameter -> the suite's strategy name (from the strategy files)
WRITE_CALLS, PRIMITIVES = write_calls()
# the ones that write rows of a Parameter (by their names: index and scatter APIs)
INDEX_CALLS = {c for c in WRITE_CALLS if re.search(r"index|scatter|inplace_?update", c, re.I)}
VIEW_CALLS = {"reshape", "view", "flatten", "squeeze", "expand_dims", "unsqueeze", "transpose"}


@dataclass
class Constructs:
    writes: set = field(default_factory=set)  # strategy names of the writes used
    found: dict = field(default_factory=dict)  # construct -> where (line)
    indexed: set = field(default_factory=set)  # attributes written by an index or a slice


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""


def _is_self_attr(node) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and (node.value.id == "self")
    )


def constructs(source: str, params: set[str] = frozenset(), inherited: bool = False) -> Constructs:
    """The constructs of the user's file that the suite's findings isolate (``params``: the
    Cell's Parameter attribute names; ``inherited``: its construct comes from another module)."""
    tree = ast.parse(source)
    c = Constructs()
    if inherited:
        c.found[INHERITED] = "the Cell does not define construct"
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        view_at = None
        for node in ast.walk(fn):
            if isinstance(node, ast.Call):
                name = _call_name(node)
                if name in WRITE_CALLS:
                    c.writes.add(WRITE_CALLS[name])
                    if name in INDEX_CALLS:
                        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
                        first = node.args[0] if node.args else None
                        for target in (first, receiver):
                            if _is_self_attr(target):
                                c.indexed.add(target.attr)
                    if name == "set_data" and fn.name != "__init__":
                        c.found.setdefault(SET_DATA, f"line {node.lineno}")
                    if view_at is not None and node.lineno > view_at:
                        c.found.setdefault(VIEW_READ, f"line {view_at}")
                if name == "depend":
                    for arg in node.args[1:]:
                        inner = [n for n in ast.walk(arg) if isinstance(n, ast.Call)]
                        if any(_call_name(n) in WRITE_CALLS for n in inner) or any(
                            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                            and _is_self_attr(n.func) for n in inner  # self.assign_op(...)
                        ):  # fmt: skip
                            c.found.setdefault(DEPEND_WRITE, f"line {node.lineno}")
                if (
                    name in VIEW_CALLS
                    and isinstance(node.func, ast.Attribute)
                    and _is_self_attr(node.func.value)
                    and (not params or node.func.value.attr in params)
                ):
                    view_at = view_at or node.lineno
            if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
                if _is_self_attr(node.value) and (not params or node.value.attr in params):
                    view_at = view_at or node.lineno
            if isinstance(node, ast.Assign) and fn.name != "__init__":
                for t in node.targets:
                    if isinstance(t, ast.Subscript) and (
                        _is_self_attr(t.value) or isinstance(t.value, ast.Name)
                    ):  # self.p[...] = v, or param[...] = v in a helper taking the Parameter
                        ellipsis = isinstance(t.slice, ast.Constant) and t.slice.value is ...
                        c.writes.add("slice_ellipsis" if ellipsis else "slice_index")
                        if not ellipsis and _is_self_attr(t.value):
                            c.indexed.add(t.value.attr)
                        if view_at is not None and node.lineno > view_at:
                            c.found.setdefault(VIEW_READ, f"line {view_at}")
                    if _is_self_attr(t) and t.attr in params:
                        c.writes.add("rebind")
                        c.found.setdefault(REBIND, f"line {node.lineno}")
    for name, strategy in PRIMITIVES.items():  # self.op = ops.Assign(): calls via self.op(...)
        if re.search(rf"\b(ops|P)\.{name}\(", source):
            c.writes.add(strategy)
    return c


@dataclass
class Finding:
    """One entry of the findings (one workload's divergence) and the root cause it belongs to."""

    anchor: str
    title: str
    workload: str
    outcome: str  # "stale read", "write dropped", "raises: RuntimeError: ...", "crashed", ...
    modes: list
    strategies: list
    rule: str = ""  # "read=view" (the failing value) or ""
    lines: list = field(default_factory=list)  # what the entry says: its failing shapes per mode
    cause: int = 0  # the rank of its root cause (1: the one that affects most code shapes)
    cause_title: str = ""
    repro: str = ""  # the script of its example (a path from the repository's root), or ""

    @property
    def link(self) -> str:
        return f"results/findings.md#{self.anchor}"


def entry_outcome(entry: dict) -> str:
    """An entry's outcome as a finding's title says it: ``stale read at the first call only``,
    ``raises: RuntimeError: ...`` (the verdict's ``incorrect: `` taken off)."""
    return entry["outcome"].removeprefix(Status.INCORRECT.value + ": ")


def load_findings(records: list[dict], mode_labels: dict[str, str]) -> list[Finding]:
    """The entries of every root cause (``records``: ``bench.causes.causes.from_json``), each
    knowing its cause; ``mode_labels`` words a mode in the entry's lines."""
    out = []
    for c in records:
        for e in c["entries"]:
            lines = [
                f"{mode_labels.get(m, m)}: {len(shapes)} shape{'s' if len(shapes) != 1 else ''} "
                f"({', '.join(f'`{x}`' for x in shapes[:6])}" + (", …)" if len(shapes) > 6 else ")")
                for m, shapes in e["shapes"].items()
            ]
            lines.append(f"**strategies**: {', '.join(f'`{s}`' for s in e['strategies'])}")
            if e["repro"]:
                lines.append(f"**repro**: `python {e['repro']}`")
            out.append(
                Finding(
                    anchor=e["anchor"],
                    title=e["title"],
                    workload=e["workload"],
                    outcome=entry_outcome(e),
                    modes=list(e["modes"]),
                    strategies=list(e["strategies"]),
                    rule=e["rule"],
                    lines=lines,
                    cause=int(c["rank"]),
                    cause_title=c["title"],
                    repro=e["repro"],
                )
            )
    return out


def read_findings(path: Path = CAUSES) -> list[Finding]:
    """The committed root causes' entries (``results/causes.json``)."""
    from bench.causes.causes import from_json
    from bench.measured.modes import MODES, label

    return load_findings(from_json(path.read_text(encoding="utf-8")), {m: label(m) for m in MODES})


def _outcome_matches(finding_outcome: str, kind: str, message: str) -> bool:
    if kind == K.RAISES:
        if not finding_outcome.startswith(Status.RAISES.value):
            return False
        exc = finding_outcome.split(": ")[1] if ": " in finding_outcome else ""
        return not message or message.split(":", maxsplit=1)[0].strip() == exc
    if kind == K.CRASHED:
        return finding_outcome.startswith(Status.CRASHED.value)
    if kind == K.HANGS:
        return finding_outcome.startswith(Status.TIMEOUT.value)
    return kind_of(finding_outcome) == kind


def kind_of(outcome: str) -> str:
    """The kind of a finding's outcome without its qualifier of calls or instances ("stale read
    at the first call only" is a stale read)."""
    for k in sorted((k.value for k in Kind), key=len, reverse=True):
        if outcome == k or outcome.startswith(k + " "):
            return k
    return outcome


def match(
    findings: list[Finding], mode: str, kind: str, message: str, found: Constructs, limit=3
) -> list[Finding]:
    """The findings that explain ``kind`` in ``mode`` given the user's constructs: a rule entry
    when the user's code has the rule's construct, a strategy entry when it uses that write; one
    entry per root cause (the best-matching), at most ``limit``."""
    scored = []
    for f in findings:
        # a view read stale at the first call has no earlier state to explain it: the check sees
        # a wrong output there, the suite's finding (which knows the value read) a stale read
        first_call_view = (
            kind == K.WRONG_OUTPUT
            and kind_of(f.outcome) == K.STALE_READ
            and VIEW_READ in found.found
        )
        # a second instance that stops writing under bytecode capture with the write inside
        # ops.depend: the suite's gate sees it as a depend-write entry (of another kind: its
        # timing instances, not its gate, hit it), which is the construct the user's code has
        second_depend = (
            kind == K.SECOND_INSTANCE_ONLY
            and RULES.get(f.rule) == DEPEND_WRITE
            and DEPEND_WRITE in found.found
        )
        if mode not in f.modes or not (
            _outcome_matches(f.outcome, kind, message) or first_call_view or second_depend
        ):
            continue
        if f.rule:
            construct = RULES.get(f.rule)
            if construct is None or construct not in found.found:
                continue
            score = 0
        else:
            common = set(f.strategies) & found.writes
            through_view = (
                kind_of(f.outcome) == K.STALE_READ
                and VIEW_READ in found.found
                and any("view" in line for line in f.lines)
            )
            if not (common or through_view):
                continue
            # the user's own write first; else the same construct (a view read before an
            # in-place write) seen stale with another write
            score = 1 + len(set(f.strategies) - common) / 100 if common else 2
        scored.append((score, f.workload not in ("brn", "clip"), f.anchor, f))
    scored.sort(key=lambda t: t[:3])
    out, causes = [], set()
    for *_, f in scored:  # one entry per root cause: the best-matching one (its workload's)
        if f.cause and f.cause in causes:
            continue
        causes.add(f.cause)
        out.append(f)
    return out[:limit]

"""One short repro per root cause (issue 54): a program of about 30 lines that imports only
``mindspore`` and ``numpy`` (and the standard library), written from the cause's trigger and
kept only when it reproduces the cause's outcome alone in a fresh process.

A cause's witness (``results/causes.json``) is a strategy in a code shape and a mode. Its reduced
program holds one 1-element Parameter ``limit`` and the strategy's own ``write`` (its file's
``__init__`` lines and ``write`` body, ``param`` and ``value`` renamed), placed as the shape's
first dimension says: a plain statement (``inline``), inside ``ops.depend`` (``depend``) or in a
helper method (``helper``). The program runs three calls in the mode, each adding the call's
number to ``limit``, and judges each call against what the code means (``judge``): the Parameter
holds ``old + call`` (else *write dropped* when it kept ``old``, *wrong value* otherwise) and the
output is that value (else *stale read* when it is ``old``, *wrong output* otherwise); an
exception is ``raises: Type: message``; a crash is seen from a child process (the program runs
itself again). It exits 0 iff it shows the cause's outcome at the cause's first call (``want``).

A cause that follows the old values after a reload from call N on gets the reload form: ``limit``
is an EMA of a weight Parameter ``w`` (``limit * 0.9 + w * 0.1``), and before call N a
checkpoint of another ``w`` is loaded (``load_param_into_net``) as a training loop that resumes
does; a call whose EMA is that of the ``w`` from before the reload shows the cause.

Where these do not show the cause, the faithful form: the entry's own read, order and new value
(``placement-read-order-new``: a local from an expression or from ``self.next_limit(x)``, or that
call as the write's value), the strategy's own layout (a 0-d Parameter where its is) and the limit
read through ``ops.clip_by_value`` as the clip reads it (``faithful``; at most ``TRIES`` programs
a cause).

This is reduction by construction, checked: the program is not shrunk from the entry's script
(pysource-minimize over a 170-line script costs hours here); a cause whose outcome needs more
than this program has (two layers, a second instance, a view read, an inherited ``construct``,
a strategy without a ``write``) keeps its entry's own script, with the reason (``NotReduced``).
``python -m bench.causes.reduce`` writes ``results/causes/NN-slug.py`` and
``results/causes/reduced.json`` (each cause's program, lines, and exit code per MindSpore
release it was run on: ``--python VERSION=PATH``).
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.core import paths
from bench.core.io import write_text_atomic
from bench.core.schema import NETWORK_ONLY, Kind, Status
from bench.measured.modes import GRAPH, JIT_AST, JIT_BYTECODE, PYNATIVE, PYNATIVE_BLOCKING

SCHEMA_VERSION = 4  # 2: each cause's ``bucket``; 3: ``splits`` (``causes.Split``); 4: ``merges``
CALLS = 3
TIMEOUT_S = 180.0
PLACEMENTS = ("inline", "depend", "helper")
TRIES = 13  # programs written per cause at most (each a fresh MindSpore process, ~5 s)
AS_WRITTEN = "as-written"  # the strategy's own construct (and after_step), pasted whole
# how the state is read, and the write's order against the read (the clip's dimensions), for a
# cause whose trigger is one of them: the program reads ``lim`` and outputs it
READS = {
    "param": "",
    "alias": "self.limit",
    "copy": "self.limit.copy()",
    "view": "self.limit.reshape(())",
}
ORDERS = ("after", "before")
# the new value as the clip's ``new`` dimension binds it (the faithful form): a local from an
# expression, a local from a method of the cell, or the method's call as the write's value
NEWS = ("expr", "method", "arg")
LAYOUTS = {"scalar": "()", "vector": "(1,)"}  # bench.strategy.LAYOUTS: the Parameter's shape
# outcomes the program can show, and the first call the cause's words name
FIRST_CALL = {
    "at every call": 1,
    "at the first call only": 1,
    "": 1,
}
SETUP = {
    GRAPH: ("ms.set_context(mode=ms.GRAPH_MODE)", ""),
    PYNATIVE: ("ms.set_context(mode=ms.PYNATIVE_MODE)", ""),
    JIT_AST: (
        "ms.set_context(mode=ms.PYNATIVE_MODE)",
        'net.construct = ms.jit(net.construct, capture_mode="ast")',
    ),
    JIT_BYTECODE: (
        "ms.set_context(mode=ms.PYNATIVE_MODE)",
        'net.construct = ms.jit(net.construct, capture_mode="bytecode")',
    ),
    PYNATIVE_BLOCKING: (
        "ms.set_context(mode=ms.PYNATIVE_MODE); ms.runtime.launch_blocking()",
        "",
    ),
}
SILENT = tuple(
    k.value for k in (Kind.WRITE_DROPPED, Kind.WRONG_VALUE, Kind.STALE_READ, Kind.WRONG_OUTPUT)
)  # what the program's judge names
CRASHED = Status.CRASHED.value
HANG = Status.TIMEOUT.value  # the row form's outcome: the child does not end within HANG_S
HANG_S = 60  # seconds the row form's child gets (its three calls take about 5 s when they end)
ROW = "row"  # the KV cache's row write (``write_row(param, index, row)``), for a hang
RELOADED = Kind.OUTDATED.value  # the reload form's outcome: a weight's old values followed
# the network form (``network_program``): its placement's prefix, and the words its judge adds
NET = "net"  # the new value from the state module's ``next_limit``
NET_READ = "netread"  # the new value inline, the state read back through the module's ``read``
MOD = "mod"  # the faithful form with the state's class in a module of its own (one cell)
TWO = "two"  # a placement's write of two Parameters, ``limit`` and ``other`` (BRN writes five)
BASE = "base"  # the module form with ``construct`` in the state's class too: inherited
BOTH = "both"  # a faithful form whose clip reads both bounds: ``-lim`` and ``lim``
NETWORK = "in a network of two layers"


class NotReduced(Exception):
    """Why a cause keeps its entry's own script."""


@dataclass(frozen=True)
class Writer:
    """A strategy's write as its file has it: the imports it needs, ``__init__``'s lines, and
    the body of ``write(self, param, value)`` (its own names: ``written`` renames them)."""

    imports: tuple[str, ...]
    init: tuple[str, ...]
    body: tuple[str, ...]
    layout: str = "scalar"  # the Cell's ``layout``: its small Parameter 0-d, or a (1,) "vector"


class _Rename(ast.NodeTransformer):
    def __init__(self, names: dict[str, str]):
        self.names = names

    def visit_Name(self, node: ast.Name):
        if node.id in self.names:
            return ast.copy_location(ast.parse(self.names[node.id], mode="eval").body, node)
        return node


def _ms_imports(tree: ast.Module) -> tuple[str, ...]:
    """A strategy file's import lines of mindspore and numpy only (not the suite's)."""
    return tuple(
        ast.unparse(n)
        for n in tree.body
        if isinstance(n, (ast.Import, ast.ImportFrom))
        and all(
            (getattr(n, "module", None) or a.name).split(".")[0] in ("mindspore", "numpy")
            for a in n.names
        )
    )


def writer(source: str) -> Writer:
    """The write of a strategy file (its source); NotReduced when it has no ``write``."""
    tree = ast.parse(source)
    imports = _ms_imports(tree)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Cell"), None)
    methods = {f.name: f for f in (cls.body if cls else []) if isinstance(f, ast.FunctionDef)}
    write = methods.get("write")
    if write is None:
        raise NotReduced("the strategy has no write(param, value): its update is not one call")
    init = tuple(
        ast.unparse(x)
        for x in (methods["__init__"].body if "__init__" in methods else [])
        if "super().__init__" not in ast.unparse(x)
        and not (isinstance(x, ast.Expr) and isinstance(x.value, ast.Constant))
    )
    body = [
        x for x in write.body if not (isinstance(x, ast.Expr) and isinstance(x.value, ast.Constant))
    ]
    layout = next(
        (
            x.value.value
            for x in (cls.body if cls else [])
            if isinstance(x, ast.Assign)
            and [getattr(t, "id", "") for t in x.targets] == ["layout"]
            and isinstance(x.value, ast.Constant)
        ),
        "scalar",  # bench.strategy.Strategy's
    )
    return Writer(imports, init, tuple(ast.unparse(x) for x in body), layout)


def written(body: tuple[str, ...], value: str, param: str = "self.limit") -> list[str]:
    """The write's lines on ``param`` (the program's Parameter, or a helper's argument holding
    it), ``value`` in place of ``value``."""
    names = {"param": param, "value": value}
    return [ast.unparse(_Rename(names).visit(ast.parse(line))) for line in body]


def _imports(w: Writer, froms: set, joined: bool = True) -> tuple[list[str], list[str]]:
    """(the names of the program's ``from mindspore import`` line: ``froms`` and the strategy's,
    sorted; the strategy's other import lines). ``joined``: numpy and mindspore are imported on
    the program's one ``import numpy as np, mindspore as ms`` line, not again."""
    head = "from mindspore import "
    names = {n.strip() for i in w.imports if i.startswith(head) for n in i[len(head) :].split(",")}
    plain = [i for i in w.imports if not i.startswith(head)]
    if joined:
        plain = [i for i in plain if i not in ("import numpy as np", "import mindspore as ms")]
    return sorted(froms | names), plain


def want(outcome: str, calls: str, seen: str = "") -> str:
    """What the program must print for the cause (``outcome``: ``causes.outcome_class``, its
    ``calls``; ``seen``: the witness's outcome as the gate recorded it): ``write dropped at call
    1``, ``raises: RuntimeError: The kernel …``, ``crashed``; NotReduced where this program
    cannot show it."""
    if outcome in (Kind.WRITE_DROPPED.value, Kind.WRONG_VALUE.value, RELOADED) and (
        calls == NETWORK_ONLY
    ):
        return f"{outcome} {NETWORK}"  # the network form (``network_program``): at any call
    if outcome in SILENT:
        if calls not in FIRST_CALL and not re.fullmatch(r"from call \d+ on", calls):
            raise NotReduced(f"{outcome} {calls}: needs more than one cell run three times")
        first = FIRST_CALL.get(calls) or int(re.search(r"\d+", calls).group())
        if first > CALLS:
            raise NotReduced(f"{outcome} {calls}: after the program's {CALLS} calls")
        return f"{outcome} at call {first}"
    if outcome == RELOADED:  # the reload form: a checkpoint loaded before that call
        found = re.fullmatch(r"from call (\d+) on", calls)
        if not found:
            raise NotReduced(f"{outcome} {calls}: needs more than one cell and a reload")
        return f"{outcome} at call {found.group(1)}"
    if outcome.startswith("raises: "):
        # the witness's own words up to the first number (what changes from run to run)
        text = " ".join((seen or outcome).split())
        return re.split(r"\d", text)[0].rstrip(",.:[( ")
    if outcome == CRASHED:
        return CRASHED
    if outcome == HANG:  # the row form (``row_program``) only
        return HANG
    raise NotReduced(f"{outcome}: not an outcome this program shows")


def placement(shape: str) -> str:
    """The shape's first dimension (``helper-view-before-arg`` -> ``helper``), or
    ``as-written`` (a strategy that writes its own ``construct``: ``as_written``)."""
    if shape == AS_WRITTEN:
        return AS_WRITTEN
    first = shape.removeprefix("row-").split("-")[0]
    if first not in PLACEMENTS:
        raise NotReduced(f"shape {shape!r}: not a write placed inline, in ops.depend or a helper")
    return first


# the end of a program whose outcome may be an error: the error's words, as the gate records them
ERROR_IS_OUTCOME = [
    "try:",
    '    got = judge() or "works"',
    "except Exception as exc:  # an error is an outcome: its words, rules of dashes out",
    '    got = " ".join(w for w in f"raises: {type(exc).__name__}: {exc}".split() if w.strip("-"))',
]


def _ending(expected: str) -> list[str]:
    """A program's last lines: its judge's outcome (an error's words where the cause is an
    error, else an error ends it with exit 1), printed, and the exit code."""
    return [
        *(
            ERROR_IS_OUTCOME
            if expected.startswith("raises: ")
            else ['got = judge() or "works"  # an error ends it with exit 1: not this outcome']
        ),
        'print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)',
        "raise SystemExit(0 if got.startswith(EXPECTED) else 1)",
    ]


def _judge(mode: str, network: bool = False) -> list[str]:
    """The head of a program's ``judge``: the mode's context, then one cell ``net`` (captured
    where the mode captures), or, for the network forms, one cell and then two as the layers of
    one network, each loop's ``net`` captured."""
    context, jit = SETUP[mode]
    if not network:
        return [
            "def judge():",
            f"    {context}",
            "    net = Net()",
            *([f"    {jit}"] if jit else []),
        ]
    cells = 'cells = [Net() for _ in range(n)]; net = STATE["Two"](cells) if n > 1 else cells[0]'
    return [
        "def judge():",
        f"    {context}",
        "    for n in (1, 2):  # one cell, then two as the layers of one network",
        f"        {cells}",
        *([f"        {jit}"] if jit else []),
    ]


def _reload_call(expected: str) -> int:
    """The call before which the reload form loads a checkpoint (``want``), 0 for no reload."""
    found = re.search(r"at call (\d+)", expected) if expected.startswith(RELOADED) else None
    return int(found.group(1)) if found else 0


def _reload_line(reload: int, one: str) -> str:
    """The judge's line that loads a checkpoint of another ``w`` before call ``reload``."""
    return (
        f"        if call == {reload}:  ms.load_param_into_net(net, "
        f'{{"w": ms.Parameter(10 * {one}, name="w")}})  # another w, as a loop resumes'
    )


def read_order(shape: str) -> tuple[str, str]:
    """The read and the order of a clip-like shape (``helper-view-before-arg`` -> ``view``,
    ``before``); NotReduced where the shape has neither."""
    parts = shape.removeprefix("row-").split("-")
    if len(parts) < 3 or parts[1] not in READS or parts[2] not in ORDERS:
        raise NotReduced(f"shape {shape!r}: no read and order of the state in it")
    return parts[1], parts[2]


def _form(w: Writer, where: str) -> tuple[str, str | None, str, str | None]:
    """(placement, read, order, new) of a program's ``where`` (``helper``,
    ``placement-read-order``, ``placement-read-order-new``); NotReduced where ``w`` cannot be
    written so."""
    where, *dims = where.split("-")
    read, order = dims[:2] if len(dims) in (2, 3) else (None, "after")
    new = dims[2] if len(dims) == 3 else None  # the faithful form: the clip's new, w's layout
    if where not in PLACEMENTS or (
        dims and (len(dims) not in (2, 3) or read not in READS or order not in ORDERS)
    ):
        raise NotReduced(f"placement {'-'.join([where, *dims])!r}: no read and order here")
    if new is not None and (new not in NEWS or w.layout not in LAYOUTS):
        raise NotReduced(f"new {new!r}, layout {w.layout!r}: not a form of this program")
    if where == "depend" and len(w.body) != 1:
        raise NotReduced("the write is several statements: it cannot sit inside ops.depend")
    return where, read, order, new


# The network form's module: the state's class and the network, as a library holds them. Where
# the cell's ``construct`` and the method giving the new value lie in one module, bytecode capture
# drops the write of ``ops.assign`` in one cell already; the suite's cells call into the state's
# module, and drop it in a network only (found by hand, 2026-12-07, for cause 41's witness; the
# KV cache's cells read their rows back through the module's method after the write: ``read``).
STATE_MODULE = [
    'exec("""class State(ms.nn.Cell):',
    "    def __init__(self): super().__init__(); self.limit = "
    'ms.Parameter(ms.Tensor(np.ones({shape}, np.float32)), name="limit")',
    "    {method}",
    "class Two(ms.nn.CellList):  # a network of two layers, each called on the same input",
    '    def construct(self, x): return self[0](x), self[1](x)""", '
    'STATE := {"__name__": "state", "np": np, "ms": ms})  # a module of its own, as a '
    "library's classes are",
]


def _init_line(w: Writer) -> list[str]:
    """The strategy's ``__init__`` lines on one line, for a cell whose state class is in another
    module (the network and module forms); none where it has none."""
    return [f"    def __init__(self): super().__init__(); {'; '.join(w.init)}"] if w.init else []


def network_program(w: Writer, mode: str, where: str, expected: str, title: str) -> str:
    """The network form's source (pure), for a write that works in one cell and is dropped (or
    wrong) in a network of two (``expected``: ``<kind> in a network of two layers``): the cell
    ``Net`` in ``__main__`` subclasses a state class of another module (``STATE_MODULE``) and
    writes the state placed ``where``: ``net-`` and a placement, or
    ``net-placement-read-order-new`` (the faithful form's), with the value of the module's
    ``next_limit``; ``netread-`` and a placement, with the value inline and the output the state
    read back through the module's ``read``. Its judge runs one cell three calls, then two as the
    layers of ``Two``, and names the first call a layer's state is not ``limit + call``."""
    if not expected.endswith(NETWORK):
        raise NotReduced(f"{expected}: not an outcome of the network form")
    prefix, _, where = where.partition("-")
    where, read, order, new = _form(w, where)
    if expected.startswith(RELOADED):
        if prefix != NET or read is not None:
            raise NotReduced(f"{expected}: the network form of an EMA, a placement only")
        return network_ema(w, mode, where, expected, title)
    if prefix == NET_READ and read is not None:
        raise NotReduced(f"{NET_READ}: a placement only, the state read back by the module")
    shape = LAYOUTS[w.layout] if new else "(1,)"
    back = "self.read()" if prefix == NET_READ else "self.limit * 1"
    method = (
        "def read(self): return self.limit * 1"
        if prefix == NET_READ
        else "def next_limit(self, x): return self.limit + x"
    )
    value = "self.limit + x" if prefix == NET_READ else "self.next_limit(x)"
    bind = [f"new = {value}"] if new in ("expr", "method") else []
    value = "new" if bind else value
    froms, plain = _imports(w, {"ops"})
    lines = [
        f"EXPECTED = {expected!r}  # exits 0 iff it shows this",
        *dict.fromkeys(["import numpy as np, mindspore as ms", *plain]),
        f"from mindspore import {', '.join(froms)}",
        *(x.replace("{shape}", shape).replace("{method}", method) for x in STATE_MODULE),
        f'class Net(STATE["State"]):  # {title}',
        *_init_line(w),
        *_members(w, where, read, order, new, bind, value, 0, own=False, back=back),
        *_judge(mode, network=True),
        f"        for call in range(1, {CALLS + 1}):",
        "            olds = [c.limit.asnumpy().copy() for c in cells]; "
        f"net(ms.Tensor(np.full({shape}, call, np.float32)))",
        "            bad = [(c.limit.asnumpy(), o) for c, o in zip(cells, olds) if not "
        "np.allclose(c.limit.asnumpy(), o + call)]  # the code means limit + call",
        "            if bad: return f\"{('wrong value', 'write dropped')"
        f"[bool(np.allclose(*bad[0]))]}}{{' {NETWORK}' * (n > 1)}} at call {{call}}\"",
        *_ending(expected),
    ]
    return "\n".join(lines) + "\n"


def network_ema(w: Writer, mode: str, where: str, expected: str, title: str) -> str:
    """The network form of an EMA (pure), for one that follows a weight's old values after a
    reload in a network of two layers only: the state class (a ``Dense`` layer ``net``, its
    weights and their EMAs as ParameterTuples, as the EMA workload's) in the module ``state``;
    the cell in ``__main__`` writes each EMA ``where`` (a helper or inline); before call 4 each
    cell loads a checkpoint of other weights into its ``net`` by the names it has there (a
    CellList renames them); the judge runs one cell, then two as the layers of one network."""
    if where == "depend":
        raise NotReduced("the network form of an EMA: a helper or an inline write")
    value = "e * 0.9 + w * 0.1"
    write = (
        [f"            self.write(e, {value})"]
        if where == "helper"
        else [f"            {x}" for x in written(w.body, value, "e")]
    )
    froms, plain = _imports(w, {"ops"})
    helper = written(w.body, "new", "param")
    ones = "ms.Tensor(np.ones({}, np.float32))"
    lines = [
        f"EXPECTED = {expected!r}  # exits 0 iff it shows this",
        *dict.fromkeys(["import numpy as np, mindspore as ms", *plain]),
        f"from mindspore import {', '.join(froms)}",
        'exec("""class State(ms.nn.Cell):  # a layer, its weights and their EMAs',
        "    def __init__(self):",
        "        super().__init__(); "
        f"self.net = ms.nn.Dense(1, 1, {ones.format('(1, 1)')}, {ones.format('(1,)')})",
        "        self.weights = ms.ParameterTuple(list(self.net.trainable_params()))",
        "        self.emas = ms.ParameterTuple([ms.Parameter(0 * w, name=f'ema{i}') "
        "for i, w in enumerate(self.weights)])",
        "class Two(ms.nn.CellList):  # a network of two layers, each called on the same input",
        '    def construct(self, x): return self[0](x), self[1](x)""", '
        'STATE := {"__name__": "state", "np": np, "ms": ms})  # a module of its own, as a '
        "library's classes are",
        f'class Net(STATE["State"]):  # {title}',
        *_init_line(w),
        *([f"    def write(self, param, new): {helper[0]}"] if where == "helper" else []),
        "    def construct(self, x):",
        "        for e, w in zip(self.emas, self.weights):",
        *write,
        "        return x",
        *_judge(mode, network=True),
        "        for call in range(1, 6):  # before call 4, other weights loaded by their names",
        "            if call == 4: [ms.load_param_into_net(c.net, {p.name: ms.Parameter(10 * p, "
        "name=p.name) for p in c.weights}) for c in cells]",
        "            olds = [(c.emas[0].asnumpy().copy(), c.weights[0].asnumpy().copy()) "
        "for c in cells]; net(ms.Tensor(np.zeros((1,), np.float32)))",
        "            bad = [(c.emas[0].asnumpy(), o, w) for c, (o, w) in zip(cells, olds) if not "
        "np.allclose(c.emas[0].asnumpy(), o * 0.9 + w * 0.1)]  # the EMA of w now",
        f"            if bad: return f\"{{'{RELOADED}' if np.allclose(bad[0][0], bad[0][1] * 0.9 "
        "+ bad[0][2] * 0.01) else ('wrong value', 'write dropped')[bool(np.allclose(*bad[0][:2]))]}"
        f"{{' {NETWORK}' * (n > 1)}} at call {{call}}\"",
        *_ending(expected),
    ]
    return "\n".join(lines) + "\n"


def _members(
    w: Writer,
    where: str,
    read,
    order: str,
    new,
    bind: list,
    value: str,
    reload: int,
    own=True,
    back="self.limit * 1",
    twice=False,
    both=False,
) -> list[str]:
    """The class's methods after ``__init__`` (``program``): the helper ``write`` where the
    write is placed in one, ``next_limit`` where the new value comes from it (unless ``own`` is
    False: the network form's state class has it), ``construct`` with the write placed
    ``where``, its read and order, and the output (``back``: the state as the output reads it,
    where the form has no read of its own); ``twice``: the write placed for ``self.other`` too,
    after ``limit``'s; ``both``: the clip of ``x`` and ``-x``, its output both bounds."""
    members: list[str] = []
    if where == "helper":  # as the suite's shapes call it: the Parameter passed as an argument
        body = written(w.body, "new", "param")
        members += (  # the faithful form: a one-statement method on one line
            [f"    def write(self, param, new): {body[0]}"]
            if new and len(body) == 1
            else ["    def write(self, param, new):", *(f"        {x}" for x in body)]
        )
    if own and new in ("method", "arg"):  # the clip's self.next_limit(x)
        members += ["    def next_limit(self, x): return self.limit + x"]
    members += ["    def construct(self, x):"]
    inline = written(w.body, value)
    if read is not None:  # the read, then the write after or before it, the output the read
        if reload:
            raise NotReduced("a reload and a read of the state: not in one program")
        anchor, bound = (
            ("out" if order == "after" else "lim"),
            ("lim" if READS[read] else "self.limit"),
        )
        write = {
            "inline": inline,
            "depend": [f"{anchor} = ops.depend({anchor}, {inline[0]})"],
            "helper": [f"self.write(self.limit, {value})"],
        }[where]
        write = [*bind, *write]
        body = [f"lim = {READS[read]}"] if READS[read] else []
        # the faithful form reads the limit as the clip does, through ops.clip_by_value (x * 1000
        # is beyond every limit the program reaches: the output is the limit); ScatterUpdate's
        # stale read shows only so
        clipped = "ops.stack([x, -x])" if both else "x"
        out = f"ops.clip_by_value({clipped} * 1000, -{bound}, {bound})" if new else f"{bound} * 1"
        read_first = [f"out = {out}", *write, "return out"]
        body += read_first if order == "after" else [*write, f"return {out}"]
        members += [f"        {x}" for x in body]
    elif where == "inline":
        members += [f"        {x}" for x in inline]
    elif where == "depend":
        members += [f"        x = ops.depend(x, {inline[0]})"]
    else:
        members += [f"        self.write(self.limit, {value})"]
    if twice and read is None:  # the same write of the other Parameter
        again = _members(w, where, None, order, None, [], value.replace("limit", "other"), 0)
        members += [
            x.replace("self.limit", "self.other")
            for x in again[again.index("    def construct(self, x):") + 1 : -1]
        ]
    members += (
        []
        if read is not None
        else [f"        return {back}" + (" + x * 0" if where == "depend" else "")]
    )
    return members


def program(
    w: Writer, mode: str, where: str, expected: str, title: str, view_sees: bool = True
) -> str:
    """The repro's source (pure). Where ``expected`` follows the old values after a reload at
    call N, the reload form: the state is an EMA of a weight ``w`` and a checkpoint of another
    ``w`` is loaded (``load_param_into_net``) before call N; else ``limit`` adds the call's
    number. ``where`` is a placement, or ``placement-read-order`` (``helper-view-before``): the
    state read into ``lim`` as the clip reads it (``READS``), the write after or before the
    read, and the output that read (what it means: the new limit where the read is taken before
    the write and is an alias, or a view that the write updates, ``view_sees``; else the old)."""
    if where.startswith((f"{NET}-", f"{NET_READ}-")):
        return network_program(w, mode, where, expected, title)
    both = where.startswith(f"{BOTH}-")  # the clip's two bounds in the output, not one
    where = where.removeprefix(f"{BOTH}-")
    base = where.startswith(f"{BASE}-")  # construct inherited from the module's state class
    where = f"{MOD}-{where.removeprefix(f'{BASE}-')}" if base else where
    module = where.startswith(f"{MOD}-")  # the state's class and next_limit in their own module
    twice = where.startswith(f"{TWO}-")  # the write placed for two Parameters
    where, read, order, new = _form(w, where.removeprefix(f"{MOD}-").removeprefix(f"{TWO}-"))
    shape = LAYOUTS[w.layout] if new else "(1,)"
    crash = expected == CRASHED
    reload = _reload_call(expected)
    if module and (reload or crash or new not in ("method", "arg")):
        raise NotReduced(f"{MOD}: the faithful form whose new value is the state's method only")
    if twice and (reload or read is not None):
        raise NotReduced(f"{TWO}: a placement only, without a reload")
    if both and not new:
        raise NotReduced(f"{BOTH}: the faithful form only (its output is the clip's)")
    value = "self.limit * 0.9 + self.w * 0.1" if reload else "self.limit + x"
    bind = []  # the faithful form binds the new value as the clip's ``new`` says
    if new in ("expr", "method"):
        bind, value = [f"new = {'self.next_limit(x)' if new == 'method' else value}"], "new"
    elif new == "arg":
        value = "self.next_limit(x)"
    joined = bool(new) or twice  # the longer forms: numpy and mindspore on one import line
    froms, plain = _imports(w, {"nn", "ops"}, joined)  # ops: the depend placement
    one, zero = f"ms.Tensor(np.ones({shape}, np.float32))", "ms.Tensor(np.zeros((1,), np.float32))"
    lines = [
        f"EXPECTED = {expected!r}  # exits 0 iff it shows this",
        *(["import os, subprocess, sys"] if crash else []),
        *(  # the faithful form's three more lines kept within 30: one import line
            dict.fromkeys(["import numpy as np, mindspore as ms", *plain])
            if joined
            else ["import numpy as np", *dict.fromkeys(["import mindspore as ms", *plain])]
        ),
        f"from mindspore import {', '.join(froms)}",
    ]
    members = _members(
        w, where, read, order, new, bind, value, reload, not module, twice=twice, both=both
    )
    if module:  # as the suite's state classes are: the cell in __main__ calls into their module
        at = members.index("    def construct(self, x):")
        inherited = members[at:] if base else []  # the module's names: the program's own
        members = members[:at] if base else members
        names = '"__name__": "state", "np": np, "ms": ms'
        names = '**globals(), "__name__": "state"' if base else names  # base: construct's names
        state = [
            "class State(ms.nn.Cell):",
            "    def __init__(self): super().__init__(); "
            f'self.limit = ms.Parameter({one}, name="limit")',
            "    def next_limit(self, x): return self.limit + x",
            *inherited,
        ]
        lines += [
            f'exec("""{state[0]}',
            *state[1:-1],
            f'{state[-1]}""", STATE := {{{names}}})  # a module of its own, as a '
            "library's classes are",
            f'class Net(STATE["State"]):  # {title}',
            *_init_line(w),
            *([] if members or w.init else ["    pass  # construct inherited"]),
        ]
    else:
        lines += [
            f"class Net(nn.Cell):  # {title}",
            "    def __init__(self):",
            "        super().__init__()",
            (
                f'        self.limit, self.w = ms.Parameter({zero}, name="limit"), '
                f'ms.Parameter({one}, name="w")  # limit: an EMA of the weight w'
                if reload
                else f'        self.limit = ms.Parameter({one}, name="limit")'
            ),
            *([f'        self.other = ms.Parameter({one}, name="other")'] if twice else []),
            *(f"        {x}" for x in w.init),
        ]
    lines += members
    lines += [
        *_judge(mode),
    ]
    judged = (
        "        for got, kind in ((net.limit.asnumpy(), ('wrong value', 'write dropped')),"
        " (out, ('wrong output', 'stale read'))):"
    )
    call = f"        out = net(ms.Tensor(np.full({shape}, call, np.float32))).asnumpy()"
    said = "{kind[bool(np.allclose(got, old))]} at call {call}"
    stale = "{kind[bool(np.allclose(got, old) or np.allclose(got, 1))]} at call {call}"
    if reload:
        lines += [
            f"    for call in range(1, {max(CALLS, reload) + 1}):",
            _reload_line(reload, one),
            "        old, w, out = net.limit.asnumpy().copy(), net.w.asnumpy().copy(), "
            "net(ms.Tensor(np.full((1,), call, np.float32))).asnumpy()  # in this order",
            judged,
            "            if not np.allclose(got, old * 0.9 + w * 0.1):  # the EMA of w now, else:",
            f"                return f\"{{'{RELOADED}' if np.allclose(got, old * 0.9 + 0.1)"
            " else kind[bool(np.allclose(got, old))]} at call {call}\"  # the old w's (1)?",
        ]
    elif read is not None:
        after = order == "before" and (read == "alias" or (read == "view" and view_sees))
        lines += [
            f"    for call in range(1, {CALLS + 1}):",
            "        old, out = net.limit.asnumpy().copy(), "
            f"net(ms.Tensor(np.full({shape}, call, np.float32))).asnumpy()"
            + (" * [1, -1]  # in this order; the upper bound, minus the lower" if both else "")
            + ("" if both else "  # in this order"),
            "        for got, want, kind in ((net.limit.asnumpy(), old + call, ('wrong value',"
            " 'write dropped')), (out, "
            + ("old + call" if after else "old")
            + ", ('wrong output', 'stale read'))):",
            "            if not np.allclose(got, want):  # limit + call, and the output "
            + ("the new limit" if after else "the limit before the write"),
            # where the output means the limit before the write, an earlier one is stale too:
            # the first (1), as a capture that froze the read at call 1 gives it
            f"                return f'{said if after else stale}'",
        ]
    else:
        lines += [
            f"    for call in range(1, {CALLS + 1}):",
            "        old = net.limit.asnumpy().copy()",
            call,
            judged,
            "            if not np.allclose(got, old + call):  # the code means limit + call",
            f"                return f'{said}'",
        ]
    if crash:
        lines += [
            "# a crash kills the process: the program runs itself in a child and sees it die",
            'child = subprocess.run([sys.executable, __file__], env={**os.environ, "CHILD": "1"})'
            ' if "CHILD" not in os.environ else None',
            f'got = (judge() or "works") if child is None else ({CRASHED!r} if child.returncode < 0'
            ' else f"exit {child.returncode}")',
        ]
    else:
        lines += ERROR_IS_OUTCOME
    lines += [
        'print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)',
        "raise SystemExit(0 if got.startswith(EXPECTED) else 1)",
    ]
    return "\n".join(lines) + "\n"


def source_of(source: str, mode: str, where: str, expected: str, title: str) -> str:
    """The program for a strategy file's ``source`` placed ``where`` (a view read before its
    write sees it when the file's ``API`` writes in place: ``bench.measured.apis.writes``)."""
    if where == AS_WRITTEN:
        return as_written(source, mode, expected, title)
    if where.startswith(f"{ROW}-") or expected == HANG:
        return row_program(source, mode, where, expected, title)
    from bench.measured.apis import REPLACE, writes

    api = re.search(r'^API = "([^"]+)"', source, flags=re.M)
    sees = not (api and writes(api.group(1)) == REPLACE)
    return program(writer(source), mode, where, expected, title, view_sees=sees)


def row_program(source: str, mode: str, where: str, expected: str, title: str) -> str:
    """The row form's source (pure), for a hang of the KV cache's row write: a cache Parameter
    of four 1-element rows on axis 2, the strategy's ``write_row(param, index, row)`` placed
    ``where`` (``row-inline``, ``row-helper``) with a Tensor index, three calls; the program
    runs itself in a child and prints ``timeout`` when the child does not end in ``HANG_S``."""
    place = where.removeprefix(f"{ROW}-")
    if expected != HANG or place not in ("inline", "helper"):
        raise NotReduced(f"{where}, {expected}: the row form shows a hang of a row write only")
    tree = ast.parse(source)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Cell"), None)
    method = next((f for f in (cls.body if cls else []) if getattr(f, "name", "") == "write_row"),
                  None)  # fmt: skip
    if method is None:
        raise NotReduced("the strategy has no write_row(param, index, row)")
    body = [ast.unparse(x) for x in method.body
            if not (isinstance(x, ast.Expr) and isinstance(x.value, ast.Constant))]  # fmt: skip
    w = writer(source)
    froms, plain = _imports(w, {"nn"})
    names = {"param": "self.cache", "index": "t", "row": "row"}
    inline = [ast.unparse(_Rename(names).visit(ast.parse(line))) for line in body]
    lines = [
        f"EXPECTED = {expected!r}  # exits 0 iff it shows this",
        "import os, subprocess, sys",
        *dict.fromkeys(["import numpy as np, mindspore as ms", *plain]),
        f"from mindspore import {', '.join(froms)}",
        f"class Net(nn.Cell):  # {title}",
        "    def __init__(self):  # the KV cache: four rows on axis 2",
        "        super().__init__()",
        "        self.cache = ms.Parameter(ms.Tensor(np.zeros((1, 1, 4, 1), np.float32)), "
        'name="cache")',
        *(f"        {x}" for x in w.init),
    ]
    if place == "helper":
        lines += ["    def write_row(self, param, index, row):", *(f"        {x}" for x in body)]
    lines += [
        "    def construct(self, row, t):",
        *(
            ["        self.write_row(self.cache, t, row)"]
            if place == "helper"
            else [f"        {x}" for x in inline]
        ),
        "        return self.cache * 1",
        *_judge(mode),
        f"    for call in range(1, {CALLS + 1}):  # the row at call - 1",
        "        net(ms.Tensor(np.full((1, 1, 1, 1), call, np.float32)), "
        "ms.Tensor(np.asarray([call - 1], np.int32)))",
        f"# a hang never ends: the program runs itself in a child and gives it {HANG_S} s",
        'if "CHILD" in os.environ: raise SystemExit(judge())',
        "try:",
        '    child = subprocess.run([sys.executable, __file__], env={**os.environ, "CHILD": "1"}, '
        f"timeout={HANG_S})",
        '    got = "works" if child.returncode == 0 else f"exit {child.returncode}"',
        "except subprocess.TimeoutExpired:",
        f"    got = {HANG!r}",
        'print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)',
        "raise SystemExit(0 if got.startswith(EXPECTED) else 1)",
    ]
    return "\n".join(lines) + "\n"


def as_written(source: str, mode: str, expected: str, title: str) -> str:
    """The repro of a strategy that writes the EMA's own ``construct`` (its methods pasted whole,
    ``after_step`` called after each call as the harness does): one weight Parameter in
    ``self.weights`` and its EMA in ``self.emas``, the EMA workload's names; each call checks the
    EMA against ``DECAY * ema + (1 - DECAY) * w`` (pure). Names the file imports from the suite
    (``DECAY``) become constants; a strategy that is not an EMA's is NotReduced."""
    import importlib

    from bench.measured.workloads.ema.spec import DECAY

    tree = ast.parse(source)
    cls = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Cell"), None)
    methods = [
        f
        for f in (cls.body if cls else [])
        if isinstance(f, ast.FunctionDef) and f.name not in ("__init__", "write")
    ]
    text = "\n".join(ast.unparse(f) for f in methods)
    if "self.limit" in text and "self.emas" not in text:  # the clip's own construct
        return _clip_as_written(tree, text, mode, expected, title, any(
            f.name == "after_step" for f in methods))  # fmt: skip
    if "self.emas" not in text or "self.weights" not in text:
        raise NotReduced("shape 'as-written' outside the EMA and the clip: not one write")
    consts, imports = [], []
    for n in tree.body:
        if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("bench."):
            try:
                module = importlib.import_module(n.module)
            except ImportError as err:
                raise NotReduced(f"its import of {n.module} fails: {err}") from err
            for a in n.names:
                value = getattr(module, a.name, None)
                if isinstance(value, (int, float, str)):
                    consts.append(
                        f"{a.asname or a.name} = {value!r}  # from the suite's {n.module}"
                    )
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            line = ast.unparse(n)
            if line not in ("import numpy as np", "import mindspore as ms"):  # in the first
                imports.append(line)
    reload = _reload_call(expected)
    after = any(f.name == "after_step" for f in methods)
    one, d, rest = "ms.Tensor(np.ones((1,), np.float32))", f"{DECAY:g}", f"{1 - DECAY:.6g}"
    lines = [
        f"EXPECTED = {expected!r}  # exits 0 iff it shows this",
        *dict.fromkeys(["import numpy as np, mindspore as ms", *imports]),
        *consts,
        f"class Net(ms.nn.Cell):  # {title}",
        "    def __init__(self):  # a weight w and its EMA, by the EMA workload's names",
        "        super().__init__()",
        f'        self.weights, self.emas = ms.ParameterTuple([ms.Parameter({one}, name="w")]), '
        f'ms.ParameterTuple([ms.Parameter(0 * {one}, name="ema")])',
        f"        self.decay, self.rest = ms.Tensor({d}, ms.float32), "
        f"ms.Tensor({rest}, ms.float32)",
        *("    " + line for line in text.splitlines()),
        *_judge(mode),
        f"    for call in range(1, {max(CALLS, reload) + 1}):",
        *([_reload_line(reload, one)] if reload else []),
        "        old, w = net.emas[0].asnumpy().copy(), net.weights[0].asnumpy().copy()",
        "        out = net(x := ms.Tensor(np.full((1,), call, np.float32)))"
        + ("; net.after_step(out, x)  # as the harness calls it" if after else ""),
        f"        if not np.allclose(got := net.emas[0].asnumpy(), old * {d} + w * {rest}):"
        "  # the EMA of w now",
        (
            f"            return f\"{{'{RELOADED}' if np.allclose(got, old * {d} + {rest})"
            " else ('wrong value', 'write dropped')[bool(np.allclose(got, old))]} at call {call}\""
        ),
        *_ending(expected),
    ]
    return "\n".join(lines) + "\n"


def _clip_as_written(tree, text: str, mode: str, expected: str, title: str, after: bool) -> str:
    """The repro of a strategy that writes the clip's own ``construct`` (and ``after_step``),
    pasted whole over the clip's names: ``limit`` and a ``next_limit`` that adds 1 whatever
    ``x`` holds (the clip's adds a step of ``x``'s size, not of its values); each call checks
    ``limit`` against ``limit + 1``."""
    if _reload_call(expected) or expected in (CRASHED, HANG):
        raise NotReduced(f"{expected}: not an outcome of the clip's own construct here")
    standard = ("import numpy as np", "import mindspore as ms")  # on the program's one line
    imports = [i for i in _ms_imports(tree) if i not in standard]
    lines = [
        f"EXPECTED = {expected!r}  # exits 0 iff it shows this",
        *dict.fromkeys(["import numpy as np, mindspore as ms", *imports]),
        f"class Net(ms.nn.Cell):  # {title}",
        "    def __init__(self):  # the clip's state, by the clip's names",
        "        super().__init__()",
        '        self.limit = ms.Parameter(ms.Tensor(np.ones((), np.float32)), name="limit")',
        "    def next_limit(self, x): return self.limit + 1  # as the clip's: not of x's values",
        *("    " + line for line in text.splitlines()),
        *_judge(mode),
        f"    for call in range(1, {CALLS + 1}):",
        "        old = net.limit.asnumpy().copy()",
        "        out = net(x := ms.Tensor(np.full((), call, np.float32)))"
        + ("; net.after_step(out, x)  # as the harness calls it" if after else ""),
        "        if not np.allclose(got := net.limit.asnumpy(), old + 1):"
        "  # the code means limit + 1",
        "            return f\"{('wrong value', 'write dropped')"
        '[bool(np.allclose(got, old))]} at call {call}"',
        *_ending(expected),
    ]
    return "\n".join(lines) + "\n"


@dataclass
class Run:
    """One run of a repro alone in a fresh process."""

    code: int | None  # its exit code; None: it did not end within the timeout
    said: str  # its last line
    seconds: float


def run(script: Path, python: str = sys.executable, timeout: float = TIMEOUT_S) -> Run:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": ""}
    start = time.monotonic()
    try:
        done = subprocess.run(  # noqa: PLW1510 (its exit code is the result)
            [python, str(script)], capture_output=True, text=True, timeout=timeout, env=env,
            cwd=script.parent,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return Run(None, f"no end within {timeout:.0f} s", time.monotonic() - start)
    except OSError as err:  # the interpreter cannot start
        return Run(None, f"cannot run {python}: {err.strerror or err}", 0.0)
    lines = [ln for ln in done.stdout.splitlines() if ln.strip()]
    said = lines[-1] if lines else done.stderr.strip()[-200:]
    return Run(done.returncode, clean(said), time.monotonic() - start)


def clean(said: str, limit: int = 300) -> str:
    """What a program printed, as recorded: no folder of this machine (MindSpore's messages
    name the script's path), at most ``limit`` characters."""
    said = re.sub(r"(?<![\w.:/])/(?:[^\s/:'\"]+/)+", "", said)
    return said if len(said) <= limit else said[: limit - 1] + "…"


@dataclass
class Reduced:
    """A cause's repro: its program (or why it keeps its entry's script) and its runs."""

    rank: int
    slug: str
    title: str
    script: str = ""  # results/causes/NN-slug.py, "" when not reduced
    lines: int = 0
    tried: list = field(default_factory=list)  # "strategy@placement-mode: what it printed"
    why_not: str = ""  # why it keeps its entry's own script
    entry_repro: str = ""  # the witness entry's script
    releases: dict = field(default_factory=dict)  # MindSpore version -> {code, said, seconds}
    # the bucket's evidence: the same program for every API and mode the cause names
    # (``confirm``): [{strategy, mode, code, printed}], code 0 where it shows the same outcome
    bucket: list = field(default_factory=list)


def _witness_first(cause: dict) -> list[dict]:
    """The cause's entries, its witness first."""
    return sorted(cause["entries"], key=lambda e: e["anchor"] != cause["witness"])


def candidates(cause: dict) -> list[tuple[str, str, str]]:
    """(strategy, placement, mode) to try, the witness's example first, then each entry's."""
    out, why = [], []
    for e in _witness_first(cause):
        ex = e["example"]
        try:
            key = (ex["strategy"], placement(ex["shape"]), ex["mode"])
        except NotReduced as err:
            why.append(str(err))
            continue
        if key not in out:
            out.append(key)
    if not out:
        raise NotReduced(why[0] if why else "no entry has an example")
    return out


def _rel(path: Path) -> str:
    return path.relative_to(paths.ROOT).as_posix() if path.is_relative_to(paths.ROOT) else str(path)


def same(text: str) -> str:
    """A program as compared with an earlier one: the cause's title (the class line's comment,
    which names modes and counts that change between runs) left out."""
    return re.sub(r"^(class Net\([^)]*\):)  # .*$", r"\1", text, flags=re.M)


def _read_shapes(cause: dict):
    """(the example, its ``placement-read-order``) of each entry whose shape reads the state as
    the clip does, the witness's first."""
    for e in _witness_first(cause):
        ex = e["example"]
        try:
            yield ex, "-".join([placement(ex["shape"]), *read_order(ex["shape"])])
        except NotReduced:
            continue


def shaped(cause: dict) -> list[tuple[str, str, str]]:
    """(strategy, ``placement-read-order``, mode) of each entry whose shape reads the state as
    the clip does, the witness's first: the program with the entry's own read (a stale read of a
    view taken before the write needs that view)."""
    return list(
        dict.fromkeys((ex["strategy"], where, ex["mode"]) for ex, where in _read_shapes(cause))
    )


def faithful(cause: dict) -> list[tuple[str, str, str]]:
    """(strategy, ``placement-read-order-new``, mode) of each entry whose shape binds the new
    value as the clip does (``helper-view-before-arg`` -> ``new = arg``), the witness's first:
    the program with the entry's own read, order, new value (``NEWS``) and the strategy's own
    layout (a 0-d Parameter where the strategy's is; ``Tensor.masked_fill_`` takes only a 0-d
    value), where the plainer forms do not show the cause."""
    out = []
    for ex, where in _read_shapes(cause):
        parts = ex["shape"].removeprefix("row-").split("-")
        if len(parts) >= 4 and parts[3] in NEWS:
            out.append((ex["strategy"], f"{where}-{parts[3]}", ex["mode"]))
    return list(dict.fromkeys(out))


def moduled(cause: dict) -> list[tuple[str, str, str]]:
    """(strategy, ``mod-...``, mode) of the faithful forms under bytecode capture whose new value
    comes from the state's ``next_limit``: the same program with the state's class in a module
    of its own, as the suite's cells have it (capture treats a call into another module
    otherwise: the network forms found it)."""
    return [
        (s, f"{MOD}-{w}", m)
        for s, w, m in faithful(cause)
        if m == JIT_BYTECODE and w.endswith(("-method", "-arg"))
    ]


def networked(cause: dict) -> list[tuple[str, str, str]]:
    """(strategy, ``net-...``, mode) of each entry's example, the witness's first: the network
    form (``network_program``) with the entry's own read, order and new value where its shape
    has them (``net-helper-view-before-arg``), else with its placement (``net-inline``)."""
    out = []
    for e in _witness_first(cause):
        ex = e["example"]
        try:
            where = placement(ex["shape"])
        except NotReduced:
            continue
        if where == AS_WRITTEN:  # its own construct: not one write to place
            continue
        parts = ex["shape"].removeprefix("row-").split("-")
        if len(parts) >= 4 and parts[1] in READS and parts[2] in ORDERS and parts[3] in NEWS:
            out.append((ex["strategy"], "-".join([NET, where, *parts[1:4]]), ex["mode"]))
        out.append((ex["strategy"], f"{NET}-{where}", ex["mode"]))
        out.append((ex["strategy"], f"{NET_READ}-{where}", ex["mode"]))
    return list(dict.fromkeys(out))


def rule_tries(cause: dict, rule, tries: list) -> tuple[list, dict]:
    """(the programs to try, {each one's placement: its pair's}) for a cause whose trigger is a
    construct (``dim``, ``bad``, ``good``): the write's placement, or the clip's read or order
    (``placement-read-order`` from each entry's shape, the rule's dimension set to ``bad`` and,
    for its pair, to ``good``); NotReduced for any other."""
    dim, bad, good = rule
    if (dim, bad, good) == ("construct", BASE, "own"):  # inherited from the module's class
        found = [(s, w.removeprefix(f"{MOD}-"), m) for s, w, m in moduled(cause)]
        if not found:
            raise NotReduced("construct=base: no entry's shape has the module form under bytecode")
        return [(s, f"{BASE}-{w}", m) for s, w, m in found], {
            f"{BASE}-{w}": f"{MOD}-{w}" for _, w, _ in found
        }
    if dim == "write" and bad in PLACEMENTS and good in PLACEMENTS:
        if cause["calls"] == NETWORK_ONLY:  # the network forms, each placed both ways
            nets = [(f"{p}-{bad}", f"{p}-{good}") for p in (NET, NET_READ)]
            found = [(s, b, m) for b, _ in nets for s, _, m in tries]
            return list(dict.fromkeys(found)), dict(nets)
        # then the placement's write of two Parameters (a helper of BRN's five writes dropped
        # them all in GRAPH_MODE where one helper write worked; found by hand, 2026-12-07)
        found = [(s, p, m) for p in (bad, f"{TWO}-{bad}") for s, _, m in tries]
        return list(dict.fromkeys(found)), {bad: good, f"{TWO}-{bad}": f"{TWO}-{good}"}
    if dim not in ("read", "order"):
        raise NotReduced(f"needs `{dim}={bad}` against `{dim}={good}`: not in this program")
    found = shaped(cause)
    if not found:
        raise NotReduced("no read and order of the state in any entry's shape")
    out, pairs = [], {}
    for strategy, where, mode in [*found, *faithful(cause)]:  # then with the entries' new value
        place, *rest = where.split("-")
        dims = dict(zip(("read", "order", "new"), rest))
        bad_where = "-".join([place, *{**dims, dim: bad}.values()])
        pairs[bad_where] = "-".join([place, *{**dims, dim: good}.values()])
        out.append((strategy, bad_where, mode))
    return list(dict.fromkeys(out)), pairs


def reduce_cause(
    cause: dict, out_dir: Path, python: str, strategies: Path, earlier: dict | None = None
) -> Reduced:
    """Write and check the cause's program in ``out_dir`` (the first that reproduces).
    ``earlier``: {``same(program)``: its record} of an earlier reduction: a program written
    and run before (by any cause) is reused with its runs per release, not run again."""
    name = f"{cause['rank']:02d}-{cause['slug']}"[:60].rstrip("-") + ".py"
    witness = _witness(cause)
    r = Reduced(cause["rank"], cause["slug"], cause["title"], entry_repro=witness["repro"])
    try:
        expected = want(cause["outcome"], cause["calls"], witness["outcome"])
        tries, good = candidates(cause), {}  # good: {where: where its construct is not}
        rule = (cause.get("trigger") or {}).get("construct")
        if rule:  # a construct is the trigger: the program must have it, and work without it
            tries, good = rule_tries(cause, rule, tries)
        elif cause["calls"] == NETWORK_ONLY:  # one cell works, two as a network's layers not
            tries = networked(cause)
        else:  # then the entries' own reads of the state, then their new values and layouts,
            # where the plainer program does not show it
            tries = [*tries[:3], *[t for t in shaped(cause) if t not in tries][:3]]
            tries += [t for t in faithful(cause) if t not in tries][:2]
            tries += moduled(cause)[:2]
            # last, the witness's placement writing two Parameters, as the EMA's helper writes
            # each of its weights' EMAs (one helper write works where two are dropped); then
            # the clip's two bounds read (bytecode read -lim before a write and lim after it)
            tries += [(s, f"{TWO}-{w}", m) for s, w, m in candidates(cause)[:1] if w != AS_WRITTEN]
            tries += [(s, f"{BOTH}-{w}", m) for s, w, m in [*faithful(cause), *moduled(cause)]][:2]
    except NotReduced as err:
        r.why_not = str(err)
        return r
    for strategy, where, mode in tries[:TRIES]:
        label = _label(strategy, where, mode)
        try:
            source = (strategies / f"{strategy}.py").read_text(encoding="utf-8")
            text = source_of(source, mode, where, expected, cause["title"])
        except (NotReduced, OSError) as err:
            r.tried.append(f"{label}: {err}")
            continue
        path = out_dir / name
        before = (earlier or {}).get(same(text))
        # run before, and with this cause's pair where it needs one (another rule's pair of the
        # same program is not this one's)
        mine = f"{_label(strategy, good[where], mode)} (works with it): " if good else ""
        paired = before and (not good or any(t.startswith(mine) for t in before.tried))
        if paired:
            write_text_atomic(path, text)
            kept = Reduced(**{**asdict(before), "rank": r.rank, "slug": r.slug, "title": r.title})
            if before.slug != r.slug:  # another cause's APIs and modes: checked again (main)
                kept.bucket = []
            kept.script, kept.entry_repro, kept.lines = (
                _rel(path),
                r.entry_repro,
                len(text.splitlines()),
            )
            return kept
        write_text_atomic(path, text)
        got = run(path, python)
        r.tried.append(f"{label}: {got.said}")
        if got.code == 0 and good:  # the minimal pair: the working placement must not show it
            other = out_dir / f"pair-{name}"
            write_text_atomic(other, source_of(source, mode, good[where], expected, cause["title"]))
            pair = run(other, python)
            other.unlink()
            r.tried.append(f"{_label(strategy, good[where], mode)} (works with it): {pair.said}")
            if pair.code != 1:  # it shows the same without the construct: not the trigger
                path.unlink()
                continue
        if got.code == 0:
            r.script = _rel(path)
            r.lines = len(text.splitlines())
            return r
        path.unlink()
    r.why_not = "no program of this form shows it: " + "; ".join(r.tried)
    return r


def confirm(cause: dict, r: Reduced, python: str, strategies: Path, out_dir: Path) -> list[dict]:
    """Is the cause one bucket? Its program, with the witness's placement, written again for
    every strategy and mode an entry of the cause shows it in (the same program up to the write
    and the mode's setup lines) and run alone: code 0 where it shows the cause's outcome at the
    same call. A program already run (the witness's) is not run again."""
    expected = want(cause["outcome"], cause["calls"], _witness(cause)["outcome"])
    where = placement_of(next(t for t in r.tried if ": REPRODUCED" in t))
    shown = {t.split(": ", 1)[0]: t.split(": ", 1)[1] for t in r.tried}
    claimed = claims(cause)
    out = []
    for strategy, mode in claimed:
        label = _label(strategy, where, mode)
        if shown.get(label, "").startswith("REPRODUCED"):
            out.append({"strategy": strategy, "mode": mode, "code": 0,
                        "printed": shown[label]})  # fmt: skip
            continue
        try:
            source = (strategies / f"{strategy}.py").read_text(encoding="utf-8")
            text = source_of(source, mode, where, expected, cause["title"])
        except (NotReduced, OSError) as err:
            out.append({"strategy": strategy, "mode": mode, "code": None,
                        "printed": f"not written: {err}"})  # fmt: skip
            continue
        path = out_dir / f"bucket-{cause['rank']:02d}.py"
        write_text_atomic(path, text)
        got = run(path, python)
        path.unlink()
        out.append({"strategy": strategy, "mode": mode, "code": got.code,
                    "printed": got.said})  # fmt: skip
    return out


def claims(cause: dict) -> dict:
    """The (strategy, mode) pairs some entry of the cause shows, in order (an older causes.json
    has no ``pairs``: every strategy of an entry in every mode of it)."""
    return dict.fromkeys(
        tuple(p)
        for e in cause["entries"]
        for p in (e.get("pairs") or [(s, m) for s in e["strategies"] for m in e["modes"]])
    )


def _witness(cause: dict) -> dict:
    return next(e for e in cause["entries"] if e["anchor"] == cause["witness"])


def _label(strategy: str, where: str, mode: str) -> str:
    """How ``tried`` names a program (``confirm`` reads the placement back: ``placement_of``)."""
    return f"{strategy}@{where}-{mode}"


def placement_of(tried: str) -> str:
    """The placement in a ``tried`` line (``add_@as-written-jit_ast: ...`` -> ``as-written``): a
    mode's name has no dash, a placement may."""
    return tried.split(": ", 1)[0].split("@", 1)[1].rsplit("-", 1)[0]


def to_json(reduced: list[Reduced], causes_file: dict, splits=(), merges=()) -> str:
    data = {
        "schema_version": SCHEMA_VERSION,
        "causes_of": causes_file.get("runs", {}),
        "reduced": [asdict(r) for r in reduced],
        "splits": [s.to_dict() for s in sorted(splits, key=lambda s: s.to_dict()["missed"])],
        "merges": sorted((m.to_dict() for m in merges), key=json.dumps),
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def from_json(text: str) -> list[Reduced]:
    """The records, upgraded: schema 1 had no ``bucket`` (read as not checked)."""
    data = json.loads(text)
    if data.get("schema_version") not in (1, 2, 3, SCHEMA_VERSION):
        raise ValueError(f"reduced schema_version {data.get('schema_version')!r}")
    return [Reduced(**{"bucket": [], **r}) for r in data["reduced"]]


def _key(cause: dict) -> tuple:
    """What groups a cause of causes.json (``causes.Split.key``)."""
    from bench.causes.causes import _key_of

    return _key_of(cause)


def split_of(cause: dict, bucket: list[dict]):
    """The ``causes.Split`` a bucket check shows (``confirm``): the strategy × mode pairs whose
    program ran and did not show the outcome; None when it showed it for all, or for a cause
    that is already a split's narrow part."""
    from bench.causes.causes import Split

    missed = frozenset((b["strategy"], b["mode"]) for b in bucket if b.get("code") not in (0, None))
    if not missed or cause.get("narrow"):
        return None
    return Split(*_key(cause), missed)


def splits_kept(old, found, causes: list[dict]) -> list:
    """The splits to record: the earlier ones (``old``) whose cause is still among ``causes``,
    or was split into some of them (their ``split_from``), merged with those this run found
    (``found``), one per key (their ``missed`` joined)."""
    from bench.causes.causes import Split

    keys = {_key(c) for c in causes} | {_key(o) for c in causes for o in c.get("split_from", ())}
    out: dict[tuple, Split] = {}
    for s in [*old, *found]:
        if s.key not in keys:
            continue
        before = out.get(s.key)
        out[s.key] = s if before is None else Split(*s.key, before.missed | s.missed)
    return list(out.values())


def merges_of(reduced: list[Reduced], causes: list[dict], root: Path = paths.ROOT) -> list:
    """The ``causes.Merge`` of the causes whose short programs are one program up to their
    titles (``same``): one behaviour, bucketed twice because the findings met it through two
    triggers (``write=helper`` against ``depend`` and against ``inline``)."""
    from bench.causes.causes import Merge

    keys = _key_by(causes)
    by: dict[str, set] = {}
    for r in reduced:
        path = root / r.script if r.script else None
        if path is not None and path.is_file() and r.slug in keys:
            by.setdefault(same(path.read_text(encoding="utf-8")), set()).add(keys[r.slug])
    return [Merge(frozenset(k)) for k in by.values() if len(k) > 1]


def merges_kept(old, found, causes: list[dict]) -> list:
    """The merges to record: the earlier ones (``old``) whose causes are all still named (each
    cause of ``causes``, or one merged into it: its ``merged``), with those this run found
    (``found``); merges that share a cause are one."""
    from bench.causes.causes import Merge

    named = {_key(c) for c in causes} | {_key(m) for c in causes for m in c.get("merged", ())}
    groups: list[set] = []
    for m in [*old, *found]:
        if not m.keys <= named:
            continue
        joined = set(m.keys)
        for g in [g for g in groups if g & joined]:
            joined |= g
            groups.remove(g)
        groups.append(joined)
    return [Merge(frozenset(g)) for g in groups]


def _key_by(causes: list[dict]) -> dict:
    return {c["slug"]: _key(c) for c in causes}


def _merges_in(record: Path) -> list:
    from bench.causes.causes import Merge

    if not record.is_file():
        return []
    data = json.loads(record.read_text(encoding="utf-8"))
    return [Merge.from_dict(d) for d in data.get("merges", [])]


def _splits_in(record: Path) -> list:
    from bench.causes.causes import Split

    if not record.is_file():
        return []
    data = json.loads(record.read_text(encoding="utf-8"))
    return [Split.from_dict(d) for d in data.get("splits", [])]


def on_release(got: Run) -> dict:
    """A repro's run on one release, as recorded: reproduces, or "not on this release" (it ran
    and showed something else), or did not end."""
    if got.code == 0:
        said = "reproduces"
    elif got.code is None:
        said = "did not end"
    else:
        said = "not on this release"
    return {"code": got.code, "result": said, "printed": got.said}


def _interpreters(specs: list[str]) -> dict[str, str]:
    """{version: interpreter} of ``--python VERSION=PATH``: each path absolute, as given (a
    program runs from its own folder; a venv's python is a link that must not be resolved)."""
    out = {}
    for spec in specs:
        version, _, path = spec.partition("=")
        if not version or not path or not Path(path).is_file():
            raise ValueError(f"--python {spec!r}: give VERSION=PATH of a Python interpreter")
        out[version] = os.path.abspath(path)
    return out


def main(argv=None) -> int:
    import argparse

    p = argparse.ArgumentParser(
        prog="python -m bench.causes.reduce", description=__doc__.splitlines()[0]
    )
    p.add_argument("--causes", type=Path, default=paths.RESULTS_DIR / "causes.json")
    p.add_argument("--out", type=Path, default=paths.RESULTS_DIR / "causes")
    p.add_argument("--only", type=int, nargs="*", help="the ranks to reduce (default: all)")
    p.add_argument(
        "--python",
        action="append",
        default=[],
        metavar="VERSION=PATH",
        help="also run each repro alone with this interpreter (a MindSpore release)",
    )
    p.add_argument(
        "--fresh",
        action="store_true",
        help="write and run every program again (default: reuse a cause's same program)",
    )
    p.add_argument(
        "--releases-only",
        action="store_true",
        help="run the repros already written (OUT/reduced.json) on each --python",
    )
    args = p.parse_args(argv)  # fmt: skip
    try:
        others = _interpreters(args.python)
        data = json.loads(args.causes.read_text(encoding="utf-8"))
        known = (
            from_json((args.out / "reduced.json").read_text(encoding="utf-8"))
            if args.releases_only
            else []
        )
    except (OSError, ValueError) as err:
        print(f"reduce: error: {err}", file=sys.stderr)
        return 2
    import mindspore

    args.out.mkdir(parents=True, exist_ok=True)
    done: list[Reduced] = list(known)
    record = args.out / "reduced.json"
    old_splits = _splits_in(record)
    old_merges = _merges_in(record)
    found: list = []  # the splits this run's bucket checks show
    try:
        if args.releases_only:
            for r in done:
                for version, python in others.items():
                    if r.script:
                        r.releases[version] = on_release(run(paths.ROOT / r.script, python))
                print(f"{r.rank:2d}: {r.releases}", flush=True)
                write_text_atomic(record, to_json(done, data, old_splits))
            return 0
        before = {} if not record.is_file() else {
            r.slug: r for r in from_json(record.read_text(encoding="utf-8"))
        }  # fmt: skip
        earlier = {} if args.fresh else {
            same((paths.ROOT / r.script).read_text(encoding="utf-8")): r
            for r in before.values() if r.script and (paths.ROOT / r.script).is_file()
        }  # fmt: skip
        for cause in data["causes"]:
            old = before.get(cause["slug"])
            if args.only and cause["rank"] not in args.only:
                if old:  # not asked for: kept as it was, under its rank now
                    done.append(Reduced(**{**asdict(old), "rank": cause["rank"]}))
                continue
            r = reduce_cause(cause, args.out, sys.executable, paths.ROOT / "strategies", earlier)
            if r.releases and set(others) <= set(r.releases):
                pass  # the same program as before, already run on these releases
            elif r.script:
                shown = next(t for t in r.tried if ": REPRODUCED" in t)
                r.releases[mindspore.__version__] = on_release(Run(0, shown.split(": ", 1)[1], 0))
                for version, python in others.items():
                    r.releases[version] = on_release(run(paths.ROOT / r.script, python))
            checked = {(b["strategy"], b["mode"]) for b in r.bucket}
            if r.script and (args.fresh or checked != set(claims(cause))):  # none, or stale
                r.bucket = confirm(cause, r, sys.executable, paths.ROOT / "strategies", args.out)
            split = split_of(cause, r.bucket)
            if split is not None:  # two causes: the report splits it on its next render
                found.append(split)
                print(f"{r.rank:2d} is two causes: its program misses {sorted(split.missed)}")
            state = f"-> {r.script}" if r.script else f"kept its entry's script ({r.why_not[:100]})"
            print(f"{r.rank:2d} {r.title[:80]} {state}", flush=True)
            done.append(r)
            kept_splits = splits_kept(old_splits, found, data["causes"])
            kept_merges = merges_kept(old_merges, [], data["causes"])
            write_text_atomic(record, to_json(done, data, kept_splits, kept_merges))  # none lost
        # every record, the causes not asked for (--only) after the last one asked for included;
        # the causes one program shows are one: the report merges them on its next render
        merged = merges_of(done, data["causes"])
        for m in merged:
            ranks = sorted(r.rank for r in done if _key_by(data["causes"]).get(r.slug) in m.keys)
            print(f"causes {', '.join(map(str, ranks))} are one: the same program shows them")
        kept_splits = splits_kept(old_splits, found, data["causes"])
        kept_merges = merges_kept(old_merges, merged, data["causes"])
        write_text_atomic(record, to_json(done, data, kept_splits, kept_merges))
        kept = {r.script for r in done if r.script}
        for stale in args.out.glob("*.py"):  # programs no cause has now
            if _rel(stale) not in kept:
                stale.unlink()
    except KeyboardInterrupt:
        print(f"reduce: interrupted: {len(done)} causes kept in {args.out}", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())

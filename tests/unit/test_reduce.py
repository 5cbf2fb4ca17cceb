"""A root cause's short program (``bench.causes.reduce``): the strategy's write read from its
file, what the program must print, where the write goes, and the program's own text, from
hand-made tables (no MindSpore; tests/ms/test_reduce.py runs programs)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from bench.causes import reduce as R
from bench.core import paths

ASSIGN = '''"""doc"""
import mindspore as ms
from mindspore import ops

from bench.strategy import Strategy

API = "mindspore.ops.Assign"


class Cell(Strategy):
    layout = "scalar"

    def __init__(self):
        super().__init__()
        self.assign_op = ops.Assign()  # kept

    def write(self, param, value):
        """doc"""
        self.assign_op(param, value)
'''


def test_the_write_is_read_from_the_strategy_file_with_its_names_replaced():
    w = R.writer(ASSIGN)
    assert w.imports == ("import mindspore as ms", "from mindspore import ops")  # no bench
    assert w.init == ("self.assign_op = ops.Assign()",)
    assert w.body == ("self.assign_op(param, value)",)
    assert R.written(w.body, "self.limit + x") == ["self.assign_op(self.limit, self.limit + x)"]
    # precedence kept: the value is one expression wherever it lands
    assert R.written(("param.add_(value - param)",), "self.limit + x") == [
        "self.limit.add_(self.limit + x - self.limit)"
    ]


def test_a_strategy_without_write_is_not_reduced():
    with pytest.raises(R.NotReduced, match="no write"):
        R.writer("class Cell:\n    def construct(self, x):\n        return x\n")


@pytest.mark.parametrize(
    "outcome, calls, seen, expected",
    [
        ("write dropped", "at every call", "", "write dropped at call 1"),
        ("stale read", "at the first call only", "", "stale read at call 1"),
        ("write dropped", "from call 2 on", "", "write dropped at call 2"),
        # an error: the witness's own words up to the first number
        ("raises: RuntimeError: Kernel select failed: Unsupported op [InplaceIndexCopy] on CPU,",
         "", "raises: RuntimeError: Kernel select failed:\n Unsupported op [InplaceIndexCopy] on "
         "CPU, line 12", "raises: RuntimeError: Kernel select failed: Unsupported op "
         "[InplaceIndexCopy] on CPU, line"),
        ("raises: RuntimeError: InplaceUpdateVN failed", "", "raises: RuntimeError: "
         "InplaceUpdateV2 failed", "raises: RuntimeError: InplaceUpdateV"),
        ("crashed", "", "", "crashed"),
        ("timeout", "", "", "timeout"),  # the row form: a child given HANG_S seconds
        # the reload form: a checkpoint loaded before the call the cause names
        ("follows the old values after a reload", "from call 5 on", "",
         "follows the old values after a reload at call 5"),
        # the network form: one cell works, two as the layers of one network do not
        ("write dropped", "in a network of two layers only", "",
         "write dropped in a network of two layers"),
        ("wrong value", "in a network of two layers only", "",
         "wrong value in a network of two layers"),
    ],
)  # fmt: skip
def test_what_the_program_must_print(outcome, calls, seen, expected):
    assert R.want(outcome, calls, seen) == expected


@pytest.mark.parametrize(
    "outcome, calls",
    [
        ("stale read", "in a network of two layers only"),  # its judge reads the state only
        ("write dropped", "in a second instance only"),
        ("follows the old values after a reload", "in a second instance only"),
        ("stale read", "at the first 3 calls only"),  # needs the state of several calls
        ("write dropped", "from call 5 on"),  # after the program's three calls
        ("wrong output", "in a second instance only"),
    ],
)
def test_outcomes_this_program_cannot_show_keep_their_entry_script(outcome, calls):
    with pytest.raises(R.NotReduced):
        R.want(outcome, calls)


@pytest.mark.parametrize(
    "shape, where",
    [("helper-view-before-arg", "helper"), ("depend", "depend"), ("row-inline", "inline")],
)
def test_the_placement_is_the_shapes_first_dimension(shape, where):
    assert R.placement(shape) == where


def test_a_shape_without_a_placement_is_not_reduced():
    with pytest.raises(R.NotReduced, match="full-inline"):
        R.placement("full-inline")
    assert R.placement("as-written") == R.AS_WRITTEN  # the strategy's own construct


EMA_OWN = '''"""doc"""
import mindspore as ms
from bench.measured.workloads.ema.spec import DECAY
from bench.strategy import Strategy


class Cell(Strategy):
    def construct(self, x):
        for ema, w in zip(self.emas, self.weights):
            ema.mul_(self.decay)
        return x

    def after_step(self, out, x):
        self.emas[0].set_data(ms.Tensor(DECAY))
        return out
'''


@pytest.mark.parametrize("reload", [0, 5])
def test_an_as_written_ema_strategy_is_pasted_whole_and_judged_as_an_ema(reload):
    """Its methods pasted into the program, ``after_step`` called after each call, the suite's
    constants written out, the EMA's own names; the reload before the call the cause names."""
    from bench.measured.workloads.ema.spec import DECAY

    expected = (f"follows the old values after a reload at call {reload}" if reload
                else "write dropped at call 1")  # fmt: skip
    text = R.as_written(EMA_OWN, "jit_ast", expected, "t")
    ast.parse(text)
    head = text.split("class Net")[0]
    assert "from bench" not in head and "import mindspore as ms\n" not in head
    assert f"DECAY = {DECAY!r}" in text and "ema.mul_(self.decay)" in text
    assert "; net.after_step(out, x)" in text and "self.emas = ms.ParameterTuple(" in text
    assert ("load_param_into_net" in text) == bool(reload)
    assert f"for call in range(1, {max(R.CALLS, reload) + 1}):" in text
    own = EMA_OWN.split("    def after_step", maxsplit=1)[
        0
    ]  # an in-place EMA with no host step, as mul_
    short = R.as_written(own, "jit_ast", expected, "t")
    assert "net.after_step" not in short and len(short.splitlines()) <= 30


@pytest.mark.parametrize("where", [*R.PLACEMENTS, R.AS_WRITTEN])
@pytest.mark.parametrize("mode", sorted(R.SETUP))
def test_the_placement_is_read_back_from_what_was_tried(where, mode):
    line = f"{R._label('add_', where, mode)}: REPRODUCED: write dropped at call 1"
    assert R.placement_of(line) == where


def test_an_as_written_program_catches_an_error_only_when_the_cause_is_one():
    silent = R.as_written(EMA_OWN, "graph", "write dropped at call 1", "t")
    assert "except Exception" not in silent and 'got = judge() or "works"' in silent
    raising = R.as_written(EMA_OWN, "graph", "raises: RuntimeError: x", "t")
    assert "except Exception as exc:" in raising


def test_an_as_written_strategy_whose_suite_import_fails_is_not_reduced():
    broken = EMA_OWN.replace("bench.measured.workloads.ema.spec", "bench.no_such_module")
    with pytest.raises(R.NotReduced, match=r"bench\.no_such_module"):
        R.as_written(broken, "graph", "write dropped at call 1", "t")


def test_an_as_written_strategy_outside_the_ema_and_the_clip_is_not_reduced():
    own = EMA_OWN.replace("self.emas", "self.state")
    with pytest.raises(R.NotReduced, match="outside the EMA and the clip"):
        R.as_written(own, "graph", "write dropped at call 1", "t")


CLIP_OWN = '''"""doc"""
from mindspore import ops

from bench.strategy import Strategy


class Cell(Strategy):
    def construct(self, x):
        return ops.clip_by_value(x, -self.limit, self.limit), self.next_limit(x)

    def after_step(self, result, x):
        out, new = result
        self.limit.set_data(new)
        return out
'''


def test_a_strategy_writing_the_clips_own_construct_is_pasted_whole_over_the_clips_names():
    """The clip's as-written form: ``limit``, a ``next_limit`` adding 1 whatever ``x`` holds
    (the clip's step is of ``x``'s size), the strategy's ``construct`` and ``after_step`` pasted,
    ``after_step`` called after each call as the harness does; each call checks limit + 1."""
    text = R.as_written(CLIP_OWN, "jit_ast", "write dropped at call 2", "t")
    tree = _short_and_plain(text)
    net = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Net")
    methods = [f.name for f in net.body if isinstance(f, ast.FunctionDef)]
    assert methods == ["__init__", "next_limit", "construct", "after_step"]
    assert "def next_limit(self, x): return self.limit + 1" in text
    assert "; net.after_step(out, x)  # as the harness calls it" in text
    assert "old + 1):" in text and 'capture_mode="ast"' in text
    assert "from bench" not in text
    without = CLIP_OWN.split("    def after_step", maxsplit=1)[0]
    assert "after_step" not in R.as_written(without, "graph", "write dropped at call 2", "t")
    with pytest.raises(R.NotReduced, match="clip's own construct"):
        R.as_written(CLIP_OWN, "graph", "crashed", "t")


@pytest.mark.parametrize("where", R.PLACEMENTS)
@pytest.mark.parametrize("mode", sorted(R.SETUP))
def test_the_program_is_short_and_imports_only_mindspore_numpy_and_the_standard_library(
    where, mode
):
    text = R.program(R.writer(ASSIGN), mode, where, "write dropped at call 1", "a title")
    _short_and_plain(text)
    assert "EXPECTED = 'write dropped at call 1'" in text
    assert {"graph": "GRAPH_MODE", "jit_bytecode": 'capture_mode="bytecode"'}.get(mode, "") in text
    construct = text.split("def construct", 1)[1].split("KIND =", 1)[0]
    assert ("self.write(self.limit, self.limit + x)" in construct) == (where == "helper")
    assert ("def write(self, param, new):\n        self.assign_op(param, new)" in text) == (
        where == "helper"
    )  # the Parameter passed to the helper as the suite's shapes pass it
    depend = "ops.depend(x, self.assign_op(self.limit, self.limit + x))"
    assert (depend in construct) == (where == "depend")


@pytest.mark.parametrize("where", R.PLACEMENTS)
@pytest.mark.parametrize("reload", [2, 5])
def test_the_reload_form_loads_a_checkpoint_before_the_call_the_cause_names(where, reload):
    """The state is an EMA of a weight Parameter; another weight is loaded before call N; the
    program runs to call N at least and still fits in 30 lines (``Assign``'s extra line too)."""
    expected = f"follows the old values after a reload at call {reload}"
    text = R.program(R.writer(ASSIGN), "jit_ast", where, expected, "t")
    assert len(text.splitlines()) <= 30
    ast.parse(text)
    construct = text.split("def construct", 1)[1].split("def judge", 1)[0]
    assert "self.limit * 0.9 + self.w * 0.1" in construct
    assert f"for call in range(1, {max(R.CALLS, reload) + 1}):" in text
    load = text.index("ms.load_param_into_net(net, ")
    assert text.rindex(f"if call == {reload}:", 0, load) > text.index("for call in")
    assert "np.zeros((1,)" in text.split("def construct")[0]  # an EMA that moves every call
    plain = R.program(R.writer(ASSIGN), "jit_ast", where, "write dropped at call 1", "t")
    assert "load_param_into_net" not in plain and "self.w * 0.1" not in plain


WRITE = "self.assign_op(self.limit, self.limit + x)"


@pytest.mark.parametrize(
    "where, body, output",
    [
        ("helper-view-before", ["lim = self.limit.reshape(())",
                                "self.write(self.limit, self.limit + x)", "return lim * 1"],
         "old + call"),  # a view taken before an in-place write sees it
        ("helper-copy-before", ["lim = self.limit.copy()",
                                "self.write(self.limit, self.limit + x)", "return lim * 1"], "old"),
        ("depend-alias-after", ["lim = self.limit", "out = lim * 1",
                                f"out = ops.depend(out, {WRITE})", "return out"], "old"),
        ("inline-param-after", ["out = self.limit * 1", WRITE, "return out"], "old"),
    ],
)  # fmt: skip
def test_a_read_and_order_form_reads_the_state_as_the_clip_does(where, body, output):
    """The state read into ``lim`` (or the Parameter itself), the write after or before the
    read, and the output judged by what the code means: the new limit only where the read is
    taken before the write and sees it."""
    text = R.program(R.writer(ASSIGN), "jit_bytecode", where, "write dropped at call 1", "t")
    construct = text.split("def construct(self, x):\n", 1)[1].split("def judge", 1)[0]
    assert [ln.strip() for ln in construct.splitlines()] == body
    assert f"(out, {output}, ('wrong output', 'stale read'))" in text
    assert len(text.splitlines()) <= 30
    replace = R.program(R.writer(ASSIGN), "graph", "inline-view-before", "x", "t", view_sees=False)
    assert "(out, old, ('wrong output'" in replace  # a replacing write leaves an earlier view


def test_a_read_or_order_rule_is_tried_with_its_pair_from_each_entrys_shape():
    entry = {"anchor": "a", "example": {"strategy": "s", "shape": "helper-view-before-arg",
                                        "mode": "jit_bytecode"}}  # fmt: skip
    other = {"anchor": "b", "example": {"strategy": "t", "shape": "as-written", "mode": "graph"}}
    cause = {"witness": "a", "entries": [other, entry]}
    tries, pairs = R.rule_tries(cause, ["read", "view", "copy"], [])
    # the entry's read and order, then with its new value too (the faithful form)
    assert tries == [("s", "helper-view-before", "jit_bytecode"),
                     ("s", "helper-view-before-arg", "jit_bytecode")]  # fmt: skip
    assert pairs == {"helper-view-before": "helper-copy-before",
                     "helper-view-before-arg": "helper-copy-before-arg"}  # fmt: skip
    tries, pairs = R.rule_tries(cause, ["order", "before", "after"], [])
    assert pairs == {"helper-view-before": "helper-view-after",
                     "helper-view-before-arg": "helper-view-after-arg"}  # fmt: skip
    with pytest.raises(R.NotReduced, match="construct=base"):  # no module form here
        R.rule_tries({"witness": "b", "entries": [other]}, ["construct", "base", "own"], [])
    with pytest.raises(R.NotReduced, match="construct=fancy"):
        R.rule_tries(cause, ["construct", "fancy", "own"], [])
    with pytest.raises(R.NotReduced, match="no read and order"):
        R.rule_tries({"witness": "b", "entries": [other]}, ["read", "view", "copy"], [])


def _short_and_plain(text: str) -> ast.Module:
    """The program's tree, once it is checked: at most 30 lines, importing only numpy and
    mindspore (and the standard library's os, subprocess and sys: a child process sees a crash
    or a hang)."""
    tree = ast.parse(text)
    assert len(text.splitlines()) <= 30
    roots = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import)
             for a in n.names}  # fmt: skip
    roots |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert roots <= {"numpy", "mindspore", "os", "subprocess", "sys"}
    return tree


def _state_module(tree: ast.Module) -> ast.Module:
    """The source a module form ``exec``s as its module ``state``, parsed."""
    text = next(n for n in ast.walk(tree) if isinstance(n, ast.Constant)
                and "class State" in str(n.value)).value  # fmt: skip
    return ast.parse(text)


VECTOR = ASSIGN.replace('layout = "scalar"', 'layout = "vector"')


@pytest.mark.parametrize(
    "new, bound",
    [
        ("expr", ["new = self.limit + x", "self.write(self.limit, new)"]),
        ("method", ["new = self.next_limit(x)", "self.write(self.limit, new)"]),
        ("arg", ["self.write(self.limit, self.next_limit(x))"]),
    ],
)
def test_the_faithful_form_binds_the_new_value_as_the_clip_does_in_the_strategys_layout(new, bound):
    """``placement-read-order-new``: the entry's own new value (a local from an expression or
    from ``self.next_limit(x)``, or that call as the write's value) and the strategy's layout
    (``Tensor.masked_fill_`` raised on the plainer program's (1,) Parameter: it takes a 0-d
    value only)."""
    where = f"helper-view-before-{new}"
    text = R.program(R.writer(ASSIGN), "jit_bytecode", where, "stale read at call 1", "t")
    construct = text.split("def construct(self, x):\n", 1)[1].split("def judge", 1)[0]
    assert [ln.strip() for ln in construct.splitlines()] == [
        "lim = self.limit.reshape(())",
        *bound,
        "return ops.clip_by_value(x * 1000, -lim, lim)",  # read as the clip reads it
    ]
    assert ("def next_limit(self, x):" in text) == (new != "expr")
    assert "np.ones((), np.float32)" in text and "np.full((), call, np.float32)" in text
    assert "(1,)" not in text  # a 0-d Parameter and inputs, as the scalar strategy's
    assert len(text.splitlines()) <= 30
    vector = R.program(R.writer(VECTOR), "jit_bytecode", where, "stale read at call 1", "t")
    assert "np.ones((1,), np.float32)" in vector and "np.full((1,), call" in vector
    plain = R.program(R.writer(ASSIGN), "jit_bytecode", "helper-view-before", "x", "t")
    assert "np.ones((1,), np.float32)" in plain and "next_limit" not in plain  # as before
    with pytest.raises(R.NotReduced, match="new 'later'"):
        R.program(R.writer(ASSIGN), "graph", "helper-view-before-later", "x", "t")


def test_the_faithful_form_is_tried_from_each_entrys_shape_after_the_plainer_ones():
    entry = lambda a, s, shape: {  # noqa: E731
        "anchor": a,
        "example": {"strategy": s, "shape": shape, "mode": "graph"},
    }
    cause = {"witness": "b", "entries": [
        entry("a", "masked_fill_", "depend-alias-after-arg"),
        entry("b", "copy_", "helper-view-before-expr"),
        entry("c", "add_", "helper-view-method"),  # brn's: no read and order of the clip's
        entry("d", "own", "as-written"),
        entry("e", "assign", "depend"),
    ]}  # fmt: skip
    assert R.faithful(cause) == [
        ("copy_", "helper-view-before-expr", "graph"),  # the witness's first
        ("masked_fill_", "depend-alias-after-arg", "graph"),
    ]
    assert R.TRIES >= 8  # three plain, three of the entries' reads, two of these


NETWORK = "write dropped in a network of two layers"


@pytest.mark.parametrize(
    "where, construct",
    [
        ("net-depend-alias-after-arg", ["lim = self.limit",
                                        "out = ops.clip_by_value(x * 1000, -lim, lim)",
                                        "out = ops.depend(out, self.assign_op(self.limit, "
                                        "self.next_limit(x)))", "return out"]),
        ("net-helper-view-before-method", ["lim = self.limit.reshape(())",
                                           "new = self.next_limit(x)",
                                           "self.write(self.limit, new)",
                                           "return ops.clip_by_value(x * 1000, -lim, lim)"]),
        ("net-inline", ["self.assign_op(self.limit, self.next_limit(x))",
                        "return self.limit * 1"]),
        # the KV cache's: the value inline, the state read back through the module's method
        ("netread-inline", ["self.assign_op(self.limit, self.limit + x)",
                            "return self.read()"]),
        ("netread-depend", ["x = ops.depend(x, self.assign_op(self.limit, self.limit + x))",
                            "return self.read() + x * 0"]),
    ],
)  # fmt: skip
def test_the_network_form_keeps_the_state_in_a_module_of_its_own(where, construct):
    """The network form: the cell in ``__main__`` subclasses a state class of another module
    (an exec'd source named ``state``: in one module with the cell, bytecode capture dropped
    ``ops.assign``'s write in one cell already), takes the new value from that module's
    ``next_limit``, and is judged as one cell, then as two layers of one network."""
    text = R.program(R.writer(ASSIGN), "jit_bytecode", where, NETWORK, "a title")
    tree = _short_and_plain(text)
    module = _state_module(tree)
    assert [c.name for c in module.body] == ["State", "Two"]
    state = {f.name for f in module.body[0].body if isinstance(f, ast.FunctionDef)}
    assert state == {"__init__", "read" if where.startswith("netread") else "next_limit"}
    assert '{"__name__": "state", "np": np, "ms": ms}' in text
    net = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Net")
    assert ast.unparse(net.bases[0]) == "STATE['State']"
    methods = {f.name: f for f in net.body if isinstance(f, ast.FunctionDef)}
    assert "next_limit" not in methods  # the state's module has it
    assert ast.unparse(methods["__init__"]).endswith("self.assign_op = ops.Assign()")
    assert ("write" in methods) == ("helper" in where)
    body = text.split("    def construct(self, x):\n", 1)[1].split("def judge", 1)[0]
    assert [ln.strip() for ln in body.splitlines()] == construct
    assert "for n in (1, 2):" in text and 'capture_mode="bytecode"' in text
    assert text.startswith(f"EXPECTED = {NETWORK!r}")
    with pytest.raises(R.NotReduced, match="network form"):
        R.program(R.writer(ASSIGN), "jit_bytecode", where, "write dropped at call 1", "t")
    with pytest.raises(R.NotReduced, match="placement"):
        R.program(R.writer(ASSIGN), "jit_bytecode", "net-nowhere", NETWORK, "t")
    with pytest.raises(R.NotReduced, match="a placement only"):
        R.program(R.writer(ASSIGN), "jit_bytecode", "netread-depend-alias-after-arg", NETWORK, "")


@pytest.mark.parametrize("new", ["method", "arg"])
def test_the_module_form_is_the_faithful_one_with_the_state_class_in_its_own_module(new):
    """``mod-``: the faithful program, its state class (the Parameter and ``next_limit``) in an
    exec'd module named ``state``, as the suite's cells call into theirs (bytecode capture
    treats such a call otherwise); the cell, its write and its judge unchanged."""
    where = f"helper-alias-before-{new}"
    plain = R.program(R.writer(ASSIGN), "jit_bytecode", where, "stale read at call 1", "t")
    text = R.program(R.writer(ASSIGN), "jit_bytecode", f"mod-{where}", "stale read at call 1", "t")
    assert len(text.splitlines()) <= len(plain.splitlines()) <= 30
    tree = ast.parse(text)
    module = _state_module(tree)
    state = {f.name for f in module.body[0].body if isinstance(f, ast.FunctionDef)}
    assert state == {"__init__", "next_limit"}
    net = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Net")
    assert ast.unparse(net.bases[0]) == "STATE['State']"
    methods = {f.name for f in net.body if isinstance(f, ast.FunctionDef)}
    assert methods == {"__init__", "write", "construct"}  # the strategy's own init on one line
    tail = lambda t: t.split("    def construct(self, x):", 1)[1]  # noqa: E731
    assert tail(text) == tail(plain)  # the construct and the judge as the faithful form's
    for bad in ("mod-helper-alias-before-expr", "mod-helper", "mod-nowhere-alias-before-arg"):
        with pytest.raises(R.NotReduced):
            R.program(R.writer(ASSIGN), "jit_bytecode", bad, "stale read at call 1", "t")
    with pytest.raises(R.NotReduced, match="mod"):  # not with a reload
        R.program(R.writer(ASSIGN), "jit_bytecode", f"mod-{where}", "follows the old values "
                  "after a reload at call 5", "t")  # fmt: skip


def test_the_base_form_inherits_construct_from_the_modules_state_class():
    """``base-``: the module form with ``construct`` in the state's class of the other module
    (``construct=base``), the cell in ``__main__`` keeping only the strategy's write; its pair
    is the module form, ``construct`` in the cell (``construct=own``)."""
    where = "helper-param-after-arg"
    said = "write dropped at call 1"
    own = R.program(R.writer(ASSIGN), "jit_bytecode", f"mod-{where}", said, "")
    text = R.program(R.writer(ASSIGN), "jit_bytecode", f"base-{where}", said, "")
    tree = ast.parse(text)
    module = _state_module(tree)
    state = {f.name for f in module.body[0].body if isinstance(f, ast.FunctionDef)}
    assert state == {"__init__", "next_limit", "construct"}
    net = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Net")
    assert {f.name for f in net.body if isinstance(f, ast.FunctionDef)} == {"__init__", "write"}
    assert "STATE := {**globals(), " in text  # construct's names: the program's own
    body = lambda t: t.split("def construct(self, x):")[1].splitlines()[1:4]  # noqa: E731
    assert body(text)[:2] == body(own)[:2]  # the same construct, in the other class
    assert body(text)[2].startswith(body(own)[2] + '""", STATE := ')
    assert len(text.splitlines()) <= 30
    bare = R.Writer(("from mindspore import ops",), (), ("ops.assign(param, value)",), "scalar")
    text = R.program(bare, "jit_bytecode", f"base-{where}", "write dropped at call 1", "")
    assert "    def write(self, param, new): ops.assign(param, new)" in text
    entry = {"anchor": "a", "example": {"strategy": "assign_add", "mode": "jit_bytecode",
                                        "shape": "helper-param-after-arg-base"}}  # fmt: skip
    tries, pairs = R.rule_tries({"witness": "a", "entries": [entry]},
                                ["construct", "base", "own"], [])  # fmt: skip
    assert tries == [("assign_add", f"base-{where}", "jit_bytecode")]
    assert pairs == {f"base-{where}": f"mod-{where}"}


def test_the_module_form_is_tried_under_bytecode_where_the_new_value_is_a_method():
    entry = lambda a, s, shape, mode: {  # noqa: E731
        "anchor": a,
        "example": {"strategy": s, "shape": shape, "mode": mode},
    }
    cause = {"witness": "a", "entries": [
        entry("a", "assign", "depend-alias-before-arg", "jit_bytecode"),
        entry("b", "copy_", "helper-view-before-expr", "jit_bytecode"),  # no method: not tried
        entry("c", "add_", "inline-view-after-method", "graph"),  # tried under bytecode only
    ]}  # fmt: skip
    assert R.moduled(cause) == [("assign", "mod-depend-alias-before-arg", "jit_bytecode")]


@pytest.mark.parametrize(
    "where, construct",
    [
        ("two-helper", ["self.write(self.limit, self.limit + x)",
                        "self.write(self.other, self.other + x)"]),
        ("two-depend", ["x = ops.depend(x, self.assign_op(self.limit, self.limit + x))",
                        "x = ops.depend(x, self.assign_op(self.other, self.other + x))"]),
        ("two-inline", ["self.assign_op(self.limit, self.limit + x)",
                        "self.assign_op(self.other, self.other + x)"]),
    ],
)  # fmt: skip
def test_the_two_parameter_form_places_the_write_for_a_second_parameter(where, construct):
    """``two-``: the placement's write of ``limit``, then the same of ``other`` (a helper that
    writes two Parameters dropped both in GRAPH_MODE, where one helper write worked); the judge
    reads ``limit``."""
    text = R.program(R.writer(ASSIGN), "graph", where, "write dropped at call 1", "t")
    assert 'self.other = ms.Parameter(ms.Tensor(np.ones((1,), np.float32)), name="other")' in text
    body = text.split("    def construct(self, x):\n", 1)[1].split("def judge", 1)[0]
    assert [ln.strip() for ln in body.splitlines()][:-1] == construct
    assert len(text.splitlines()) <= 30 and "net.limit.asnumpy()" in text
    with pytest.raises(R.NotReduced, match="two"):
        R.program(R.writer(ASSIGN), "graph", "two-helper-view-before", "stale read at call 1", "")
    cause = {
        "witness": "a",
        "calls": "at every call",
        "entries": [
            {"anchor": "a", "example": {"strategy": "add_", "shape": "helper", "mode": "graph"}}
        ],
    }
    tries, pairs = R.rule_tries(cause, ["write", "helper", "inline"], R.candidates(cause))
    assert tries == [("add_", "helper", "graph"), ("add_", "two-helper", "graph")]
    assert pairs == {"helper": "inline", "two-helper": "two-inline"}  # fmt: skip


def test_a_network_cause_is_tried_in_the_network_form_from_each_entrys_shape():
    entry = lambda a, s, shape: {  # noqa: E731
        "anchor": a,
        "example": {"strategy": s, "shape": shape, "mode": "jit_bytecode"},
    }
    cause = {"witness": "b", "calls": "in a network of two layers only", "entries": [
        entry("a", "copy_", "helper"),  # the EMA's: a placement only
        entry("b", "assign", "depend-alias-after-arg"),
        entry("c", "own", "as-written"),  # no placement: not in this form
        entry("d", "inplace_index_add", "row-inline"),  # the KV cache's
    ]}  # fmt: skip
    assert R.networked(cause) == [
        ("assign", "net-depend-alias-after-arg", "jit_bytecode"),  # the witness's, faithful
        ("assign", "net-depend", "jit_bytecode"),
        ("assign", "netread-depend", "jit_bytecode"),
        ("copy_", "net-helper", "jit_bytecode"),
        ("copy_", "netread-helper", "jit_bytecode"),
        ("inplace_index_add", "net-inline", "jit_bytecode"),
        ("inplace_index_add", "netread-inline", "jit_bytecode"),
    ]
    # a construct that is the trigger: placed so in both network forms, its pair the other way
    tries, pairs = R.rule_tries(cause, ["write", "helper", "depend"], R.candidates(cause))
    assert {w for _, w, _ in tries} == {"net-helper", "netread-helper"}
    assert pairs == {"net-helper": "net-depend", "netread-helper": "netread-depend"}


def test_the_network_judge_names_the_network_only_where_two_layers_show_it():
    """The judge's words, run on a stand-in for MindSpore: one cell right, two layers dropping
    the write (a pure check of the program's own judge, no MindSpore imported)."""
    text = R.program(R.writer(ASSIGN), "jit_bytecode", "net-inline", NETWORK, "t")
    judge = text.split("def judge():\n", 1)[1].split("got = judge()", 1)[0]
    lines = judge.splitlines()
    assert lines[0].strip().startswith("ms.set_context")
    assert "' in a network of two layers' * (n > 1)" in text
    assert "if not np.allclose(c.limit.asnumpy(), o + call)" in text


def test_a_crash_is_seen_from_a_child_process():
    text = R.program(R.writer(ASSIGN), "jit_bytecode", "inline", "crashed", "t")
    assert "subprocess.run([sys.executable, __file__]" in text and '"CHILD"' in text
    assert len(text.splitlines()) <= 30


def test_a_write_of_several_statements_does_not_go_inside_depend():
    w = R.Writer((), (), ("a = 1", "b = 2"))
    with pytest.raises(R.NotReduced, match="depend"):
        R.program(w, "graph", "depend", "write dropped at call 1", "t")


@pytest.mark.parametrize(
    "code, result", [(0, "reproduces"), (1, "not on this release"), (None, "did not end")]
)
def test_a_release_that_does_not_reproduce_is_recorded_as_such(code, result):
    assert R.on_release(R.Run(code, "x", 1.0))["result"] == result


def test_the_committed_programs_agree_with_the_causes():
    """results/causes/reduced.json: every cause of causes.json once, each program committed,
    at most 30 lines, reproducing on the release the pages are made on; the rest say why not."""
    causes = json.loads((paths.RESULTS_DIR / "causes.json").read_text(encoding="utf-8"))
    reduced = R.from_json((paths.RESULTS_DIR / "causes" / "reduced.json").read_text("utf-8"))
    assert [r.slug for r in reduced] == [c["slug"] for c in causes["causes"]]
    for r in reduced:
        if not r.script:
            assert r.why_not and r.entry_repro, r.slug
            continue
        text = (paths.ROOT / r.script).read_text(encoding="utf-8")
        assert len(text.splitlines()) == r.lines <= 30, r.script
        assert r.releases[causes["mindspore"][-1]]["result"] == "reproduces", r.script


def _cause(rank=2):
    entry = {"anchor": "a", "repro": "results/brn/repros/x.py", "outcome": "incorrect: write "
             "dropped at every call", "example": {"strategy": "assign", "shape": "inline",
             "mode": "jit_bytecode"}}  # fmt: skip
    return {"rank": rank, "slug": "write-dropped-x", "title": "T", "outcome": "write dropped",
            "calls": "at every call", "witness": "a", "entries": [entry]}  # fmt: skip


def test_the_same_program_is_reused_with_its_runs_and_takes_the_new_rank(tmp_path):
    """A program written and run before (another rank, another title in its class line) is
    reused without running anything (the interpreter given does not exist)."""
    (tmp_path / "assign.py").write_text(ASSIGN.replace("self.assign_op(param, value)",
                                                       "ops.assign(param, value)"))  # fmt: skip
    text = R.program(R.writer((tmp_path / "assign.py").read_text()), "jit_bytecode", "inline",
                     "write dropped at call 1", "an older title")  # fmt: skip
    before = R.Reduced(5, "write-dropped-old", "an older title", script="x.py", lines=29,
                       releases={"2.10.0": {"code": 0, "result": "reproduces"}})  # fmt: skip
    got = R.reduce_cause(_cause(), tmp_path, "/no/python", tmp_path, {R.same(text): before})
    assert (got.rank, got.slug, got.title, got.releases) == (2, "write-dropped-x", "T",
                                                             before.releases)  # fmt: skip
    written = (tmp_path / got.script.rsplit("/", 1)[-1]).read_text()
    assert got.script.endswith("02-write-dropped-x.py") and "# T" in written
    assert R.same(written) == R.same(text)


def test_a_program_is_reused_for_a_rule_only_with_that_rules_pair(tmp_path):
    """The program of `read=view` (paired with `read=copy`) is also the program of
    `order=before` (to be paired with `order=after`): reused only with its own pair."""
    (tmp_path / "assign.py").write_text(ASSIGN)
    entry = {**_cause()["entries"][0], "example": {"strategy": "assign", "mode": "jit_bytecode",
             "shape": "helper-view-before-arg"}}  # fmt: skip
    text = R.program(R.writer(ASSIGN), "jit_bytecode", "helper-view-before",
                     "write dropped at call 1", "t")  # fmt: skip
    tried = [
        "assign@helper-view-before-jit_bytecode: REPRODUCED: write dropped at call 1",
        "assign@helper-copy-before-jit_bytecode (works with it): NOT REPRODUCED: works",
    ]
    view = R.Reduced(5, "view", "t", script="x.py", lines=29, tried=tried)
    order = {**_cause(), "entries": [entry],
             "trigger": {"construct": ["order", "before", "after"], "apis": []}}  # fmt: skip
    got = R.reduce_cause(order, tmp_path, "/no/python", tmp_path, {R.same(text): view})
    assert not got.script and got.tried[0].startswith("assign@helper-view-before-jit_bytecode: ")
    read = {**order, "trigger": {"construct": ["read", "view", "copy"], "apis": []}}
    got = R.reduce_cause(read, tmp_path, "/no/python", tmp_path, {R.same(text): view})
    assert got.script and got.tried == view.tried  # its own pair: reused, nothing run


def test_a_changed_program_is_run_again(tmp_path):
    (tmp_path / "assign.py").write_text(ASSIGN)
    before = R.Reduced(2, "write-dropped-x", "T", script="x.py", lines=1,
                       releases={"2.10.0": {"code": 0, "result": "reproduces"}})  # fmt: skip
    got = R.reduce_cause(_cause(), tmp_path, "/no/python", tmp_path, {"an older program": before})
    assert got.releases == {} and not got.script  # ran (and could not: no such interpreter)
    assert got.tried and "assign@inline-jit_bytecode" in got.tried[0]


def test_a_rule_needs_its_construct_in_the_program():
    cause = {**_cause(), "trigger": {"construct": ["construct", "base", "own"], "apis": []}}
    got = R.reduce_cause(cause, Path("/nonexistent"), "/no/python", Path("/nonexistent"))
    # the entry's shape (inline) has no module form under bytecode to inherit construct from
    assert not got.script and "construct=base: no entry's shape" in got.why_not
    cause["trigger"]["construct"] = ["layout", "vector", "scalar"]  # a construct no form has
    got = R.reduce_cause(cause, Path("/nonexistent"), "/no/python", Path("/nonexistent"))
    assert "needs `layout=vector` against `layout=scalar`" in got.why_not
    # a read rule needs an entry whose shape reads the state (this one's is `inline`)
    cause = {**_cause(), "trigger": {"construct": ["read", "view", "copy"], "apis": []}}
    got = R.reduce_cause(cause, Path("/nonexistent"), "/no/python", Path("/nonexistent"))
    assert not got.script and "no read and order of the state" in got.why_not


def test_a_bucket_is_checked_by_the_same_program_for_every_api_and_mode(tmp_path, monkeypatch):
    """``confirm`` writes the witness's program again for each strategy and mode an entry of the
    cause shows it in, with the witness's placement, and records each one's exit code; the
    witness's own run is not repeated, and a strategy that cannot be written is recorded as such."""
    (tmp_path / "assign.py").write_text(ASSIGN)
    cause = _cause()
    entry = cause["entries"][0]
    entry.update(strategies=["assign", "missing"], modes=["jit_bytecode", "graph"])
    # another entry's pair is checked too; a pair no entry shows is not
    cause["entries"].append({**entry, "strategies": ["assign"], "modes": ["graph"]})
    shown = "assign@inline-jit_bytecode: REPRODUCED: write dropped at call 1"
    r = R.Reduced(2, "write-dropped-x", "T", script="x.py", tried=[shown])
    ran = []

    def fake_run(path, python):
        text = Path(path).read_text()
        ran.append(text)
        assert "ms.GRAPH_MODE" in text and "self.assign_op(self.limit, self.limit + x)" in text
        return R.Run(1, "NOT REPRODUCED: works", 1.0)

    monkeypatch.setattr(R, "run", fake_run)
    got = R.confirm(cause, r, "/no/python", tmp_path, tmp_path)
    assert len(ran) == 1  # graph only: the bytecode program is the witness's, run already
    assert [(b["strategy"], b["mode"], b["code"]) for b in got] == [
        ("assign", "jit_bytecode", 0), ("assign", "graph", 1),
        ("missing", "jit_bytecode", None), ("missing", "graph", None),
    ]  # fmt: skip
    assert not list(tmp_path.glob("bucket-*.py"))  # nothing left behind
    from bench.causes import causes

    assert causes.bucket_words(got) == (
        "the same program shows it for 1 of 4 API × mode (not: `assign` graph, `missing` "
        "jit_bytecode, `missing` graph)"
    )
    assert causes.bucket_words([]) == ""


def test_reduced_records_of_schema_1_read_as_not_checked():
    old = {"schema_version": 1, "reduced": [{"rank": 1, "slug": "s", "title": "t"}]}
    (r,) = R.from_json(json.dumps(old))
    assert r.bucket == []
    with pytest.raises(ValueError, match="schema_version 7"):
        R.from_json(json.dumps({**old, "schema_version": 7}))


def _add_cause(narrow=False):
    return {"trigger": {"construct": None, "apis": ["mindspore.Tensor.add_"]},
            "outcome": "write dropped", "calls": "at every call", "narrow": narrow}  # fmt: skip


def test_a_bucket_the_program_misses_somewhere_records_a_split():
    bucket = [
        {"strategy": "add_", "mode": "pynative", "code": 0},
        {"strategy": "add_", "mode": "jit_ast", "code": 1},  # ran, showed something else
        {"strategy": "add_", "mode": "graph", "code": None},  # not written: no evidence
    ]
    split = R.split_of(_add_cause(), bucket)
    assert split.missed == {("add_", "jit_ast")} and split.outcome == "write dropped"
    assert R.split_of(_add_cause(narrow=True), bucket) is None  # already the narrow part
    assert R.split_of(_add_cause(), bucket[:1]) is None


def test_splits_are_kept_while_their_cause_is_there_and_merged_by_key():
    a = R.split_of(_add_cause(), [{"strategy": "add_", "mode": "jit_ast", "code": 1}])
    b = R.split_of(_add_cause(), [{"strategy": "add_", "mode": "jit_bytecode", "code": 1}])
    kept = R.splits_kept([a], [b], [_add_cause(), _add_cause(narrow=True)])
    assert [s.missed for s in kept] == [{("add_", "jit_ast"), ("add_", "jit_bytecode")}]
    gone = {**_add_cause(), "outcome": "stale read"}
    assert R.splits_kept([a], [], [gone]) == []


def test_a_split_of_several_apis_is_kept_while_its_parts_name_it():
    """A cause of two APIs whose program misses one splits into a cause of the other API and a
    narrow one: neither has the first cause's key, so the split is kept by their
    ``split_from`` (without it the next report merged them back and the next reduce split them
    again, for ever)."""
    whole = {**_add_cause(), "trigger": {"construct": None, "apis": ["a.x", "a.y"]}}
    split = R.split_of(whole, [{"strategy": "y", "mode": "graph", "code": 1}])
    origin = {"trigger": whole["trigger"], "outcome": whole["outcome"], "calls": whole["calls"]}
    shown = {**whole, "trigger": {"construct": None, "apis": ["a.x"]}, "split_from": [origin]}
    narrow = {**shown, "trigger": {"construct": None, "apis": ["a.y"]}, "narrow": True}
    assert R.splits_kept([split], [], [shown, narrow]) == [split]
    assert R.splits_kept([split], [], [{**shown, "split_from": []}]) == []


def test_an_interpreter_given_by_a_relative_path_is_run_from_the_programs_folder(
    tmp_path, monkeypatch
):
    """A program runs from its own folder: ``--python 2.9.0=.nox/.../python`` relative to the
    caller's folder did not start there, and every release read "did not end"."""
    import os
    import sys

    (tmp_path / "bin").mkdir()
    link = tmp_path / "bin" / "python"
    link.symlink_to(sys.executable)
    monkeypatch.chdir(tmp_path)
    found = R._interpreters(["2.9.0=bin/python"])
    assert found == {"2.9.0": os.path.join(str(tmp_path), "bin", "python")}  # the link kept
    script = tmp_path / "elsewhere" / "p.py"
    script.parent.mkdir()
    script.write_text("print('REPRODUCED: yes')\n")
    assert R.run(script, found["2.9.0"]).code == 0
    with pytest.raises(ValueError, match="VERSION=PATH"):
        R._interpreters(["2.9.0=bin/nothing"])


def _record(slug, construct, script=""):
    return {"slug": slug, "trigger": {"construct": construct, "apis": []},
            "outcome": "write dropped", "calls": "at every call"}  # fmt: skip


def test_causes_whose_programs_are_one_program_are_recorded_as_one(tmp_path):
    """``merges_of``: programs the same up to their titles (the class line's comment) make one
    ``causes.Merge``; ``merges_kept`` keeps a merge while every cause of it is named (itself, or
    merged into another: ``merged``), and joins merges that share a cause."""
    body = "class Net(nn.Cell):  # {}\n    pass\n"
    for name, title in (("a.py", "A"), ("b.py", "B"), ("c.py", "C")):
        (tmp_path / name).write_text(body.format(title) + ("x = 1\n" if name == "c.py" else ""))
    causes = [_record("a", ["write", "helper", "depend"]),
              _record("b", ["write", "helper", "inline"]),
              _record("c", ["write", "helper", "depend-2"])]  # fmt: skip
    done = [R.Reduced(i + 1, s, "t", script=f"{s}.py") for i, s in enumerate("abc")]
    (merge,) = R.merges_of(done, causes, root=tmp_path)
    assert merge.keys == {R._key(causes[0]), R._key(causes[1])}  # c's program differs
    assert R.merges_of(done[:1], causes, root=tmp_path) == []
    # kept while both are named: as two causes, or one with the other merged into it
    assert R.merges_kept([merge], [], causes) == [merge]
    one = [{**causes[0], "merged": [causes[1]]}, causes[2]]
    assert R.merges_kept([merge], [], one) == [merge]
    assert R.merges_kept([merge], [], [causes[0], causes[2]]) == []  # b is gone
    other = R.merges_of(done[1:], [causes[1], {**causes[2]}], root=tmp_path)
    assert other == []
    from bench.causes.causes import Merge

    joined = R.merges_kept([merge], [Merge(frozenset({R._key(causes[1]), R._key(causes[2])}))],
                           causes)  # fmt: skip
    assert [m.keys for m in joined] == [frozenset(R._key(c) for c in causes)]
    text = R.to_json(done, {"runs": {}}, (), joined)
    assert R._merges_in(_write(tmp_path / "r.json", text)) == joined


def _write(path, text):
    path.write_text(text)
    return path


def test_the_two_parameter_form_is_tried_last_for_any_cause(tmp_path):
    """After every other form, the witness's placement writing two Parameters (the EMA's helper
    writes each weight's EMA: cause 55, `Tensor.copy_` under jit ast, shows only so)."""
    (tmp_path / "assign.py").write_text(ASSIGN)
    cause = {**_cause(), "entries": [{**_cause()["entries"][0], "example": {
        "strategy": "assign", "shape": "helper", "mode": "jit_ast"}}]}  # fmt: skip
    got = R.reduce_cause(cause, tmp_path, "/no/python", tmp_path)
    labels = [t.split(": ", 1)[0] for t in got.tried]
    assert labels[0] == "assign@helper-jit_ast" and labels[-1] == "assign@two-helper-jit_ast"
    assert len(labels) <= R.TRIES


@pytest.mark.parametrize(
    "where, stale",
    [("helper-alias-after-arg", True), ("helper-copy-before-arg", True),
     ("helper-alias-before-arg", False)],  # the output means the new limit: old is the stale one
)  # fmt: skip
def test_an_output_of_the_first_limit_is_a_stale_read_where_the_code_means_the_old(where, stale):
    """Where the output means the limit before the write, one of an earlier limit is stale too:
    the first (1), as a capture that froze the read at call 1 gives it (`Parameter.set_data`
    under bytecode: a stale read from call 2 on)."""
    text = R.program(R.writer(ASSIGN), "jit_bytecode", where, "stale read at call 2", "t")
    assert ("np.allclose(got, old) or np.allclose(got, 1)" in text) == stale
    assert len(text.splitlines()) <= 30


def test_the_both_bounds_form_reads_the_clips_two_bounds():
    """``both-``: the faithful form clipping ``x`` and ``-x``, its output the upper bound and
    minus the lower, each judged by what the code means (bytecode read ``-lim`` before the write
    and ``lim`` after it: the clip's output is neither the old limit nor the new)."""
    where = "helper-alias-before-arg"
    said = "wrong output at call 1"
    one = R.program(R.writer(ASSIGN), "jit_bytecode", f"mod-{where}", said, "")
    text = R.program(R.writer(ASSIGN), "jit_bytecode", f"both-mod-{where}", said, "")
    assert "return ops.clip_by_value(ops.stack([x, -x]) * 1000, -lim, lim)" in text
    assert ".asnumpy() * [1, -1]  # in this order; the upper bound, minus the lower" in text
    assert len(text.splitlines()) == len(one.splitlines()) <= 30
    with pytest.raises(R.NotReduced, match="both"):
        R.program(R.writer(ASSIGN), "jit_bytecode", "both-helper", "wrong output at call 1", "")


ROW = """    def write_row(self, param, index, row):
        param[:, :, index] = row

"""
WRITE = "    def write(self, param, value):"
ROWS = ASSIGN.replace(WRITE, ROW + WRITE)


@pytest.mark.parametrize("where", ["row-helper", "helper", "row-inline", "inline"])
def test_a_hang_of_the_kv_caches_row_write_is_seen_from_a_child_given_a_time(where):
    """The row form: a cache of four rows on axis 2, the strategy's ``write_row`` with a Tensor
    index (``self.cache[:, :, t] = row`` under bytecode never ends), three calls in a child that
    gets ``HANG_S`` seconds; ``timeout`` when it does not end."""
    text = R.source_of(ROWS, "jit_bytecode", where, "timeout", "t")
    _short_and_plain(text)
    construct = text.split("    def construct(self, row, t):\n", 1)[1].split("def judge", 1)[0]
    helper = where.endswith("helper")
    assert construct.splitlines()[0].strip() == (
        "self.write_row(self.cache, t, row)" if helper else "self.cache[:, :, t] = row"
    )
    assert ("def write_row(self, param, index, row):" in text) == helper
    assert f"timeout={R.HANG_S})" in text and "except subprocess.TimeoutExpired:" in text
    assert 'if "CHILD" in os.environ: raise SystemExit(judge())' in text
    with pytest.raises(R.NotReduced, match="write_row"):
        R.source_of(ASSIGN, "jit_bytecode", where, "timeout", "t")  # no row write
    with pytest.raises(R.NotReduced, match="row form"):
        R.source_of(ROWS, "jit_bytecode", "row-depend", "timeout", "t")
    with pytest.raises(R.NotReduced, match="row form"):
        R.source_of(ROWS, "jit_bytecode", "row-helper", "write dropped at call 1", "t")


@pytest.mark.parametrize("where", ["net-helper", "net-inline"])
def test_the_network_form_of_an_ema_loads_other_weights_by_the_names_the_network_gave_them(where):
    """A reload in a network of two layers only: the state class (a ``Dense`` ``net``, its
    weights and their EMAs as ParameterTuples) in the module ``state``; the cell writes each
    EMA; before call 4 each cell loads other weights into its ``net`` by their names there (a
    CellList renames them: a checkpoint keyed ``w`` loaded nothing, and the program worked)."""
    said = "follows the old values after a reload in a network of two layers"
    reload = "follows the old values after a reload"
    assert R.want(reload, "in a network of two layers only") == said
    text = R.program(R.writer(ASSIGN), "jit_bytecode", where, said, "t")
    tree = _short_and_plain(text)
    module = _state_module(tree)
    assert [c.name for c in module.body] == ["State", "Two"]
    assert "self.net = ms.nn.Dense(1, 1," in text and "ms.ParameterTuple(" in text
    assert "{p.name: ms.Parameter(10 * p, name=p.name) for p in c.weights}" in text
    assert "if call == 4: [ms.load_param_into_net(c.net," in text
    body = text.split("    def construct(self, x):\n", 1)[1].split("def judge", 1)[0]
    write = "self.write(e, e * 0.9 + w * 0.1)" if where == "net-helper" else (
        "self.assign_op(e, e * 0.9 + w * 0.1)")  # fmt: skip
    assert [ln.strip() for ln in body.splitlines()] == [
        "for e, w in zip(self.emas, self.weights):", write, "return x"]  # fmt: skip
    for bad in ("net-depend", "netread-helper", "net-helper-alias-after-arg"):
        with pytest.raises(R.NotReduced):
            R.program(R.writer(ASSIGN), "jit_bytecode", bad, said, "t")

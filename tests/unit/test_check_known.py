"""Constructs of a user's source, findings and answers read from hand-made texts, and the match
between a divergence and them (no MindSpore)."""

from __future__ import annotations

import textwrap

import pytest

from bench.check import kinds as K
from bench.check import known

LABELS = {"graph": "GRAPH_MODE", "jit_ast": 'jit(capture_mode="ast")',
          "jit_bytecode": 'jit(capture_mode="bytecode")'}  # fmt: skip


def _entry(anchor, outcome, modes, strategies, rule="", shapes=None):
    workload = anchor.split("-")[0]
    return {
        "workload": workload, "anchor": anchor, "title": f"{workload}: {outcome}",
        "outcome": outcome, "rule": rule, "strategies": strategies, "modes": modes,
        "shapes": shapes or {m: ["inline"] for m in modes},
        "example": {"strategy": strategies[0], "shape": "inline", "mode": modes[0]},
        "pair": None, "repro": f"results/{workload}/repros/{anchor}.py", "cells": 1,
    }  # fmt: skip


# root causes as results/causes.json holds them (bench.causes.causes.records), made by hand
CAUSES = [
    {"rank": 1, "title": "GRAPH_MODE: `read=view` — stale read", "entries": [
        _entry("clip-stale-read-read-copy-view-graph-jit-ast", "incorrect: stale read",
               ["graph", "jit_ast"], ["index_add", "slice_index"], "read=view",
               {"graph": ["helper-view-before-expr"], "jit_ast": ["inline-view-before-arg"]})]},
    {"rank": 2, "title": "GRAPH_MODE: `Parameter.set_data` — raises", "entries": [
        _entry("clip-raises-set-data-graph-jit-ast",
               "raises: RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'",
               ["graph", "jit_ast"], ["set_data"])]},
    {"rank": 3, "title": "bytecode: `ops.assign` — write dropped", "entries": [
        _entry("ema-write-dropped-assign-jit-bytecode", "incorrect: write dropped",
               ["jit_bytecode"], ["assign"]),
        _entry("brn-write-dropped-assign-jit-bytecode", "incorrect: write dropped",
               ["jit_bytecode"], ["assign"])]},
    {"rank": 4, "title": "bytecode: `construct=base` — write dropped", "entries": [
        _entry("brn-write-dropped-construct-own-base-jit-bytecode", "incorrect: write dropped",
               ["jit_bytecode"], ["assign_add", "assign_primitive"], "construct=base")]},
    {"rank": 5, "title": "bytecode: `write=depend` — differs between processes", "entries": [
        _entry("ema-differs-between-processes-write-helper-depend-jit-bytecode",
               "incorrect: differs between processes", ["jit_bytecode"],
               ["assign_add", "assign_primitive"], "write=depend")]},
]  # fmt: skip


def src(text):
    return textwrap.dedent(text)


@pytest.mark.parametrize(
    "source, construct, writes",
    [
        (
            """
            class C:
                def construct(self, x):
                    lim = self.limit.reshape(())
                    ops.assign(self.limit, self.limit + 1)
                    return x
            """,
            known.VIEW_READ,
            {"assign"},
        ),
        (
            """
            class C:
                def construct(self, x):
                    x = ops.depend(x, ops.assign_add(self.ema, x))
                    return x
            """,
            known.DEPEND_WRITE,
            {"assign_add"},
        ),
        (
            """
            class C:
                def construct(self, x):
                    self.limit.set_data(x)
                    return x
            """,
            known.SET_DATA,
            {"set_data"},
        ),
        (
            """
            class C:
                def __init__(self):
                    self.assign_op = ops.Assign()
                def construct(self, x):
                    self.limit[...] = x
                    return x
            """,
            None,
            {"assign_primitive", "slice_ellipsis"},
        ),
    ],
)
def test_constructs(source, construct, writes):
    found = known.constructs(src(source), {"limit", "ema"})
    assert found.writes == writes
    assert (list(found.found) == [construct]) if construct else not found.found


def test_a_slice_write_through_a_helper_argument_is_a_slice_write():
    source = src(
        """
        class C:
            def write(self, param, value):
                param[...] = value
        """
    )
    assert known.constructs(source, {"limit"}).writes == {"slice_ellipsis"}


def test_a_view_read_after_the_write_is_not_the_stale_read_construct():
    source = src(
        """
        class C:
            def construct(self, x):
                ops.assign(self.limit, self.limit + 1)
                lim = self.limit.reshape(())
                return x
        """
    )
    assert known.VIEW_READ not in known.constructs(source, {"limit"}).found


def test_findings_are_read_from_the_root_causes_with_their_cause_and_repro():
    found = known.load_findings(CAUSES, LABELS)
    first = found[0]
    assert first.anchor == "clip-stale-read-read-copy-view-graph-jit-ast"
    assert (first.workload, first.outcome, first.rule) == ("clip", "stale read", "read=view")
    assert first.modes == ["graph", "jit_ast"] and first.strategies == ["index_add", "slice_index"]
    assert first.lines[0] == "GRAPH_MODE: 1 shape (`helper-view-before-expr`)"
    assert found[1].outcome.startswith("raises: RuntimeError")
    assert found[1].link == "results/findings.md#clip-raises-set-data-graph-jit-ast"
    assert [f.cause for f in found] == [1, 2, 3, 3, 4, 5]
    assert found[2].cause_title == "bytecode: `ops.assign` — write dropped"
    assert found[3].repro == "results/brn/repros/brn-write-dropped-assign-jit-bytecode.py"


@pytest.mark.parametrize(
    "mode, kind, message, source_constructs, writes, anchors",
    [
        # a view read in GRAPH_MODE: the rule entry
        ("graph", K.STALE_READ, "", {known.VIEW_READ: "l"}, {"assign"},
         ["clip-stale-read-read-copy-view-graph-jit-ast"]),
        # the same kind without the construct: nothing
        ("graph", K.STALE_READ, "", {}, {"assign"}, []),
        # a wrong output with a view read: the view rule (stale at the first call, no earlier
        # state to show it); without the view read: nothing
        ("graph", K.WRONG_OUTPUT, "", {known.VIEW_READ: "l"}, {"assign"},
         ["clip-stale-read-read-copy-view-graph-jit-ast"]),
        ("graph", K.WRONG_OUTPUT, "", {}, {"index_add"}, []),
        # set_data raising in GRAPH_MODE: same exception type
        ("graph", K.RAISES, "RuntimeError: Failed", {}, {"set_data"},
         ["clip-raises-set-data-graph-jit-ast"]),
        ("graph", K.RAISES, "TypeError: x", {}, {"set_data"}, []),
        # a dropped assign under bytecode: one entry of its root cause, brn's before other
        # workloads' (the ema entry of the same cause is not repeated)
        ("jit_bytecode", K.WRITE_DROPPED, "", {}, {"assign"},
         ["brn-write-dropped-assign-jit-bytecode"]),
        # an inherited construct: the rule entry first
        ("jit_bytecode", K.WRITE_DROPPED, "", {known.INHERITED: "x"}, {"assign_primitive"},
         ["brn-write-dropped-construct-own-base-jit-bytecode"]),
        # the wrong mode
        ("graph", K.WRITE_DROPPED, "", {}, {"assign"}, []),
        # a second instance that stops writing, the write inside ops.depend: the depend rule
        ("jit_bytecode", K.SECOND_INSTANCE_ONLY, "", {known.DEPEND_WRITE: "l"}, {"assign_add"},
         ["ema-differs-between-processes-write-helper-depend-jit-bytecode"]),
        ("jit_bytecode", K.SECOND_INSTANCE_ONLY, "", {}, {"assign_add"}, []),
    ],
)  # fmt: skip
def test_match(mode, kind, message, source_constructs, writes, anchors):
    found = known.Constructs(writes=writes, found=source_constructs)
    got = known.match(known.load_findings(CAUSES, LABELS), mode, kind, message, found)
    assert [f.anchor for f in got] == anchors


def test_the_committed_results_parse():
    """The real findings page and summary: every entry has modes, the answer has every mode."""

    # every mode's label: an entry can be of an eager mode only (a write PYNATIVE drops)
    found = known.read_findings()
    assert len(found) >= 10 and all(f.modes for f in found)
    assert all(f.cause and f.cause_title for f in found)
    for f in found:  # every named repro is committed; every anchor is an entry of the page
        assert not f.repro or (known.ROOT / f.repro).is_file(), f.repro
        assert f'<a id="{f.anchor}"></a>' in known.FINDINGS.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "outcome, kind",
    [
        ("stale read at the first 3 calls only", "stale read"),
        ("write dropped in a second instance only", "write dropped"),
        ("stale read", "stale read"),
        ("raises: RuntimeError: x", "raises: RuntimeError: x"),
        ("differs between processes", "differs between processes"),
    ],
)
def test_a_findings_kind_is_read_without_its_qualifier(outcome, kind):
    assert known.kind_of(outcome) == kind


def test_the_write_calls_come_from_the_strategy_files():
    for name, strategy in {
        "add_": "add_",
        "index_copy_": "index_copy_",
        "index_put_": "index_put_",
        "fill_": "fill_",
        "inplace_update_v2": "inplace_update_v2",
        "InplaceUpdateV2": "inplace_update_v2",
        "scatter_update": "scatter_update",
        "ScatterUpdate": "scatter_update",
        "tensor_scatter_update": "tensor_scatter_update",
        "assign": "assign",
        "Assign": "assign_primitive",
        "set_data": "set_data",
        "ScatterNdUpdate": "scatter_nd_update",
    }.items():
        assert known.WRITE_CALLS[name] == strategy, name
    assert "__setitem__" not in known.WRITE_CALLS  # index assignment is syntax


def test_a_new_strategy_is_covered_without_editing_the_check(tmp_path):
    (tmp_path / "new_write.py").write_text(
        'API = "mindspore.ops.NewWrite"\n\nclass Cell:\n    pass\n'
    )
    (tmp_path / "_private.py").write_text('API = "mindspore.ops.hidden"\n')
    calls, primitives = known.write_calls(tmp_path)
    assert calls == {"NewWrite": "new_write", "new_write": "new_write"}
    assert primitives == {"NewWrite": "new_write"}


@pytest.mark.parametrize(
    "line, writes, indexed",
    [
        ("self.p.add_(x)", {"add_"}, set()),
        ("self.cache.index_copy_(2, t, row)", {"index_copy_"}, {"cache"}),
        ("self.p.index_put_((i,), x)", {"index_put_"}, {"p"}),
        ("self.p.fill_(x)", {"fill_"}, set()),
        ("self.up(self.p, i, x)", {"inplace_update_v2"}, set()),  # self.up = ops.InplaceUpdateV2()
        ("ops.scatter_update(self.p, i, x)", {"scatter_update"}, {"p"}),
        ("self.p = ops.tensor_scatter_update(self.p, i, x)", {"tensor_scatter_update", "rebind"},
         {"p"}),
        ("ops.index_add(self.cache, t, row, 2)", {"index_add"}, {"cache"}),
        ("self.cache[:, :, t] = row", {"slice_index"}, {"cache"}),
        ("self.p[...] = x", {"slice_ellipsis"}, set()),
    ],
)  # fmt: skip
def test_the_newer_writes_are_recognised(line, writes, indexed):
    source = src(
        f"""
        class C:
            def __init__(self):
                self.up = ops.InplaceUpdateV2()
            def construct(self, x):
                {line}
                return x
        """
    )
    found = known.constructs(source, {"p", "cache"})
    assert found.writes - {"inplace_update_v2"} == writes - {"inplace_update_v2"}
    assert "inplace_update_v2" in found.writes  # built in __init__: its calls are writes
    assert found.indexed == indexed


def test_the_committed_example_reports_name_the_committed_root_causes():
    """Each committed check report under examples/reports names a root cause by the rank and
    title results/causes.json gives it now (a new short repro's split or merge moves ranks; the
    reports are made again then: ``python -m bench.check examples/X.py:Class --out ...``)."""
    import json

    from bench.core.paths import ROOT

    ranks = {
        c["rank"]: c["title"]
        for c in json.loads((ROOT / "results" / "causes.json").read_text("utf-8"))["causes"]
    }
    named = []

    def walk(x):
        if isinstance(x, dict):
            if "cause" in x and "cause_title" in x:
                named.append((x["cause"], x["cause_title"]))
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    for report in sorted((ROOT / "examples" / "reports").glob("*/report.json")):
        walk(json.loads(report.read_text("utf-8")))
    assert named  # brn_pynative names the causes of its three compiled modes
    assert [(rank, ranks.get(rank)) for rank, _ in named] == named

"""Short phrases, failure classes, declarations to paste, minimal pairs (no MindSpore)."""

from __future__ import annotations

import re

import pandas as pd

from bench.core.schema import Verdict
from bench.report.findings import declarations, failure_class, phrase
from bench.report.pairs import minimal_pairs, rules

DIMS = ("write", "read", "order")


def v(shape: str, status: str, detail: str = "", mode: str = "graph", strategy="api") -> Verdict:
    dims = dict(zip(DIMS, shape.split("-")))
    return Verdict("clip", strategy, shape, mode, status, detail, dims=dims)


def test_phrases_are_short_and_name_the_finding():
    assert phrase(v("inline-param-after", "works")) == "works"
    unchanged = v("a-b-c", "incorrect", "Parameter unchanged after step 1 at batch 4: limit = 1")
    assert phrase(unchanged) == "SILENT: Parameter unchanged"
    raised = v("a-b-c", "raises", "step 1 at batch 4: RuntimeError: Failed to compile | really")
    assert phrase(raised) == "raises RuntimeError"
    assert failure_class(raised) == "raises: RuntimeError: Failed to compile | really"
    crashed = v("a-b-c", "crashed", "the gate's process died with SIGSEGV")
    assert phrase(crashed) == "crashes (SIGSEGV)"


def _shapes():
    return [
        f"{w}-{r}-{o}"
        for w in ("inline", "helper")
        for r in ("param", "alias")
        for o in ("after", "before")
    ]


def test_declarations_cover_exactly_the_failures_and_escape_them():
    found = []
    for s in _shapes():
        if s.startswith("helper"):  # every helper shape crashes in one mode
            found.append(v(s, "crashed", "died with SIGSEGV", mode="jit_bytecode"))
        else:
            found.append(v(s, "works", mode="jit_bytecode"))
        error = "step 1 at batch 4: RuntimeError: the 'Parameter' (x) is not supported"
        found.append(v(s, "raises", error, mode="graph"))  # every shape raises in another
    declared = declarations(found)
    assert declared == {
        "clip/*/graph": r"RuntimeError: the 'Parameter' \(x\) is not supported",
        "clip/helper-*-*/jit_bytecode": "crashed",
    }
    for verdict in found:
        if verdict.status.failed:
            key = next(k for k in declared if k.endswith(verdict.mode))
            assert re.search(declared[key], verdict.finding), (key, verdict.finding)


def test_minimal_pairs_count_how_often_a_change_flips_the_verdict():
    rows = []
    for s in _shapes():
        w, r, o = s.split("-")
        bad = o == "before" and r == "alias"  # only one combination fails
        rows.append(
            {
                "workload": "clip",
                "strategy": "api",
                "shape": s,
                "mode": "graph",
                "status": "incorrect" if bad else "works",
                "failure": "incorrect: wrong output" if bad else "",
                "dims": dict(zip(DIMS, (w, r, o))),
            }
        )
    pairs = minimal_pairs(pd.DataFrame(rows))
    order = pairs[pairs.dim == "order"].iloc[0]
    assert (order.works_value, order.fails_value, order.pairs, order["of"]) == (
        "after",
        "before",
        2,
        4,
    )
    read = pairs[pairs.dim == "read"].iloc[0]
    assert (read.works_value, read.fails_value, read.pairs, read["of"]) == ("param", "alias", 2, 4)
    assert "write" not in set(pairs.dim)  # changing the write's place never changes the verdict
    assert not rules(pairs).consistent.any()  # each flip holds only with the other change

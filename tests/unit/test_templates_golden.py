"""Each page template (``bench/report/templates/``) and one golden rendering of it, from hand-made
data that takes every branch: a changed word shows as a diff of the golden file, reviewed before
it is committed. ``BENCH_WRITE_GOLDEN=1`` writes the files instead (then read them). README's
first screen and answer block have theirs in ``test_decisions.py``. No run, no MindSpore."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace as NS

import pytest

from bench.core.schema import NETWORK_ONLY, SECOND_ONLY, THIRD_ONLY
from bench.decide.answer import Crossover, Reason
from bench.decide.decisions import Cost
from bench.report import templating
from bench.report.summary import AnswerRow

GOLDEN = Path(__file__).parents[1] / "fixtures" / "golden"
US = 1e-6


def _check(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("BENCH_WRITE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name}: the template renders otherwise"


def _workload_answer() -> str:
    cost = Cost("brn", 1, "batch size", added_s=7 * US, low_s=4 * US, high_s=10 * US, ratio=1.04)
    free = Cost("brn", 64, "batch size", added_s=1 * US, low_s=-2 * US, high_s=3 * US, step_s=1e-4)
    rows = [
        AnswerRow("graph", "prim", Reason("open", rivals=(("a", "brn"),)), decided=False,
                  link="../summary.md#answer-small-graph", doc_note="deprecated in 2.9",
                  alone=("a", "equivalent"), crossings=(Crossover("b", (1,), (64,)),),
                  costs=(cost, free), not_slower=("a", "b"), works=48, shapes=50,
                  fails=(("silently wrong: stale read", 2),), equivalent=("a", "prim"),
                  undetermined=("b",)),
        AnswerRow("pynative", "set_data", costs=(Cost("brn", 0, "", timed=False),), works=1,
                  shapes=1),
        AnswerRow("jit_ast", "prim", costs=(cost,), works=50, shapes=50, alone=("c", "slower")),
        AnswerRow("jit_bytecode", None, Reason("no_candidate"), alone=("a", "fastest")),
        AnswerRow("pynative_blocking", None, no_choice=True),
    ]  # fmt: skip
    return templating.render("workload_answer.md.j2", data=rows, kind="small",
                             workloads=("clip", "brn"), symbol="N", scope="the common shapes",
                             as_fast=("fastest", "equivalent", "faster"))  # fmt: skip


def _entries() -> list[str]:
    one = {"anchor": "brn-stale-read", "workload": "brn", "title": "stale read at the first "
           "call only: `assign`", "mindspore": "2.10.0", "eager": False,
           "where": [("graph", 2, ["helper-*", "inline-view"]), ("jit_ast", 1, ["depend"])],
           "strategies": ["assign", "assign_add"], "calls": "at the first call only",
           "kind": "stale read", "silent": True, "reading": "the limit read before the write",
           "observed": ["- **observed** in `assign` `depend` GRAPH_MODE: stale read at step 1:",
                        "  - r_max = 1, the code writes 1.25"],
           "pair": {"strategy": "assign", "mode": "graph", "good": "inline", "bad": "helper",
                    "good_link": "repros/g.py", "bad_link": "repros/b.py", "breaks": (0, 2)},
           "link": None, "documented": {"": "not found"}}  # fmt: skip
    two = {**one, "anchor": "ema-raises", "workload": "ema", "eager": True,
           "where": [("pynative", 1, ["inline"])], "calls": SECOND_ONLY, "kind": "",
           "silent": False, "reading": None, "pair": None, "link": "repros/x.py",
           "documented": {"PYNATIVE_MODE": "no", "GRAPH_MODE": "yes: the API page"}}  # fmt: skip
    three = {**two, "anchor": "kv", "calls": "", "link": None, "documented": {"": "n/a"}}
    return [
        templating.render(
            "findings_entry.md.j2", e=e, second=SECOND_ONLY, third=THIRD_ONLY, network=NETWORK_ONLY
        )
        for e in (one, two, three)
    ]


def test_the_workload_answer_table_has_one_golden_rendering():
    _check("workload_answer.md", _workload_answer())


def test_a_findings_entry_has_one_golden_rendering():
    _check("findings_entry.md", "\n---\n".join(_entries()))


def test_the_findings_page_has_one_golden_rendering():
    entries = [e.split("\n") for e in _entries()]
    text = templating.render("findings.md.j2", table=["| # | cause |", "|---|---|", "| 1 | x |"],
                             entries=entries)  # fmt: skip
    _check("findings.md", text)


@pytest.mark.parametrize("more", [False, True])
def test_the_summary_page_has_one_golden_rendering(more):
    """Without findings, a spread between runs or a resumed run; then with each."""
    entry = NS(title="write dropped", slug="brn-add", modes=["graph"], eager=True)
    run = ["brn", "`r1`", "default", "`nox -s bench`", "`abc`", "9.5 min", 2 if more else 1, "1.2"]
    text = templating.render(
        "summary.md.j2", original_report="a `set_data` that fails", answers=["A1", "", "A2"],
        kinds=(["mode", "works", "cells"], [["GRAPH_MODE", "3", "4"]]),
        entries=[("brn", entry)] if more else [],
        candidates=[("graph", ["strategy", "brn", "documented"], [["`a`", "fastest", "CPU"]])],
        names=["brn"], calibration=([["GRAPH_MODE", "9/10 (90%)", "9/10"]], [["GRAPH_MODE", "τ"]]),
        between_runs=[["GRAPH_MODE", "a write's cost", "±1.0%", "3"]] if more else [],
        workloads=[("the clip", "clip/summary.md")], provenance=[run],
    )  # fmt: skip
    _check(f"summary{'_more' if more else ''}.md", text)


@pytest.mark.parametrize("problems", [[], ["a timing file is damaged"]])
def test_a_workload_page_has_one_golden_rendering(problems):
    entry = NS(title="write dropped: `add_`", slug="brn-add", strategies=["add_"],
               modes=["pynative", "jit_ast"], eager=False)  # fmt: skip
    text = templating.render(
        "workload.md.j2", title="Batch Renormalization", provenance_line="- Run `r1`.\n- x.",
        pages={"shapes": "shapes.md", "findings": "../findings.md"}, kind="small",
        workloads=("clip", "brn"), margin="2 % of the step, at least 5 µs", symbol="N",
        size="the batch size", answer_lines=_workload_answer().split("\n"),
        by_kind=["| mode |", ""], intent=[], entries=[entry] if problems else [],
        support=["| s |", ""], per_mode="### GRAPH_MODE\n\n| c |\n\n",
        sections=(("Twins checked", "t\n\n"), ("Layout", "")), errors=["none", ""],
        provenance=["| run |", ""], plots=["../../plots/brn/added.png"], problems=problems,
    )  # fmt: skip
    _check(f"workload{'_problems' if problems else ''}.md", text)


def test_the_cost_sections_have_one_golden_rendering():
    """Every macro of ``costs.md.j2`` with and without its cells: a distribution mode with a
    biased size and a step faster than without the write, an eager one without either; an
    invalid twin and none; the bandwidth floor's points."""
    macros = templating.env().get_template("costs.md.j2").module
    view = dict(head=["strategy (shape)", "N=1"], rows=[["`a` (`s`)", "x"]])
    bw = {"repeats": 3, "llc_bytes": 2**25, "points": [
        {"array_bytes": 2**26, "copy_GBs": 9.5, "triad_GBs": 10.1}]}  # fmt: skip
    modes = [
        dict(view, mode="pynative", dist=True, flagged=[1, 64], faster=True),
        dict(view, mode="graph", dist=False, flagged=[], faster=False),
        dict(view, mode="jit_ast", dist=False, flagged=[64], faster=False),
    ]
    parts = [
        macros.per_mode(modes, "N"),
        macros.twins([["GRAPH_MODE", "`t`", "slower than its subjects"]]),
        macros.twins([]),
        macros.calibration(["mode", "N=1"], [["GRAPH_MODE", "×1.00 [0.98, 1.02]"]], "2 %"),
        macros.calibration(["mode"], [], "2 %"),
        macros.big_state(bw, [dict(view, mode="graph")]),
        macros.big_state(None, []),
        macros.layout([dict(view, mode="graph")]),
        macros.screen([["GRAPH_MODE", "`a`", "`s`", "the simplest read", "×1.01–×1.02"]]),
        macros.first_call(["strategy", "GRAPH_MODE"], [["`a`", "1.2 s"]]),
        macros.first_call(["strategy"], []),
    ]
    _check("costs.md", "<!-- next -->\n".join(map(str, parts)))


@pytest.mark.parametrize("problems", [[], ["r9: written by an older suite"]])
def test_the_releases_page_has_one_golden_rendering(problems):
    """Two workloads: one gated on two releases with a changed row and a finding, one gated on
    one release (no comparison); an older run named under the provenance when there is one."""
    two = dict(name="brn", have=["2.8.0", "2.10.0"], not_gated=["2.9.0"], total=3, differ=1,
               several=9, changes=[["`a`", "GRAPH_MODE", "works (2/2)", "works 1/2 · x 1"]],
               found=[["[x](findings.md#x)", "no (0 of 1)", "yes (1 of 1)"]])  # fmt: skip
    one = dict(name="clip", have=["2.10.0"], not_gated=["2.8.0", "2.9.0"], total=1, differ=0,
               several=0, changes=[], found=[])  # fmt: skip
    same = dict(two, name="ema", changes=[], found=[])
    text = templating.render(
        "releases.md.j2", versions=["2.8.0", "2.9.0", "2.10.0"], workloads=[two, one, same],
        provenance=[["2.10.0", "brn", "`r1`", "default", "abc", "`nox -s bench`"]],
        problems=problems,
    )  # fmt: skip
    _check(f"releases{'_problems' if problems else ''}.md", text)


def test_the_instances_page_has_one_golden_rendering():
    head = ["mode", "fails in a second instance only", "silent failures at the first call(s) only"]
    tables = [("brn", "r1", head, [["GRAPH_MODE", "not run", "0 of 3"]]),
              ("clip", "r2", head, [["GRAPH_MODE", "1 of 40", "2 of 9"]])]  # fmt: skip
    _check("instances.md", templating.render("instances.md.j2", tables=tables))


def test_the_check_tools_answer_avoid_and_exception_have_one_golden_rendering():
    """``check_answer.md.j2`` (no answer; a decided one with its cost; an undecided one without a
    snippet in a distribution mode), ``check_avoid.md.j2`` (two strategies sharing an API, and
    more than shown) and ``check_except.md.j2``."""
    from bench.decide.decisions import Failure

    cost = Cost("brn", 1024, "batch size", added_s=7 * US, low_s=4 * US, high_s=10 * US,
                ratio=1.04)  # fmt: skip
    base = dict(mode="graph", write="ops.Assign", cost=cost, decided=True, snippet=["x"],
                description="d", reason=Reason())  # fmt: skip
    open_ = Reason("open", rivals=(("a", "brn"),))
    undecided = {"decided": False, "snippet": [], "cost": None, "mode": "pynative"}
    answers = [
        NS(**{**base, "write": None, "reason": open_}),
        NS(**base),
        NS(**{**base, **undecided, "reason": open_}),
    ]
    texts = [
        templating.render("check_answer.md.j2", d=d, drain=d.mode == "pynative") for d in answers
    ]
    avoid = (Failure("set_data", "mindspore.Parameter.set_data", 0, 50, "raises"),
             Failure("host", "mindspore.Parameter.set_data", 10, 50, "stale read"),
             Failure("add_", "mindspore.Tensor.add_", 0, 50, "write dropped"))  # fmt: skip
    texts.append(templating.render("check_avoid.md.j2", d=NS(avoid=avoid), shown=2))
    f = Failure("assign", "mindspore.ops.assign", 48, 50, "stale read", ("clip:a", "brn:b"))
    texts.append(templating.render("check_except.md.j2", f=f))
    _check("check.md", "\n<!-- next -->\n".join(texts))

"""What README's first screen decides (bench/report/decisions.py): hand-made verdict tables and
decisions, and the committed decisions file against the pinned references."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from bench.report import decisions
from bench.report.decisions import Decision, Failure


def _run(kind: str, rows: list[tuple[str, str, str, str, str]], apis: dict) -> SimpleNamespace:
    """A run of a workload of ``kind`` with verdict rows (strategy, shape, mode, label, kind)."""
    verdicts = pd.DataFrame(rows, columns=["strategy", "shape", "mode", "label", "kind"])
    return SimpleNamespace(
        work=SimpleNamespace(state_kind=kind, name=kind),
        modes=sorted(set(verdicts["mode"])),
        verdicts=verdicts,
        manifest=SimpleNamespace(strategies={s: {"api": a} for s, a in apis.items()}),
    )


APIS = {"assign": "mindspore.ops.assign", "prim": "mindspore.ops.Assign", "set_data": "x.set_data"}


def test_a_failure_counts_the_kinds_shapes_in_one_mode_and_names_what_goes_wrong_most():
    runs = {
        "clip": _run(
            "small",
            [
                ("assign", "a", "jit_bytecode", "silently wrong", "write dropped"),
                ("assign", "b", "jit_bytecode", "silently wrong", "write dropped"),
                ("assign", "c", "jit_bytecode", "crashes", ""),
                ("assign", "d", "jit_bytecode", "n/a", ""),  # cannot be written: not counted
                ("assign", "a", "graph", "works", ""),
            ],
            APIS,
        ),
        "kv": _run("rows", [("assign", "a", "jit_bytecode", "works", "")], APIS),  # other kind
    }
    f = decisions._failure(runs, "small", "jit_bytecode", "assign")
    assert (f.works, f.gated, f.what, f.api) == (0, 3, "write dropped", "mindspore.ops.assign")
    assert f.shapes == ("clip:a", "clip:b", "clip:c")
    g = decisions._failure(runs, "small", "graph", "assign")
    assert (g.works, g.gated, g.what, g.shapes) == (1, 1, "", ())


def test_the_apis_users_try_first_are_listed_first():
    runs = {
        "clip": _run(
            "small",
            [(s, "a", "graph", "works", "") for s in ("zzz", "assign", "set_data", "control")],
            APIS,
        )
    }
    assert decisions._strategies(runs, "small") == ["set_data", "assign", "zzz"]


def _d(**changes) -> Decision:
    base = {"kind": "small", "mode": "graph", "write": "prim", "api": "mindspore.ops.Assign",
            "decided": True, "why": "", "cost": "+1 µs at N=8 (clip)"}  # fmt: skip
    return Decision(**{**base, **changes})


def test_the_first_screen_says_write_exceptions_avoid_and_cost_in_one_row_each():
    avoid = tuple(Failure(f"s{i}", f"mindspore.ops.s{i}", 0, 4, "raises") for i in range(6))
    near = Failure("assign_add", "mindspore.ops.assign_add", 46, 50, "write dropped", ("c:x",) * 4)
    rows = decisions.first_screen(
        [
            _d(avoid=avoid[:2]),
            _d(
                decided=False,
                nearest=Failure("prim", "mindspore.ops.Assign", 48, 50, "stale", ("c:a", "c:b")),
            ),
            _d(mode="jit_bytecode", write=None, api="", cost="", nearest=near, avoid=avoid),
        ]
    )
    assert rows[2] == (
        "| replace a small Parameter | GRAPH_MODE | `ops.Assign` | `ops.s0` (raises), "
        "`ops.s1` (raises) | +1 µs at N=8 (clip) |"
    )
    assert "`ops.Assign` (not decided); fails in 2 of 50 shapes" in rows[3]
    assert "none correct in the common shapes; nearest `ops.assign_add`: 46 of 50 shapes" in rows[4]
    assert "`ops.s3` (raises), 2 more | – |" in rows[4]
    host = decisions.first_screen(
        [_d(write="host_ema", api="mindspore.Parameter.set_data", host=True)]
    )[2]
    assert "`host_ema`: host-side code, then `Parameter.set_data`" in host
    twice = (
        Failure("set_data", "a.set_data", 0, 2, "raises"),
        Failure("rebind", "a.set_data", 0, 2, "raises"),
    )
    row = decisions.first_screen([_d(avoid=twice)])[2]
    assert "`a.set_data` as `set_data` (raises), `a.set_data` as `rebind` (raises)" in row


def test_decisions_round_trip_through_their_file():
    made = [
        _d(avoid=(Failure("set_data", "x", 0, 3, "raises", ("a:b",)),)),
        _d(write=None, nearest=Failure("p", "q", 1, 2, "stale read", ("a:c",))),
    ]
    runs = {"clip": SimpleNamespace(manifest=SimpleNamespace(run_id="r1"),
                                    environment={"mindspore": "2.10.0"})}  # fmt: skip
    assert decisions.from_json(decisions.to_json(made, runs)) == made


def test_the_committed_decisions_are_what_the_pinned_references_decide():
    from bench.core.paths import RESULTS_DIR
    from bench.report import overview, readme

    runs = overview.reference_runs()
    made = decisions.decide(runs, readme.kind_answers(runs))
    assert (RESULTS_DIR / "decisions.json").read_text() == decisions.to_json(made, runs)
    by = {(d.kind, d.mode): d for d in made}
    # the API users try first silently drops the write under bytecode: it is on the avoid list
    bytecode = {f.strategy: f for f in by[("small", "jit_bytecode")].avoid}
    assert bytecode["assign"].what == "write dropped"
    assert bytecode["assign"].works * 10 <= bytecode["assign"].gated  # wrong in 90 % or more
    # and set_data, the original report's call, is avoided in GRAPH_MODE because it raises
    assert {f.strategy: f.what for f in by[("small", "graph")].avoid}["set_data"] == "raises"


def test_a_schema_1_decisions_file_reads_with_the_bounds_empty():
    """Schema 2 added the bounds and the resolution: a file written before reads with them
    empty; a version this suite does not know is refused."""
    import json

    from bench.report import decisions

    old = {
        "schema_version": 1,
        "decisions": [
            {"kind": "small", "mode": "graph", "write": "assign", "api": "mindspore.ops.assign",
             "decided": True, "why": "", "cost": "", "nearest": None, "avoid": [], "host": False}
        ],
    }  # fmt: skip
    (made,) = decisions.from_json(json.dumps(old))
    assert made.write == "assign" and made.over_best is None
    assert made.not_slower == () and made.resolution is None
    with pytest.raises(ValueError, match="schema_version 3"):
        decisions.from_json(json.dumps({**old, "schema_version": 3}))

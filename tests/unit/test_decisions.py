"""What README's first screen decides (bench/decide/decisions.py): hand-made verdict tables and
decisions, and the committed decisions file against the pinned references."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from bench.decide import decisions
from bench.decide.answer import Reason
from bench.decide.decisions import Cost, Decision, Failure
from bench.report import readme
from bench.report.templating import reason_words


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


COST = Cost("clip", 8, "batch size", added_s=1e-6, low_s=5e-7, high_s=1.5e-6, ratio=1.1)


def _d(**changes) -> Decision:
    base = {"kind": "small", "mode": "graph", "write": "prim", "api": "mindspore.ops.Assign",
            "decided": True, "reason": Reason(), "cost": COST}  # fmt: skip
    return Decision(**{**base, **changes})


def test_the_first_screen_says_write_exceptions_avoid_and_cost_in_one_row_each():
    avoid = tuple(Failure(f"s{i}", f"mindspore.ops.s{i}", 0, 4, "raises") for i in range(6))
    near = Failure("assign_add", "mindspore.ops.assign_add", 46, 50, "write dropped", ("c:x",) * 4)
    rows = readme.first_screen(
        [
            _d(avoid=avoid[:2]),
            _d(
                decided=False,
                nearest=Failure("prim", "mindspore.ops.Assign", 48, 50, "stale", ("c:a", "c:b")),
            ),
            _d(mode="jit_bytecode", write=None, api="", cost=None, nearest=near, avoid=avoid),
        ]
    )
    assert rows[2] == (
        "| replace a small Parameter | GRAPH_MODE | `ops.Assign` | `ops.s0` (raises), "
        "`ops.s1` (raises) | +1.00 µs [+0.50, +1.50] a step (+10 %) at 8 (batch size; clip) |"
    )
    assert "`ops.Assign` (not decided); fails in 2 of 50 shapes" in rows[3]
    assert "none correct in the common shapes; nearest `ops.assign_add`: 46 of 50 shapes" in rows[4]
    assert "`ops.s3` (raises), 2 more | – |" in rows[4]
    host = readme.first_screen(
        [_d(write="host_ema", api="mindspore.Parameter.set_data", host=True)]
    )[2]
    assert "`host_ema`: host-side code, then `Parameter.set_data`" in host
    twice = (
        Failure("set_data", "a.set_data", 0, 2, "raises"),
        Failure("rebind", "a.set_data", 0, 2, "raises"),
    )
    row = readme.first_screen([_d(avoid=twice)])[2]
    assert "`a.set_data` as `set_data` (raises), `a.set_data` as `rebind` (raises)" in row


def test_decisions_round_trip_through_their_file():
    made = [
        _d(avoid=(Failure("set_data", "x", 0, 3, "raises", ("a:b",)),)),
        _d(write=None, nearest=Failure("p", "q", 1, 2, "stale read", ("a:c",))),
    ]
    runs = {"clip": SimpleNamespace(manifest=SimpleNamespace(run_id="r1"),
                                    environment={"mindspore": "2.10.0"})}  # fmt: skip
    assert decisions.from_json(decisions.to_json(made, runs)) == made


def test_a_cost_and_a_reason_are_data_and_a_non_finite_number_is_null():
    import json
    import math

    invalid = Cost("ema", 10_000_000, "number of weight elements", twin_invalid=True)
    why = Reason("slower_in", ("brn",), (("assign", "brn"),), deprecated=True)
    made = [_d(cost=invalid, reason=why, decided=False), _d(cost=Cost("kv", 0, "", timed=False))]
    runs = {"clip": SimpleNamespace(manifest=SimpleNamespace(run_id="r1"),
                                    environment={"mindspore": "2.10.0"})}  # fmt: skip
    text = decisions.to_json(made, runs)
    data = json.loads(text)  # strict JSON: no NaN
    first = data["decisions"][0]
    assert first["cost"]["added_s"] is None and first["cost"]["twin_invalid"] is True
    assert first["reason"] == {"code": "slower_in", "where": ["brn"],
                               "rivals": [["assign", "brn"]], "deprecated": True}  # fmt: skip
    assert "why" not in first  # no sentence: the words are the templates'
    assert {k for k, v in first["cost"].items() if isinstance(v, str)} == {"workload", "size_term"}
    back = decisions.from_json(text)
    assert back[0].reason == why and math.isnan(back[0].cost.added_s)
    assert back[0].cost.twin_invalid and back[1].cost.timed is False


def test_the_words_of_a_reason_come_from_its_template():
    assert reason_words(Reason()) == ""
    assert reason_words(Reason("open")) == (
        "whether another candidate is faster by more than the margin is not known yet"
    )
    assert reason_words(Reason("slower_in", ("brn", "clip"), (("assign", "brn"),))) == (
        "slower than another candidate at some size in brn, clip "
        "(the fastest candidate: `assign` in brn)"
    )
    assert reason_words(Reason("not_timed_in", ("kvcache",))) == "not timed in kvcache"
    assert reason_words(Reason(rivals=(("a", "x"), ("b", "y")))) == (
        "(the fastest candidate: `a` in x, `b` in y)"
    )
    assert reason_words(Reason("open", deprecated=True)).endswith(
        "not known yet; deprecated: no current API is correct here"
    )
    assert reason_words(Reason(deprecated=True)) == "deprecated: no current API is correct here"


def test_the_first_screen_template_has_one_golden_rendering():
    """The template's whole output for a fixed set of decisions (tests/fixtures/golden/)."""
    from pathlib import Path

    golden = Path(__file__).parents[1] / "fixtures" / "golden" / "first_screen.md"
    avoid = (
        Failure("set_data", "mindspore.Parameter.set_data", 0, 50, "raises"),
        Failure("rebind", "mindspore.Parameter.set_data", 0, 50, "raises"),
        Failure("assign", "mindspore.ops.assign", 2, 50, "write dropped"),
    )
    near = Failure("prim", "mindspore.ops.Assign", 48, 50, "stale read", ("clip:a", "clip:b"))
    pn = Cost("brn", 1024, "batch size", added_s=4e-4, low_s=8e-5, high_s=7.8e-4, ratio=1.21,
              quartiles=(1e-4, 3e-4, 6e-4), rounds=24)  # fmt: skip
    free = Cost("brn", 1024, "batch size", added_s=1e-6, low_s=-5e-7, high_s=2.5e-6, ratio=1.002,
                step_s=5e-4)  # fmt: skip
    made = [
        _d(avoid=avoid, nearest=near, decided=False, reason=Reason("open")),
        _d(mode="jit_ast", cost=free),
        _d(mode="pynative", write="set_data", api="mindspore.Parameter.set_data", cost=pn),
        _d(
            mode="jit_ast",
            write="host_ema",
            api="mindspore.Parameter.set_data",
            host=True,
            cost=Cost("ema", 10_000_000, "number of weight elements", twin_invalid=True),
        ),
        _d(mode="jit_bytecode", write=None, api="", cost=None, nearest=near, avoid=avoid[:1]),
        _d(
            kind="rows",
            write="index_add",
            api="mindspore.ops.index_add",
            cost=Cost("kvcache", 0, "", timed=False),
        ),
    ]
    got = "\n".join(readme.first_screen(made, shown=2)) + "\n"
    assert got == golden.read_text(encoding="utf-8")


def same_json(a: str, b: str) -> bool:
    """Two JSON texts with the same structure, strings, ints and keys, and floats equal to 1e-9
    relative: numpy picks its exp and log kernels by the CPU's instruction set (AVX-512 or not),
    which changes a full-precision float's last digit between machines (as
    ``test_committed.same_table`` for the CSVs)."""
    import json
    import math

    def same(x, y) -> bool:
        if isinstance(x, float) or isinstance(y, float):
            if isinstance(x, bool) or isinstance(y, bool):
                return False
            if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
                return False
            return math.isclose(x, y, rel_tol=1e-9, abs_tol=0.0) or x == y
        if isinstance(x, dict) and isinstance(y, dict):
            return list(x) == list(y) and all(same(x[k], y[k]) for k in x)
        if isinstance(x, list) and isinstance(y, list):
            return len(x) == len(y) and all(map(same, x, y))
        return type(x) is type(y) and x == y

    return same(json.loads(a), json.loads(b))


def test_same_json_takes_a_floats_last_digits_as_noise_and_nothing_else():
    base = '{"a": [1.0807385645699061, 2, "works", true, null], "b": {"c": 0.0}}'
    assert same_json(base, base.replace("99061", "99064"))
    assert not same_json(base, base.replace("1.08073", "1.08074"))  # its 6th digit
    assert not same_json(base, base.replace('"works"', '"raises"'))
    assert not same_json(base, base.replace(" 2,", " 3,"))
    assert not same_json(base, base.replace("true", "false"))
    assert not same_json(base, base.replace('"c": 0.0', '"d": 0.0'))
    assert not same_json(base, base.replace("null", "1.0"))
    assert not same_json(base, base.replace(", null]", "]"))


def test_the_committed_decisions_are_what_the_pinned_references_decide():
    from bench.core.paths import RESULTS_DIR
    from bench.decide import provenance
    from bench.report import readme

    runs = provenance.reference_runs()
    made = decisions.decide(runs, readme.kind_answers(runs))
    assert same_json((RESULTS_DIR / "decisions.json").read_text(), decisions.to_json(made, runs))
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

    from bench.decide import decisions

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
    assert made.reason == Reason() and made.cost is None
    two = {**old, "schema_version": 2}
    two["decisions"][0]["cost"] = "+1 µs at N=8 (clip)"  # English: read as no cost
    (made,) = decisions.from_json(json.dumps(two))
    assert made.cost is None and made.reason == Reason()
    with pytest.raises(ValueError, match="schema_version 99"):
        decisions.from_json(json.dumps({**old, "schema_version": 99}))


def test_the_answers_template_has_one_golden_rendering():
    """README's and summary.md's answer block (``readme.answer_lines``) for fixed decisions: two
    kinds, a decided write and an open one, costs at both ends (one faster than without its
    write, one every size's twin invalid), rivals in sentences of three, crossings in two
    workloads, a mode with no answer, a host-side write, the diagnostic mode left out."""
    from pathlib import Path

    from bench.decide.answer import Bound
    from bench.decide.decisions import Crossing

    golden = Path(__file__).parents[1] / "fixtures" / "golden" / "answers.md"
    snippet = ("```python", "from mindspore import ops", "", "self.op(self.r_max, new)", "```")
    small = {"kind": "small", "where": "brn", "workloads": ("clip", "brn")}
    two = (
        Cost("brn", 1, "batch size", added_s=1.4e-5, low_s=1e-6, high_s=2.7e-5, ratio=1.04),
        Cost("brn", 1024, "batch size", added_s=1e-4, low_s=-2e-4, high_s=1.96e-3, step_s=5.79e-2),
    )
    faster = Cost("brn", 1, "batch size", added_s=-3e-5, low_s=-5e-5, high_s=-1e-5, ratio=0.9)
    pn = Cost("brn", 1024, "batch size", added_s=4e-4, low_s=8e-5, high_s=7.8e-4, ratio=1.21,
              quartiles=(1e-4, 3e-4, 6e-4), rounds=24)  # fmt: skip
    invalid = Cost("ema", 1, "", twin_invalid=True), Cost("ema", 9, "", twin_invalid=True)
    rivals = tuple((s, Bound(1024, 3.45e-3, 0.06) if s != "c" else None) for s in "abcd")
    made = [
        _d(**small, decided=False, reason=Reason("open", rivals=(("a", "brn"),)), costs=two,
           over_best=Bound(1024, 3.45e-3, 0.06), not_slower=rivals, resolution=0.034,
           snippet=snippet),
        _d(**small, mode="pynative", write="set_data", costs=(faster, pn), snippet=snippet,
           crossings=(Crossing("brn", "a", (1,), (1024,)), Crossing("clip", "b", (8,), (1, 64)))),
        _d(**small, mode="jit_bytecode", write=None, reason=Reason("no_candidate")),
        _d(**small, mode="jit_ast", write="host_ema", snippet=(), costs=invalid,
           description="the host writes the weights' average after each step"),
        _d(**small, mode="pynative_blocking", diagnostic=True),
        _d(kind="rows", where="kvcache", workloads=("kvcache",), write="index_add",
           costs=(Cost("kvcache", 0, "", timed=False),), snippet=snippet),
    ]  # fmt: skip
    got = "\n".join(readme.answer_lines(made, {"brn": "r1", "kvcache": "r2"}, "results/")) + "\n"
    assert got == golden.read_text(encoding="utf-8")


def test_the_committed_decisions_file_follows_its_json_schema():
    """results/decisions.json against its committed JSON Schema (Draft 2020-12): codes, names
    and numbers only; a reason in English (or an unknown code) or a field the schema does not
    know is refused."""
    import copy
    import json

    import jsonschema

    from bench.core.paths import RESULTS_DIR

    schema = json.loads(decisions.SCHEMA_FILE.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    data = json.loads((RESULTS_DIR / "decisions.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)
    assert data["schema_version"] == decisions.SCHEMA_VERSION
    english = copy.deepcopy(data)
    english["decisions"][0]["reason"]["code"] = "an interval straddles the margin"
    extra = copy.deepcopy(data)
    extra["decisions"][0]["why"] = "the simplest candidate"
    for bad in (english, extra):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema, cls=jsonschema.Draft202012Validator)

"""bench.run.screen_cache: a run that does not screen (--quick) reuses the screen of identical
code from another run, on hand-made runs (no MindSpore)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from bench.core.rundir import RunDir
from bench.core.schema import SCHEMA_VERSION
from bench.run import screen_cache, select
from bench.run.screen_cache import Screened

BASE = ("control", "scalar")
VIEW, DIRECT = [1.0, 1.02, 0.99, 1.01], [30.0, 31.0, 29.5, 30.5]
# this run's gate keys: two strategies with two reads each, and the base twin
KEYS = {
    ("index_add", "param", "graph"): "k-ia-param",
    ("index_add", "view", "graph"): "k-ia-view",
    ("assign", "param", "graph"): "k-as-param",
    ("assign", "view", "graph"): "k-as-view",
    (*BASE, "graph"): "k-base",
}
WANTED = {"index_add": ["param", "view"], "assign": ["param", "view"]}


def row(strategy, shape, ratios, control="control/scalar"):
    return {"strategy": strategy, "shape": shape, "control": control, "ratios": ratios}


def screened(run_id, keys=None, rows=None, mode="graph"):
    rows = rows if rows is not None else [
        row("index_add", "param", DIRECT), row("index_add", "view", VIEW),
        row("assign", "param", VIEW), row("assign", "view", VIEW),
    ]  # fmt: skip
    return Screened(run_id, dict(KEYS if keys is None else keys), {mode: rows})


def test_identical_code_reuses_the_screen_and_names_its_run():
    got = screen_cache.reusable([screened("r1")], KEYS, "graph", WANTED)
    assert got == {
        "index_add": ({"param": DIRECT, "view": VIEW}, "r1"),
        "assign": ({"param": VIEW, "view": VIEW}, "r1"),
    }
    # and the choice it leads to is the screen's: the view, 30× cheaper than the direct read
    shapes = [SimpleNamespace(shape="param", read="direct", rank=0),
              SimpleNamespace(shape="view", read="view", rank=1)]  # fmt: skip
    rows, _ = got["index_add"]
    assert select.choose(shapes, rows, lambda v: v.rank, lambda v: v.read)[0] == "view"


@pytest.mark.parametrize(
    "changed",
    [
        ("index_add", "view", "graph"),  # a screened shape's code (or release, or gate) differs
        (*BASE, "graph"),  # the base twin the ratios are relative to differs
    ],
)
def test_code_that_differs_is_not_reused(changed):
    other = {**KEYS, changed: "something else"}
    got = screen_cache.reusable([screened("r1", keys=other)], KEYS, "graph", WANTED)
    if changed[0] == "index_add":
        assert "index_add" not in got and "assign" in got
    else:
        assert got == {}


def test_a_key_this_run_does_not_have_is_never_a_match():
    """No key here (a shape gated without one) and none there must not count as the same."""
    here = {k: v for k, v in KEYS.items() if k != ("assign", "view", "graph")}
    there = dict(here)
    got = screen_cache.reusable([screened("r1", keys=there)], here, "graph", WANTED)
    assert "assign" not in got and "index_add" in got


def test_a_partial_screen_is_not_reused():
    """One cost class missing, or screened without ratios (it failed): the choice would be made
    among some of the reads only, so the strategy is timed in its simplest shape instead."""
    rows = [row("index_add", "param", DIRECT), row("index_add", "view", []),
            row("assign", "param", VIEW)]  # fmt: skip
    assert screen_cache.reusable([screened("r1", rows=rows)], KEYS, "graph", WANTED) == {}


def test_the_newest_run_that_screened_identical_code_wins():
    changed = {**KEYS, ("index_add", "view", "graph"): "older code"}
    old_rows = [row("index_add", "param", VIEW), row("index_add", "view", DIRECT),
                row("assign", "param", DIRECT), row("assign", "view", VIEW)]  # fmt: skip
    runs = [screened("r3", keys=changed), screened("r2"), screened("r1", rows=old_rows)]
    got = screen_cache.reusable(runs, KEYS, "graph", WANTED)
    assert got["index_add"] == ({"param": DIRECT, "view": VIEW}, "r2")  # r3's code differs
    assert got["assign"][1] == "r3"


def test_another_modes_screen_is_not_reused():
    runs = [screened("r1", mode="jit_ast")]
    assert screen_cache.reusable(runs, KEYS, "graph", WANTED) == {}


def _write_run(root, run_id, keys, rows, mode="graph", version=SCHEMA_VERSION):
    run = RunDir(root / run_id)
    (run.path / "gate").mkdir(parents=True)
    run.prepare.mkdir()
    (run.path / "manifest.json").write_text("{}")
    lines = [
        json.dumps({"strategy": s, "shape": sh, "mode": m, "replica": 0, "cache_key": k,
                    "schema_version": version})
        for (s, sh, m), k in keys.items()
    ]  # fmt: skip
    (run.gate / f"{mode}.r0.jsonl").write_text("\n".join(lines) + "\n")
    suite = {"schema_version": SCHEMA_VERSION, "kind": "prepare", "mode": mode}
    data = {"kind": "prepare", "mode": mode, "k": {}, "screen": rows, "suite": suite}
    run.prepare_file(mode).write_text(json.dumps(data))
    return run


def test_runs_are_read_from_their_files_newest_first(tmp_path, monkeypatch):
    from bench.core import paths

    monkeypatch.setattr(paths, "RESULTS_DIR", tmp_path / "nowhere")
    here = RunDir(tmp_path / "runs" / "20261205T000000Z-here")
    here.path.mkdir(parents=True)
    rows = screened("x").screen["graph"]
    _write_run(tmp_path / "runs", "20261201T000000Z-a", KEYS, rows)
    _write_run(tmp_path / "runs", "20261203T000000Z-b", KEYS, rows)
    old = {k: v for k, v in KEYS.items()}
    _write_run(tmp_path / "runs", "20261204T000000Z-old", old, rows, version=SCHEMA_VERSION - 1)
    _write_run(tmp_path / "runs", "20261202T000000Z-none", KEYS, [])  # screened nothing
    _write_run(tmp_path / "runs", "20261206T000000Z-later", KEYS, rows)  # began after this run
    runs = screen_cache.known(here, "clip")
    assert [r.run_id for r in runs] == [
        "20261204T000000Z-old", "20261203T000000Z-b", "20261201T000000Z-a",
    ]  # fmt: skip
    assert runs[0].keys == {}  # keys of another schema version are not trusted
    assert runs[1].keys == KEYS and runs[1].screen["graph"] == rows
    got = screen_cache.reusable(runs, KEYS, "graph", WANTED)
    assert {origin for _, origin in got.values()} == {"20261203T000000Z-b"}


def test_a_run_this_suite_cannot_read_is_skipped(tmp_path):
    """A screen from a newer suite, or a torn file, is no screen (the run times the simplest
    shape), never a crash of the run that looked for one."""
    rows = screened("x").screen["graph"]
    newer = _write_run(tmp_path, "20261201T000000Z-new", KEYS, rows)
    data = json.loads(newer.prepare_file("graph").read_text())
    data["suite"]["schema_version"] = SCHEMA_VERSION + 1
    newer.prepare_file("graph").write_text(json.dumps(data))
    assert screen_cache.read(newer.path) is None
    torn = _write_run(tmp_path, "20261202T000000Z-torn", KEYS, rows)
    (torn.gate / "graph.r0.jsonl").write_text('{"strategy": "assign", "cache_key": "x", "sch')
    got = screen_cache.read(torn.path)
    assert got is None or got.keys == {}


def _reference_runs() -> dict:
    """{workload: its pinned reference run folder} (an archive is read extracted): the pins, not
    whatever runs lie beside them."""
    from bench.core import pins

    refs = pins.references()
    return {w: p for w, p in refs.items() if (p / "prepare" / "selection.json").is_file()}


@pytest.mark.parametrize("reference", _reference_runs().values(), ids=list(_reference_runs()))
def test_a_quick_run_of_identical_code_times_the_shapes_the_reference_chose(reference, tmp_path):
    """A --quick run (no screen) whose code is the reference's times every strategy in the
    shape the reference's screen chose, and says whose screen it reused; a strategy whose
    screened code changed since falls back to its simplest shape, unscreened."""
    from dataclasses import replace

    from bench.core import verdicts as final_verdicts
    from bench.core.records import read_verdicts
    from bench.measured import workloads
    from bench.run import prepare_phase
    from bench.run.plan import TIERS

    manifest = json.loads((reference / "manifest.json").read_text())
    work = workloads.get(manifest["plan"]["workload"])
    plan = SimpleNamespace(precision=TIERS["quick"], workload=work.name)
    ctx = SimpleNamespace(workload=work, plan=plan, run=RunDir(tmp_path / "quick"))
    gated = final_verdicts.final(read_verdicts(RunDir(reference), []), [])
    runs = prepare_phase.screen_origins(reference, work.name)  # its own, or the one it reused
    timed = json.loads((reference / "prepare" / "selection.json").read_text())["chosen"]
    screened = {(m, r["strategy"]) for run in runs for m, rows in run.screen.items() for r in rows}
    checked, by_mode = 0, {}
    for mode in sorted({r["mode"] for r in timed}):
        reused = by_mode[mode] = prepare_phase.reused_screens(ctx, gated, mode, runs)
        now = prepare_phase.choices(ctx, gated, mode, {}, reused)
        for row in (r for r in timed if r["mode"] == mode and r["strategy"] in now):
            shape, why = now[row["strategy"]]
            assert shape == row["shape"], (mode, row["strategy"])
            if (mode, row["strategy"]) in screened:
                assert why.endswith(tuple(f"{prepare_phase.REUSED} {r.run_id}" for r in runs))
                checked += 1
    assert checked > 0
    # one screened shape's code changed: its strategy is no longer reused, the others still are
    mode, reused = max(by_mode.items(), key=lambda kv: (len(kv[1]), kv[0]))
    mine = [(run, r) for run in runs for r in run.screen.get(mode, []) if r["ratios"]]
    moved = next(r for run, r in mine if reused.get(r["strategy"], ("", ""))[1] == run.run_id)
    gated = [
        replace(v, cache_key="changed")
        if (v.strategy, v.shape, v.mode) == (moved["strategy"], moved["shape"], mode)
        else v
        for v in gated
    ]
    again = prepare_phase.reused_screens(ctx, gated, mode, runs)
    assert moved["strategy"] not in again and set(again) == set(reused) - {moved["strategy"]}
    why = prepare_phase.choices(ctx, gated, mode, {}, again)[moved["strategy"]][1]
    assert "not screened" in why


@pytest.mark.parametrize(
    "tier, reuse_gate, screen_all, reuses",
    [
        ("quick", False, False, True),  # a tier without a screen always takes one made before
        ("quick", True, False, True),
        ("default", True, False, True),  # a tier that screens reuses identical code's screen
        ("default", False, False, False),  # --fresh-gate: everything measured again
        ("default", True, True, False),  # --screen-all: every shape screened here
        ("rigorous", True, False, True),
    ],
)
def test_which_runs_reuse_an_earlier_screen(monkeypatch, tier, reuse_gate, screen_all, reuses):
    from bench.run import prepare_phase
    from bench.run.plan import TIERS

    monkeypatch.setattr(screen_cache, "known", lambda run, workload: [f"{workload} earlier"])
    plan = SimpleNamespace(
        precision=TIERS[tier], reuse_gate=reuse_gate, screen_all=screen_all, workload="clip"
    )
    got = prepare_phase.screens(SimpleNamespace(plan=plan, run=None))
    assert got == (["clip earlier"] if reuses else [])

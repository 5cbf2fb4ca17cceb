"""The pinned runs (results/references.json) and what a run lacks: hand-made manifests and
plans, no MindSpore."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from bench.core import pins
from bench.run.plan import Plan, Precision

FULL = Plan(
    workload="clip",
    strategies=("assign", "index_add", "set_data"),
    modes=("graph", "pynative"),
    batch_sizes=(8, 64),
    strategies_dir="strategies",
    precision=Precision(tier="default"),
)


def _run(raw, run_id, **manifest):
    (raw / run_id).mkdir(parents=True)
    data = {"run_id": run_id, "status": "complete", **manifest}
    (raw / run_id / "manifest.json").write_text(json.dumps(data))


def test_the_pinned_run_wins_over_newer_gate_only_and_quick_runs(tmp_path):
    raw = tmp_path / "clip" / "raw"
    _run(raw, "20260101T000000Z-aaaa")
    _run(raw, "20260102T000000Z-gate", plan={"gate_only": True})  # README's add-a-strategy flow
    _run(raw, "20260103T000000Z-quik", plan={"precision": {"tier": "quick"}})
    pins.write(pins.Pins({"clip": "20260101T000000Z-aaaa"}), tmp_path)
    assert pins.reference("clip", tmp_path) == raw / "20260101T000000Z-aaaa"
    assert pins.references(tmp_path) == {"clip": raw / "20260101T000000Z-aaaa"}
    assert pins.reference("brn", tmp_path) is None  # pins nothing for brn


def test_a_missing_pinned_run_is_named(tmp_path):
    pins.write(pins.Pins({"ema": "20260101T000000Z-gone"}), tmp_path)
    with pytest.raises(pins.PinError, match="20260101T000000Z-gone"):
        pins.references(tmp_path)
    pins.write(pins.Pins({}, {"2.9.0": {"brn": "20260101T000000Z-away"}}), tmp_path)
    with pytest.raises(pins.PinError, match=r"2\.9\.0 brn release run '20260101T000000Z-away'"):
        pins.release_runs(tmp_path)


@pytest.mark.parametrize(
    "text, reason",
    [
        ("{not json", "cannot read"),
        ("[1, 2]", "not a JSON object"),
        ('{"schema_version": 9, "references": {}}', "schema_version 9"),
        ('{"schema_version": 1, "references": {"clip": 3}}', "'references' must map"),
        ('{"schema_version": 1, "references": {}, "releases": {"2.9.0": "x"}}', "'releases'"),
    ],
)
def test_an_unreadable_pins_file_is_refused_with_the_reason(tmp_path, text, reason):
    pins.file(tmp_path).write_text(text)
    with pytest.raises(pins.PinError, match=reason):
        pins.read(tmp_path)


def test_pins_round_trip_and_a_folder_without_the_file_pins_nothing(tmp_path):
    assert pins.read(tmp_path) == pins.Pins()
    made = pins.Pins({"kvcache": "b", "brn": "a"}, {"2.8.0": {"ema": "c"}})
    pins.write(made, tmp_path)
    assert pins.read(tmp_path) == made
    assert list(json.loads(pins.file(tmp_path).read_text())["references"]) == ["brn", "kvcache"]


def test_the_committed_pins_name_committed_runs_of_their_workloads():
    from bench.measured import workloads

    refs = pins.references()
    assert set(refs) == set(workloads.WORKLOADS)
    for w, run in refs.items():
        assert json.loads((run / "manifest.json").read_text())["plan"]["workload"] == w
    for version, by in pins.release_runs().items():
        for w, run in by.items():
            manifest = json.loads((run / "manifest.json").read_text())
            assert (manifest["plan"]["workload"], manifest["environment"]["mindspore"]) == (
                w,
                version,
            )


# --- what a run lacks, and what may be pinned ---------------------------------------------------


@pytest.mark.parametrize(
    "changes, status, lacks",
    [
        ({}, "complete", []),
        ({"strategies": (*FULL.strategies, "mine")}, "complete", []),  # more is not less
        ({"gate_only": True}, "complete", ["no timings (a gate-only run): no costs"]),
        (
            {"precision": Precision(tier="quick")},
            "complete",
            ["the --quick tier: one timing process, wider intervals"],
        ),
        ({"strategies": ("assign",)}, "complete", ["strategies not run: index_add, set_data"]),
        (
            {"modes": ("graph",), "batch_sizes": (8,)},
            "complete",
            ["modes not run: pynative", "sizes not run: 64"],
        ),
        ({"shapes": ("plain",)}, "complete", ["only 1 shape(s): plain"]),
        ({}, "interrupted", ["it did not finish (status interrupted)"]),
    ],
)
def test_what_a_run_lacks_against_a_full_run(changes, status, lacks):
    from bench.decide import provenance

    plan = replace(FULL, **changes)
    assert provenance.lacks(plan, status, FULL) == lacks
    assert provenance.lacks(plan, status, FULL, "2.10.0", "2.10.0") == lacks
    other = provenance.lacks(plan, status, FULL, "2.9.0", "2.10.0")
    assert "another release: MindSpore 2.9.0, the reference's 2.10.0" in other
    assert (provenance.why_not_pinnable(plan, status, FULL) is None) == (not lacks)


def test_a_page_not_on_its_pinned_run_says_so_and_what_it_lacks():
    from bench.decide import provenance

    pinned = provenance.Stands("clip", "r1", True)
    assert provenance.notice(pinned, "r1") == []
    mine = provenance.Stands("clip", "r2", False, ("no timings (a gate-only run): no costs",))
    text = "\n".join(provenance.notice(mine, "r1"))
    assert "`r2`" in text and "`r1`" in text and "no timings" in text
    data = json.loads(provenance.pages_json({"clip": mine, "brn": pinned}))
    assert data["workloads"]["clip"] == {"run": "r2", "pinned": False, "lacks": list(mine.lacks)}
    assert list(data["workloads"]) == ["brn", "clip"]


def test_no_committed_page_names_a_path_of_the_machine_that_made_it():
    """README's runs table printed the reference machine's scratch folder (`/work/scratch/...`)."""
    import re
    import subprocess

    from bench.core.paths import ROOT

    tracked = subprocess.run(["git", "ls-files", "*.md"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()  # fmt: skip
    absolute = re.compile(r"(?<![\w.~/])/(?:work|home|root|tmp|Users|mnt|opt)/[\w.-]+")
    found = [
        f"{name}: {m.group(0)}"
        for name in tracked
        for m in absolute.finditer((ROOT / name).read_text(encoding="utf-8", errors="replace"))
    ]
    assert not found, found[:5]


# -- references the current gate judges otherwise (issue 50: the workloads changed) -------------
def test_regated_lists_the_cells_whose_verdict_the_current_record_does_not_accept():
    from bench.decide import provenance

    key = ("ema", "host_ema", "as-written", "graph")
    run = {
        key: "works",
        ("ema", "assign", "inline", "graph"): "works",
        ("ema", "add_", "inline", "graph"): "incorrect: write dropped",
        ("ema", "new", "inline", "graph"): "works",  # no line in the record: not compared
    }
    record = {
        key: "incorrect: follows the old values after a reload",
        ("ema", "assign", "inline", "graph"): "works",
        ("ema", "add_", "inline", "graph"): "incorrect: differs between processes",  # varies
    }
    found = provenance.regated(run, record)
    assert [(r.key, r.then, r.now) for r in found] == [
        (key, "works", "incorrect: follows the old values after a reload")
    ]
    assert provenance.regated(run, {}) == []


def test_the_regated_lines_say_how_many_verdicts_changed_and_which_strategies():
    from bench.decide import provenance

    def r(strategy, mode, then="works", now="incorrect: follows the old values after a reload"):
        return provenance.Regated(("ema", strategy, "inline", mode), then, now)

    found = {
        "ema": [r("host_ema", m) for m in ("graph", "pynative")] + [r("assign", "jit_ast")],
        "clip": [],
    }
    lines = provenance.regated_lines(found, {"ema": 270, "clip": 4000}, "2.10.0")
    text = " ".join(lines)
    assert "Gated again since" in text and "MindSpore 2.10.0" in text
    assert "ema: 3 of 270 verdicts (works → follows the old values after a reload: " in text
    assert "`assign`, `host_ema`" in text and "clip:" not in text
    assert provenance.regated_lines({"clip": []}, {"clip": 1}, "2.10.0") == []


def test_the_notice_names_the_tables_answers_the_current_gate_finds_wrong(monkeypatch):
    """An answer is named to avoid only where the current gate finds it wrong in a workload of
    its own kind of state and in its mode (ema's reload does not touch the small-state answer)."""
    from types import SimpleNamespace

    from bench.decide import answer, decisions, provenance
    from bench.report import readme

    def run(kind, name):
        return SimpleNamespace(
            work=SimpleNamespace(state_kind=kind, name=name), verdicts=[1] * 10, environment={}
        )

    runs = {"ema": run("elementwise", "ema"), "brn": run("small", "brn")}
    now = "incorrect: follows the old values after a reload"
    found = {
        "ema": [
            provenance.Regated(("ema", "host_ema", "as-written", "pynative"), "works", now),
            provenance.Regated(("ema", "assign_primitive", "inline", "jit_ast"), "works", now),
        ],
        "brn": [],
    }
    monkeypatch.setattr(provenance, "run_regated", lambda r: found[r.work.name])

    def d(kind, mode, write):
        return decisions.Decision(kind, mode, write, "", False, answer.Reason(), None)

    made = [
        d("elementwise", "pynative", "host_ema"),
        d("small", "jit_ast", "assign_primitive"),  # the same API, another kind: not named
        d("elementwise", "graph", "assign_primitive"),  # another mode: not named
    ]
    text = "\n".join(readme.regated_notice(runs, made))
    assert "**Do not use these answers of the table:**" in text
    assert "`host_ema` in PYNATIVE_MODE (follows the old values after a reload)" in text
    assert "`assign_primitive`" not in text.split("Do not use")[1]
    assert readme.regated_notice({"brn": runs["brn"]}, made) == []  # nothing regated: nothing

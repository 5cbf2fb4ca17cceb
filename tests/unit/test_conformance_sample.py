"""CI's sampled conformance (``tests/conformance/sample.py``): what it takes is deterministic for
a commit, covers every strategy × mode of every workload, and both sides of every finding."""

from __future__ import annotations

from pathlib import Path

from bench.core import expected
from bench.core.paths import RESULTS_DIR
from tests.conformance import sample


def _recorded() -> dict:
    out: dict = {}
    for path in sorted(expected.EXPECTED_DIR.glob("*.tsv")):
        out.update(expected.read(path))
    return out


def test_the_gated_shapes_hold_every_strategy_and_mode_of_every_workload():
    recorded = _recorded()
    for seed in ("a" * 40, "b" * 40, "unknown"):
        shapes = sample.gate_shapes(recorded, seed)
        assert shapes == sample.gate_shapes(recorded, seed)  # the same for the same commit
        assert set(shapes) == {w for w, *_ in recorded}
        for workload, chosen in shapes.items():
            every = {(s, m) for w, s, _, m in recorded if w == workload}
            gated = {*chosen, "as-written"}  # a gate with --shapes gates as-written anyway
            held = {(s, m) for w, s, sh, m in recorded if w == workload and sh in gated}
            assert held == every, workload
            assert "as-written" not in chosen  # not a --shapes name
            assert len(chosen) <= 2, (workload, chosen)  # a sample, not the full gate
    picks = {tuple(sample.gate_shapes(recorded, str(n))["clip"]) for n in range(8)}
    assert len(picks) > 1  # shapes that hold as many are told apart by the commit


def test_a_made_up_record_is_covered_greedily():
    recorded = {
        ("w", "a", "one", "graph"): "works",
        ("w", "b", "one", "graph"): "works",
        ("w", "a", "two", "graph"): "works",
        ("w", "c", "three", "pynative"): "works",
        ("w", "d", "as-written", "pynative"): "works",
    }
    assert sample.gate_shapes(recorded, "x") == {"w": ["one", "three"]}


def test_the_sampled_scripts_are_chosen_by_the_commit_hash():
    repros = [Path(f"results/clip/repros/s{n}@shape-graph.py") for n in range(60)]
    one = sample.sampled_repros(repros, "1" * 40)
    assert one == sample.sampled_repros(repros, "1" * 40) and len(one) == sample.SAMPLED
    assert one != sample.sampled_repros(repros, "2" * 40)
    skip = one[:3]
    other = sample.sampled_repros(repros, "1" * 40, skip=skip)
    assert not set(skip) & set(other) and len(other) == sample.SAMPLED
    assert sample.sampled_repros(repros[:4], "1" * 40) == sorted(repros[:4])


def test_the_commit_comes_from_the_environment_then_git():
    assert sample.commit({sample.ENV: "abc123"}) == "abc123"
    assert sample.commit({sample.ENV: "1", "GITHUB_SHA": "def456"}) == "def456"
    assert len(sample.commit({sample.ENV: "1"})) in (40, len("unknown"))
    assert sample.enabled({sample.ENV: "1"}) and not sample.enabled({})


def test_both_scripts_of_every_finding_pair_are_committed():
    pairs = sample.reference_pairs(RESULTS_DIR)
    assert sum(len(p) for p in pairs.values()) > 0
    scripts = sample.pair_repros(RESULTS_DIR, pairs)
    assert scripts and all(p.is_file() for p in scripts), [p for p in scripts if not p.is_file()]
    for found in pairs.values():
        for strategy, mode, works, fails in found:
            names = {p.name for p in scripts}
            assert (
                f"{strategy}@{works}-{mode}.py" in names
                and f"{strategy}@{fails}-{mode}.py" in names
            )

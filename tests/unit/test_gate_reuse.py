"""Today's code reuses the pinned references' gate (``bench.run.gate_cache``): the cache key of a
verdict hashes the source of what judges a step (``gate_fingerprint``: the oracle, the
runtimes, the workload's own files). A change there, even to a comment, makes every user's next
run gate and screen again (about 4 minutes more for the KV cache: a move of a helper into
``workloads/runtime.py`` did that on 2026-12-07). Such a change must come with new references."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.core import pins, procs
from bench.measured.shapes import CONTROL
from bench.run import gate_cache

REFERENCES = pins.references()
SAMPLE = 12  # gated variants per reference whose keys are recomputed


def _text(workload: str, record: dict, folder: Path) -> str:
    """The variant's source as today's code generates it (an archived run keeps no variants)."""
    from bench.core.paths import STRATEGIES_DIR
    from bench.measured import discovery, workloads

    strategy = discovery.load(record["strategy"], STRATEGIES_DIR)
    made, _ = workloads.get(workload).variants(strategy, folder, {record["shape"]})
    return Path(next(v for v in made if v.shape.name == record["shape"]).path).read_text()


@pytest.mark.parametrize("workload", sorted(REFERENCES))
def test_todays_code_makes_the_references_gate_keys(workload, monkeypatch, tmp_path):
    monkeypatch.delenv(procs.ENV, raising=False)  # the platform's start method, as they ran
    run = REFERENCES[workload]
    release = json.loads((run / "manifest.json").read_text())["environment"]["mindspore"]
    fingerprint = gate_cache.gate_fingerprint(workload)
    records = [r for r in gate_cache.keyed_records(run) if r["strategy"] != CONTROL]
    assert len(records) >= SAMPLE
    for record in records[:: len(records) // SAMPLE][:SAMPLE]:
        text = _text(workload, record, tmp_path)
        made = gate_cache.key(text, record["mode"], record["meaning"], True, release, fingerprint)
        assert made == record["cache_key"], (workload, record["strategy"], record["shape"])


def test_a_changed_judge_changes_the_key(tmp_path, monkeypatch):
    """The check above can fail: a fingerprint over other source makes other keys."""
    monkeypatch.setattr(gate_cache, "ROOT", tmp_path)
    for name in ("measured/oracle.py", "measured/workloads/runtime.py", "measured/modes.py",
                 "run/gate.py", "run/forked.py", "core/procs.py"):  # fmt: skip
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("# one\n")
    before = gate_cache.gate_fingerprint("clip")
    (tmp_path / "measured/workloads/runtime.py").write_text("# one, with a comment\n")
    assert gate_cache.gate_fingerprint("clip") != before

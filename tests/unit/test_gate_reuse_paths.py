"""bench.run.gate_cache.known: a reused verdict carries no machine's path, even when the run it
comes from was made before crash stacks were recorded portably (brn 0984 and df78 reused such a
stack from a run of the morning of 2026-12-06). Hand-made run folders, no MindSpore."""

from __future__ import annotations

import json

from bench.core.rundir import RunDir
from bench.core.schema import SCHEMA_VERSION
from bench.run import gate_cache

OLD = (
    "Fatal Python error: Segmentation fault\n\nCurrent thread 0x00007f51 (most recent call "
    'first):\n  File "/home/someone/suite/results/brn/raw/20261206T091539Z-4df8/variants/assign/'
    'helper-param-construct.py", line 12 in construct\n  File "/opt/py/lib/python3.11/'
    'site-packages/mindspore/nn/cell.py", line 9 in __call__\n'
)


def _run(raw, name: str, records: list[dict]):
    run = raw / name
    (run / "gate").mkdir(parents=True)
    (run / "manifest.json").write_text("{}", encoding="utf-8")
    lines = "".join(json.dumps(r) + "\n" for r in records)
    (run / "gate" / "jit_bytecode.r0.jsonl").write_text(lines, encoding="utf-8")
    return run


def test_a_reused_crash_stack_names_no_machine_path(tmp_path, monkeypatch):
    raw = tmp_path / "raw"
    crash = {"cache_key": "k1", "replica": 0, "schema_version": SCHEMA_VERSION,
             "status": "crashes", "diagnostics": {"traceback": OLD}}  # fmt: skip
    plain = {"cache_key": "k2", "replica": 0, "schema_version": SCHEMA_VERSION, "status": "works"}
    _run(raw, "20261206T091539Z-4df8", [crash, plain])
    here = RunDir(raw / "20261206T182017Z-0984")
    monkeypatch.setattr(gate_cache.paths, "results_dir", lambda w: tmp_path / "none")
    found = gate_cache.known(here, "brn")
    stack = found[("k1", 0)]["diagnostics"]["traceback"]
    assert "/home/someone" not in stack and "/opt/py" not in stack
    assert "raw/20261206T091539Z-4df8/variants/assign/helper-param-construct.py" in stack
    assert "<site-packages>/mindspore/nn/cell.py" in stack
    assert found[("k1", 0)]["reused"] == "20261206T091539Z-4df8"
    assert found[("k2", 0)] == {**plain, "reused": "20261206T091539Z-4df8"}  # nothing to scrub

"""The releases page: verdict changes only, significance only between like runs (no MindSpore)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bench.report import releases

RUNS = Path(__file__).resolve().parent / "fixtures" / "runs"


def _release(root: Path, version: str, precision_change: dict | None = None) -> None:
    run = root / version / "raw" / "20260101T000000Z-0000"
    shutil.copytree(RUNS / "complete", run)
    for path in (run / "timing").glob("*.json"):
        data = json.loads(path.read_text())
        data["suite"].setdefault("environment", {})["mindspore"] = version
        path.write_text(json.dumps(data))
    if precision_change:
        manifest = json.loads((run / "manifest.json").read_text())
        manifest["plan"]["precision"].update(precision_change)
        (run / "manifest.json").write_text(json.dumps(manifest))


def test_same_verdicts_collapse_and_unlike_precision_gets_no_marks(tmp_path):
    _release(tmp_path, "2.9.0", {"min_processes": 1, "max_processes": 1})
    _release(tmp_path, "2.10.0")
    runs = releases.load_releases(tmp_path, n_boot=100)
    assert list(runs) == ["2.9.0", "2.10.0"]
    text = releases.render(runs, n_boot=100)
    assert "No verdict changed between the releases measured." in text
    assert "are the same in every release" in text
    assert "so no change is marked significant" in text and "**×" not in text


def test_like_runs_get_marks_and_the_command_writes_the_page(tmp_path):
    _release(tmp_path, "2.9.0")
    _release(tmp_path, "2.10.0")
    text = releases.render(releases.load_releases(tmp_path, n_boot=100), n_boot=100)
    assert "**Bold** = significantly different from the previous release." in text
    out = tmp_path / "releases.md"
    assert releases.main([str(tmp_path), "--out", str(out), "--bootstrap", "50"]) == 0
    assert out.read_text().startswith("# Across MindSpore releases")
    assert releases.main([str(tmp_path / "none")]) == 2


def test_runs_of_the_suite_before_code_shapes_are_labelled(tmp_path):
    _release(tmp_path, "2.11.0")
    old = tmp_path / "2.10.0" / "raw" / "20250101T000000Z-0000"  # the v1 fixture ran 2.10.0
    shutil.copytree(RUNS / "v1", old)
    runs = releases.load_releases(tmp_path, n_boot=50)
    assert list(runs) == ["2.10.0", "2.11.0"] and runs["2.11.0"].written_schema == 2
    text = releases.render(runs, n_boot=50)
    first = [ln for ln in text.splitlines() if ln.startswith("> ")]
    assert first and "runs of an earlier version of this suite" in first[0]
    assert "2.10.0" in first[0] and "2.11.0" not in first[0]

"""Comparing two runs: the process is the unit, FDR over cells, provenance first (no MindSpore)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench.report import compare, load

RUNS = Path(__file__).resolve().parent / "fixtures" / "runs"


def _slower(src: Path, dst: Path, strategy: str, factor: float) -> None:
    """A copy of a run where one strategy's steps (not its controls) take ``factor`` longer."""
    shutil.copytree(src, dst)
    for path in (dst / "timing").glob("*.json"):
        data = json.loads(path.read_text())
        for bench in data.get("benchmarks", []):
            info = bench["extra_info"]
            if info["strategy"] == strategy:
                info["step_s"] = [t * factor for t in info["step_s"]]
                bench["stats"]["data"] = info["step_s"]
        path.write_text(json.dumps(data))


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("cmp")
    (root / "raw").mkdir()
    a = root / "raw" / "20260101T000000Z-aaaa"
    shutil.copytree(RUNS / "complete", a)
    _slower(RUNS / "complete", root / "raw" / "20260101T000001Z-bbbb", "assign", 3.0)
    return root, a, root / "raw" / "20260101T000001Z-bbbb"


def test_a_run_compared_with_itself_has_no_change(runs):
    _, a, _ = runs
    ra = load.load(a, n_boot=0)
    table = compare.compare(ra, ra, n_boot=300)
    assert len(table) and (table.overhead_q >= compare.ALPHA).all()
    assert (table.overhead_ratio == 1.0).all()


def test_a_real_slowdown_is_found_after_the_correction(runs):
    _, a, b = runs
    table = compare.compare(load.load(a, n_boot=0), load.load(b, n_boot=0), n_boot=500)
    mine = table[table.strategy == "assign"]
    assert len(mine) and (mine.overhead_ratio > 2.5).all()
    assert (mine.overhead_q < compare.ALPHA).sum() >= len(mine) // 2
    others = table[table.strategy != "assign"]
    assert (others.overhead_q >= compare.ALPHA).all()


def test_the_command_prints_provenance_first_and_fails_above(runs, capsys):
    root, a, b = runs
    code = compare.main(
        [
            a.name,
            b.name,
            "--results-dir",
            str(root),
            "--only-changed",
            "--fail-above",
            "0.2",
            "--bootstrap",
            "300",
        ]
    )
    out = capsys.readouterr()
    assert code == 1 and "assign" in out.err
    assert out.out.index("## How the runs differ") < out.out.index(
        "## Cells that work in both runs"
    )
    assert compare.main(["nope", b.name, "--results-dir", str(root)]) == 2

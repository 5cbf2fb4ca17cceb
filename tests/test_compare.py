"""Comparing two runs: ratios, Mann–Whitney U, status changes and the --fail-above exit code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from bench import compare, report

RUNS = Path(__file__).resolve().parent / "fixtures" / "runs"


def _scaled_copy(source: Path, target: Path, factor: float) -> Path:
    """A copy of a run whose strategy and control timings are all ``factor`` times as long."""
    shutil.copytree(source, target)
    for path in target.glob("time-*.json"):
        doc = json.loads(path.read_text())
        for bench in doc["benchmarks"]:
            bench["stats"]["data"] = [t * factor for t in bench["stats"]["data"]]
            info = bench["extra_info"]
            info["control_data"] = [t * factor for t in info["control_data"]]
        path.write_text(json.dumps(doc))
    return target


@pytest.fixture
def results(tmp_path):
    raw = tmp_path / "raw"
    shutil.copytree(RUNS / "complete", raw / "base")
    shutil.copytree(RUNS / "interrupted", raw / "interrupted")
    _scaled_copy(RUNS / "complete", raw / "slow", 1.5)
    _scaled_copy(RUNS / "complete", raw / "fast", 1 / 1.5)
    return tmp_path


def _frame(results, name):
    manifest, docs, problems = report.load_run(results / "raw" / name)
    return report.tidy(manifest, docs, problems, n_boot=0)


def _run(results, *args):
    return compare.main([*args, "--results-dir", str(results)])


def test_same_run_shows_no_change(results, capsys):
    assert _run(results, "base", "base", "--fail-above", "0.05") == 0
    out = capsys.readouterr().out
    assert out.startswith("# Comparison: A = `base`, B = `base`")
    assert "| `assign` | GRAPH | 1 |" in out
    assert "**slower**" not in out and "## Status changes" not in out


def test_slowed_copy_is_half_again_as_slow_and_significant(results):
    table = compare.compare(_frame(results, "base"), _frame(results, "slow"))
    assert len(table) == 65  # every measured cell except set_data in GRAPH (unsupported)
    assert table.step_ratio.to_numpy() == pytest.approx(1.5)
    assert table.overhead_ratio.to_numpy() == pytest.approx(1.0)  # ratios are unchanged
    assert (table.overhead_p > 0.5).all()
    assert (table.step_p < 0.05).sum() > len(table) // 2
    graph = table[table["mode"] == "graph"]  # the steady mode: every cell separates
    assert (graph.step_p < 0.05).all()


def test_fail_above_exit_codes(results, capsys):
    assert _run(results, "base", "slow", "--fail-above", "0.05") == 1
    captured = capsys.readouterr()
    assert "**slower** ⚠" in captured.out
    assert "is 50.0% slower" in captured.err
    assert _run(results, "base", "slow", "--fail-above", "0.6") == 0  # 50 % is within 60 %
    assert _run(results, "base", "slow") == 0  # no threshold: report only
    assert _run(results, "base", "fast", "--fail-above", "0.05") == 0  # faster is fine
    assert "faster" in capsys.readouterr().out


def test_alpha_controls_significance(results):
    table = compare.compare(_frame(results, "base"), _frame(results, "slow"))
    assert len(compare.regressions(table, alpha=0.05, fail_above=0.05)) > 0
    assert len(compare.regressions(table, alpha=1e-12, fail_above=0.05)) == 0


def test_status_changes_are_listed(results, capsys):
    assert _run(results, "base", "interrupted") == 0
    out = capsys.readouterr().out
    assert "## Status changes" in out
    assert "| `index_add` | PYNATIVE | 1 | works | missing |" in out
    changes = compare.status_changes(_frame(results, "base"), _frame(results, "interrupted"))
    assert set(changes.strategy) == {"index_add", "inplace_index_add"}
    assert (changes.status_b == "missing").all()


def test_unknown_run_is_exit_2(results, capsys):
    assert _run(results, "base", "nope") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no run 'nope'" in err

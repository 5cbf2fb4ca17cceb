"""Bad arguments fail in one line before any work; --list (no MindSpore is imported)."""

from __future__ import annotations

import pytest

from tests.conftest import bench


@pytest.mark.parametrize(
    "args, words",
    [
        (["--strategies", "assign,nope"], "unknown strategy 'nope' (valid: add_, assign,"),
        (["--modes", "graph,eager"], "unknown mode 'eager' (valid: graph, pynative"),
        (["--shapes", "inline-nope"], "unknown shape 'inline-nope' (valid: "),
        (["--batch-sizes", "0,8"], "must be positive: '0'"),
        (["--batch-sizes", "1.5"], "not a whole number: '1.5'"),
        (["--batch-sizes", ""], "empty item"),
        (["--strategies", "assign,,host"], "empty item"),
        (["--frobnicate"], "unrecognized arguments: --frobnicate"),
        (["--timeout", "-1"], "must be positive"),
        (["--strategies-dir", "/nonexistent"], "does not exist"),
        (["--resume"], "nothing to resume"),
        (["--quick", "--rigorous"], "not allowed with argument"),
        (["--workload", "bn"], "unknown workload 'bn' (valid: clip, brn, kvcache, ema, all)"),
        (["--budget", "0"], "must be more than 0 minutes, not 0"),
        (["--budget", "-5"], "must be more than 0 minutes, not -5"),
        (["--budget", "ten"], "not a number of minutes: 'ten'"),
        (["--budget", "nan"], "not a number of minutes: 'nan'"),
        (["--budget", "0.2"], "0.2 minutes is shorter than one round of timing"),
        (["--budget", "5", "--gate-only"], "a --gate-only run times nothing"),
    ],
)
def test_bad_arguments_fail_in_one_line_before_any_work(tmp_path, args, words):
    done = bench(*args, "--results-dir", str(tmp_path / "results"), timeout=60)
    assert done.returncode == 2
    assert done.stderr.startswith("bench: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert words in done.stderr
    raw = tmp_path / "results" / "raw"
    assert not raw.exists() or not any(raw.iterdir())


def test_a_new_invocation_never_reuses_a_run(tmp_path):
    (tmp_path / "raw" / "20000101T000000Z-aaaa").mkdir(parents=True)
    (tmp_path / "raw" / "20000101T000000Z-aaaa" / "manifest.json").write_text("{}")
    done = bench("--resume", "nope", "--results-dir", str(tmp_path), timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "no run 'nope'" in done.stderr


def test_unwritable_results_folder_is_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    done = bench("--results-dir", str(blocker), timeout=60)
    assert done.returncode == 2
    assert "cannot write to" in done.stderr and done.stderr.count("\n") == 1


def test_list_shows_strategies_shapes_and_modes():
    done = bench("--list", timeout=60)
    assert done.returncode == 0
    assert "strategy  assign" in done.stdout and "mode      graph" in done.stdout
    assert "shape     inline-param-after-expr" in done.stdout
    assert "shape     inline-copy-before-expr" in done.stdout


@pytest.mark.parametrize(("extra", "reuse"), [([], True), (["--fresh-gate"], False)])
def test_a_full_run_reuses_gated_verdicts_unless_asked_to_gate_afresh(
    tmp_path, monkeypatch, extra, reuse
):
    """A user's `nox -s bench` (a full default run: it writes the reference report) reuses the
    verdicts of identical code from the committed reference, which `--fresh-gate` made."""
    from bench import cli
    from bench.core import paths

    monkeypatch.setattr(paths, "results_dir", lambda workload="clip": tmp_path / workload)
    args = cli.parser().parse_args(extra)
    plan, _, _, publish = cli._prepare(args, cli.workloads.get("clip"))
    assert publish
    assert plan.reuse_gate is reuse

"""The exit code of ``python -m bench`` as a pure function of a run's outcome (a table), its
message telling the causes of an exit 1 apart, and the terminal summary that computes it."""

from __future__ import annotations

import json

import pytest

from bench.core.exits import Exit, Outcome, combine, exit_code, message
from bench.report import terminal
from tests.conftest import mindspore_required, require_mindspore


@pytest.mark.parametrize(
    "outcome, code, says",
    [
        (Outcome(), 0, ""),
        (Outcome(refused=1), 1, "exit 1: 1 strategy file(s) refused"),
        (Outcome(differences=2), 1, "exit 1: 2 verdict(s) not as recorded"),
        (Outcome(crashes=1), 1, "exit 1: 1 timing crash(es)"),
        (
            Outcome(refused=2, differences=1, crashes=3),
            1,
            "exit 1: 2 strategy file(s) refused, 1 verdict(s) not as recorded, 3 timing crash(es)",
        ),
        (Outcome(usage_error=True), 2, ""),
        (Outcome(usage_error=True, harness_error=True, interrupted=True), 2, ""),  # nothing ran
        (Outcome(harness_error=True), 3, ""),
        (Outcome(harness_error=True, interrupted=True, refused=1), 3, ""),
        (Outcome(interrupted=True), 130, ""),
        (Outcome(interrupted=True, differences=4, crashes=1), 130, ""),
    ],
)
def test_the_exit_code_of_each_outcome(outcome, code, says):
    assert exit_code(outcome) == code
    assert message(outcome) == says


@pytest.mark.parametrize(
    "codes, want",
    [([], 0), ([0], 0), ([0, 1], 1), ([1, 0], 1), ([1, 130], 130), ([130, 0], 130), ([3, 1], 3)],
)
def test_several_workloads_take_an_interrupt_else_the_worst(codes, want):
    assert combine(codes) == want


def test_several_workloads_count_every_cause_over_all_of_them():
    from bench.core.exits import Outcome, message, total

    clip = Outcome(differences=418)
    brn = Outcome(refused=1, differences=29, crashes=2)
    assert total([clip, brn]) == Outcome(refused=1, differences=447, crashes=2)
    assert message(total([clip, brn])) == (
        "exit 1: 1 strategy file(s) refused, 447 verdict(s) not as recorded, 2 timing crash(es)"
    )
    assert total([Outcome(), Outcome(interrupted=True)]).interrupted
    assert message(total([])) == ""


def test_an_exit_code_outside_the_table_is_a_bug():
    with pytest.raises(ValueError):
        combine([4])
    assert [int(e) for e in Exit] == [0, 1, 2, 3, 130]


def test_the_summary_tells_a_refused_file_apart_and_exits_1(run_copy, tmp_path):
    manifest = json.loads((run_copy / "manifest.json").read_text())
    manifest["refused"] = {"broken": "module does not define DESCRIPTION"}
    (run_copy / "manifest.json").write_text(json.dumps(manifest))
    lines = []
    # --record writes the verdicts as the record, so only the refused file is left to report
    code = terminal.print_summary(run_copy, record=True, out=lines.append, folder=tmp_path)
    assert code == 1
    assert "  REFUSED broken: module does not define DESCRIPTION" in lines
    assert lines[-1] == "exit 1: 1 strategy file(s) refused"


def test_the_summary_of_a_run_as_recorded_exits_0(run_copy, tmp_path):
    terminal.print_summary(run_copy, record=True, out=lambda line: None, folder=tmp_path)
    lines = []
    assert terminal.print_summary(run_copy, out=lines.append, folder=tmp_path) == 0
    assert not any(line.startswith("exit 1") for line in lines)


@pytest.mark.parametrize(
    "environ, required",
    [
        ({}, False),
        ({"CI": "true"}, True),
        ({"CI": ""}, False),
        ({"BENCH_REQUIRE_MINDSPORE": "1"}, True),
        ({"BENCH_REQUIRE_MINDSPORE": "0"}, False),
    ],
)
def test_the_mindspore_tier_fails_rather_than_skips_where_mindspore_must_be(environ, required):
    assert mindspore_required(environ) == required
    outcome = pytest.fail.Exception if required else pytest.skip.Exception
    with pytest.raises(outcome, match="MindSpore is"):
        require_mindspore(environ, name="no_such_module_for_this_test")


def test_an_unexpected_harness_error_exits_3_with_its_traceback(tmp_path, monkeypatch, capsys):
    from bench import cli

    def boom(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(cli, "_run", boom)
    assert cli.main(["--gate-only", "--results-dir", str(tmp_path)]) == 3
    err = capsys.readouterr().err
    assert "Traceback" in err and err.rstrip().endswith(
        "bench: internal error (a bug of the suite): RuntimeError('a bug')"
    )

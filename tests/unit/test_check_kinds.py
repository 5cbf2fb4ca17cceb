"""The verdict of a mode from its runs (no MindSpore): hand-made runs."""

from __future__ import annotations

from bench.check import kinds as K


def run(process, instance, status="works", kinds=(), bad=()):
    return K.Run("jit_bytecode", process, instance, status, list(kinds), bad_steps=list(bad),
                 detail=f"{status} p{process}i{instance}")  # fmt: skip


def test_every_run_works_agrees():
    v = K.mode_verdict("graph", [run(1, 1), run(1, 2), run(2, 1)])
    assert v.verdict == K.AGREES and v.kinds == []


def test_same_failure_in_both_processes_is_not_differs():
    v = K.mode_verdict(
        "graph",
        [run(1, 1, "incorrect", [K.WRITE_DROPPED], [1, 2]),
         run(2, 1, "incorrect", [K.WRITE_DROPPED], [1, 2])],
    )  # fmt: skip
    assert v.verdict == K.DIVERGES and v.kinds == [K.WRITE_DROPPED]


def test_processes_that_disagree_differ():
    v = K.mode_verdict("graph", [run(1, 1), run(2, 1, "incorrect", [K.WRITE_DROPPED], [2])])
    assert v.kinds == [K.WRITE_DROPPED, K.DIFFERS]
    assert "process 1: works; process 2: incorrect: write dropped" in v.detail


def test_a_second_instance_that_stops_writing_is_second_instance_only():
    v = K.mode_verdict(
        "jit_bytecode", [run(1, 1), run(1, 2, "incorrect", [K.WRITE_DROPPED], [1]), run(2, 1)]
    )
    assert v.kinds == [K.WRITE_DROPPED, K.FIRST_CALL_ONLY, K.SECOND_INSTANCE_ONLY]


def test_only_the_first_step_wrong_is_first_call_only():
    v = K.mode_verdict(
        "graph",
        [run(1, 1, "incorrect", [K.STALE_READ], [1]), run(2, 1, "incorrect", [K.STALE_READ], [1])],
    )
    assert v.kinds == [K.STALE_READ, K.FIRST_CALL_ONLY]


def test_crash_hang_raise_are_kinds():
    assert K.mode_verdict("graph", [run(1, 1, K.CRASHED), run(2, 1, K.CRASHED)]).kinds == [
        K.CRASHED
    ]
    v = K.mode_verdict("graph", [run(1, 1, K.HANGS), run(2, 1, K.RAISES)])
    assert v.kinds == [K.DIFFERS, K.RAISES, K.HANGS]  # ORDER: silent kinds, then errors


def test_a_second_instance_not_run_after_a_crash_is_not_a_kind():
    v = K.mode_verdict("graph", [run(1, 1), run(1, 2, "not run"), run(2, 1)])
    assert v.verdict == K.AGREES


def test_the_exit_code_of_a_finished_check():
    agrees = K.ModeVerdict("graph", K.AGREES)
    diverges = K.ModeVerdict("jit_ast", K.DIVERGES, [K.RAISES])
    assert K.exit_code([]) == 0
    assert K.exit_code([agrees]) == 0
    assert K.exit_code([agrees, diverges]) == 1
    assert K.exit_code([diverges]) == 1

"""What counts as detected and as a false alarm when the suite's variants are given to the check
(no MindSpore): hand-made tables."""

from __future__ import annotations

import pytest

from bench.check import kinds as K
from bench.check import variants as V


@pytest.mark.parametrize(
    "outcome, kinds, hit, by_equivalence",
    [
        ("write dropped at every call", [K.WRITE_DROPPED], True, False),
        ("write dropped at every call", [K.WRONG_OUTPUT], False, False),
        ("stale read at the first 3 calls only", [K.STALE_READ, K.WRONG_OUTPUT], True, False),
        ("stale read at the first call only", [K.WRONG_OUTPUT, K.FIRST_CALL_ONLY], True, True),
        ("stale read at the first call only", [K.WRONG_OUTPUT], False, False),
        ("stale read from call 2 on", [K.WRONG_OUTPUT, K.FIRST_CALL_ONLY], False, False),
        ("raises: RuntimeError: Failed to compile", [K.RAISES], True, False),
        ("raises: AttributeError: x", [K.STALE_READ], False, False),
        ("crashed", [K.CRASHED], True, False),
        ("timeout", [K.HANGS], True, False),
        ("differs between processes", [K.WRITE_DROPPED], False, False),
        ("differs between processes", [K.WRITE_DROPPED, K.DIFFERS], True, False),
        ("wrong output at the first 3 calls only", [K.WRONG_OUTPUT], True, False),
        ("write dropped at every call", [], False, False),
    ],
)
def test_detected_is_the_recorded_kind_named(outcome, kinds, hit, by_equivalence):
    assert V.named(outcome, kinds) == (hit, by_equivalence)


@pytest.mark.parametrize(
    "gate_works, verdicts, alarms",
    [
        (["graph", "jit_ast"], {"graph": K.AGREES, "jit_ast": K.AGREES}, []),
        (["graph", "jit_ast"], {"graph": K.DIVERGES, "jit_ast": K.AGREES}, ["graph"]),
        (["graph"], {"graph": K.AGREES, "jit_bytecode": K.DIVERGES}, []),  # not a working cell
        (["graph"], {}, []),  # no report: a failure of the check, counted apart
    ],
)
def test_a_false_alarm_is_a_working_cell_the_check_flags(gate_works, verdicts, alarms):
    assert V.false_alarms(gate_works, verdicts) == alarms


def test_the_findings_cases_parse_from_the_committed_page():
    cases = V.cases("brn")
    assert len(cases) >= 5
    assert all(c["strategy"] and c["shape"] and c["mode"] for c in cases)
    pairs = [c["pair"] for c in cases if c["pair"]]
    assert pairs and all(len(p) == 3 for p in pairs)


@pytest.mark.parametrize(
    "outcome, record, kinds, verdict",
    [
        # the check names the entry's kind
        ("write dropped at every call", "incorrect: write dropped", [K.WRITE_DROPPED], V.DETECTED),
        ("stale read at the first call only", "incorrect: stale read",
         [K.WRONG_OUTPUT, K.FIRST_CALL_ONLY], V.EQUIVALENT),
        # the record agrees with the entry and the check does not: missed
        ("write dropped at every call", "incorrect: write dropped", [K.STALE_READ], V.MISSED),
        ("raises: AttributeError: x", "raises: AttributeError: x", [], V.MISSED),
        # the page is older than the fresh gate: judged against the record
        ("differs between processes", "incorrect: write dropped", [K.WRITE_DROPPED],
         V.AS_RECORDED),
        ("differs between processes", "works", [], V.AS_RECORDED),
        ("differs between processes", "works", [K.WRITE_DROPPED], V.MISSED),
        ("raises: AttributeError: x", "incorrect: stale read", [K.STALE_READ], V.AS_RECORDED),
        ("differs between processes", "incorrect: stale read",
         [K.WRONG_OUTPUT, K.FIRST_CALL_ONLY], V.AS_RECORDED),
        ("differs between processes", "raises: AttributeError: x", [K.RAISES], V.AS_RECORDED),
        ("differs between processes", "incorrect: write dropped", [K.STALE_READ], V.MISSED),
        ("write dropped at every call", "", [K.STALE_READ], V.MISSED),  # no record
    ],
)  # fmt: skip
def test_an_entry_is_judged_against_the_page_then_the_fresh_record(outcome, record, kinds, verdict):
    assert V.judge(outcome, record, kinds) == verdict

"""A timing process whose pytest run did not run the suite as planned is the harness's failure."""

import pytest

from bench.run import worker


@pytest.mark.parametrize(
    ("code", "broken"),
    [
        (0, False),  # every cell passed
        (1, False),  # a cell failed: recorded per cell, not a harness failure
        (2, True),  # interrupted (a collection error; Ctrl-C never reaches a worker's session)
        (3, True),  # pytest's internal error
        (4, True),  # a usage error
        (5, True),  # collected no cell
        (None, False),  # no pytest run (a prepare job)
    ],
)
def test_pytest_exit_codes_that_are_harness_failures(code, broken):
    assert bool(worker.pytest_failed(code)) is broken


def test_collecting_no_cell_is_said_in_words():
    assert worker.pytest_failed(5) == "collected no cell"

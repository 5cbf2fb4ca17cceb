"""The answer per kind of state (``answer.decide``) on hand-made outcome tables: no MindSpore."""

from __future__ import annotations

import pytest

from bench.report.answer import decide, kind_of

CPU = {"platforms": ["CPU"], "layout": "scalar"}
FACTS = {
    "assign": {**CPU, "write_size": 10, "doc_note": "the r2.9/r2.10 pages mark it deprecated"},
    "assign_primitive": {**CPU, "write_size": 11},
    "index_add": {**CPU, "layout": "vector", "write_size": 20},
    "copy_": {"platforms": ["Ascend"], "layout": "scalar", "write_size": 5},
    "set_data": {**CPU, "write_size": 8},
}
W = ["clip", "brn"]


def pick(table, facts=FACTS):
    c = decide(table, facts, W, "graph")
    return c.strategy, c.decided


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        pytest.param({}, (None, True), id="nothing-measured"),
        pytest.param(
            {
                "set_data": {
                    "clip": "raises RuntimeError in `inline`",
                    "brn": "cannot be written here",
                }
            },
            (None, True),
            id="no-candidate",
        ),
        pytest.param(
            {
                "assign_primitive": {"clip": "equivalent", "brn": "fastest"},
                "index_add": {"clip": "fastest", "brn": "equivalent"},
            },
            ("assign_primitive", True),
            id="tie-simplest-wins",
        ),
        pytest.param(
            {
                "assign_primitive": {"clip": "fastest", "brn": "undetermined"},
                "index_add": {"clip": "equivalent", "brn": "fastest"},
            },
            ("index_add", False),
            id="simpler-one-undetermined",
        ),
        pytest.param(
            {
                "assign_primitive": {"clip": "fastest", "brn": "slower"},
                "index_add": {"clip": "equivalent", "brn": "fastest"},
            },
            ("index_add", True),
            id="slower-in-one-workload",
        ),
        pytest.param(
            {
                "assign_primitive": {"clip": "fastest", "brn": "slower"},
                "index_add": {"clip": "slower", "brn": "slower"},
            },
            ("assign_primitive", False),
            id="all-slower-somewhere-fewest-wins",
        ),
        pytest.param(
            {
                "assign": {"clip": "fastest", "brn": "fastest"},
                "assign_primitive": {"clip": "equivalent", "brn": "equivalent"},
            },
            ("assign_primitive", True),
            id="deprecated-vs-current-equal-cost",
        ),
        pytest.param(
            {
                "copy_": {"clip": "fastest", "brn": "fastest"},
                "index_add": {"clip": "equivalent", "brn": "equivalent"},
            },
            ("index_add", True),
            id="undocumented-for-cpu-never",
        ),
        pytest.param(
            {
                "copy_": {"clip": "fastest", "brn": "fastest"},
                "index_add": {"clip": "slower", "brn": "slower"},
            },
            ("index_add", False),
            id="undocumented-for-cpu-never-even-the-fastest",
        ),
        pytest.param(
            {
                "assign_primitive": {"clip": "slower", "brn": "not timed"},
                "index_add": {"clip": "fastest", "brn": "fastest"},
            },
            ("index_add", True),
            id="slower-in-one-not-timed-in-another-is-slower",
        ),
        pytest.param(
            {
                "assign_primitive": {
                    "clip": "fastest",
                    "brn": "silently wrong: write dropped in `x`",
                },
                "index_add": {"clip": "slower", "brn": "fastest"},
            },
            ("index_add", False),
            id="wrong-in-one-workload-never",
        ),
        pytest.param(
            {
                "assign_primitive": {"clip": "fastest", "brn": "not timed"},
                "index_add": {"clip": "slower", "brn": "fastest"},
            },
            ("assign_primitive", False),
            id="not-timed-is-not-decided",
        ),
    ],
)
def test_decide(table, expected):
    assert pick(table) == expected


def test_a_deprecated_api_only_when_nothing_current_is_correct_and_it_says_so():
    table = {
        "assign": {"clip": "fastest", "brn": "fastest"},
        "assign_primitive": {"clip": "equivalent", "brn": "silently wrong: write dropped in `x`"},
    }
    c = decide(table, FACTS, W, "graph")
    assert (c.strategy, c.decided) == ("assign", True)
    assert "deprecated" in c.why and "no current API is correct" in c.why
    current = decide(
        {**table, "index_add": {"clip": "slower", "brn": "equivalent"}}, FACTS, W, "graph"
    )
    assert current.strategy == "index_add" and "deprecated" not in current.why
    assert current.rejected == {"assign": "deprecated"}


def test_a_workload_must_declare_its_kind():
    class Bare:
        name = "bare"

    with pytest.raises(ValueError, match="state_kind"):
        kind_of(Bare())

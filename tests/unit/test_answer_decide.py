"""The answer per kind of state (``answer.decide``) on hand-made outcome tables: no MindSpore."""

from __future__ import annotations

import pytest

from bench.decide import answer
from bench.decide.answer import decide, deprecated, kind_of
from bench.report.templating import reason_words

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
            ("assign_primitive", False),  # the simpler one, named as undetermined
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


@pytest.mark.parametrize(
    ("facts", "expected"),
    [
        pytest.param({"deprecated": True, "doc_note": ""}, True, id="flag-true"),
        pytest.param(
            {"deprecated": False, "doc_note": "the pages mark it deprecated"},
            False,
            id="flag-wins-over-note",
        ),
        pytest.param(
            {"deprecated": False, "doc_note": "not marked deprecated"}, False, id="flag-false"
        ),
        # manifests written before the flag: the note, a clause without "not"
        pytest.param(
            {"doc_note": "the r2.9/r2.10 pages mark it deprecated"}, True, id="old-assign"
        ),
        pytest.param({"doc_note": "the newer pages mark it deprecated"}, True, id="old-index-add"),
        pytest.param({"doc_note": "not marked deprecated"}, False, id="old-scatter-update"),
        pytest.param(
            {"doc_note": "experimental; not marked deprecated; its Outputs are a new Tensor"},
            False,
            id="old-inplace-update-v2",
        ),
        pytest.param(
            {"doc_note": "documented for Ascend only; not marked deprecated"}, False, id="old-index"
        ),
        pytest.param(
            {"doc_note": "documented for Ascend only; experimental"}, False, id="old-copy"
        ),
        pytest.param(
            {"doc_note": "experimental; deprecated since 2.9"}, True, id="old-second-clause"
        ),
        pytest.param({}, False, id="nothing-said"),
    ],
)
def test_deprecated_reads_the_flag_then_a_note_without_not(facts, expected):
    assert deprecated(facts) is expected


def test_every_api_note_agrees_with_its_flag():
    """What each documentation note says and the flag the answer reads are one fact: the notes
    that say "not marked deprecated" (ScatterUpdate, tensor_scatter_update, InplaceUpdateV2,
    add_, index_copy_, index_put_) are current APIs; ops.assign, assign_add, inplace_index_add
    are deprecated."""
    from bench.measured import apis

    flagged = {name for name, d in apis.APIS.items() if d.deprecated}
    assert flagged == {
        "mindspore.ops.assign",
        "mindspore.ops.assign_add",
        "mindspore.ops.inplace_index_add",
    }
    for name, d in apis.APIS.items():
        assert deprecated({"doc_note": d.note}) is d.deprecated, name
        assert deprecated({"deprecated": d.deprecated, "doc_note": d.note}) is d.deprecated, name


def test_a_current_api_whose_note_says_not_deprecated_is_chosen_before_a_deprecated_one():
    facts = {
        "assign": {**CPU, "write_size": 10, "deprecated": True, "doc_note": "deprecated"},
        "scatter_update": {
            **CPU,
            "write_size": 30,
            "deprecated": False,
            "doc_note": "not marked deprecated",
        },
    }
    table = {
        "assign": {"clip": "fastest", "brn": "fastest"},
        "scatter_update": {"clip": "equivalent", "brn": "equivalent"},
    }
    c = decide(table, facts, W, "graph")
    assert (c.strategy, c.decided, c.rejected) == ("scatter_update", True, {"assign": "deprecated"})


def test_not_decided_names_the_fastest_it_is_not_told_apart_from():
    table = {
        "assign_primitive": {"clip": "fastest", "brn": "undetermined"},
        "scatter_nd_update": {"clip": "slower", "brn": "fastest"},
    }
    c = decide(table, FACTS, W, "graph")
    assert (c.strategy, c.decided) == ("assign_primitive", False)
    assert reason_words(c.reason) == (
        "whether another candidate is faster by more than the margin is not known yet (the "
        "fastest candidate: `scatter_nd_update` in brn)"
    )
    assert c.reason == answer.Reason(answer.OPEN, rivals=(("scatter_nd_update", "brn"),))
    assert c.fastest_by == {"clip": "assign_primitive", "brn": "scatter_nd_update"}
    slower = decide(
        {
            "assign_primitive": {"clip": "fastest", "brn": "slower"},
            "index_add": {"clip": "slower", "brn": "slower"},
            "set_data": {"clip": "raises x in `y`", "brn": "fastest"},
        },
        FACTS,
        W,
        "graph",
    )
    # set_data is the fastest in brn only as a table entry; it is wrong in clip (no candidate)
    assert slower.strategy == "assign_primitive"
    assert reason_words(slower.reason) == (
        "slower than another candidate at some size in brn (the fastest candidate: `set_data` "
        "in brn)"
    )


def test_where_the_cheaper_one_depends_on_the_size_the_fastest_over_the_sizes_is_named():
    """Against the best at each size every candidate is slower somewhere (ema PYNATIVE: the host
    update is the cheapest up to 10^6 elements and far slower at 10^7): the one with the lowest
    step over the sizes is named, not decided, and says where it is slower; without that hint,
    the simplest."""
    table = {
        "assign_primitive": {"ema": "slower"},
        "index_add": {"ema": "slower"},
    }
    c = decide(table, FACTS, ["ema"], "graph", fastest={"ema": "index_add"})
    assert (c.strategy, c.decided) == ("index_add", False)
    assert reason_words(c.reason) == "slower than another candidate at some size in ema"
    assert c.fastest_by == {"ema": "index_add"}
    assert decide(table, FACTS, ["ema"], "graph").strategy == "assign_primitive"


def test_a_correct_strategy_a_page_cannot_print_is_never_the_answer():
    """A host-side update that replaces the step's forward (no snippet) is not a candidate, even
    as the fastest; the answer is then the least slower pastable one, not decided."""
    facts = {**FACTS, "host": {**CPU, "write_size": 1, "custom": True, "pastable": False}}
    table = {
        "host": {"clip": "fastest", "brn": "fastest"},
        "index_add": {"clip": "slower", "brn": "equivalent"},
    }
    c = decide(table, facts, W, "graph")
    assert (c.strategy, c.decided) == ("index_add", False)
    assert c.rejected == {"host": "no code a user can paste: it replaces the step's own forward"}
    facts["host"]["pastable"] = True
    assert decide(table, facts, W, "graph").strategy == "host"


@pytest.mark.parametrize(
    ("per_size", "expected"),
    [
        pytest.param({1: "faster", 64: "slower"}, ((1,), (64,)), id="crosses"),
        pytest.param(
            {10: "faster", 100: "equivalent", 1000: "slower", 5: "faster"},
            ((5, 10), (1000,)),
            id="crosses-with-a-tie-between",
        ),
        pytest.param({1: "slower", 64: "slower"}, None, id="slower-everywhere"),
        pytest.param({1: "faster", 64: "equivalent"}, None, id="never-slower"),
        pytest.param({1: "slower", 64: "undetermined"}, None, id="undetermined-is-not-faster"),
        pytest.param({}, None, id="nothing"),
    ],
)
def test_a_crossover_needs_a_size_faster_and_a_size_slower(per_size, expected):
    from bench.decide.answer import crossing

    assert crossing(per_size) == expected


def test_crossover_words_group_the_candidates_that_cross_at_the_same_sizes():
    from bench.decide.answer import Crossover
    from bench.report.phrases import CROSSOVER, crossover_words

    found = [
        Crossover("set_data", (1, 64), (1024,)),
        Crossover("assign", (1, 64), (1024,)),
        Crossover("index_add", (1,), (64, 1024)),
    ]
    text = crossover_words("N", "host", found)
    assert text.startswith(f"{CROSSOVER}: head to head, `host`'s whole step is ")
    assert "shorter than `assign`'s and `set_data`'s at N=1, 64 and longer at N=1024" in text
    assert "shorter than `index_add`'s at N=1 and longer at N=64, 1024" in text
    assert crossover_words("N", "host", []) == ""


def test_the_name_does_not_follow_whichever_candidate_measured_fastest():
    # two runs that differ only in which of two candidates the data cannot tell apart measured
    # fastest: the simpler one is named in both; decided only where it is the equivalent one
    simpler_fastest = {
        "assign_primitive": {"clip": "fastest", "brn": "fastest"},
        "index_add": {"clip": "undetermined", "brn": "undetermined"},
    }
    other_fastest = {
        "assign_primitive": {"clip": "undetermined", "brn": "undetermined"},
        "index_add": {"clip": "fastest", "brn": "fastest"},
    }
    assert pick(simpler_fastest) == ("assign_primitive", True)
    assert pick(other_fastest) == ("assign_primitive", False)
    c = decide(other_fastest, FACTS, W, "graph")
    assert reason_words(c.reason) == (
        "whether another candidate is faster by more than the margin is not known yet (the "
        "fastest candidate: `index_add` in clip, `index_add` in brn)"
    )
    # a more complex candidate is named once every simpler one is shown slower
    shown = {
        "assign_primitive": {"clip": "slower", "brn": "undetermined"},
        "index_add": {"clip": "fastest", "brn": "fastest"},
    }
    assert pick(shown) == ("index_add", True)


def test_the_fastest_point_estimate_is_called_fastest_only_where_it_is_equivalent():
    """Its standing is an estimate like any candidate's: "fastest" where no other candidate may
    be faster than it beyond the margin, its own outcome otherwise."""
    from bench.core.analysis import Standing
    from bench.core.cellstats import Comparison
    from bench.decide.answer import _fastest

    def standing(reference, high):
        return Standing("a", reference, {1: Comparison(0.0, 0.0, 1.0, 2.0), 8: Comparison(
            0.0, 0.0, high, 2.0)})  # fmt: skip

    assert _fastest(standing(True, 1.5))
    assert not _fastest(standing(True, 3.0))  # another may be faster by up to 3 at N=8
    assert not _fastest(standing(False, 1.5))  # equivalent, not the fastest point estimate

"""Comparing two runs: provenance first, analytic p-values that can flag one cell after the
correction over every cell, --fail-above (the fixture run and a copy of it with one cell made
slower; no MindSpore)."""

from __future__ import annotations

import json
import shutil

import pytest

from bench.decide import compare, load
from tests.conftest import RUN


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("cmp")
    a = root / "raw" / "20260101T000000Z-aaaa"
    b = root / "raw" / "20260101T000001Z-bbbb"
    shutil.copytree(RUN, a)
    shutil.copytree(RUN, b)
    path = b / "timing" / "graph-p0.json"
    data = json.loads(path.read_text())
    for bench in data["benchmarks"]:
        info = bench["extra_info"]
        if (info["strategy"], info["batch_size"]) == ("assign", 64):  # one cell 50 % slower
            info["step_s"] = [s * 1.5 for s in info["step_s"]]
            bench["stats"]["data"] = info["step_s"]
    path.write_text(json.dumps(data))
    return root, a, b


def test_a_run_compared_with_itself_has_no_change(runs):
    _, a, _ = runs
    table = compare.compare(load.load(a), load.load(a))
    assert len(table) and (table.ratio == 1).all() and (table.q >= 0.05).all()


def test_one_regressed_cell_is_found_after_the_correction(runs):
    _, a, b = runs
    table = compare.compare(load.load(a), load.load(b))
    flagged = table[table.q < 0.05]
    assert list(zip(flagged.strategy, flagged["size"])) == [("assign", 64)]
    assert flagged.ratio.iloc[0] == pytest.approx(1.5, rel=0.02)


def test_the_command_prints_provenance_first_and_fails_above(runs, capsys):
    root, a, b = runs
    code = compare.main([a.name, b.name, "--results-dir", str(root), "--fail-above", "0.3"])
    out, err = capsys.readouterr()
    assert code == 1 and out.index("## How the runs differ") < out.index("## Cells timed")
    assert "assign (inline-param-after-expr) · graph · size 64: overhead +5" in err
    assert compare.main([a.name, b.name, "--results-dir", str(root), "--fail-above", "0.6"]) == 0
    assert compare.main(["nope", b.name, "--results-dir", str(root)]) == 2


def test_outcomes_are_per_comparison_and_twins_have_none(runs):
    _, a, _ = runs
    table = compare.compare(load.load(a), load.load(a))
    twins = table[table.role != "update"]
    assert len(twins) and (twins.outcome_a == "").all() and (twins.outcome_b == "").all()
    updates = table[table.role == "update"]
    assert (updates.outcome_a != "").any()
    assert (updates.outcome_a == updates.outcome_b).all()  # a run against itself
    assert twins.width_a.isna().all() and twins.width_b.isna().all()
    widths = updates.width_a.dropna()
    assert len(widths) and (widths > 0).all()
    assert updates.width_a.equals(updates.width_b)
    text = "\n".join(compare.agreement(table))
    assert "100% of" in text and "0.0%" in text


def test_each_runs_answer_is_shown_per_mode(runs):
    _, a, _ = runs
    rows = compare.answers(load.load(a), load.load(a))
    assert rows and all(r[1] == r[2] and r[3] == r[4] == "yes" for r in rows)


def test_the_same_strategy_decided_in_one_run_only_is_not_the_same_answer():
    from bench.decide.answer import Choice

    decided = Choice("graph", "rebind", True, "")
    open_ = Choice("graph", "rebind", False, "")
    other = Choice("graph", "assign_primitive", False, "")
    nothing = Choice("graph", None, True, "")
    assert compare.answer_row("graph", decided, open_)[1:] == [
        "`rebind`", "`rebind` (undetermined)", "**no**", "yes"
    ]  # fmt: skip
    assert compare.answer_row("graph", open_, other)[3:] == [compare.BOTH_UNDETERMINED, "**no**"]
    assert compare.answer_row("graph", decided, other)[3:] == ["**no**", "**no**"]
    assert compare.answer_row("graph", open_, nothing)[3:] == ["**no**", "**no**"]
    assert compare.answer_row("graph", open_, open_)[3:] == ["yes", "yes"]
    assert compare.answer_row("graph", nothing, nothing)[1:] == ["none", "none", "yes", "yes"]


def test_agreement_counts_the_same_outcome_and_the_contradictions():
    import pandas as pd

    table = pd.DataFrame(
        {
            "mode": ["graph"] * 4,
            "size": [64] * 4,
            "ratio": [1.0] * 4,
            "margin": [0.02] * 4,
            "outcome_a": ["equivalent", "equivalent", "slower", "undetermined"],
            "outcome_b": ["equivalent", "slower", "undetermined", "undetermined"],
            "width_a": [0.5, 1.0, 2.0, float("nan")],
            "width_b": [1.0, 1.0, 3.0, 4.0],
        }
    )
    row = next(r for r in compare.agreement(table) if r.startswith("| GRAPH_MODE | all"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[-3] == "1.00, 2.00"  # medians of the finite widths: [0.5, 1, 2] and [1, 1, 3, 4]
    assert cells[-2] == "50% of 4"  # the first and the last
    assert cells[-1] == "25% of 4"  # only equivalent → slower: decided both times, differently


def test_a_run_that_leaves_a_comparison_open_does_not_contradict_one_that_decides_it():
    import pandas as pd

    a = pd.Series(["equivalent", "slower", "undetermined", "equivalent", "faster", "slower"])
    b = pd.Series(["undetermined", "undetermined", "slower", "equivalent", "slower", "slower"])
    assert compare.contradicts(a, b).tolist() == [False, False, False, False, True, False]
    assert compare.contradicts(b, a).tolist() == compare.contradicts(a, b).tolist()


def _z_table(zs_by_cell: dict, mode: str = "graph"):
    import pandas as pd

    rows = [{"strategy": s, "shape": "inline", "mode": mode, "size": i, "z": z}
            for s, zs in zs_by_cell.items() for i, z in enumerate(zs)]  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    "zs_by_cell, share, holds",
    [
        # none beyond over 60 cells: within 7 %; two thirds beyond: not; 1 of 6 over 3 cells:
        # the interval straddles 7 %
        ({f"s{i}": [0.1, -0.5, 1.0] for i in range(60)}, 0.0, "yes"),
        ({f"s{i}": [3.0, -2.5, 0.1] for i in range(60)}, 2 / 3, "no"),
        ({"a": [3.0, 0.0], "b": [0.0, 0.0], "c": [0.1, 0.2]}, 1 / 6, "undetermined"),
    ],
)
def test_between_run_calibration_counts_beyond_196_combined_se(zs_by_cell, share, holds):
    (mode, n, got, low, high, said), (all_mode, *_rest) = compare.calibration(_z_table(zs_by_cell))
    assert (mode, all_mode) == ("graph", "all")
    assert n == sum(len(v) for v in zs_by_cell.values())
    assert got == pytest.approx(share) and said == holds
    assert low <= got <= high


def test_the_calibration_interval_resamples_whole_cells():
    """One cell's sizes move together (their noise is shared): resampling cells, not rows,
    widens the interval when the misses sit in one cell."""
    import numpy as np

    table = _z_table({"hot": [3.0] * 10, **{f"s{i}": [0.0] for i in range(10)}})
    low, high = compare.cluster_interval(table)
    assert low == 0.0 and high > 0.5  # the hot cell drawn or not decides it
    assert np.isnan(compare.beyond([])) and compare.beyond([2.0, -2.0, 1.0, np.nan]) == 2 / 3


def test_the_command_prints_the_calibration(runs, capsys):
    root, a, b = runs
    compare.main([a.name, b.name, "--results-dir", str(root)])
    out = capsys.readouterr().out
    assert "## Between-run calibration" in out and "| all modes |" in out


@pytest.mark.parametrize(
    "started, said",
    [({}, "not recorded"), ({"warm": 0, "cold": 0}, "not recorded"), ({"warm": 17, "cold": 0},
     "warm"), ({"warm": 0, "cold": 16}, "cold"), ({"warm": 7, "cold": 13}, "warm 7, cold 13")],
)  # fmt: skip
def test_how_the_workers_started_is_told_in_one_word_where_it_can_be(started, said):
    assert compare._workers(started) == said


def test_runs_whose_workers_started_otherwise_differ_in_their_provenance(runs):
    _, a, _ = runs
    cold, warm = load.load(a), load.load(a)
    cold.manifest.workers, warm.manifest.workers = {"cold": 16}, {"warm": 17}
    assert compare.provenance_diff(cold, cold) == []
    assert compare.provenance_diff(cold, warm) == [["workers", "cold", "warm"]]

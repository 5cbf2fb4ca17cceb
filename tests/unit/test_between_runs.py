"""bench.decide.between_runs and Estimate's run component: the variance between runs of the
machine, estimated from back-to-back pairs and added to a cost's interval. Hand-made numbers,
no MindSpore."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from bench.core import cellstats
from bench.decide import between_runs as br

Q = [float(stats.norm.ppf(p)) for p in np.linspace(0.01, 0.99, 99)]  # a standard normal sample


def test_differences_the_runs_own_errors_cover_need_no_component():
    assert br.tau2(Q, [1.0] * len(Q)) == 0.0
    assert br.tau2([0.1, -0.2, 0.05], [1.0, 1.0, 1.0]) == 0.0


def test_differences_beyond_the_error_give_the_component_that_brings_their_tail_to_196():
    t2 = br.tau2([4.0, -4.0, 4.0], [1.0, 1.0, 1.0])
    want = ((4.0 / 1.96) ** 2 - 1.0) / 2.0
    assert math.isclose(t2, want, rel_tol=1e-6)
    assert math.isclose(4.0 / math.sqrt(1.0 + 2 * t2), 1.96, rel_tol=1e-6)
    assert br.beyond([4.0, -4.0, 4.0], [1.0] * 3, t2 * 1.001) == 0.0


def test_the_tail_decides_not_the_bulk():
    """Most cells well inside their intervals and 10 % far beyond: the median would call that
    covered; the tail needs a component, and with it at most 5 % stay beyond 1.96."""
    d = [x * 0.5 for x in Q[:90]] + [6.0] * 10
    t2 = br.tau2(d, [1.0] * len(d))
    assert t2 > 0 and br.beyond(d, [1.0] * len(d), 0.0) == 0.1
    assert br.beyond(d, [1.0] * len(d), t2 * 1.001) <= 0.05


def test_non_finite_cells_are_left_out():
    assert br.tau2([2.0, math.nan, -2.0], [1.0, 1.0, math.inf]) == br.tau2([2.0, -2.0], [1, 1])
    assert br.tau2([], []) == 0.0


def test_the_share_beyond_196_falls_as_the_component_grows():
    d, s = [3.0, 0.5, -3.0, 0.2], [1.0] * 4
    assert br.beyond(d, s, 0.0) == 0.5
    assert br.beyond(d, s, 4.0) == 0.0
    assert math.isnan(br.beyond([], [], 0.0))


def _rows(pair: str, mode: str, scale: float, n: int = 99, role: str = "update") -> list[dict]:
    return [{"pair": pair, "mode": mode, "role": role, "diff": q * scale, "se": 1.0} for q in Q[:n]]


def test_fit_per_mode_with_a_pair_left_out():
    rows = _rows("a", "graph", 1.0) + _rows("b", "graph", 1.0)  # errors that hold
    rows += _rows("a", "pynative", 3.0) + _rows("b", "pynative", 3.0)  # three times too small
    rows += _rows("a", "graph", 3.0, role="layout") + _rows("b", "graph", 3.0, role="layout")
    fits = {(f.mode, f.role): f for f in br.fit(rows)}
    graph = fits[("graph", "update")]
    assert graph.tau == 0.0 and graph.pairs == 2 and graph.cells == 198
    assert fits[("graph", "layout")].tau > 1.0  # each role its own
    p = fits[("pynative", "update")]
    assert 1.5 < p.tau < 2.5  # 1 + 2τ² = 9, as the sample's tail gives it
    assert p.beyond_own > 0.4
    assert p.beyond_widened < 0.07 and p.beyond_held_out < 0.07
    assert p.df == 2.0


def test_the_held_out_share_shows_a_pair_unlike_the_others():
    rows = _rows("a", "graph", 1.0) + _rows("b", "graph", 1.0) + _rows("c", "graph", 4.0)
    f = br.fit(rows)[0]
    assert f.beyond_held_out > f.beyond_widened  # c judged by a and b alone: far beyond


def test_the_committed_file_reads_as_variances_and_a_missing_or_foreign_one_as_nothing(
    tmp_path, capsys
):
    fits = br.fit(_rows("a", "pynative", 3.0))
    path = tmp_path / "between_runs.json"
    path.write_text(br.to_json(fits, [{"workload": "clip", "a": "x", "b": "y"}]))
    got = br.read(path)
    assert set(got) == {("pynative", "update")}
    t2, df = got[("pynative", "update")]
    assert math.isclose(t2, fits[0].tau ** 2) and df == 1.0
    assert br.read(tmp_path / "none.json") == {}
    path.write_text(json.dumps({"schema_version": 99, "fits": []}))
    assert br.read(path) == {} and "schema 99 ignored" in capsys.readouterr().err


def _estimate(run_tau2: float = 0.0) -> cellstats.Estimate:
    rng = np.random.default_rng(3)
    groups = [list(1.1 * np.exp(rng.normal(0, 0.02, 10))) for _ in range(2)]
    return cellstats.estimate(groups, 0.001, 1e-4, 5.0, run_tau2, 6.0)


def test_the_run_component_widens_the_cost_and_keeps_the_runs_own_error():
    own, wide = _estimate(), _estimate(0.0025)
    assert own.log_ratio == wide.log_ratio
    assert math.isclose(wide.log_se**2, own.log_se**2 + 0.0025)
    assert math.isclose(wide.own_log_se, own.log_se) and wide.own_df == own.df
    assert wide.df < own.df  # six pairs behind the component: fewer degrees of freedom
    lo, hi = wide.added_interval
    lo0, hi0 = own.added_interval
    assert lo < lo0 and hi > hi0


def test_no_component_changes_nothing():
    a, b = (
        _estimate(),
        cellstats.estimate(
            [list(g) for g in [[1.0, 1.1, 1.05], [1.02, 1.08, 1.04]]], 0.001, 1e-4, 5.0
        ),
    )
    assert a.own_log_se == a.log_se and a.own_df == a.df
    assert b.own_log_se == b.log_se and b.own_df == b.df


@pytest.mark.parametrize(
    "text, said",
    [
        (None, "no pairs file"),
        ("{not json", "is no pairs file"),
        ('{"pairs": [{"workload": "clip"}]}', "is no pairs file"),
        ('{"pairs": []}', "lists no pair"),
        ('{"pairs": [{"workload": "clip", "a": "nope", "b": "none"}]}', "is in neither"),
    ],
)
def test_a_bad_pairs_file_exits_2_and_writes_nothing(text, said, tmp_path, capsys):
    pairs, out = tmp_path / "pairs.json", tmp_path / "out.json"
    if text is not None:
        pairs.write_text(text, encoding="utf-8")
    assert br.main(["--pairs", str(pairs), "--out", str(out)]) == 2
    assert said in capsys.readouterr().err and not out.exists()


def test_an_unreadable_committed_file_widens_nothing_and_says_so(tmp_path, capsys):
    path = tmp_path / "between_runs.json"
    path.write_text("{broken", encoding="utf-8")
    assert br.read(path) == {} and "unreadable" in capsys.readouterr().err


def test_each_pair_shows_which_kind_of_cell_moves():
    def row(role, diff):
        return {"pair": "a", "mode": "graph", "role": role, "diff": diff, "se": 1.0}

    rows = [row("update", 0.5), row("update", -1.0), row("layout", 3.0), row("layout", 0.1)]
    found = br.by_pair(rows)
    head, line = found[0], found[2]
    assert "layout: beyond 1.96 SE" in head
    assert line == "| a | GRAPH_MODE | 0.0% of 2 | 50.0% of 2 | – |"  # no A/A cell here

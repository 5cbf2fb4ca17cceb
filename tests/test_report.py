"""The report: tidy frame, summary, plots and command line, on real (trimmed) run fixtures."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from bench import report
from bench.gate import STATUSES

RUNS = Path(__file__).resolve().parent / "fixtures" / "runs"
N_BOOT = 200  # enough for the tests; the command line default is stats.N_BOOTSTRAP
SECTIONS = [
    "## 1. The answer",
    "## 2. Support matrix",
    "## 3. Step time",
    "## 4. Update overhead",
    "## 5. Compile / first call, throughput, memory",
    "## 6. Provenance",
    "## 7. Plots",
    "## 8. Missing cells and problems",
]
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _build(name):
    manifest, docs, problems = report.load_run(RUNS / name)
    df = report.tidy(manifest, docs, problems, n_boot=N_BOOT)
    env = report.environment(docs)
    summary = report.render_summary(df, manifest, env, ["../plots/x.png"], problems, N_BOOT)
    return manifest, docs, problems, df, summary


@pytest.fixture(scope="module")
def complete():
    return _build("complete")


@pytest.fixture(scope="module")
def interrupted():
    return _build("interrupted")


@pytest.fixture(scope="module")
def damaged():
    return _build("damaged")


def _section(summary: str, number: int) -> str:
    start = summary.index(SECTIONS[number - 1])
    end = summary.index(SECTIONS[number]) if number < len(SECTIONS) else len(summary)
    return summary[start:end]


def _cell(df, strategy, mode, n):
    rows = df[(df.strategy == strategy) & (df["mode"] == mode) & (df.batch_size == n)]
    assert len(rows) == 1
    return rows.iloc[0]


def _expected_best(df, mode):
    """The recommendation, computed independently: fastest geometric mean among full workers."""
    rows = df[(df["mode"] == mode) & ~df.is_control]
    full = [s for s, g in rows.groupby("strategy") if (g.status == "works").all()]
    means = {s: np.exp(np.log(rows[rows.strategy == s].step_median_s).mean()) for s in full}
    return min(means, key=means.get)


# -- loading and the tidy frame ---------------------------------------------------------------
def test_load_run_reads_every_result(complete):
    manifest, docs, problems, _, _ = complete
    assert manifest["status"] == "complete"
    assert problems == []
    assert len(docs) == len(list((RUNS / "complete").glob("*.json"))) - 1
    assert {d["suite"]["kind"] for d in docs} == {"gate", "time"}


def test_tidy_has_one_row_per_planned_cell(complete):
    manifest, _, _, df, _ = complete
    plan = manifest["plan"]
    assert len(df) == len(plan["strategies"]) * len(plan["modes"]) * len(plan["batch_sizes"])
    assert not df.duplicated(["strategy", "mode", "batch_size"]).any()
    wanted = {
        "strategy", "mode", "batch_size", "status", "detail", "description", "layout",
        "is_control", "processes", "step_median_s", "step_iqr_s", "noisy", "ratio",
        "ratio_low", "ratio_high", "first_call_s", "samples_per_s", "peak_rss_mb",
        "steps_per_round", "rounds",
    }  # fmt: skip
    assert wanted <= set(df.columns)


def test_tidy_statuses_of_a_complete_run(complete):
    df = complete[3]
    unsupported = df[df.status == "unsupported"]
    assert set(zip(unsupported.strategy, unsupported["mode"])) == {("set_data", "graph")}
    assert unsupported.detail.str.startswith("RuntimeError: Failed to compile in GRAPH_MODE").all()
    assert unsupported.step_median_s.isna().all() and (unsupported.processes == 0).all()
    works = df[df.status == "works"]
    assert len(works) == len(df) - len(unsupported)
    assert (works.processes == 2).all()
    assert (works.ratio_low <= works.ratio).all() and (works.ratio <= works.ratio_high).all()
    assert set(df[df.is_control].strategy) == {"control_scalar", "control_vector"}
    assert set(df[df.layout == "vector"].strategy) == {
        "control_vector", "index_add", "inplace_index_add"
    }  # fmt: skip


def test_tidy_pools_raw_rounds_over_processes(complete):
    df = complete[3]
    steps, ratios, first_calls = [], [], []
    for p in (0, 1):
        doc = json.loads((RUNS / "complete" / f"time-host-graph-p{p}.json").read_text())
        bench = next(b for b in doc["benchmarks"] if b["extra_info"]["batch_size"] == 64)
        steps += [t / bench["extra_info"]["steps_per_round"] for t in bench["stats"]["data"]]
        ratios += bench["extra_info"]["ratio_data"]
        first_calls.append(bench["extra_info"]["first_call_s"])
    row = _cell(df, "host", "graph", 64)
    assert row.step_median_s == pytest.approx(np.median(steps))
    assert row.ratio == pytest.approx(np.median(ratios))
    assert row.first_call_s == pytest.approx(np.median(first_calls))
    assert row.rounds == len(steps)
    assert row.samples_per_s == pytest.approx(64 / np.median(steps))
    q1, q3 = np.percentile(steps, [25, 75])
    assert row.step_iqr_s == pytest.approx(q3 - q1)
    assert bool(row.noisy) == ((q3 - q1) / np.median(steps) > 0.10)


def test_interrupted_run_has_missing_cells(interrupted):
    manifest, _, problems, df, _ = interrupted
    assert manifest["status"] == "interrupted" and problems == []
    missing = df[df.status == "missing"]
    assert set(zip(missing.strategy, missing["mode"])) == {
        ("index_add", "pynative"),
        ("inplace_index_add", "pynative"),
    }
    assert len(missing) == 2 * len(manifest["plan"]["batch_sizes"])
    assert missing.detail.str.contains("no gate result").sum() == len(
        manifest["plan"]["batch_sizes"]
    )
    partial = _cell(df, "host", "graph", 64)
    assert partial.status == "works" and partial.processes == 1
    assert "1 of 2" in partial.detail


def test_damaged_run_names_bad_files_and_keeps_going(damaged):
    _, docs, problems, df, _ = damaged
    assert any(p.startswith("time-assign-pynative-p1.json: unreadable JSON") for p in problems)
    assert any(p.startswith("notes.json") for p in problems)
    assert len(problems) == 2
    assert {d["_file"] for d in docs}.isdisjoint({"time-assign-pynative-p1.json", "notes.json"})
    crashed = df[df.status == "crashed"]
    assert set(zip(crashed.strategy, crashed["mode"])) == {("host", "graph"), ("host", "pynative")}
    assert crashed[crashed["mode"] == "graph"].detail.str.contains("p1: worker died").all()
    assert _cell(df, "host", "graph", 64).processes == 1  # p0 still measured
    assert _cell(df, "host", "pynative", 64).layout == "scalar"  # taken from the graph gate
    assert _cell(df, "assign", "pynative", 64).processes == 1
    assert sorted(df.batch_size.unique()) == [1, 64, 1024]


def test_untimed_cells_say_why(complete):
    manifest, docs = complete[0], complete[1]
    gates = [json.loads(json.dumps(d)) for d in docs if d["suite"]["kind"] == "gate"]
    for doc in gates:
        if (doc["suite"]["strategy"], doc["suite"]["mode"]) == ("control_scalar", "graph"):
            doc["suite"]["verdict"]["status"] = "broken"
    df = report.tidy({**manifest, "argv": ["--gate-only"]}, gates, n_boot=0)
    assert _cell(df, "control_scalar", "graph", 1).status == "broken"
    assert _cell(df, "assign", "graph", 1).status == "skipped"  # its control failed the gate
    assert _cell(df, "index_add", "graph", 1).status == "missing"  # vector control is fine
    assert "--gate-only" in _cell(df, "index_add", "graph", 1).detail


def test_load_run_without_manifest_uses_the_documents(tmp_path):
    shutil.copytree(RUNS / "damaged", tmp_path / "run")
    (tmp_path / "run" / "manifest.json").unlink()
    manifest, docs, problems = report.load_run(tmp_path / "run")
    assert manifest == {} and any(p.startswith("manifest.json") for p in problems)
    df = report.tidy(manifest, docs, problems, n_boot=0)
    assert {"assign", "host", "set_data"} <= set(df.strategy)
    assert df.ratio_low.isna().all()  # n_boot=0: point estimates only


# -- the summary ------------------------------------------------------------------------------
def test_summary_has_every_section_in_order(complete):
    summary = complete[4]
    positions = [summary.index(s) for s in SECTIONS]
    assert positions == sorted(positions)
    assert summary.startswith("# ") and "`complete`" in summary.splitlines()[0]


def test_answer_names_the_fastest_working_strategy_per_mode(complete):
    df, summary = complete[3], complete[4]
    answer = _section(summary, 1)
    for mode in ("graph", "pynative"):
        best = _expected_best(df, mode)
        assert re.search(rf"\*\*{mode.upper()} \(.*\): use `{best}`\*\*", answer)


def test_answer_numbers_come_from_the_frame(complete):
    df, summary = complete[3], complete[4]
    answer = _section(summary, 1)
    for mode in ("graph", "pynative"):
        rows = df[(df["mode"] == mode) & (df.strategy == _expected_best(df, mode))]
        unit, scale = report.time_unit(rows.step_median_s)
        assert f"`{rows.strategy.iloc[0]}` ({unit}/step)" in answer
        for r in rows.itertuples():
            ratio = report.fmt_ratio(r.ratio, r.ratio_low, r.ratio_high)
            step = report.fmt_num(r.step_median_s * scale)
            control = report.fmt_num(r.control_step_median_s * scale)
            assert f"| {r.batch_size} | {step} | {control} | {ratio} |" in answer


def test_answer_quotes_the_set_data_error_and_the_fix(complete):
    df, summary = complete[3], complete[4]
    answer = _section(summary, 1)
    error = _cell(df, "set_data", "graph", 1).detail.splitlines()[0]
    assert f"**`set_data` cannot be used in GRAPH** (`{error}`)" in answer
    assert "It works in PYNATIVE." in answer
    assert f"In GRAPH use `{_expected_best(df, 'graph')}` instead" in answer


def test_answer_reports_the_vector_control_factor(complete):
    df, summary = complete[3], complete[4]
    controls = df[df.is_control & (df["mode"] == "graph")]
    scalar = controls[controls.layout == "scalar"].set_index("batch_size").step_median_s
    vector = controls[controls.layout == "vector"].set_index("batch_size").step_median_s
    factor = vector / scalar
    assert factor.median() > report.LAYOUT_NOTABLE_FACTOR  # this machine's data: a real effect
    expected = f"In GRAPH the vector-layout control (no update at all) takes ×{factor.min():.2f}"
    assert expected in _section(summary, 1)


def test_support_matrix_and_status_legend(complete):
    support = _section(complete[4], 2)
    set_data = next(line for line in support.splitlines() if line.startswith("| `set_data`"))
    assert "| unsupported: RuntimeError: Failed to compile in GRAPH_MODE" in set_data
    assert set_data.endswith("| works |")
    assert f"- **unsupported**: {STATUSES['unsupported']}" in support
    assert "| `control_vector` (control) | vector | works | works |" in support


def test_step_time_tables_mark_best_and_noise(complete):
    df, summary = complete[3], complete[4]
    steps = _section(summary, 3)
    assert "### GRAPH (" in steps and "### PYNATIVE (" in steps
    graph = df[(df["mode"] == "graph") & (df.batch_size == 1)]
    fastest = graph[~graph.is_control & (graph.status == "works")].step_median_s.idxmin()
    unit, scale = report.time_unit(df[df["mode"] == "graph"].step_median_s)
    assert f"### GRAPH ({unit} per step)" in steps
    line = next(x for x in steps.splitlines() if x.startswith(f"| `{df.strategy[fastest]}` |"))
    assert (
        line.split("|")[2]
        .strip()
        .startswith(f"**{report.fmt_num(df.step_median_s[fastest] * scale)}**")
    )
    noisy = df[df.noisy & (df.processes > 0)].iloc[0]
    assert f"(! {noisy.step_iqr_s / noisy.step_median_s:.0%})" in steps


def test_overhead_section_tests_differences(complete):
    overhead = _section(complete[4], 4)
    assert "### GRAPH" in overhead and "### PYNATIVE" in overhead
    assert overhead.count("**bold** = significant") == 2
    assert re.search(r"\*\*[+-]\d\.\d\d \[[+-]\d\.\d\d, [+-]\d\.\d\d\]\*\*", overhead)


def test_provenance(complete):
    _, docs, _, _, summary = complete
    provenance = _section(summary, 6)
    cpu = docs[-1]["machine_info"]["cpu"]["brand_raw"]
    for text in (cpu, "vm", "MindSpore 2.10.0", "`complete` (complete)", "nox -s bench --"):
        assert text in provenance
    assert "processes=2" in provenance and "synchronized once" in provenance


def test_interrupted_summary_lists_missing_cells(interrupted):
    summary = interrupted[4]
    assert "> **This run is interrupted**: 10 of 70 cells are missing." in summary
    gaps = _section(summary, 8)
    assert "- missing: `index_add` · PYNATIVE · N=1: not timed" in gaps
    assert "- no problems reading the run" in gaps


def test_damaged_summary_lists_problems_and_crashes(damaged):
    summary = damaged[4]
    gaps = _section(summary, 8)
    assert "- problem: time-assign-pynative-p1.json: unreadable JSON" in gaps
    assert "| crashed: worker exited with code 134; last output: Aborted |" in _section(summary, 2)
    assert f"- **crashed**: {STATUSES['crashed']}" in summary


# -- plots and the command line ---------------------------------------------------------------
OLD, NEW = "20260101T000000Z-aaaa", "20260102T000000Z-bbbb"


def test_plots_are_png(damaged, tmp_path):
    paths = report.write_plots(damaged[3], tmp_path / "plots", "vm")
    assert len(paths) == 3 * 2 + 1
    for path in paths:
        assert path.read_bytes()[:8] == PNG_MAGIC
    assert not list((tmp_path / "plots").glob(".*"))  # no temporary files left


@pytest.fixture
def results(tmp_path):
    shutil.copytree(RUNS / "damaged", tmp_path / "results" / "raw" / OLD)
    shutil.copytree(RUNS / "complete", tmp_path / "results" / "raw" / NEW)
    return tmp_path


def _main(results, *args):
    dirs = ["--results-dir", str(results / "results"), "--plots-dir", str(results / "plots")]
    return report.main([*args, *dirs, "--bootstrap", "50"])


def test_main_reports_the_newest_run_by_default(results):
    assert _main(results) == 0
    summary = (results / "results" / "summary.md").read_text()
    assert summary.startswith(f"# Updating a MindSpore Parameter: run `{NEW}`")
    csv = pd.read_csv(results / "results" / "results.csv")
    assert len(csv) == 70 and "step_groups" not in csv.columns
    assert set(csv.run_id) == {NEW}
    assert csv[csv.status == "unsupported"].strategy.unique().tolist() == ["set_data"]
    links = re.findall(r"!\[[^]]*\]\(([^)]+)\)", summary)
    assert len(links) == 7 and all(link.startswith("../plots/") for link in links)
    for link in links:
        assert (results / "results" / link).read_bytes()[:8] == PNG_MAGIC
    assert not list((results / "results").glob(".*"))  # written atomically, nothing left over


def test_main_accepts_a_path_and_several_runs(results):
    assert _main(results, str(results / "results" / "raw" / OLD)) == 0
    assert f"run `{OLD}`" in (results / "results" / "summary.md").read_text()
    assert _main(results, NEW, OLD) == 0
    csv = pd.read_csv(results / "results" / "results.csv")
    assert csv.groupby("run_id").size().to_dict() == {OLD: 24, NEW: 70}
    summary = (results / "results" / "summary.md").read_text()
    assert f"run `{OLD}`" in summary and f"results.csv also holds the runs `{NEW}`" in summary


def test_main_unknown_run_is_one_line_and_exit_2(results, capsys):
    assert _main(results, "no-such-run") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "no run 'no-such-run'" in err and NEW in err
    assert not (results / "results" / "summary.md").exists()


def test_main_without_runs_is_exit_2(tmp_path, capsys):
    assert report.main(["--results-dir", str(tmp_path)]) == 2
    assert "no runs in" in capsys.readouterr().err


def test_report_does_not_import_mindspore():
    code = "import sys, bench.report, bench.compare; sys.exit('mindspore' in sys.modules)"
    root = Path(__file__).resolve().parent.parent
    assert subprocess.run([sys.executable, "-c", code], cwd=root, check=False).returncode == 0

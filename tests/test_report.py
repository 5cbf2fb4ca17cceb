"""The report: tidy frames, Markdown that renders as GFM does, plots, files (no MindSpore).

Fixtures are real runs, trimmed (tests/fixtures/runs/README.md)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from markdown_it import MarkdownIt

from bench.core.schema import SchemaError
from bench.report import answer, fmt, load, main, summary

RUNS = Path(__file__).resolve().parent / "fixtures" / "runs"
N_BOOT = 200
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def complete():
    return load.load(RUNS / "complete", n_boot=N_BOOT)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The report of the complete fixture run, written as a run's own report."""
    results = tmp_path_factory.mktemp("results")
    shutil.copytree(RUNS / "complete", results / "raw" / "20260101T000000Z-test")
    assert main.main(["--results-dir", str(results), "--bootstrap", str(N_BOOT)]) == 0
    return results / "raw" / "20260101T000000Z-test" / "report"


# -- Markdown as a Git host renders it ------------------------------------------------------
def tables(markdown: str) -> list[list[list[str]]]:
    """Every table as rows of cell texts, parsed by markdown-it-py's GFM table rule."""
    tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
    out, row, inside = [], None, False
    for tok in tokens:
        if tok.type == "table_open":
            out.append([])
        elif tok.type == "tr_open":
            row = []
        elif tok.type in ("th_open", "td_open"):
            inside = True
        elif tok.type == "inline" and inside:
            row.append(tok.content)
            inside = False
        elif tok.type == "tr_close":
            out[-1].append(row)
    return out


def raw_widths(markdown: str) -> list[tuple[int, int, str]]:
    """(cells in a table line, cells in its header, the line) as GFM splits unescaped pipes."""
    out, header = [], None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = len(re.split(r"(?<!\\)\|", line.strip().strip("|")))
        header = header or cells
        out.append((cells, header, line))
    return out


def test_every_generated_table_has_as_many_cells_as_its_header(written):
    for page in ("summary.md", "shapes.md"):
        text = (written / page).read_text()
        assert tables(text), page
        for cells, header, line in raw_widths(text):
            assert cells == header, f"{page}: {line}"
        for table in tables(text):
            assert all(len(row) == len(table[0]) for row in table), page


def test_the_committed_reports_render_with_every_cell_in_place():
    """The reference pages in results/ (whatever run made them) parse as GFM, row = header."""
    pages = sorted((Path(__file__).resolve().parents[1] / "results").glob("**/*.md"))
    pages = [p for p in pages if "raw" not in p.parts]
    assert pages
    for page in pages:
        text = page.read_text()
        for cells, header, line in raw_widths(text):
            assert cells == header, f"{page}: {line}"
        for table in tables(text):
            assert all(len(row) == len(table[0]) for row in table), page


def test_the_support_matrix_shows_each_verdict_in_its_own_column(written, complete):
    text = (written / "summary.md").read_text()
    matrix = next(t for t in tables(text) if t[0][:2] == ["strategy", "layout"])
    modes = [m.lower() for m in matrix[0][2:]]
    v = complete.verdicts
    for row in matrix[1:]:
        strategy = row[0].strip("`")
        for mode, cell in zip(modes, row[2:]):
            mine = v[(v.strategy == strategy) & (v["mode"] == mode) & (v.status != "inexpressible")]
            works = int((mine.status == "works").sum())
            if len(mine) and works == len(mine):
                assert cell.startswith("works"), (strategy, mode, cell)
            elif len(mine) and works == 0:
                assert not cell.startswith("works"), (strategy, mode, cell)
            elif len(mine):
                assert cell.startswith(f"works {works}/{len(mine)}"), (strategy, mode, cell)


def test_strategies_for_other_workloads_leave_the_matrix():
    from bench.report import matrix

    v = pd.DataFrame(
        {
            "strategy": ["host_ema", "host_ema", "assign", "assign", "control"],
            "mode": ["graph", "pynative", "graph", "pynative", "graph"],
            "status": ["inexpressible", "inexpressible", "works", "inexpressible", "works"],
        }
    )
    assert matrix.not_applicable(v) == ["host_ema"]


def test_cells_escape_pipes_and_newlines():
    assert fmt.cell("a | b\nc") == "a \\| b c"
    with pytest.raises(ValueError, match="row has 1 cells"):
        fmt.table(["a", "b"], [["x"]])


# -- the answer -------------------------------------------------------------------------------
def test_the_first_screen_answers_per_mode(written, complete):
    text = (written / "summary.md").read_text()
    head = text.split("## Support matrix")[0]
    assert "## The answer" in head and len(head.splitlines()) < 60
    answer_table = tables(head)[0]
    assert answer_table[0][0] == "mode"
    assert {r[0] for r in answer_table[1:]} == {fmt.mode_label(m) for m in complete.plan["modes"]}


def test_the_recommendation_is_a_tie_broken_by_simplicity(complete):
    for mode in complete.plan["modes"]:
        ranked = answer.ranking(complete, mode, n_boot=N_BOOT)
        pick = answer.recommendation(ranked)
        if pick is None:
            continue
        tied = [r for r in ranked if r["tied"]]
        assert pick in tied and ranked[0]["tied"]  # the fastest is always in its own tie
        assert pick["simplicity"] == min(r["simplicity"] for r in tied)


def test_a_control_faster_than_its_subject_is_never_best(complete):
    run = load.RunData(**{**complete.__dict__, "cells": complete.cells.copy()})
    mode = run.plan["modes"][0]
    fastest = answer.ranking(run, mode, n_boot=N_BOOT)[0]["strategy"]
    run.cells.loc[
        (run.cells["mode"] == mode) & (run.cells.strategy == fastest), "control_invalid"
    ] = True
    assert fastest not in {r["strategy"] for r in answer.ranking(run, mode, n_boot=N_BOOT)}


# -- the tidy frames --------------------------------------------------------------------------
def test_cells_pool_processes_and_keep_their_spread(complete):
    cells = complete.cells[complete.cells.processes > 0]
    assert (cells.processes >= 1).all() and (cells.rounds >= 3 * cells.processes).all()
    assert (cells.process_min_s <= cells.step_s + 1e-12).all()
    assert (cells.step_s <= cells.process_max_s + 1e-12).all()
    assert (cells.ratio_low <= cells.ratio).all() and (cells.ratio <= cells.ratio_high).all()
    for r in cells.itertuples():
        pooled = np.concatenate([np.asarray(g) for g in r.ratio_groups])
        assert r.ratio == pytest.approx(np.median(pooled))
    assert set(complete.cells.role) == {"update", "layout"}


def test_an_interrupted_run_lists_what_is_missing(tmp_path):
    run_dir = tmp_path / "run"
    shutil.copytree(RUNS / "complete", run_dir)
    for path in list((run_dir / "timing").glob("*-p1*.json")):
        path.unlink()
    manifest = (run_dir / "manifest.json").read_text().replace('"complete"', '"interrupted"')
    (run_dir / "manifest.json").write_text(manifest)
    run = load.load(run_dir, n_boot=N_BOOT)
    text = summary.render(run, "t", [], {}, {}, N_BOOT)
    assert "This run is interrupted" in text
    assert (run.cells[run.cells.processes > 0].processes == 1).all()


def test_damaged_files_are_named_and_skipped(tmp_path):
    run_dir = tmp_path / "run"
    shutil.copytree(RUNS / "complete", run_dir)
    victim = sorted((run_dir / "timing").glob("*.json"))[0]
    victim.write_text(victim.read_text()[: len(victim.read_text()) // 2])
    (run_dir / "gate" / "notes.json").write_text('{"not": "a verdict"}')
    run = load.load(run_dir, n_boot=N_BOOT)
    assert any(victim.name in p and "unreadable" in p for p in run.problems)
    assert any("notes.json" in p for p in run.problems)
    assert len(run.verdicts) > 0


def test_a_newer_schema_is_refused_with_a_clear_error(tmp_path, capsys):
    results = tmp_path / "results"
    run_dir = results / "raw" / "20260101T000000Z-new"
    shutil.copytree(RUNS / "complete", run_dir)
    manifest = (run_dir / "manifest.json").read_text()
    (run_dir / "manifest.json").write_text(
        manifest.replace('"schema_version": 2', '"schema_version": 99')
    )
    with pytest.raises(SchemaError):
        load.load(run_dir, n_boot=0)
    assert main.main(["--results-dir", str(results)]) == 2
    assert "newer than this suite reads" in capsys.readouterr().err


def test_version_1_runs_still_render(tmp_path):
    run = load.load(RUNS / "v1", n_boot=N_BOOT)
    assert len(run.verdicts) and len(run.cells)
    assert set(run.verdicts["shape"]) == {"as-written"}
    text = summary.render(run, "t", [], {}, {}, N_BOOT)
    assert "## The answer" in text


# -- files ------------------------------------------------------------------------------------
def test_the_report_writes_every_file_and_plot(written):
    for name in ("summary.md", "shapes.md", "results.csv", "verdicts.csv"):
        assert (written / name).is_file(), name
    pngs = list((written / "plots").glob("*.png"))
    assert {"support.png", "layout.png"} <= {p.name for p in pngs}
    assert all(p.read_bytes()[:8] == PNG for p in pngs)
    text = (written / "summary.md").read_text()
    for link in re.findall(r"\]\(([^)#]+)\)", text):
        if not link.startswith("http"):
            assert (written / link).exists(), link
    csv = pd.read_csv(written / "results.csv")
    assert {"strategy", "shape", "mode", "batch_size", "ratio", "ratio_low", "ratio_high"} <= set(
        csv.columns
    )


def test_repro_scripts_come_with_the_suite_module(written):
    scripts = list((written / "repros").glob("*@*.py"))
    assert scripts and (written / "repros" / "clip_suite.py").is_file()
    for path in scripts:
        text = path.read_text()
        assert "from bench" not in text and "from clip_suite import" in text


def test_publish_writes_the_reference_report(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(RUNS / "complete", results / "raw" / "20260101T000000Z-test")
    plots = tmp_path / "plots"
    args = [
        "--results-dir",
        str(results),
        "--plots-dir",
        str(plots),
        "--publish",
        "--bootstrap",
        "50",
    ]
    assert main.main(args) == 0
    assert (results / "summary.md").is_file() and list(plots.glob("*.png"))
    assert "](../plots/" in (results / "summary.md").read_text()


def test_report_errors_are_one_line(tmp_path, capsys):
    assert main.main(["nope", "--results-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("report: error: no run 'nope'") and err.count("\n") == 1

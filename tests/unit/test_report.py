"""The report: pages that answer first, Markdown that renders as GFM does, one vocabulary, plots
with one style per strategy (the fixture run; no MindSpore needed)."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from markdown_it import MarkdownIt

from bench.core.schema import SCHEMA_VERSION
from bench.decide import load
from bench.report import main, overview, plots, readme, summary, words
from tests.conftest import RUN


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


def raw_widths(markdown: str):
    out, header = [], None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = len(re.split(r"(?<!\\)\|", line.strip().strip("|")))
        header = header or cells
        out.append((cells, header, line))
    return out


def check_gfm(text: str, page: str) -> None:
    assert tables(text), page
    for cells, header, line in raw_widths(text):
        assert cells == header, f"{page}: {line}"
    for table in tables(text):
        assert all(len(row) == len(table[0]) for row in table), page


@pytest.fixture(scope="module")
def run():
    return load.load(RUN)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The fixture run's report, written as a run's own report."""
    results = tmp_path_factory.mktemp("results")
    shutil.copytree(RUN, results / "raw" / RUN.name)
    assert main.main([RUN.name, "--results-dir", str(results)]) == 0
    return results / "raw" / RUN.name / "report"


def test_every_page_renders_as_gfm(written):
    for page in ("summary.md", "shapes.md"):
        check_gfm((written / page).read_text(), page)


def test_the_answer_is_on_the_first_screen_in_mindspore_words(written):
    text = (written / "summary.md").read_text()
    head = "\n".join(text.splitlines()[:30])
    assert "## The answer" in head and "| GRAPH_MODE |" in head and "| PYNATIVE_MODE |" in head
    assert 'jit(capture_mode="bytecode")' in head
    assert not re.search(r"\bJIT_AST\b|\bJIT_BYTECODE\b", head)
    assert not [x for x in undefined_words(text) if "used before" in x]  # jargon is defined


def test_every_results_page_ends_with_the_glossary_of_its_words(written):
    for page in ("summary.md", "shapes.md"):
        text = (written / page).read_text()
        body, _, glossary = text.partition("## Glossary")
        assert glossary, page
        for term in ("works", "silently wrong", "eager semantics"):
            if term in body:
                assert f"**{term}**" in glossary, (page, term)


def test_the_shapes_page_shows_the_code_of_each_value(written):
    text = (written / "shapes.md").read_text()
    assert "lim = self.limit.reshape(())" in text and "lim = self.limit.copy()" in text
    assert "out = ops.depend(out, ops.assign(self.limit, new))" in text


def test_correctness_by_kind_counts_every_gated_cell(run):
    # By hand from the fixture's gate files: graph.r0.p0/p1 hold 85 + 84 = 169 lines, 26 of them
    # the twins (control): 143 cells; assign 31 + copy_ 31 + host 1 + index_add 40 work, 9 of
    # index_add are stale reads, set_data's 31 raise.
    graph = next(line for line in summary.by_kind(run) if line.startswith("| GRAPH_MODE"))
    assert graph == "| GRAPH_MODE | 103 | 0 | 0 | 9 | 0 | 0 | 0 | 31 | 0 | 0 | 143 |"


def test_every_strategy_keeps_one_style_everywhere():
    styles = plots.style(["mine", "theirs"])
    combos = [(s["color"], s["marker"], s["ls"]) for s in styles.values()]
    assert len(set(combos)) == len(combos)
    # colour and marker alone tell every strategy apart (a legend's line style is hard to see)
    assert len({(s["color"], s["marker"]) for s in styles.values()}) == len(combos)
    assert plots.style()["assign"] == plots.style(["zzz"])["assign"]


def _series(name, y, lo, hi, answer=False):
    return {"strategy": name, "x": [1, 64], "y": y, "lo": lo, "hi": hi, "answer": answer}


@pytest.mark.parametrize(
    "series, want",
    [
        # the answer's band decides the range (1.5 times its farthest value on each side, at
        # least 5 % from 0); a far one is named with its farthest value
        (
            [_series("a", [1, 2], [-3, -1], [4, 6], answer=True),
             _series("h", [300, 900], [250, 800], [350, 990])],
            (-5.0, 9.0, ["h: +900 %"]),
        ),
        ([_series("a", [0.5, 0.2], [-0.1, -0.2], [1.0, 0.4], answer=True)], (-5.0, 5.0, [])),
        # no answer: every series is shown, nothing is off the scale
        ([_series("a", [1, 2], [0, 1], [2, 3]),
          _series("b", [-20, 10], [-30, 5], [-10, 15])], (-45.0, 22.5, [])),
        # a faster one far below is named too, with its sign
        ([_series("a", [1, 2], [-3, -1], [4, 6], answer=True),
          _series("f", [-50, -60], [-55, -65], [-45, -55])], (-5.0, 9.0, ["f: -60 %"])),
        # all above 0: the range does not mirror it below
        ([_series("a", [100, 600], [80, 500], [120, 700], answer=True)], (-5.0, 1050.0, [])),
    ],
)  # fmt: skip
def test_the_added_plot_is_linear_around_the_answer_and_names_what_it_leaves_out(series, want):
    assert plots.linear_limits(series) == (pytest.approx(want[0]), pytest.approx(want[1]), want[2])


def test_the_plots_are_written_with_provenance(run, tmp_path, monkeypatch):
    """Every figure carries the run it comes from (workload, release, run id, tier) in its text."""
    from matplotlib.text import Text

    assert plots.provenance(run) == (f"clip · MindSpore 2.10.0 · run {RUN.name} · quick tier")
    texts = {}

    def capture(fig, path):
        texts[path.name] = [t.get_text() for t in fig.findobj(Text)]
        return path

    monkeypatch.setattr(plots, "_save", capture)
    assert main.main([RUN.name, "--results-dir", str(_copy(tmp_path))]) == 0
    assert {"support.png", "added-graph.png", "added-pynative.png"} <= set(texts)
    for name, lines in texts.items():
        assert any(plots.provenance(run) in line for line in lines), name


def test_the_same_data_give_the_same_plot_bytes_and_an_unchanged_plot_is_not_rewritten(
    run, tmp_path
):
    """Every plot is byte-identical when drawn again from the same run, whatever the process's
    matplotlib settings (a user's matplotlibrc); a plot whose bytes are unchanged keeps its file
    (its modification time): a re-render without new data changes nothing."""
    import os

    import matplotlib

    first = plots.write_all(run, tmp_path / "a", {})
    assert len(first) >= 3
    png = (tmp_path / "a" / "support.png").read_bytes()
    assert png.startswith(b"\x89PNG") and b"Software" not in png and b"tIME" not in png
    drawn = {p.name: p.read_bytes() for p in first}
    for p in first:
        os.utime(p, ns=(1, 1))
    with matplotlib.rc_context({"font.size": 23, "lines.linewidth": 7, "figure.dpi": 55}):
        other = plots.write_all(run, tmp_path / "b", {})
        again = plots.write_all(run, tmp_path / "a", {})
    assert [p.name for p in other] == [p.name for p in first] == [p.name for p in again]
    for p in [*other, *again]:
        assert p.read_bytes() == drawn[p.name], p
    assert all(p.stat().st_mtime_ns == 1 for p in again), "unchanged plots were rewritten"
    with matplotlib.rc_context({"font.size": 23}):  # outside the plots: the caller's settings
        assert matplotlib.rcParams["font.size"] == 23


def test_a_plot_the_run_no_longer_draws_is_removed_and_nothing_else(run, tmp_path):
    """Re-rendering a workload removes its plots that this run does not draw (another run's
    numbers), not files the report does not own."""
    (tmp_path / "added-a_mode_not_run.png").write_bytes(b"old")
    (tmp_path / "notes.png").write_bytes(b"mine")
    written = plots.write_all(run, tmp_path, {})
    assert (tmp_path / "support.png") in written
    assert not (tmp_path / "added-a_mode_not_run.png").exists()
    assert (tmp_path / "notes.png").read_bytes() == b"mine"
    assert sorted(p.name for p in tmp_path.glob("*.png")) == sorted(
        [p.name for p in written] + ["notes.png"]
    )


def _copy(tmp_path):
    results = tmp_path / "results"
    shutil.copytree(RUN, results / "raw" / RUN.name)
    return results


def test_the_readme_blocks_and_the_overview_render(run, tmp_path):
    runs = {"clip": run}
    choices = readme.kind_answers(runs)
    blocks = readme.blocks(runs, choices)
    assert "**GRAPH_MODE**" in "\n".join(blocks["answers"]) and "```python" in "\n".join(
        blocks["answers"]
    )
    assert "results/findings.md#" in blocks["findings"][0]
    check_gfm("\n".join(blocks["runs"]) + "\n", "runs block")
    page = overview.summary_page(runs, {"clip": "clip/summary.md"})
    check_gfm(page, "summary across workloads")
    assert "mindspore-ai/mindspore/issues/327" in page
    path = tmp_path / "README.md"
    begin, end = readme.markers("answers")
    path.write_text(f"top\n{begin}\nold\n{end}\nend\n")
    assert readme.write(path, blocks) and "\nold\n" not in path.read_text()
    assert not readme.write(path, blocks)  # nothing changes a second time


def test_findings_have_anchors_that_their_links_reach(run):
    runs = {"clip": run}
    page = overview.findings_page(runs, {})
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', page))
    links = set(re.findall(r"findings\.md#([a-z0-9-]+)", overview.summary_page(runs, {})))
    assert links and links <= anchors


def test_an_interrupted_run_lists_what_is_missing(run_copy):
    manifest = json.loads((run_copy / "manifest.json").read_text())
    manifest["status"] = "interrupted"
    (run_copy / "manifest.json").write_text(json.dumps(manifest))
    (run_copy / "timing" / "graph-p0.json").unlink()
    data = load.load(run_copy)
    cells = {m: len(a.cells) for m, a in data.analysis.items()}
    assert cells.get("graph", 0) == 0  # its timing file is gone
    assert cells["pynative"] == 12 and cells["jit_bytecode"] == 12  # as in the complete run
    assert f"Run `{RUN.name}` (interrupted, quick tier)" in summary.provenance_line(data)


def test_damaged_files_are_named_and_skipped(run_copy):
    (run_copy / "timing" / "pynative-p0.json").write_text("{not json")
    lines = (run_copy / "gate" / "graph.r0.p0.jsonl").read_text().splitlines()
    (run_copy / "gate" / "graph.r0.p0.jsonl").write_text("\n".join([*lines, '{"cut": ']))
    data = load.load(run_copy)
    assert any("pynative-p0.json: unreadable JSON" in p for p in data.problems)
    assert any("is not JSON (cut short?)" in p for p in data.problems)
    assert len(data.verdicts) == 507  # the fixture's 507 verdict lines; the cut one is skipped


@pytest.mark.parametrize("version, words_", [(SCHEMA_VERSION + 1, "newer"), (1, "older suite")])
def test_another_schema_is_refused_in_one_line(run_copy, capsys, version, words_):
    manifest = json.loads((run_copy / "manifest.json").read_text())
    (run_copy / "manifest.json").write_text(json.dumps({**manifest, "schema_version": version}))
    assert main.main([run_copy.name, "--results-dir", str(run_copy.parent.parent)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("report: error:") and words_ in err and err.count("\n") == 1


def test_report_errors_are_one_line(tmp_path, capsys):
    """A folder of one's own: the run must be named (none is chosen as "the newest")."""
    assert main.main(["--results-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("report: error: name a run") and err.count("\n") == 1
    assert main.main(["20260101T000000Z-none", "--results-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("report: error: no run '20260101T000000Z-none'") and "recent" in err


def test_a_page_uses_only_defined_words(written):
    """Each page's glossary defines exactly the vocabulary words its body uses, with the
    vocabulary's own definition."""
    defined = {**words.TERMS, **words.mode_terms()}
    for page in ("summary.md", "shapes.md"):
        body, _, glossary = (written / page).read_text().partition("## Glossary")
        entries = dict(re.findall(r"^- \*\*(.+?)\*\*: (.*)$", glossary, re.M))
        assert entries, page
        for term, meaning in entries.items():
            if term in defined:
                assert defined[term] == meaning, (page, term)
        used = {t for t in defined if t.lower() in body.lower()}
        assert used <= set(entries), (page, used - set(entries))
    for term in ("twin", "A/A", "undetermined", "eager semantics", "stale read", "margin"):
        assert term in words.TERMS


# The words this suite coined (independent of words.TERMS: a new coinage a page uses without a
# definition fails here even when nobody added it to the vocabulary). Each: (how a use reads, how
# a definition in place reads: emphasised or linked).
COINED = {
    "twin": r"twins?",
    "rounds' quartiles": r"(?:rounds' )?quartiles",
    "fastest candidate": r"fastest candidates?",
    "candidate": r"(?<!fastest )candidates?",
    "margin": r"margins?",
    "undetermined": r"undetermined",
    "equivalent": r"equivalent",
    "A/A": r"A/A",
    "stage": r"stages?",
    "as-written": r"as-written",
    "code shape": r"code shapes?",
    "no detectable cost": r"no detectable cost",
}


def _prose(text: str) -> str:
    """A page's text as a reader reads it for words: no fenced code, inline code, HTML, link
    targets, headings or glossary."""
    text = text.split("\n## Glossary", 1)[0]
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`|<!--.*?-->|<[^>\n]*>", " ", text, flags=re.S)
    text = re.sub(r"\]\([^)\n]*\)", "] ", text)
    return "\n".join(line for line in text.splitlines() if not line.startswith("#"))


def undefined_words(text: str, symbols=()) -> list[str]:
    """The coined words (and size symbols, e.g. ``N``) a page uses before it defines them in
    place (``*term*`` or ``[term](…)``), or without a glossary entry."""
    glossary = set(re.findall(r"^- \*\*(.+?)\*\*:", text.split("\n## Glossary", 1)[-1], re.M))
    body = _prose(text)
    out = []
    words_ = {t: (rf"(?<![\w/-]){u}(?![\w-])", u) for t, u in COINED.items()}
    for sym in symbols:
        words_[sym] = (rf"\b{sym}(?:=|\s?≥\s?)\d", re.escape(sym))
    for term, (use, inner) in words_.items():
        first = re.search(use, body, re.I if term not in symbols else 0)
        if not first:
            continue
        emphasised = rf"\*\*?[^*\n]{{0,30}}?{inner}[^*\n]{{0,20}}?\*\*?"
        linked = rf"\[[^\]\n]{{0,30}}?{inner}[^\]\n]{{0,20}}\]"
        marked = f"{emphasised}|{linked}"
        flags = re.I if term not in symbols else 0
        defined = re.search(marked, body, flags)
        if not defined or defined.start() > first.start():
            out.append(f"{term}: used before it is defined ({body[first.start() :][:60]!r})")
        if term not in glossary:
            out.append(f"{term}: no glossary entry")
    return out


def test_undefined_words_are_found_on_hand_made_pages():
    assert undefined_words("A twin.\n\n## Glossary\n\n- **twin**: x\n") == [
        "twin: used before it is defined ('twin.')"
    ]
    assert undefined_words("A *twin* (x), twins.\n\n## Glossary\n\n- **twin**: x\n") == []
    assert undefined_words("A [twin](#glossary).\n") == ["twin: no glossary entry"]
    assert undefined_words("at N=1; *N* the batch\n## Glossary\n- **N**: b\n", ["N"]) == [
        "N: used before it is defined ('N=1; *N* the batch')"
    ]
    assert undefined_words("`twin` code and\n```\ntwin\n```\n") == []  # code is not prose


def test_the_pages_define_every_coined_word_where_first_used(written):
    """README, the summary across workloads, every workload page (committed) and a run's own
    page: no coined word or size symbol before its definition, none without a glossary entry."""
    from bench.core.paths import ROOT

    everywhere = ["N", "T", "E"]
    pages = {
        "README.md": (ROOT / "README.md", everywhere),
        "results/summary.md": (ROOT / "results" / "summary.md", everywhere),
        "a run's summary.md": (written / "summary.md", ["N"]),
    }
    for w, sym in (("clip", "N"), ("brn", "N"), ("kvcache", "T"), ("ema", "E")):
        pages[f"results/{w}/summary.md"] = (ROOT / "results" / w / "summary.md", [sym])
    found = {name: undefined_words(path.read_text(), syms) for name, (path, syms) in pages.items()}
    assert not {k: v for k, v in found.items() if v}


def test_the_releases_page_names_each_column_and_renders(tmp_path, monkeypatch):
    """Two releases from the fixture run (one relabelled 2.9.0): both columns, each with its
    run in the provenance table, and no claim about a reference run that is not there."""
    from bench.core import paths
    from bench.report import releases

    monkeypatch.setattr(paths, "RESULTS_DIR", tmp_path / "no-results")
    for version in ("2.9.0", "2.10.0"):
        target = tmp_path / "releases" / version / "raw" / RUN.name
        shutil.copytree(RUN, target)
        manifest = json.loads((target / "manifest.json").read_text())
        manifest.setdefault("environment", {})["mindspore"] = version
        (target / "manifest.json").write_text(json.dumps(manifest))
    out = tmp_path / "releases.md"
    assert releases.main([str(tmp_path / "releases"), "--out", str(out)]) == 0
    page = out.read_text()
    check_gfm(page, "releases")
    assert "Releases gated: 2.9.0, 2.10.0" in page and "overhead" not in page.lower()
    provenance = tables(page)[-1]
    assert [row[0] for row in provenance[1:]] == ["2.9.0", "2.10.0"]
    # the same run on both releases: no verdict changes, every finding in both
    assert "0 of " in page and "No verdict changed between the releases gated." in page
    found = [t for t in tables(page) if t[0][0].startswith("finding")]
    rows = found[0][1:]
    assert rows and all(row[1] == row[2] for row in rows)
    # a run that gated each cell in one process cannot show a difference between processes
    differs = [r for r in rows if "differs between processes" in r[0]]
    assert all(r[1] == "not comparable (one gate process)" for r in differs)
    assert len(differs) < len(rows)
    assert all(r[1].startswith("yes") for r in rows if r not in differs)


def test_a_workload_gated_on_one_release_claims_nothing_of_the_others(tmp_path, monkeypatch):
    """A workload with runs of some releases only says which, and shows no comparison row."""
    from bench.core import paths
    from bench.report import releases

    monkeypatch.setattr(paths, "RESULTS_DIR", tmp_path / "no-results")
    shutil.copytree(RUN, tmp_path / "releases" / "2.10.0" / "raw" / RUN.name)
    out = tmp_path / "releases.md"
    assert releases.main([str(tmp_path / "releases"), "--out", str(out)]) == 0
    page = out.read_text()
    assert "Gated on MindSpore " in page and "not on" not in page
    assert "No verdict changed" not in page and "in every release" not in page


def test_a_row_changes_when_its_verdicts_do_not_when_its_shapes_trade_places():
    """``verdict_changes`` on hand-made verdicts: a new failure is a change; the same verdicts
    on other shapes are not (the support-matrix cell says the same); a shape only one release
    gated, and a release that did not run the strategy, change nothing."""
    from types import SimpleNamespace

    import pandas as pd

    from bench.causes.releases import verdict_changes

    def run(rows):
        cols = ["strategy", "shape", "mode", "status", "kind", "outcome"]
        return SimpleNamespace(verdicts=pd.DataFrame([dict(zip(cols, r)) for r in rows]))

    ok, stale = ("works", "", "works"), ("incorrect", "stale read", "incorrect: stale read")
    old = run([("a", "s1", "graph", *ok), ("a", "s2", "graph", *stale),
               ("b", "s1", "graph", *ok), ("c", "s1", "graph", *ok)])  # fmt: skip
    new = run([("a", "s1", "graph", *stale), ("a", "s2", "graph", *ok),
               ("b", "s1", "graph", *stale), ("b", "s9", "graph", *ok),
               ("d", "s1", "graph", *ok)])  # fmt: skip
    changed, total = verdict_changes({"2.8.0": old, "2.10.0": new})
    assert total == 4 and [(s, m) for s, m, _ in changed] == [("b", "graph")]
    assert changed[0][2][0]["shape"].tolist() == ["s1"] and len(changed[0][2][1]) == 1


def test_a_finding_is_affected_cell_by_cell():
    from types import SimpleNamespace

    import pandas as pd

    from bench.causes import releases as data
    from bench.report import releases

    entry = SimpleNamespace(
        outcome="incorrect: write dropped",
        strategies=["a", "b"],
        shapes={"graph": ["s1", "s2"]},
    )

    def run(outcomes):
        rows = [
            {"strategy": st, "shape": sh, "mode": "graph", "outcome": o, "status": o.split(":")[0],
             "calls": "at every call" if o != "works" else ""}
            for (st, sh), o in outcomes.items()
        ]  # fmt: skip
        return SimpleNamespace(verdicts=pd.DataFrame(rows))

    every = {(s, sh): "incorrect: write dropped" for s in "ab" for sh in ("s1", "s2")}
    assert data.affected(entry, run(every)) == (0, 4)  # "at every call" is its own entry
    entry.outcome = "incorrect: write dropped at every call"
    assert data.affected(entry, run(every)) == (4, 4)
    some = {**every, ("a", "s1"): "works", ("b", "s2"): "works"}
    assert data.affected(entry, run(some)) == (2, 4)
    assert releases.affected_text(2, 4) == "partly (2 of 4)"
    assert releases.affected_text(0, 0) == "not gated"
    # an entry that lists its own failing cells is checked on those, not on every pairing
    entry.cells = [("a", "s2", "graph"), ("b", "s1", "graph")]
    assert data.affected(entry, run(some)) == (2, 2)


def test_a_first_call_failure_is_another_entry_than_one_at_every_call():
    import pandas as pd

    from bench.causes import findings

    frame = pd.DataFrame(
        {
            "status": ["incorrect", "incorrect", "incorrect", "works", "raises"],
            "outcome": ["incorrect: stale read"] * 3 + ["works", "raises: RuntimeError: x"],
            "calls": ["at the first call only", "at every call", "", "", ""],
        }
    )
    assert list(findings.qualified(frame).outcome) == [
        "incorrect: stale read at the first call only",
        "incorrect: stale read at every call",
        "incorrect: stale read",
        "works",
        "raises: RuntimeError: x",
    ]
    e = findings.Entry(
        "clip",
        "incorrect: stale read at the first call only",
        ["index_add"],
        ["graph"],
        {"graph": ["depend-view-before-arg"]},
        rule=("read", "alias", "view"),
    )
    assert (e.kind, e.calls) == ("stale read", "at the first call only")
    assert (
        e.title == "stale read at the first call only whenever `read=view` instead of `read=alias`"
    )
    assert e.documented.startswith("partly")  # the kind's documentation, qualifier or not


SET_DATA_GRAPH = "raises: RuntimeError: Failed to compile in GRAPH_MODE because the 'Parameter'"
SET_DATA_BYTECODE = "raises: AttributeError: 'Tensor' object has no attribute 'set_data'"


@pytest.mark.parametrize(
    "kind, mode, shapes, outcome, starts",
    [
        ("stale read", "graph", ["inline-view-before-expr"], "", "partly"),
        ("stale read", "jit_ast", ["depend-view-before-arg"], "", "partly"),
        ("stale read", "graph", ["inline-alias-before-expr"], "", "not found"),  # no view read
        ("stale read", "jit_bytecode", ["inline-view-before-expr"], "", "not found"),
        ("write dropped", "jit_bytecode", ["depend"], "", "no: bytecode capture"),
        ("write dropped", "graph", ["depend"], "", "not found"),  # not the bytecode page
        ("write dropped", "jit_ast", ["depend"], "", "not found"),
        ("raises", "graph", ["inline-param-after-expr"], SET_DATA_GRAPH, "yes"),
        ("raises", "jit_ast", ["inline-param-after-expr"], SET_DATA_GRAPH, "yes"),
        # bytecode capture's AttributeError is not GRAPH_MODE's compile error: not its page
        ("raises", "jit_bytecode", ["depend-alias-after-arg"], SET_DATA_BYTECODE, "not found"),
        ("raises", "graph", ["inline-param-after-expr"], "raises: ValueError: x", "not found"),
    ],
)
def test_an_entry_cites_only_its_own_modes_documentation(kind, mode, shapes, outcome, starts):
    from bench.causes import findings

    assert findings.documented(kind, mode, shapes, outcome).startswith(starts)


def test_a_bytecode_error_entry_does_not_cite_the_graph_compile_message():
    from bench.causes import findings

    e = findings.Entry(
        "clip", SET_DATA_BYTECODE, ["set_data"], ["jit_bytecode"], {"jit_bytecode": ["d"]}
    )
    assert e.documented == findings.NOT_FOUND
    assert "set_data` is not supported" not in e.documented


def test_every_root_cause_exports_as_an_issue(run, tmp_path):
    from bench.causes import causes, findings

    written = findings.export({"clip": run}, tmp_path, tmp_path / "none", run_scripts=False)
    found = causes.of_runs({"clip": run})
    assert len(written) == len(found) > 0 and len(found) <= len(findings.entries(run))
    assert [p.name for p in written] == [f"{i:02d}-{c.slug}.md" for i, c in enumerate(found, 1)]
    env = run.environment
    for path, cause in zip(written, found):
        e = cause.witness
        text = path.read_text()
        assert text.startswith(f"<!-- root cause {found.index(cause) + 1} of {len(found)}: ")
        assert f"- cells (strategy × shape × mode): {cause.cells}" in text
        assert f"\n# [CPU] {e.title}" in text
        assert f"- Python: {env['python']}" in text and f"- MindSpore {env['mindspore']}" in text
        assert "## Documentation" in text and "## Reproduce" in text
        assert "## Releases affected\n\n- 2.10.0: the only release measured" in text
        blocks = text.count("```python")
        assert blocks == (2 if e.pair else 1), path.name  # the entry's script, the pair's works
        assert "from bench" not in text and "import mindspore as ms" in text
        if e.pair:
            assert (
                f"The working side of the minimal pair (`{e.pair[0]}`, shape `{e.pair[2]}`" in text
            )
        if "| step |" in text:  # the per-step table renders as a table
            check_gfm(text, path.name)
    assert findings.main(["--export", str(tmp_path / "cli"), "--run", str(RUN), "--no-run"]) == 0
    assert findings.main(["--export", str(tmp_path / "x"), "--run", str(tmp_path / "no")]) == 2


def _release(folder, version, works=False):
    """A copy of the fixture run as the gate-only run of another release (``works``: every
    gated cell works there)."""
    shutil.copytree(RUN, folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["environment"]["mindspore"] = manifest["plan"]["mindspore"] = version
    (folder / "manifest.json").write_text(json.dumps(manifest))
    if works:
        for lines in (folder / "gate").glob("*.jsonl"):
            rows = [json.loads(x) for x in lines.read_text().splitlines() if x.strip()]
            for r in rows:
                if r["status"] in ("incorrect", "raises", "crashed"):
                    r.update(status="works", kind="", kinds=[], detail="")
            lines.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_an_issue_names_the_releases_that_show_the_same_divergence(run, tmp_path):
    from bench.causes import findings

    releases = tmp_path / "releases"
    _release(releases / "2.9.0" / "raw" / RUN.name, "2.9.0")  # as bench_release writes it
    _release(releases / "2.8.0" / "clip" / "raw" / RUN.name, "2.8.0", works=True)
    found = findings.release_verdicts(releases, "clip")
    assert list(found) == ["2.8.0", "2.9.0"]
    assert findings.release_verdicts(releases, "ema") == {}
    e = findings.entries(run)[0]
    lines = findings.affected(e, found, "2.10.0")
    assert lines[0].startswith("2.10.0: measured here")
    assert lines[1].startswith("2.8.0: not seen in") and "works in" in lines[1]
    assert lines[2] == f"2.9.0: the same divergence in every cell ({len(e.cells)})"
    text = findings.export({"clip": run}, tmp_path / "out", releases, run_scripts=False)[0]
    assert "- 2.9.0: the same divergence in every cell" in text.read_text()


@pytest.mark.posix
def test_a_crash_entry_carries_the_native_traceback(run, tmp_path, monkeypatch):
    from bench.causes import findings

    e = findings.entries(run)[0]
    crash = findings.Entry("clip", "crashed", ["assign"], ["jit_bytecode"], {}, example=e.example)
    script = tmp_path / "s.py"
    script.write_text(
        "import faulthandler, os, signal\nprint('step 1 ...')\n"
        "faulthandler.enable()\nos.kill(os.getpid(), signal.SIGSEGV)\n"
    )
    monkeypatch.setattr(findings.importlib.util, "find_spec", lambda name: True)
    trace = findings.traceback_of(run, crash, script)
    assert trace.startswith("Fatal Python error: Segmentation fault")
    assert 'File "' in trace and "step 1" not in trace
    assert findings.traceback_of(run, crash, script, run_scripts=False) == ""
    assert findings.traceback_of(run, e, script) == ""  # not a crash
    text = findings.issue(run, crash, {findings.FAILING: "print()"}, trace)
    assert "Native traceback of the crash" in text and "Fatal Python error" in text


def test_a_run_page_says_what_ran_not_what_was_planned(run):
    """Processes per cell and rounds per process from the timing records, per mode."""
    said = summary.what_ran(run)
    for mode in run.modes:
        cells = list(run.analysis[mode].cells.values())
        if not cells:
            continue
        rounds = sorted({len(t.step_s) for c in cells for t in c.timings})
        procs = sorted({c.processes for c in cells})
        span = lambda v: str(v[0]) if v[0] == v[-1] else f"{v[0]}–{v[-1]}"  # noqa: E731
        assert f"{span(procs)} processes per cell, {span(rounds)} rounds per process" in said


def test_aa_coverage_counts_intervals_containing_one():
    from bench.decide import calibration

    nan = float("nan")
    assert calibration.contains_one([(0.99, 1.01), (1.0, 1.2), (1.01, 1.05), (nan, nan)]) == (2, 4)
    assert calibration.contains_one([]) == (0, 0)


def test_calibration_never_prints_zero_for_a_spread_it_cannot_estimate(run):
    from bench.core import cellstats
    from bench.report import costs

    for m in run.analysis.values():
        m.heterogeneity = cellstats.Heterogeneity(0.0, 0.0, 0, 0)
    text = costs.calibration_table(run)
    assert "not estimable" in text and "0.0 %" not in text
    assert "flags" not in text and "undetermined" in text  # a bias decides, it does not flag


def test_a_biased_size_turns_decisions_undetermined_where_they_are_shown(run, monkeypatch):
    from bench.core import analysis
    from bench.measured.modes import label
    from bench.report import costs

    mode = next(m for m in run.modes if run.analysis[m].aa)
    size = sorted(run.analysis[mode].aa)[0]
    monkeypatch.setattr(analysis.ModeAnalysis, "aa_flagged", lambda self: [size])
    shown = costs.per_mode(run).split("### ")
    note = next(part for part in shown if part.startswith(label(mode) + "\n"))
    assert f"*At {run.symbol}={size} the A/A interval" in note and "is undetermined.*" in note
    assert f"decisions undetermined at {run.symbol}={size}" in costs.calibration_table(run)


def test_results_csv_blanks_the_added_time_against_an_invalid_twin(run, monkeypatch):
    mode = next(m for m in run.modes if run.analysis[m].of_role("update"))
    cell = run.analysis[mode].of_role("update")[0]
    monkeypatch.setattr(cell, "twin_invalid", "its work was dropped")
    frame = load._cell_frame("clip", run.analysis)
    key = (frame.strategy == cell.id.strategy) & (frame["shape"] == cell.id.shape)
    row = frame[key & (frame["mode"] == mode) & (frame["size"] == cell.id.size)].iloc[0]
    assert not row.twin_valid and row.ratio == row.ratio  # the ratio and step stay
    for column in load.ADDED:
        assert row[column] != row[column], column  # NaN: blank in the CSV
    others = frame[frame.twin_valid & (frame.role == "update")]
    assert others.added_s.notna().any()


def test_a_run_says_how_many_verdicts_it_reused():
    from types import SimpleNamespace

    import pandas as pd

    gated = SimpleNamespace(verdicts=pd.DataFrame({"reused": ["", "", ""]}))
    assert summary.reused_gate(gated) == ""
    reused = SimpleNamespace(verdicts=pd.DataFrame({"reused": ["RUN-A", "", "RUN-A"]}))
    assert summary.reused_gate(reused) == "2 of 3 verdicts reused from `RUN-A`"


@pytest.mark.parametrize(
    "detail, want",
    [
        (
            "write dropped at step 1 (N=16): r_max = 1, the code writes 1.25 (unchanged); "
            "d_max = 0, the code writes 0.625 (unchanged)",
            ["- **observed** in `s` `x` GRAPH_MODE: write dropped at step 1 (N=16):",
             "  - r_max = 1, the code writes 1.25 (unchanged)",
             "  - d_max = 0, the code writes 0.625 (unchanged)"],
        ),
        (
            "step 1 (N=16), in one call: RuntimeError: Kernel select failed: `op` [X] on CPU",
            ["- **observed** in `s` `x` GRAPH_MODE: step 1 (N=16), in one call: "
             "`RuntimeError: Kernel select failed: 'op' [X] on CPU`"],
        ),
        ("crashed (SIGSEGV)", ["- **observed** in `s` `x` GRAPH_MODE: crashed (SIGSEGV)"]),
    ],
)  # fmt: skip
def test_an_observed_detail_lists_its_states_and_quotes_the_error(detail, want):
    ex = {"strategy": "s", "shape": "x", "mode": "graph", "detail": detail}
    assert overview.observed(ex) == want

"""README: the add-a-strategy template is a real strategy file, word for word; the commands it
starts with are the two the suite promises; its numbers are the blocks the committed reports
render to."""

from __future__ import annotations

import re

from bench.core.paths import ROOT, STRATEGIES_DIR

README = (ROOT / "README.md").read_text()


def test_the_readme_starts_with_the_two_commands():
    block = README.split("```sh\n", 1)[1].split("```", 1)[0].splitlines()
    assert [line.split("#")[0].strip() for line in block] == [
        "python3 -m pip install nox && python3 -m nox -s bench",
        "python3 -m pip install nox && python3 -m nox -s tests",
    ]
    assert README.index("```sh") < README.index("\n## ")


def test_readme_template_is_a_real_strategy():
    """The template is a current API's file (issue 28: not a deprecated one), word for word."""
    from bench.measured import apis

    found = re.search(r"This is `strategies/(\w+)\.py`[^\n]*:\n\n```python\n", README)
    assert found, "README's Add a strategy section names its template file"
    name = found.group(1)
    block = README[found.end() :].split("```", 1)[0]
    assert block == (STRATEGIES_DIR / f"{name}.py").read_text()
    api = re.search(r'^API = "([^"]+)"', block, re.M)
    assert api and apis.doc(api.group(1)), f"the template {name}.py names a documented API"
    assert not apis.doc(api.group(1)).deprecated, f"the template {name}.py uses a deprecated API"
    assert "python3 -m nox -s bench -- --gate-only --strategies my_strategy" in README


def test_every_number_block_is_what_the_committed_reports_render_to():
    """What lies between each pair of markers is the block the reference runs render to today
    (not merely that the markers exist): a hand edit or a stale block fails here."""
    from bench.core.paths import RESULTS_DIR
    from bench.decide import provenance
    from bench.report import readme

    runs = provenance.reference_runs(RESULTS_DIR)
    blocks = readme.blocks(runs, readme.kind_answers(runs))
    assert set(blocks) == {"first", "answers", "findings", "runs", "contract", "glossary"}
    for name, lines in blocks.items():
        begin, end = readme.markers(name)
        assert README.count(begin) == 1 and README.count(end) == 1, name
        inside = README.split(begin, 1)[1].split(end, 1)[0]
        assert inside == "\n" + "\n".join(lines) + "\n", name


def test_the_first_screen_shows_code_the_snippet_test_runs_and_no_coined_term_before_it():
    """README's first snippet is the GRAPH_MODE small-Parameter answer's code as the answers
    block prints it (tests/ms/test_snippets.py runs that one), within README's first 40 lines,
    and nothing before it needs the glossary."""
    import re

    from bench.report import readme, words

    begin, end = readme.markers("first")
    first = README.split(begin, 1)[1].split(end, 1)[0]
    code = re.search(r"```python\n(.*?)\n```", first, re.S)
    assert code, "README's first block has no snippet"
    answers = README.split("<!-- answers:begin", 1)[1].split("<!-- answers:end -->", 1)[0]
    graph = answers.split("- **GRAPH_MODE**", 1)[1].split("- **", 1)[0]
    indented = "\n".join(f"  {line}" if line else "" for line in code.group(1).splitlines())
    assert indented in graph
    lines = README.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("```python"))
    assert at < 40
    before = "\n".join(lines[:at]).lower()
    assert not [t for t in words.COINED if re.search(rf"\b{re.escape(t.lower())}\b", before)]

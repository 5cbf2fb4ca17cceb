"""The check's report, repro script and argument checks (no MindSpore): hand-made inputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench.check import diff, repro
from bench.check import report as R
from bench.check.target import BadInput, parse
from bench.measured.modes import MODES

F32 = diff.Tol(False, 1e-5, 1e-6, "float32")


def a(*v):
    return np.asarray(v, np.float32)


def trajectory(*steps, error=None):
    return {
        "initial": {"p": a(0)},
        "steps": [{"out": [a(o)], "after": {"p": a(p)}} for o, p in steps],
        "error": error,
    }


@pytest.mark.parametrize(
    "got, want",
    [
        (trajectory((1, 1), (2, 2)), ()),
        (trajectory((1, 1), (2, 1)), (2, ("p",))),
        (trajectory((1, 1), (5, 1)), (2, ("output[0]", "p"))),
        (trajectory(error={"step": 0, "message": "RuntimeError: x", "type": "RuntimeError"}),
         ("raises", "RuntimeError")),
    ],
)  # fmt: skip
def test_first_divergence(got, want):
    ref = trajectory((1, 1), (2, 2))
    assert repro.first_divergence(ref, got, {"output[0]": F32, "p": F32}) == want


def test_strip_main_drops_only_the_main_block():
    source = "import numpy\n\nX = 1\n\nif __name__ == '__main__':\n    print(X)\n    X = 2\n"
    assert repro.strip_main(source) == "import numpy\n\nX = 1\n\n"


def test_the_repro_inlines_the_code_and_the_data(tmp_path):
    ref = trajectory((1, 1), (2, 2))
    text = repro.render(
        target="t.py:C",
        path="t.py",
        cell="C",
        source="def make_cell():\n    return None\n",
        mode=MODES["graph"],
        second=False,
        inputs=[(a(1.0),), (a(2.0),)],
        ref=ref,
        tols={"output[0]": F32, "p": diff.Tol(True)},
        want=(2, ("p",)),
        why="write dropped",
    )
    compile(text, "repro.py", "exec")
    imports = [ln for ln in text.splitlines() if ln.startswith(("import ", "from "))]
    assert imports == ["import mindspore as ms", "import numpy as np"]
    assert "CONTEXT_MODE = 'GRAPH_MODE'" in text and "WANT = (2, ('p',))" in text
    assert "'p': None" in text  # exact comparison
    assert "'p': np.array([2.], dtype='float32')" in text  # eager's value after step 2


@pytest.mark.parametrize(
    "spec, message",
    [("x.py", "expected PATH.py:CellName"), ("x.py:", "expected"), ("x.py:1C", "class name")],
)
def test_parse_rejects_bad_targets(spec, message):
    with pytest.raises(BadInput, match=message):
        parse(spec)


def test_parse_splits_at_the_last_colon():
    assert parse("C:/dir/x.py:Cell") == (Path("C:/dir/x.py"), "Cell")


def report(divergences):
    return R.Report(
        target="x.py:C",
        cell="C",
        mindspore="2.10.0",
        command="python -m bench.check x.py:C",
        steps=3,
        modes=[
            {"mode": "pynative", "verdict": "reference", "kinds": [], "detail": "the eager run"},
            {"mode": "graph", "verdict": "diverges", "kinds": ["stale read"], "detail": "d|x"},
        ],
        tolerances={"p": "exact (int32)"},
        float64="ran",
        first_calls={"graph": {"first": 1.5, "later": 0.002}},
        divergences=divergences,
        verdict="diverges",
        exit_code=1,
        seconds=12.0,
    )


def test_markdown_quotes_the_finding_and_the_answer(tmp_path):
    d = R.Divergence(
        "graph", ["stale read"], "stale read at step 2", ["m"],
        [R.Quote("clip: stale read", "results/findings.md#a", ["line one", "line two"])],
        constructs={"view read before an in-place write": "line 4"},
        write_instead="`ops.assign(p, new)`; what it adds: +1 µs", repro="repro_graph.py",
    )  # fmt: skip
    r = report([d.__dict__ | {"findings": [q.__dict__ for q in d.findings]}])
    out = tmp_path / "check-results" / "C"
    R.write(r, out)
    md = (out / "report.md").read_text()
    assert "| GRAPH_MODE | diverges | stale read | 1500 ms / 2.0 ms | d\\|x |" in md
    assert "## GRAPH_MODE: stale read" in md
    assert "> line one" in md
    assert "**What to write** in GRAPH_MODE: `ops.assign(p, new)`" in md
    assert "view read before an in-place write (line 4)" in md
    data = json.loads((out / "report.json").read_text())
    assert data["schema_version"] == R.SCHEMA_VERSION and data["exit_code"] == 1


def test_markdown_says_when_no_finding_matches(tmp_path):
    d = R.Divergence("graph", ["wrong output"], "x", ["m"], [], "no known finding matches: new")
    md = R.markdown(report([d.__dict__]), tmp_path)
    assert "**What it means**: no known finding matches: new." in md

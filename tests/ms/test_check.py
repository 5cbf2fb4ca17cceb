"""The check of a user's Cell (``python -m bench.check``): the committed example reports' verdicts,
short checks of a diverging and an agreeing Cell, and every bad input (exit 2, nothing written)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bench.check.cli import main
from bench.core.paths import ROOT

pytestmark = pytest.mark.mindspore

FIXTURES = ROOT / "tests" / "fixtures" / "check"
REPORTS = ROOT / "examples" / "reports"
COMPILED = ["graph", "jit_ast", "jit_bytecode"]


def verdicts(path):
    data = json.loads(path.read_text())
    return {m["mode"]: (m["verdict"], m["kinds"]) for m in data["modes"]}, data


def test_committed_example_reports():
    got, data = verdicts(REPORTS / "brn_pynative" / "report.json")
    assert {m: got[m] for m in COMPILED} == {m: ("diverges", ["raises"]) for m in COMPILED}
    assert data["exit_code"] == 1 and data["schema_version"] == 1
    anchors = {q["link"].split("#")[1] for d in data["divergences"] for q in d["findings"]}
    assert {"brn-raises-set-data-graph-jit-ast", "brn-raises-set-data-jit-bytecode"} <= anchors
    graph = next(d for d in data["divergences"] if d["mode"] == "graph")
    from bench.check import known

    graph_answer = known.parse_answers(known.SUMMARY.read_text())["GRAPH_MODE"]
    assert graph["write_instead"].startswith(graph_answer.write)  # the summary's, as printed
    for name in ("brn_graph", "two_layers"):
        got, data = verdicts(REPORTS / name / "report.json")
        assert {m: got[m] for m in COMPILED} == {m: ("agrees", []) for m in COMPILED}, name
        assert data["exit_code"] == 0


def run(tmp_path, *args):
    out = tmp_path / "out"
    return main([*args, "--out", str(out)]), out


def test_set_data_raises_in_graph_mode_and_the_repro_reproduces(tmp_path):
    code, out = run(tmp_path, "examples/brn_pynative.py:BatchRenorm", "--modes", "graph",
                    "--steps", "2")  # fmt: skip
    assert code == 1
    got, _ = verdicts(out / "report.json")
    assert got["graph"] == ("diverges", ["raises"])
    done = subprocess.run([sys.executable, str(out / "repro_graph.py")], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    assert "REPRODUCED" in done.stdout


def test_a_view_read_before_the_write_is_a_stale_read_in_graph_mode(tmp_path):
    code, out = run(tmp_path, f"{FIXTURES}/view_clip.py:ViewClip", "--modes", "graph",
                    "--steps", "3")  # fmt: skip
    assert code == 1
    got, data = verdicts(out / "report.json")
    assert got["graph"][0] == "diverges" and "stale read" in got["graph"][1]
    (d,) = data["divergences"]
    assert "#clip-stale-read-" in d["findings"][0]["link"]  # a clip entry of a view read
    assert "view read before an in-place write" in d["constructs"]


def test_the_graph_answer_agrees(tmp_path):
    code, out = run(tmp_path, "examples/brn_graph.py:BatchRenorm", "--modes", "graph",
                    "--steps", "2")  # fmt: skip
    assert code == 0
    got, _ = verdicts(out / "report.json")
    assert got["graph"] == ("agrees", [])


@pytest.mark.parametrize(
    "target, extra, message",
    [
        ("missing.py:X", [], "no such file: 'missing.py'"),
        (f"{FIXTURES}/view_clip.py:Nope", [], "defines no 'Nope' (classes there: ViewClip)"),
        (f"{FIXTURES}/not_a_cell.py:NotACell", [], "is not a mindspore.nn.Cell subclass"),
        (f"{FIXTURES}/no_inputs.py:Id", [], "has no make_inputs()"),
        (f"{FIXTURES}/wrong_shape.py:WrongShape", [], "the inputs do not fit"),
        (
            f"{FIXTURES}/fails_eagerly.py:FailsEagerly",
            [],
            "fails in PYNATIVE_MODE itself at step 2",
        ),
        (f"{FIXTURES}/sleeps.py:Sleeps", ["--timeout", "3"], "hangs: no progress for 3 s"),
        (f"{FIXTURES}/view_clip.py:ViewClip", ["--modes", "eager"], "unknown mode 'eager'"),
        ("view_clip", [], "expected PATH.py:CellName"),
        (f"{FIXTURES}/inputs_raise.py:Id", [], "make_inputs(0) raises KeyError: 0"),
    ],
)
def test_bad_input_exits_2_and_writes_nothing(tmp_path, capsys, target, extra, message):
    code, out = run(tmp_path, target, *extra)
    assert code == 2
    assert message in capsys.readouterr().err
    assert not out.exists()

"""The check of a user's Cell (``python -m bench.check``): the committed example reports (their
verdicts, their answers as the reference runs give them now, their repros), re-runs of the BRN
example, the second instance under bytecode capture, --inputs, --shrink, a failure of the check
itself (exit 3, and a spawned child that cannot start), Ctrl-C (exit 130) and every bad input
(exit 2, nothing written, the committed list as the check prints it now)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from bench.check import answers as instead
from bench.check import bad_inputs, diff, runs, shrink
from bench.check import report as R
from bench.check.cli import main
from bench.core import procs
from bench.core.paths import ROOT

pytestmark = pytest.mark.mindspore

FIXTURES = ROOT / "tests" / "fixtures" / "check"
REPORTS = ROOT / "examples" / "reports"
COMPILED = ["graph", "jit_ast", "jit_bytecode"]
REPRO_LINES = 180  # the BRN example's repro (its file is 44 lines; it was 529 lines before)


def verdicts(path):
    data = json.loads(path.read_text())
    return {m["mode"]: (m["verdict"], m["kinds"]) for m in data["modes"]}, data


def committed(name):
    return verdicts(REPORTS / name / "report.json")


def test_committed_example_reports():
    got, data = committed("brn_pynative")
    assert {m: got[m] for m in COMPILED} == {m: ("diverges", ["raises"]) for m in COMPILED}
    assert data["exit_code"] == 1 and data["schema_version"] == R.SCHEMA_VERSION
    anchors = {q["link"].split("#")[1] for d in data["divergences"] for q in d["findings"]}
    assert {"brn-raises-set-data-graph-jit-ast", "brn-raises-set-data-jit-bytecode"} <= anchors
    # each names its root cause and the committed script that reproduces its entry
    quoted = [q for d in data["divergences"] for q in d["findings"]]
    assert all(q["cause"] and q["cause_title"] and (ROOT / q["repro"]).is_file() for q in quoted)
    for name in ("brn_graph", "two_layers"):
        got, data = committed(name)
        assert {m: got[m] for m in COMPILED} == {m: ("agrees", []) for m in COMPILED}, name
        assert data["exit_code"] == 0
    got, data = committed("ema_layers")
    assert got["jit_bytecode"] == ("diverges", ["write dropped", "second instance only"])
    assert got["graph"] == got["jit_ast"] == ("agrees", [])


@pytest.mark.parametrize("name", ["brn_pynative", "ema_layers"])
def test_the_committed_answers_are_what_the_reference_runs_give_now(name):
    """Not stale: every answer a committed report quotes is recomputed from the same source."""
    _, data = committed(name)
    quoted = [(d["mode"], q) for d in data["divergences"] for q in d["answers"]]
    assert quoted, name
    for mode, q in quoted:
        now = instead.answer(q["kind"], mode)
        assert (q["answer"], q["code"]) == (now.text, now.code), (name, mode)
        assert q["kind_words"] == instead.kind_words(q["kind"])
    graph = next((d for d in data["divergences"] if d["mode"] == "graph"), None)
    if name == "brn_pynative":  # BRN's state is small: the small-Parameter answer, assign_primitive
        (q,) = graph["answers"]
        assert q["kind"] == instead.SMALL and q["strategy"] == "assign_primitive"
        assert q["parameters"] == ["moving_mean", "moving_var", "r_max", "d_max"]


def run(tmp_path, *args):
    out = tmp_path / "out"
    return main([*args, "--out", str(out)]), out


def reproduces(script: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, script.name], capture_output=True, text=True,
                          timeout=300, cwd=script.parent)  # fmt: skip


def test_the_committed_brn_repro_is_short_and_reproduces():
    script = REPORTS / "brn_pynative" / "repro_graph.py"
    text = script.read_text()
    assert len(text.splitlines()) <= REPRO_LINES
    assert text.count('"""Batch Renormalization as a PYNATIVE_MODE user') == 0  # no 2nd header
    imports = [ln for ln in text.splitlines() if ln.startswith(("import ", "from "))]
    assert {ln.split()[1] for ln in imports} == {"mindspore", "numpy"}
    done = reproduces(script)
    assert done.returncode == 0, done.stdout[-2000:]
    assert "REPRODUCED" in done.stdout and "step 1:" in done.stdout


def test_the_brn_example_in_graph_mode_as_committed(tmp_path):
    """The fast tier's re-run of the BRN PYNATIVE example (GRAPH_MODE only; every mode:
    ``test_the_brn_example_in_every_mode_as_committed``, conformance)."""
    want, _ = committed("brn_pynative")
    code, out = run(tmp_path, "examples/brn_pynative.py:BatchRenorm", "--modes", "graph")
    assert code == 1
    got, _ = verdicts(out / "report.json")
    assert got["graph"] == want["graph"]
    done = reproduces(out / "repro_graph.py")
    assert done.returncode == 0, done.stdout[-2000:]


@pytest.mark.conformance
def test_the_brn_example_in_every_mode_as_committed(tmp_path):
    want, _ = committed("brn_pynative")
    start = time.monotonic()
    code, out = run(tmp_path, "examples/brn_pynative.py:BatchRenorm")
    assert time.monotonic() - start < 120
    assert code == 1
    got, _ = verdicts(out / "report.json")
    assert got == want
    for mode in COMPILED:
        done = reproduces(out / f"repro_{mode}.py")
        assert done.returncode == 0, (mode, done.stdout[-2000:])


@pytest.mark.conformance  # the fast tier asserts the committed report
def test_a_second_instance_that_stops_writing_under_bytecode_capture(tmp_path):
    code, out = run(tmp_path, "examples/ema_layers.py:WeightEma", "--modes", "jit_bytecode")
    assert code == 1
    got, data = verdicts(out / "report.json")
    assert got["jit_bytecode"] == ("diverges", ["write dropped", "second instance only"])
    runs_ = {(r["process"], r["instance"]): r["status"] for r in data["modes"][1]["runs"]}
    assert runs_ == {(1, 1): "works", (1, 2): "incorrect", (2, 1): "works"}
    (d,) = data["divergences"]
    assert "a second instance of the class" in d["constructs"]
    assert "write inside ops.depend" in d["constructs"]
    done = reproduces(out / "repro_jit_bytecode.py")
    assert done.returncode == 0, done.stdout[-2000:]
    assert "SECOND_INSTANCE = True" in (out / "repro_jit_bytecode.py").read_text()


def test_a_view_read_before_the_write_is_a_stale_read_in_graph_mode(tmp_path):
    code, out = run(tmp_path, f"{FIXTURES}/view_clip.py:ViewClip", "--modes", "graph",
                    "--steps", "3")  # fmt: skip
    assert code == 1
    got, data = verdicts(out / "report.json")
    assert got["graph"][0] == "diverges" and "stale read" in got["graph"][1]
    (d,) = data["divergences"]
    assert "#clip-stale-read-" in d["findings"][0]["link"]  # a clip entry of a view read
    assert "view read before an in-place write" in d["constructs"]


@pytest.mark.conformance
def test_the_graph_answer_agrees(tmp_path):
    code, out = run(tmp_path, "examples/brn_graph.py:BatchRenorm", "--modes", "graph",
                    "--steps", "2")  # fmt: skip
    assert code == 0
    got, _ = verdicts(out / "report.json")
    assert got["graph"] == ("agrees", [])


@pytest.mark.conformance
def test_inputs_from_the_options_instead_of_make_inputs(tmp_path):
    code, out = run(tmp_path, f"{FIXTURES}/no_inputs_set_data.py:Clip", "--modes", "graph",
                    "--steps", "2", "--inputs", "4x3x32x32:float32")  # fmt: skip
    assert code == 1
    got, _ = verdicts(out / "report.json")
    assert got["graph"] == ("diverges", ["raises"])
    script = out / "repro_graph.py"
    assert "INPUT_SPECS = (((4, 3, 32, 32), 'float32'),)" in script.read_text()
    assert len(script.read_text().splitlines()) < 200  # 12288 inputs a step, regenerated
    done = reproduces(script)
    assert done.returncode == 0, done.stdout[-2000:]


@pytest.mark.conformance
def test_shrink_cuts_the_statements_that_do_not_matter(tmp_path, monkeypatch):
    monkeypatch.setattr(shrink, "BUDGET_S", 120.0)
    code, out = run(tmp_path, f"{FIXTURES}/dropped_write.py:DroppedWrite", "--modes", "graph",
                    "--steps", "2", "--shrink")  # fmt: skip
    assert code == 1
    _, data = verdicts(out / "report.json")
    assert data["shrink"].startswith("pysource-minimize: 31 -> ")
    full, small = (out / "repro_graph.py").read_text(), (out / "repro_graph_min.py").read_text()
    user = [t.split("# ---- the user's code")[1].split("# ---- end of")[0] for t in (full, small)]
    assert len(user[1].splitlines()) < len(user[0].splitlines())
    assert "ops.sin" in user[0] and "ops.sin" not in user[1]  # an irrelevant statement gone
    assert "param[...] = value" in user[1]  # the write GRAPH_MODE drops stays
    assert "WANT = (1, ('p',))" in small  # the same divergence
    done = reproduces(out / "repro_graph_min.py")
    assert done.returncode == 0, done.stdout[-2000:]


def _broken_trace(*args, **kwargs):
    raise RuntimeError("a bug of the check")


@pytest.mark.parametrize("method", procs.available())
def test_a_failure_inside_a_child_exits_3_naming_its_log(tmp_path, capsys, monkeypatch, method):
    # a module-level function: a forked child inherits it, a spawned one imports it by name
    monkeypatch.setattr(runs, "traced", _broken_trace)
    monkeypatch.setenv(procs.ENV, method)
    code, out = run(tmp_path, "examples/brn_graph.py:BatchRenorm", "--modes", "graph")
    err = capsys.readouterr().err
    assert code == 3
    assert "the check itself failed in a child process" in err
    log = Path(err.rsplit("its traceback: ", 1)[1].split()[0])
    assert "RuntimeError: a bug of the check" in log.read_text()
    assert not out.exists() and not list(tmp_path.glob(".out.*"))


def test_an_unexpected_error_of_the_check_exits_3_naming_its_log(tmp_path, capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("a slip")

    monkeypatch.setattr(diff, "tolerances", broken)  # in the parent, after the eager runs
    code, out = run(tmp_path, "examples/brn_graph.py:BatchRenorm", "--modes", "graph")
    err = capsys.readouterr().err
    assert code == 3
    assert "the check itself failed with ZeroDivisionError: a slip" in err
    log = Path(err.rsplit("its traceback: ", 1)[1].split()[0])
    assert "ZeroDivisionError: a slip" in log.read_text()
    assert not out.exists() and not list(tmp_path.glob(".out.*"))


@pytest.mark.posix
@pytest.mark.parametrize("method", procs.available())
def test_a_mode_whose_process_dies_is_that_modes_verdict(tmp_path, monkeypatch, method):
    """A dead child is a verdict (crashes, how it died), never a lost check: forked or spawned."""
    monkeypatch.setenv(procs.ENV, method)
    code, out = run(tmp_path, f"{FIXTURES}/crashes_in_graph.py:Doubles", "--modes", "graph")
    assert code == 1
    got, data = verdicts(out / "report.json")
    assert got["graph"] == ("diverges", ["crashes"]) and data["start_method"] == method
    (graph,) = [m for m in data["modes"] if m["mode"] == "graph"]
    assert {r["detail"] for r in graph["runs"] if r["status"] == "crashes"} == {"died with SIGSEGV"}


def test_a_spawned_child_that_cannot_start_exits_3_naming_the_interpreter(
    tmp_path, capsys, monkeypatch
):
    missing = str(tmp_path / "no-python")
    monkeypatch.setenv(procs.PYTHON_ENV, missing)
    code, out = run(tmp_path, "examples/brn_graph.py:BatchRenorm", "--start-method", "spawn")
    err = capsys.readouterr().err
    assert code == 3
    assert f"a spawned child could not start: {missing}: " in err and "No such file" in err
    assert not out.exists() and not list(tmp_path.glob(".out.*"))


def _processes_with(text: str) -> list[int]:
    found = []
    if not Path("/proc").is_dir():  # macOS: the children found by psutil are checked instead
        return found
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and text in (proc / "cmdline").read_bytes().decode(
                errors="replace"
            ):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@pytest.mark.posix
def test_ctrl_c_exits_130_kills_its_children_and_writes_nothing(tmp_path):
    out = tmp_path / "interrupted-out"
    (out).mkdir()
    (out / "report.md").write_text("an earlier report")  # kept as it was
    proc = subprocess.Popen(
        [sys.executable, "-m", "bench.check", f"{FIXTURES}/sleeps.py:Sleeps", "--timeout", "60",
         "--out", str(out)],
        stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    for line in proc.stderr:
        if line.startswith("[1/"):  # the eager child runs (and sleeps)
            break
    time.sleep(1)
    children = psutil.Process(proc.pid).children(recursive=True)  # forked or spawned
    os.kill(proc.pid, signal.SIGINT)
    _, rest = proc.communicate(timeout=60)
    assert proc.returncode == 130, rest
    assert "interrupted: nothing written" in rest
    assert (out / "report.md").read_text() == "an earlier report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["interrupted-out"]  # no staging left
    assert _processes_with(str(out)) == []  # no child outlives the check
    assert children and not [c for c in children if c.is_running() and c.status() != "zombie"]


@pytest.fixture(scope="module")
def bad():
    return bad_inputs.run_all()


@pytest.mark.parametrize("case", bad_inputs.CASES, ids=lambda c: c.what)
def test_bad_input_exits_2_and_writes_nothing(bad, case):
    (o,) = [o for o in bad if o.case == case]
    assert o.code == 2, o.printed
    assert case.says in o.printed
    assert o.printed.startswith("error: ")
    assert not o.wrote


def test_the_committed_list_of_bad_inputs_is_what_the_check_prints(bad):
    assert bad_inputs.LIST.read_text() == bad_inputs.render(bad), (
        "run `python -m bench.check.bad_inputs` and commit examples/reports/bad_inputs.txt"
    )

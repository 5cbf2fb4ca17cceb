"""The check's report, repro script and argument checks (no MindSpore): hand-made inputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench.check import diff, repro
from bench.check import report as R
from bench.check.target import BadInput, Target, parse, parse_inputs
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


USER = '''"""The user's docstring."""

from __future__ import annotations

import numpy as np
from mindspore import nn


def make_cell():
    return None


def make_inputs(step):
    return (np.float32([step]),)


if __name__ == "__main__":
    print("main")
'''


def render(ref, got, want, tols, inputs, regenerate=True, **kw):
    return repro.render(
        target="t.py:C", path="t.py", cell="C", source=USER, mode=MODES["graph"],
        second=False, inputs=inputs, ref=ref, tols=tols, want=want, why="write dropped",
        observed=got, first_steps=len(inputs), regenerate=regenerate, **kw,
    )  # fmt: skip


def test_the_repro_holds_the_steps_up_to_the_divergence_and_one_header():
    ref = trajectory((1, 1), (2, 2), (3, 3), (4, 4))
    got = trajectory((1, 1), (2, 1), (3, 1), (4, 1))
    inputs = [(a(s),) for s in range(4)]
    text = render(ref, got, (2, ("p",)), {"output[0]": F32, "p": diff.Tol(True)}, inputs)
    compile(text, "repro.py", "exec")
    imports = [ln for ln in text.splitlines() if ln.startswith(("import ", "from "))]
    assert imports == [
        "from __future__ import annotations",
        "import mindspore as ms",
        "import numpy as np",
        "from mindspore import nn",
    ]  # the user's imports once, beside the repro's own; its docstring and main block gone
    assert "The user's docstring" not in text and 'print("main")' not in text
    assert "CONTEXT_MODE = 'GRAPH_MODE'" in text and "WANT = (2, ('p',))" in text
    assert "'p': None" in text  # exact comparison
    expected = text.split("EXPECTED = [", 1)[1].split("\n]", 1)[0]
    assert expected.count("'output[0]'") == 2  # steps 1 and 2 only, of 4
    assert "INPUT_SUMS = [[((1,), 'float32', 0.0)], [((1,), 'float32', 1.0)]]" in text
    assert "base64" not in text  # regenerated, not embedded


def test_inputs_make_inputs_cannot_give_again_are_embedded_compressed():
    ref, got = trajectory((1, 1)), trajectory((1, 0))
    text = render(ref, got, (1, ("p",)), {"p": F32}, [(a(7.5),)], regenerate=False)
    space = {}
    exec(text.split("# ---- the user's code")[0], space)  # the imports
    body = text.split("EXPECTED = [")[0].split("WANT = ")[1]
    exec("WANT = " + body, space)
    got_inputs = space["_inputs"]()
    assert [x[0].tolist() for x in got_inputs] == [[7.5]]


def test_a_large_array_is_a_fingerprint_that_still_tells_the_divergence_apart():
    rng = np.random.default_rng(0)
    want_out = rng.standard_normal(1000).astype(np.float32)
    wrong = want_out.copy()
    wrong[437] += 0.5  # two elements of a thousand, the sum unchanged: only the samples show it
    wrong[438] -= 0.5
    ref = {"initial": {"p": a(0)}, "steps": [{"out": [want_out], "after": {"p": a(1)}}]}
    got = {"initial": {"p": a(0)}, "steps": [{"out": [wrong], "after": {"p": a(1)}}]}
    text = render(ref, got, (1, ("output[0]",)), {"output[0]": F32, "p": F32}, [(a(0),)])
    assert len(text.splitlines()) < 150 and "F((1000,)" in text and "437" in text
    space = {"np": np}
    exec(text.split("# ---- end of the user's code ----")[1].split("def _build")[0].replace(
        "INPUT_SUMS", "_SUMS"), space)  # fmt: skip
    fingerprint = space["EXPECTED"][0]["output[0]"]
    assert fingerprint.matches(want_out, (1e-5, 1e-6))  # a full match is a fingerprint match
    assert fingerprint.matches(want_out + 1e-7, (1e-5, 1e-6))
    assert not fingerprint.matches(wrong, (1e-5, 1e-6))
    assert not fingerprint.matches(want_out[:-1], (1e-5, 1e-6))


def test_the_repro_refuses_a_fingerprint_that_would_miss_the_divergence(monkeypatch):
    monkeypatch.setattr(repro, "_worst", lambda *args: [])  # no most-wrong elements kept
    rng = np.random.default_rng(0)
    want_out = rng.standard_normal(1000).astype(np.float32)
    wrong = want_out.copy()
    wrong[437] += 0.5
    wrong[438] -= 0.5
    ref = {"initial": {"p": a(0)}, "steps": [{"out": [want_out], "after": {"p": a(1)}}]}
    got = {"initial": {"p": a(0)}, "steps": [{"out": [wrong], "after": {"p": a(1)}}]}
    with pytest.raises(AssertionError, match="the repro's comparison finds"):
        render(ref, got, (1, ("output[0]",)), {"output[0]": F32, "p": F32}, [(a(0),)])


@pytest.mark.parametrize(
    "texts, specs",
    [
        (["4x3x32x32:float32"], (((4, 3, 32, 32), "float32"),)),
        (["4x3", "2:int32,scalar:bool"], (((4, 3), "float32"), ((2,), "int32"), ((), "bool"))),
    ],
)
def test_inputs_options_parse(texts, specs):
    assert parse_inputs(texts) == specs


@pytest.mark.parametrize(
    "texts, message", [(["4xa"], "expected a shape"), (["0x3"], "expected a shape"),
                       (["4:complex64"], "unknown dtype")],
)  # fmt: skip
def test_bad_inputs_options_are_refused(texts, message):
    with pytest.raises(BadInput, match=message):
        parse_inputs(texts)


def test_the_inputs_of_the_options_are_the_same_in_the_check_and_in_the_repro():
    specs = parse_inputs(["3x2:float32,4:int32"])
    target = Target(Path("x.py"), "C", None, specs)
    space = {"np": np}
    exec(target.inputs_source, space)
    for step in range(3):
        ours, theirs = target.make_inputs(step), space["make_inputs"](step)
        assert all(np.array_equal(x, y) and x.dtype == y.dtype for x, y in zip(ours, theirs))
    assert ours[1].dtype == np.int32 and ours[0].shape == (3, 2)


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
        [R.Quote("clip: stale read", "results/findings.md#a", ["line one", "line two"], 3,
                 "GRAPH_MODE: `read=view` — stale read", "results/clip/repros/a.py")],
        constructs={"view read before an in-place write": "line 4"},
        write_instead="x", repro="repro_graph.py",
        answers=[{"kind": "small", "kind_words": "replace a small Parameter every step",
                  "parameters": ["p"], "why": "`p`: 1 element (fewer than 4096 elements)",
                  "mode": "GRAPH_MODE", "strategy": "assign", "answer": "`assign` (+1 µs).",
                  "code": ["ops.assign(p, new)"], "source": "kind_answers",
                  "except": "fails in 2 of 50 shapes (stale read: clip:a, clip:b)",
                  "avoid": ["`Parameter.set_data` (raises)", "`ops.assign` (write dropped)"]}],
    )  # fmt: skip
    r = report([d.__dict__ | {"findings": [q.__dict__ for q in d.findings]}])
    out = tmp_path / "check-results" / "C"
    R.write(r, out)
    md = (out / "report.md").read_text()
    assert "| GRAPH_MODE | diverges | stale read | 1500 ms / 2.0 ms | d\\|x |" in md
    assert "## GRAPH_MODE: stale read" in md
    assert "> line one" in md
    assert "  - root cause 3: GRAPH_MODE: `read=view` — stale read\n" in md
    assert "  - its repro: `python results/clip/repros/a.py`" in md
    assert "      root cause 3: GRAPH_MODE: `read=view` — stale read" in R.terminal(r)
    assert (
        "**What to write** in GRAPH_MODE for `p`: the suite's answer **to replace a small "
        "Parameter every step**.\n\n- Why this kind: `p`: 1 element (fewer than 4096 elements)."
        "\n- The answer: `assign` (+1 µs)."
        "\n- Except: it fails in 2 of 50 shapes (stale read: clip:a, clip:b)."
        "\n- Avoid in this mode: `Parameter.set_data` (raises), `ops.assign` (write dropped)."
    ) in md
    assert "```python\nops.assign(p, new)\n```" in md
    assert "view read before an in-place write (line 4)" in md
    data = json.loads((out / "report.json").read_text())
    assert data["schema_version"] == R.SCHEMA_VERSION and data["exit_code"] == 1


def test_markdown_says_when_no_finding_matches(tmp_path):
    d = R.Divergence("graph", ["wrong output"], "x", ["m"], [], "no known finding matches: new")
    md = R.markdown(report([d.__dict__]), tmp_path)
    assert "**What it means**: no known finding matches: new." in md

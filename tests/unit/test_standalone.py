"""Standalone reproduction scripts: only MindSpore, NumPy and the standard library, the cell
written out, a NumPy reference that agrees with the workload's, the gate's judgement and words,
and the exit code rules of a crash and of a cell that differs between processes (no MindSpore
run: the scripts' text, and their NumPy and subprocess parts)."""

from __future__ import annotations

import ast
import subprocess
import sys

import numpy as np
import pytest

from bench.core.schema import Kind, Status
from bench.measured import discovery, workloads
from bench.measured.modes import GRAPH, JIT_AST, JIT_BYTECODE, PYNATIVE
from bench.measured.oracle import AFTER, BEFORE, Expected, _span, judge
from bench.measured.shapes import Shape
from bench.report import inline, standalone

STDLIB = set(sys.stdlib_module_names)


def _imports(text: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level:
            names.add((node.module or "").split(".")[0])
    return names


def _variant(workload: str, strategy: str, shape: str) -> str:
    work = workloads.get(workload)
    s = discovery.load(strategy, discovery.STRATEGIES_DIR)
    found = {x.name: x for x in ([Shape()] if s.custom else work.shapes(s.layout))}
    return work.render(s, found[shape])


def _row(workload, mode, status=Status.WORKS.value, kind="", detail="", calls="", meaning=""):
    return {
        "workload": workload,
        "mode": mode,
        "status": status,
        "kind": kind,
        "detail": detail,
        "calls": calls,
        "meaning": meaning or BEFORE,
    }


CELLS = [
    ("clip", "index_add", "depend-view-before-arg", GRAPH),
    ("clip", "assign", "helper-param-after-arg-base", JIT_BYTECODE),
    ("clip", "host", "as-written", JIT_AST),
    ("brn", "assign_add", "helper-param-method-base", JIT_BYTECODE),
    ("brn", "copy_", "helper-param-method", GRAPH),
    ("kvcache", "slice_ellipsis", "full-helper", GRAPH),
    ("kvcache", "index_add", "row-depend", JIT_BYTECODE),
    ("ema", "assign_add", "depend", JIT_BYTECODE),
    ("ema", "host_ema", "as-written", PYNATIVE),
]


@pytest.mark.parametrize("workload, strategy, shape, mode", CELLS)
def test_a_script_imports_nothing_of_the_suite_and_writes_the_cell_out(
    workload, strategy, shape, mode
):
    variant = _variant(workload, strategy, shape)
    text = standalone.script(variant, _row(workload, mode), "t", "2.10.0", "x.py")
    own = {f"{workload}_state"}  # the module the script itself writes, under bytecode capture
    assert _imports(text) <= {"mindspore", "numpy"} | STDLIB | own, _imports(text)
    assert "bench" not in text and "class Variant(" in text
    assert "def reference(state, step):" in text and "RECORDED = 'works'" in text
    state = text.split("STATE = r'''", 1)
    if mode == JIT_BYTECODE:  # the suite's code in a module of its own, as under the gate
        assert len(state) == 2 and f"from {workload}_state import" in text
        module = state[1].split("'''", 1)[0]
        assert "class " in module and "bench" not in module
        assert _imports(module) <= {"mindspore", "numpy"} | STDLIB
        ast.parse(module)
    else:  # one file
        assert len(state) == 1 and "tempfile" not in text
    ast.parse(text)


def test_an_inherited_construct_is_written_out_in_the_state_module_only():
    text = standalone.script(
        _variant("clip", "assign", "helper-param-after-arg-base"),
        _row("clip", JIT_BYTECODE, Status.INCORRECT.value, "write dropped", calls="at every call"),
        "t",
        "2.10.0",
        "x.py",
    )
    module, script = text.split("'''")[1], text.split("'''")[2]
    assert "def construct(self, x):" in module and "self.write(self.limit" in module
    assert "def construct" not in script  # the variant inherits it, from another module
    assert "class Variant(ClipState, Cell):\n    pass" in script
    assert "RECORDED = 'incorrect: write dropped at every call'" in text
    assert "SIZE, STEPS, INSTANCES = 8192, 4, 2" in text  # the gate's second instance too


def test_unused_methods_and_docstrings_are_left_out_of_the_state():
    text = standalone.script(
        _variant("brn", "copy_", "helper-param-method"), _row("brn", GRAPH), "t", "v", "x.py"
    )
    assert "def infer(" not in text and "def state(" not in text  # BatchRenorm's, unused here
    assert "class BatchRenorm(nn.Cell):" in text and "def update_state(self, mean, var):" in text
    assert '"""Training-mode Batch Renormalization' not in text


def test_the_scripts_are_short():
    lengths = [
        len(standalone.script(_variant(w, s, shape), _row(w, m), "t", "v", "x.py").splitlines())
        for w, s, shape, m in CELLS
    ]
    assert sorted(lengths)[len(lengths) // 2] < 170, lengths


# -- the NumPy reference agrees with the workload's own, step after step -----------------------
@pytest.mark.parametrize("workload", sorted(workloads.WORKLOADS))
def test_the_reference_of_every_workload_is_the_suites(workload):
    work = workloads.get(workload)
    size, steps = work.gate_schedule[0]
    reference, extra = standalone.REFERENCES[workload]
    found = inline.collect(list(extra))
    space = {"np": np, "SIZE": size}
    exec(inline.module_text(found.import_lines(), found.blocks), space)
    exec(reference(work), space)
    state = {k: np.asarray(v, np.float32).reshape(-1) for k, v in work.initial_state(size).items()}
    rng = np.random.default_rng(1)
    for step in range(1, steps + 1):
        inputs, reads, after = space["reference"](state, step)
        want = work.expect(size, step - 1, state, BEFORE)
        for got, exp in zip(inputs, want.inputs):
            np.testing.assert_array_equal(got, exp)
        np.testing.assert_allclose(reads[BEFORE], want.output, rtol=1e-6, atol=1e-7)
        if want.other:
            np.testing.assert_allclose(reads[AFTER], want.other[AFTER], rtol=1e-6, atol=1e-7)
        assert set(after) == set(want.after)
        for k, v in want.after.items():
            np.testing.assert_allclose(after[k], v, rtol=1e-6, atol=1e-7)
        # the next step from a state that is not the reference's: a reference of any state
        state = {k: (v + rng.normal(0, 0.1, v.shape)).astype(np.float32) for k, v in after.items()}
        if "step" in state:
            state["step"] = np.round(np.abs(state["step"])).astype(np.float32)


# -- the driver judges as the oracle does, in the suite's words ---------------------------------
def _driver(meaning=AFTER):
    space = {"np": np, "RTOL": 1e-5, "ATOL": 1e-6, "MEANING": meaning}
    exec(standalone._fill(standalone.DRIVER.split("\ndef run():")[0], SPAN="", BEFORE=BEFORE,
                          AFTER=AFTER), space)  # fmt: skip
    exec(standalone._fill(standalone.SPAN), space)
    return space


class Clip:
    rtol, atol = 1e-5, 1e-6
    readings: dict = {}

    def matches(self, got, want):
        return np.shape(got) == np.shape(want) and np.allclose(got, want, 1e-5, 1e-6)

    def describe_output(self, out, expected):
        return ""


@pytest.mark.parametrize(
    "meaning, out, after, old, want_kinds",
    [
        (AFTER, "new", 2.0, 1.0, []),
        (AFTER, "old", 2.0, 1.0, [Kind.STALE_READ]),
        (BEFORE, "new", 2.0, 1.0, [Kind.FUTURE_READ]),
        (BEFORE, "old", 1.0, 1.0, [Kind.WRITE_DROPPED]),
        (BEFORE, "old", 1.5, 1.0, [Kind.WRONG_VALUE]),
        (AFTER, "junk", 2.0, 1.0, [Kind.WRONG_OUTPUT]),
        (BEFORE, "older", 2.0, 1.0, [Kind.STALE_READ]),  # a read older than this step's
    ],
)
def test_a_step_is_judged_as_the_oracle_judges_it(meaning, out, after, old, want_kinds):
    x = np.linspace(-3, 3, 12, dtype=np.float32)
    outs = {"old": np.clip(x, -1, 1), "new": np.clip(x, -2, 2), "older": np.clip(x, -0.5, 0.5)}
    outs["junk"] = outs["new"] + 7
    reads = {BEFORE: outs["old"], AFTER: outs["new"]}
    want = {"limit": np.float32([2.0])}
    before, new = {"limit": np.float32([old])}, {"limit": np.float32([after])}
    space = _driver(meaning)
    got = space["judge"](outs[out], reads, before, new, want, iter([outs["older"]]))
    expected = Expected(
        (x,), reads[meaning], want, {k: v for k, v in reads.items() if k != meaning}
    )
    step = judge(Clip(), expected, before, outs[out], new, 8, 1, {1: outs["older"]})
    assert got == [str(k) for k in step.kinds(meaning)] == [str(k) for k in want_kinds]


@pytest.mark.parametrize(
    "hits, total", [([1, 2, 3, 4], 4), ([1], 4), ([1, 2, 3], 4), ([2, 3, 4], 4), ([2, 4], 4)]
)
def test_the_calls_are_said_in_the_oracles_words(hits, total):
    assert _driver()["span"](hits, total) == _span(hits, total)


# -- what a verdict asks a script to show --------------------------------------------------------
CLIP = workloads.get("clip")


def test_a_crash_a_hang_and_a_raise_are_recorded_by_what_shows_them():
    crash = standalone.want(
        _row("clip", JIT_BYTECODE, "crashed", detail="the gate's process died with SIGSEGV"),
        CLIP,
    )
    assert (crash.how, crash.recorded) == (standalone.CHILD, ("crashed: SIGSEGV",))
    hang = standalone.want(
        _row(
            "clip", JIT_BYTECODE, "timeout", detail="the gate's process made no progress for 24 s"
        ),
        CLIP,
    )
    assert (hang.how, hang.recorded, hang.timeout) == (standalone.CHILD, ("timeout",), 24.0)
    error = standalone.want(
        _row("clip", GRAPH, "raises", detail="step 1 (N=8192): AttributeError: 'Tensor' x y"), CLIP
    )
    assert (error.how, error.recorded, error.instances) == (
        standalone.ALONE,
        ("raises: AttributeError",),
        1,
    )


def test_the_qualifiers_and_the_second_instance_are_recorded():
    first = standalone.want(
        _row("clip", GRAPH, "incorrect", "stale read", calls="at the first call only"), CLIP
    )
    assert first.recorded == ("incorrect: stale read at the first call only",)
    second = standalone.want(
        _row("ema", JIT_BYTECODE, "incorrect", "write dropped", calls=standalone.SECOND_ONLY),
        workloads.get("ema"),
    )
    assert second.recorded == ("incorrect: write dropped in a second instance only",)
    assert second.instances == 2
    mixed = standalone.want(
        _row("clip", GRAPH, "incorrect", "stale read", calls="at every call; at calls 1, 3 of 4"),
        CLIP,
    )
    assert mixed.recorded == ("incorrect: stale read",)


def test_a_cell_that_differs_between_processes_runs_in_several():
    detail = (
        "gate processes: works in 1 of 2; raises: AttributeError: 'Tensor' object has no "
        "attribute 'set_data' in 1 of 2. step 1 (N=8192): AttributeError: 'Tensor' object"
    )
    w = standalone.want(_row("clip", JIT_BYTECODE, "incorrect", str(Kind.DIFFERS), detail), CLIP)
    assert (w.how, w.recorded) == (standalone.MANY, ("works", "raises: AttributeError"))
    timed = standalone.want(
        _row(
            "clip",
            JIT_BYTECODE,
            "incorrect",
            str(Kind.DIFFERS),
            "worked in every gate process; the state was wrong after the timed steps in 3 of 5 "
            "timed cells (sizes 1, 64, 256): after 70 timed steps the state is ...",
        ),
        CLIP,
    )
    assert (timed.recorded, timed.size, timed.steps) == (("works", "incorrect"), 1, 70)


# -- the exit code: a crash by its signal only, processes by their outcomes ----------------------
def _harness(tmp_path, how, recorded, child_code):
    """A script with the real child/main parts and a fake ``outcome`` (no MindSpore)."""
    text = "\n".join(
        [
            "import faulthandler, os, re, signal, subprocess, sys",
            f"RECORDED = {recorded!r}",
            "TIMEOUT, PROCESSES = 3, 3",
            "def outcome():",
            *(f"    {line}" for line in child_code.splitlines()),
            standalone._fill("def same" + standalone.OUTCOME.split("def same", 1)[1]),
            standalone._fill(standalone.CHILD_DRIVER),
            standalone._fill(standalone.MAIN[how]),
            standalone.TAIL,
        ]
    )
    path = tmp_path / "s.py"  # the child's margin for MindSpore's import is not needed here
    path.write_text(text.replace("TIMEOUT + 30", "TIMEOUT").replace("TIMEOUT + 25", "TIMEOUT - 1"))
    return subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.parametrize(
    "child, code",
    [
        ("os.kill(os.getpid(), signal.SIGSEGV)", 0),  # the recorded signal
        ("os.kill(os.getpid(), signal.SIGABRT)", 1),  # another signal
        ("sys.exit(3)", 1),  # a non-zero exit is not a crash by SIGSEGV
        ("return 'works'", 1),
    ],
)
def test_a_crash_reproduces_only_by_the_recorded_signal(tmp_path, child, code):
    done = _harness(tmp_path, standalone.CHILD, "crashed: SIGSEGV", child)
    assert done.returncode == code, done.stdout + done.stderr
    assert ("\nREPRODUCED: crashed: SIGSEGV" in done.stdout) == (code == 0)


def test_a_hang_reproduces_when_the_child_gives_no_result_in_time(tmp_path):
    text = _harness(tmp_path, standalone.CHILD, "timeout", "import time; time.sleep(60)")
    assert text.returncode == 0 and "REPRODUCED: timeout" in text.stdout


@pytest.mark.parametrize(
    "child, code",
    [
        # a counter file makes the processes' outcomes differ (works, then drops)
        ("n = len(os.listdir(D)); open(f'{D}/{n}', 'w').close()\n"
         "return 'works' if n == 0 else 'incorrect: write dropped at every call'", 0),
        ("return 'works'", 1),  # the same in every process: not what was recorded
        ("n = len(os.listdir(D)); open(f'{D}/{n}', 'w').close()\n"
         "return 'works' if n == 0 else 'incorrect: stale read at every call'", 1),
    ],
)  # fmt: skip
def test_processes_reproduce_when_their_outcomes_differ_as_recorded(tmp_path, child, code):
    folder = tmp_path / "count"
    folder.mkdir()
    child = f"D = {str(folder)!r}\n" + child
    done = _harness(tmp_path, standalone.MANY, ("works", "incorrect: write dropped"), child)
    assert done.returncode == code, done.stdout + done.stderr


def test_a_variant_the_script_cannot_write_out_is_refused():
    bad = "from bench.measured import workloads\n\n\nclass Variant(workloads.X):\n    pass\n"
    with pytest.raises(inline.InlineError):
        standalone.script(bad, _row("clip", GRAPH), "t", "v", "x.py")


def test_annotated_suite_code_written_into_the_script_compiles():
    # the host strategy imports next_limit from the suite; with the clip's spec annotated, the
    # future import must come first in the file, not in the middle
    text = standalone.script(_variant("clip", "host", "as-written"), _row("clip", JIT_AST), "t",
                             "v", "x.py")  # fmt: skip
    compile(text, "x.py", "exec")
    if "from __future__ import annotations" in text:
        assert text.index("from __future__") < text.index("import os")

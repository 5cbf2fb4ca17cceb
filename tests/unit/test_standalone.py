"""Standalone reproduction scripts: only MindSpore, NumPy and the standard library, the cell
written out, a NumPy reference that agrees with the workload's, the gate's judgement and words,
and the exit code rules of a crash and of a cell that differs between processes (no MindSpore
run: the scripts' text, and their NumPy and subprocess parts)."""

from __future__ import annotations

import ast
import re
import statistics
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

from bench.causes import inline, standalone
from bench.core.schema import NETWORK_ONLY, SECOND_ONLY, THIRD_ONLY, Kind, Status
from bench.measured import discovery, workloads
from bench.measured.modes import GRAPH, JIT_AST, JIT_BYTECODE, MODES, PYNATIVE, PYNATIVE_BLOCKING
from bench.measured.oracle import AFTER, BEFORE, Expected, _span, judge
from bench.measured.shapes import Shape
from bench.measured.shapes.model import CONTROL

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
    # the first instance fails: the gate ran no later check, nor does the script
    assert "LATER" not in text and 'found = check("")' in text and "class Network" not in text
    assert "def span(hits):" in text and f"if hits == {list(range(1, 11))}" in text


def test_a_script_of_a_working_cell_runs_every_later_check_the_gate_ran():
    variant = _variant("clip", "assign", "helper-param-after-arg")
    text = standalone.script(variant, _row("clip", JIT_BYTECODE), "t", "2.10.0", "x.py")
    assert f"LATER = ({SECOND_ONLY!r}, {THIRD_ONLY!r},\n         {NETWORK_ONLY!r})" in text
    module = text.split("STATE = r'''", 1)[1].split("'''", 1)[0]
    # the gate's network, written out with the suite's code (its module matters to capture)
    assert "class Network(nn.Cell):" in module and "self.layers = nn.CellList(cells)" in module
    assert "outs = outs + (layer(*inputs),)" in module
    assert "from clip_state import Strategy, ClipState, Network" in text
    assert "net = Network(cells) if len(cells) > 1 else cells[0]" in text
    assert "net.construct = ms.jit(net.construct, capture_mode='bytecode')" in text
    graph = standalone.script(variant, _row("clip", GRAPH), "t", "2.10.0", "x.py")
    assert f"LATER = ({NETWORK_ONLY!r},)" in graph and "class Network(nn.Cell):" in graph
    assert "ms.jit" not in graph and "STATE =" not in graph  # the network compiled by GRAPH_MODE
    eager = standalone.script(variant, _row("clip", PYNATIVE), "t", "2.10.0", "x.py")
    assert "Network" not in eager and "LATER" not in eager
    for body in (text, graph, eager):
        compile(body, "x.py", "exec")


def test_unused_methods_and_docstrings_are_left_out_of_the_state():
    text = standalone.script(
        _variant("brn", "copy_", "helper-param-method"), _row("brn", GRAPH), "t", "v", "x.py"
    )
    assert "def infer(" not in text and "def state(" not in text  # BatchRenorm's, unused here
    assert "class BatchRenorm(nn.Cell):" in text and "def update_state(self, mean, var):" in text
    assert '"""Training-mode Batch Renormalization' not in text
    # a constant only a pruned method used goes too
    assert "BRN_STATE" not in text and "RAMP_STEPS = 8" in text


def test_definitions_nothing_uses_are_left_out():
    blocks = ["A = 1", "B = A + 1", "def f():\n    return B", "C = 3", "class K:\n    x = C"]
    assert standalone._used(blocks, "print(f())") == blocks[:3]
    assert standalone._used(blocks, "K()") == blocks[3:]


def test_the_scripts_are_short():
    """Only what the recorded outcome needs: a working cell runs every check but judges only the
    state and whether the output is the code's; a first-instance failure runs that instance."""
    works = [
        len(standalone.script(_variant(w, s, shape), _row(w, m), "t", "v", "x.py").splitlines())
        for w, s, shape, m in CELLS
    ]
    dropped = [
        len(standalone.script(_variant(w, s, shape), _row(w, m, "incorrect", "write dropped",
                              calls="at every call"), "t", "v", "x.py").splitlines())
        for w, s, shape, m in CELLS
    ]  # fmt: skip
    # the EMA's scripts carry its training loop (a network, its optimizer, a checkpoint reload):
    # the medians are those of the workloads without one, the bounds hold for all
    plain = [i for i, (w, *_) in enumerate(CELLS) if not workloads.get(w).trains]
    assert statistics.median(works[i] for i in plain) <= 150 and max(works) <= 220, works
    assert statistics.median(dropped[i] for i in plain) <= 135 and max(dropped) <= 215, dropped


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
        state.update(work.loop_state(size, step))  # the weights a training loop gave the cell
        if "gamma" in work.read_names:  # BRN's weights as an optimizer left them
            state["gamma"] = (1 + rng.normal(0, 0.2, 3)).astype(np.float32)
            state["beta"] = rng.normal(0, 0.2, 3).astype(np.float32)
        inputs, reads, after = space["reference"](state, step)
        want = work.expect(size, step - 1, state, BEFORE)
        if "outdated" in space:  # the state after a reload, had the update used the old weights
            stale = space["outdated"](state, step)
            assert set(stale) == set(want.outdated)
            for k, v in want.outdated.items():
                np.testing.assert_allclose(stale[k], v, rtol=1e-6, atol=1e-7)
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
def _driver(meaning=AFTER, judged="all"):
    space = {"np": np, "RTOL": 1e-5, "ATOL": 1e-6, "MEANING": meaning}
    text = standalone.COMMON_DRIVER + standalone.JUDGES[judged]
    exec(standalone._fill(text, BEFORE=BEFORE, AFTER=AFTER), space)
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
    # judging the state only: its kinds, and any divergence of the output by one name
    state = _driver(meaning, "state")["judge"](outs[out], reads, before, new, want)
    state_kinds = [k for k in got if k in standalone.STATE_KINDS]
    assert state == state_kinds + ([standalone.OTHER_OUTPUT] if out != meaning_out(meaning) else [])


def meaning_out(meaning):
    return "old" if meaning == BEFORE else "new"


@pytest.mark.parametrize(
    "hits, total", [([1, 2, 3, 4], 4), ([1], 4), ([1, 2, 3], 4), ([2, 3, 4], 4), ([2, 4], 4)]
)
def test_the_calls_are_said_in_the_oracles_words(hits, total):
    words = _span(hits, total)
    assert standalone.hits_of(words, total) == hits
    w = standalone.Want(standalone.ALONE, (f"incorrect: write dropped {words}",), 8, total)
    assert w.spans
    space = {"STEPS": total}
    exec(standalone._span_text(w), space)
    assert space["span"](hits) == words
    other = [1, 3] if hits != [1, 3] else [2]
    assert space["span"](other) == f"at calls {', '.join(map(str, other))} of {total}"
    with pytest.raises(ValueError):
        standalone.hits_of("at some calls", total)


# -- what a verdict asks a script to show --------------------------------------------------------
CLIP = workloads.get("clip")


def test_a_crash_a_hang_and_a_raise_are_recorded_by_what_shows_them():
    crash = standalone.want(
        _row("clip", JIT_BYTECODE, "crashed", detail="the gate's process died with SIGSEGV"),
        CLIP,
    )
    assert (crash.how, crash.recorded) == (standalone.CHILD, ("crashed: SIGSEGV",))
    # unqualified, it may be anywhere the gate went: every check, then its fullgraph=True step
    assert crash.checks == standalone.gate_checks(JIT_BYTECODE) and crash.fullgraph
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
    assert (error.how, error.recorded, error.checks) == (
        standalone.ALONE,
        ("raises: AttributeError",),
        (standalone.FIRST,),
    )


@pytest.mark.parametrize(
    "mode, qualifier, checks",
    [
        (JIT_BYTECODE, SECOND_ONLY, ("", SECOND_ONLY)),
        (JIT_BYTECODE, THIRD_ONLY, ("", SECOND_ONLY, THIRD_ONLY)),
        (JIT_BYTECODE, NETWORK_ONLY, ("", SECOND_ONLY, THIRD_ONLY, NETWORK_ONLY)),
        (GRAPH, NETWORK_ONLY, ("", NETWORK_ONLY)),
        (JIT_AST, NETWORK_ONLY, ("", NETWORK_ONLY)),
    ],
)
def test_a_qualified_outcome_runs_the_checks_up_to_its_own(mode, qualifier, checks):
    wrong = standalone.want(_row("clip", mode, "incorrect", "write dropped", calls=qualifier), CLIP)
    assert wrong.recorded == (f"incorrect: write dropped {qualifier}",)
    assert (wrong.how, wrong.checks, wrong.spans, wrong.judged) == (
        standalone.ALONE, checks, False, "state"
    )  # fmt: skip
    # a crash there (bench.run.worker.run_gate.failed: the check it died in, then how)
    died = f"{qualifier} (the first works): the gate's process died with SIGSEGV"
    crash = standalone.want(_row("clip", mode, "crashed", detail=died, calls=qualifier), CLIP)
    assert (crash.how, crash.recorded, crash.checks, crash.fullgraph) == (
        standalone.CHILD, (f"crashed: SIGSEGV {qualifier}",), checks, False
    )  # fmt: skip
    hung = f"{qualifier} (the first works): the gate's process made no progress for 16 s"
    hang = standalone.want(_row("clip", mode, "timeout", detail=hung), CLIP)
    assert (hang.recorded, hang.checks, hang.timeout) == ((f"timeout {qualifier}",), checks, 16)
    # a raise there: its exception type, then the check (not the words of the qualifier)
    raised = f"{qualifier} (the first works): step 2 (N=8192): RuntimeError: x y z"
    error = standalone.want(_row("clip", mode, "raises", detail=raised), CLIP)
    assert (error.recorded, error.checks) == ((f"raises: RuntimeError {qualifier}",), checks)


def test_the_qualifiers_and_what_a_script_judges_are_recorded():
    first = standalone.want(
        _row("clip", GRAPH, "incorrect", "stale read", calls="at the first call only"), CLIP
    )
    assert first.recorded == ("incorrect: stale read at the first call only",)
    assert (first.checks, first.spans, first.judged) == ((standalone.FIRST,), True, "all")
    second = standalone.want(
        _row("ema", JIT_BYTECODE, "incorrect", "write dropped", calls=SECOND_ONLY),
        workloads.get("ema"),
    )
    assert second.recorded == ("incorrect: write dropped in a second instance only",)
    assert second.checks == (standalone.FIRST, SECOND_ONLY)
    mixed = standalone.want(
        _row("clip", GRAPH, "incorrect", "stale read", calls="at every call; at calls 1, 3 of 4"),
        CLIP,
    )
    assert mixed.recorded == ("incorrect: stale read",) and not mixed.spans
    works = standalone.want(_row("clip", JIT_AST), CLIP)
    assert (works.checks, works.judged) == (("", NETWORK_ONLY), "state")
    assert standalone.want(_row("clip", PYNATIVE), CLIP).checks == (standalone.FIRST,)
    twin = standalone.want({**_row("clip", GRAPH), "strategy": CONTROL}, CLIP)
    assert twin.checks == (standalone.FIRST,)  # the gate runs no network of a no-update twin


def test_a_cell_that_differs_between_processes_runs_in_several():
    detail = (
        "gate processes: works in 1 of 2; raises: AttributeError: 'Tensor' object has no "
        "attribute 'set_data' in 1 of 2. step 1 (N=8192): AttributeError: 'Tensor' object"
    )
    w = standalone.want(_row("clip", JIT_BYTECODE, "incorrect", str(Kind.DIFFERS), detail), CLIP)
    assert (w.how, w.recorded) == (standalone.MANY, ("works", "raises: AttributeError"))
    assert w.checks == standalone.gate_checks(JIT_BYTECODE) and w.judged == "state"
    # a raise in a later check, as the signature of a gate process says it
    later = (
        "gate processes: works in 1 of 2; raises: in a third instance only (the first works): "
        "step 1 (N=8192): AttributeError: 'Tensor' object in 1 of 2. in a third instance ..."
    )
    w = standalone.want(_row("clip", JIT_BYTECODE, "incorrect", str(Kind.DIFFERS), later), CLIP)
    assert w.recorded == ("works", f"raises: AttributeError {THIRD_ONLY}")
    stale = "gate processes: incorrect: stale read in 1 of 2; works in 1 of 2. stale read at ..."
    w = standalone.want(_row("clip", JIT_BYTECODE, "incorrect", str(Kind.DIFFERS), stale), CLIP)
    assert w.judged == "all"  # which output kind shows matters: the oracle's judge
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


# -- the exit code: a crash by its signal in its check, processes by their outcomes --------------
def _harness(tmp_path, how, recorded, child_code, later=(), timeout=3):
    """A script with the real child/main parts and a fake ``run`` (no MindSpore)."""
    text = "\n".join(
        [
            "import faulthandler, os, re, signal, subprocess, sys",
            f"RECORDED = {recorded!r}",
            f"TIMEOUT, PROCESSES, LATER = {timeout!r}, 3, {tuple(later)!r}",
            "def run():",
            *(f"    {line}" for line in child_code.splitlines()),
            standalone._fill(standalone.SAME + standalone.CHILD_DRIVER),
            standalone._fill(standalone.MAIN[how].replace("@FULLGRAPH@", "")),
        ]
    )
    path = tmp_path / "s.py"  # the child's margin for MindSpore's import is not needed here
    # the hang's traceback is dumped half way, before the child is killed
    path.write_text(text.replace("TIMEOUT + 30", "TIMEOUT").replace("TIMEOUT + 25", "TIMEOUT / 2"))
    return subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=60, check=False
    )


@pytest.mark.posix
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


LATER = (SECOND_ONLY, THIRD_ONLY, NETWORK_ONLY)


def _dies_in(where: str, sig: str = "SIGSEGV") -> str:
    """A fake ``run`` that marks the checks as the script does and dies in ``where``."""
    marks = ["the first instance", *LATER[: LATER.index(where) + 1]] if where else ["x"]
    return "\n".join(
        [*(f"print('-- check: {m}', flush=True)" for m in marks),
         f"os.kill(os.getpid(), signal.{sig})"]
    )  # fmt: skip


@pytest.mark.posix
@pytest.mark.parametrize(
    "recorded, child, code",
    [
        (f"crashed: SIGSEGV {NETWORK_ONLY}", _dies_in(NETWORK_ONLY), 0),
        (f"crashed: SIGSEGV {NETWORK_ONLY}", _dies_in(THIRD_ONLY), 1),  # in another check
        (f"crashed: SIGSEGV {NETWORK_ONLY}", _dies_in(""), 1),  # in the first instance
        (f"crashed: SIGSEGV {NETWORK_ONLY}", _dies_in(NETWORK_ONLY, "SIGABRT"), 1),
        ("crashed: SIGSEGV", _dies_in(NETWORK_ONLY), 1),  # recorded in the first instance
        ("crashed: SIGSEGV", _dies_in(""), 0),
        (f"crashed: SIGSEGV {THIRD_ONLY}", _dies_in(THIRD_ONLY), 0),
    ],
)
def test_a_crash_reproduces_only_in_the_recorded_check(tmp_path, recorded, child, code):
    done = _harness(tmp_path, standalone.CHILD, recorded, child, LATER)
    assert done.returncode == code, done.stdout + done.stderr
    assert ("\nREPRODUCED: " + recorded in done.stdout) == (code == 0)


def test_a_hang_reproduces_when_the_child_gives_no_result_in_time(tmp_path):
    hang = "import time; time.sleep(60)"
    text = _harness(tmp_path, standalone.CHILD, "timeout", hang, timeout=1.5)
    assert text.returncode == 0 and "REPRODUCED: timeout" in text.stdout
    later = f"print('-- check: {SECOND_ONLY}', flush=True)\n{hang}"
    done = _harness(tmp_path, standalone.CHILD, f"timeout {SECOND_ONLY}", later, LATER, 1.5)
    assert done.returncode == 0 and f"REPRODUCED: timeout {SECOND_ONLY}" in done.stdout
    other = _harness(tmp_path, standalone.CHILD, f"timeout {THIRD_ONLY}", later, LATER, 1.5)
    assert other.returncode == 1 and f"NOT REPRODUCED: observed timeout {SECOND_ONLY}" in (
        other.stdout
    )


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


# -- the gate's checks: the script runs the ones the gate ran, in its order ----------------------
def _gate_marks(monkeypatch, mode, update=True, fail=None):
    """(the checks ``gate.check`` entered, by their marks; its observation) with every
    observation working, or failing (write dropped) in the check named ``fail``."""
    from bench.measured.oracle import Observation
    from bench.run import gate

    marks = []

    def observed(where):
        if where == (fail or "never"):
            kind = str(Kind.WRITE_DROPPED)
            return Observation(Status.INCORRECT.value, kind, [kind], "write dropped at step 1")
        return Observation(Status.WORKS.value)

    monkeypatch.setattr(gate.forked, "mark", marks.append)
    monkeypatch.setattr(gate, "observe", lambda *a, **k: observed(marks[-1] if marks else ""))
    monkeypatch.setattr(gate, "observe_network", lambda *a, **k: observed(marks[-1]))
    monkeypatch.setattr(gate, "fullgraph", lambda *a: "compiles")
    item = SimpleNamespace(batch_size=8, steps=0, meaning=BEFORE, update=update)
    found = gate.check(None, CLIP, MODES[mode], item)
    return [m for m in marks if m], found


@pytest.mark.parametrize("mode", [GRAPH, PYNATIVE, JIT_AST, JIT_BYTECODE, PYNATIVE_BLOCKING])
@pytest.mark.parametrize("update", [True, False])
def test_the_checks_are_the_gates_in_its_order(monkeypatch, mode, update):
    marks, found = _gate_marks(monkeypatch, mode, update)
    assert found.status == Status.WORKS.value
    assert (standalone.FIRST, *marks) == standalone.gate_checks(mode, update)
    assert standalone.gate_checks(JIT_BYTECODE) == (
        standalone.FIRST, SECOND_ONLY, THIRD_ONLY, NETWORK_ONLY
    )  # fmt: skip


@pytest.mark.parametrize("mode", [GRAPH, JIT_AST, JIT_BYTECODE])
@pytest.mark.parametrize("fail", [SECOND_ONLY, THIRD_ONLY, NETWORK_ONLY])
def test_a_failure_in_a_later_check_is_recorded_as_the_script_will_say_it(monkeypatch, mode, fail):
    """The gate's observation of a cell that fails in one later check only, through the verdict
    table's row (``load``), asks the script for that check's qualifier and the checks up to it."""
    from bench.decide import load
    from bench.run import gate

    every = standalone.gate_checks(mode)
    marks, found = _gate_marks(monkeypatch, mode, fail=fail)
    if fail not in every:  # not a check of this mode: the cell works
        assert found.status == Status.WORKS.value and fail not in marks
        return
    item = SimpleNamespace(strategy="assign", shape="s", dims={}, layout="scalar",
                           meaning=BEFORE, intended=True)  # fmt: skip
    row = load._verdict_frame([gate.verdict(item, "clip", mode, found.status, found=found)])
    w = standalone.want(row.iloc[0].to_dict(), CLIP)
    assert w.recorded == (f"incorrect: write dropped {fail}",)
    assert w.checks == every[: every.index(fail) + 1] and w.how == standalone.ALONE


# -- the driver, run on a NumPy stand-in for MindSpore -------------------------------------------
class _Param:
    def __init__(self, value):
        self.value = np.asarray(value, np.float32)

    def asnumpy(self):
        return self.value.copy()


class _Out(_Param):
    pass


class _Clip:
    """The clip cell in NumPy; ``does[n]`` is what its n-th instance (from 1, a network's layers
    included) does instead: "drop" its write, "future" (clip with the new limit), "raise"."""

    made = 0
    does: dict = {}

    def __init__(self):
        type(self).made += 1
        self.n, self.limit = type(self).made, _Param([1.0])
        self.construct = None

    def parameters_and_names(self):
        return [("limit", self.limit)]

    def __call__(self, x):
        what = self.does.get(self.n, "")
        if what == "raise":
            raise RuntimeError("deliberately broken")
        old = float(self.limit.value[0])
        new = np.float32(min(old + 1e-4 * x.shape[0], 3.0))
        out = np.clip(x, -new, new) if what == "future" else np.clip(x, -old, old)
        if what != "drop":
            self.limit.value = np.asarray([new], np.float32)
        return _Out(out)


class _Network:
    def __init__(self, cells):
        self.cells, self.construct = cells, None

    def __call__(self, *xs):
        return tuple(c(*xs) for c in self.cells)


def _run_driver(row, does, work=CLIP):
    """``run()`` of the driver a script of ``row`` gets, on the NumPy stand-in: (outcome, what
    it printed)."""
    import contextlib
    import io

    w = standalone.want(row, work)
    driver, _ = standalone.driver_text(w, MODES[row["mode"]], "Variant()", hooks=False)
    fake_ms = SimpleNamespace(set_device=lambda *a: None, set_context=lambda **k: None,
                              jit=lambda f, **k: f, GRAPH_MODE=0, PYNATIVE_MODE=1)  # fmt: skip
    space = {"np": np, "ms": fake_ms, "Tensor": np.asarray, "Variant": _Clip, "Network": _Network}
    space.update(SIZE=w.size, STEPS=w.steps, RTOL=work.rtol, ATOL=work.atol, LATER=w.checks[1:],
                 NAMES=tuple(work.state_names), MEANING=BEFORE)  # fmt: skip
    space["KINDS"] = (
        (*standalone.STATE_KINDS, standalone.OTHER_OUTPUT)
        if w.judged == "state"
        else tuple(str(k) for k in Kind if k is not Kind.DIFFERS)
    )
    exec(standalone.REFERENCES[work.name][0](work), space)
    exec(driver, space)
    _Clip.made, _Clip.does = 0, does
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        got = space["run"]()
    return got, printed.getvalue()


WORKS_ROW = _row("clip", JIT_BYTECODE)


@pytest.mark.parametrize(
    "row, does, got",
    [
        (WORKS_ROW, {}, "works"),
        # instances 1, 2, 3: the first, second and third instance; 4 and 5: the network's layers
        (WORKS_ROW, {2: "drop"}, f"incorrect: write dropped {SECOND_ONLY}"),
        (WORKS_ROW, {3: "drop"}, f"incorrect: write dropped {THIRD_ONLY}"),
        (WORKS_ROW, {5: "drop"}, f"incorrect: write dropped {NETWORK_ONLY}"),
        (WORKS_ROW, {3: "raise"}, f"raises: RuntimeError {THIRD_ONLY}"),
        # a works script judges the state, and whether the output is the code's
        (WORKS_ROW, {4: "future"}, f"incorrect: {standalone.OTHER_OUTPUT} {NETWORK_ONLY}"),
        # a recorded output kind is judged as the oracle judges it
        (_row("clip", JIT_BYTECODE, "incorrect", "future read", calls=NETWORK_ONLY),
         {4: "future"}, f"incorrect: future read {NETWORK_ONLY}"),
        (_row("clip", GRAPH), {3: "drop"}, f"incorrect: write dropped {NETWORK_ONLY}"),
        # no later instance outside bytecode capture: the second built is the network's layer 1
        (_row("clip", JIT_AST), {2: "drop"}, f"incorrect: write dropped {NETWORK_ONLY}"),
        (_row("clip", PYNATIVE), {2: "drop"}, "works"),  # no network in eager modes
        # the first instance fails: the gate ran nothing after it, nor does the script
        (_row("clip", JIT_BYTECODE, "incorrect", "write dropped", calls="at every call"),
         {1: "drop", 2: "raise"}, "incorrect: write dropped at every call"),
    ],
)  # fmt: skip
def test_the_driver_runs_the_checks_in_order_and_qualifies_a_later_failure(row, does, got):
    outcome, printed = _run_driver(row, does)
    assert outcome == got, printed
    checks = re.findall(r"^-- check: (.*)$", printed, re.M)
    ran = standalone.want(row, CLIP).checks
    if len(ran) > 1:  # each check is marked before it runs: a crash is attributed to it
        assert checks[0] == "the first instance" and checks[1:] == list(ran[1 : len(checks)])
    if NETWORK_ONLY in checks:
        assert "layer 2 step 1, expected vs observed: limit 1.2048" in printed
    if does.get(5) == "drop":
        assert "layer 2 step 1, expected vs observed: limit 1.2048 vs 1; output: write dropped" in (
            printed
        )


def test_a_qualified_script_runs_only_up_to_its_check():
    row = _row("clip", JIT_BYTECODE, "incorrect", "write dropped", calls=SECOND_ONLY)
    outcome, printed = _run_driver(row, {2: "drop", 3: "raise"})
    assert outcome == f"incorrect: write dropped {SECOND_ONLY}"
    assert re.findall(r"^-- check: (.*)$", printed, re.M) == ["the first instance", SECOND_ONLY]


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


def test_a_verdict_found_while_timed_gets_a_script_over_the_re_gates_steps():
    """A host-side write that stops after call 45: right in the gate's 10 calls, wrong after
    the timed steps, its kind from a re-gate alone over them; the report crashed here ("not the
    words of calls: 'from call 46 on'") when the script took the gate's 10 calls."""
    detail = (
        "worked in every gate process; the state was wrong after the timed steps in 1 of 2 "
        "timed cells (sizes 64, 256): after 640 timed steps the state is {'limit': [2.0]}, the "
        "code writes {'limit': [3.0]}; wrong when re-gated alone: write dropped at step 46 "
        "(N=64): limit = 1.2, the code writes 1.2064 (unchanged)"
    )
    row = _row("clip", GRAPH, "incorrect", "write dropped", detail, calls="from call 46 on")
    w = standalone.want(row, workloads.get("clip"))
    assert (w.size, w.steps) == (64, 640)
    assert w.recorded == ("incorrect: write dropped from call 46 on",)
    text = standalone.script(_variant("clip", "host", "as-written"), row, "t", "v", "x.py")
    assert "SIZE, STEPS" in text and "= 64, 640," in text
    assert f"if hits == {list(range(46, 641))}" in text


def test_the_words_of_calls_that_could_not_tell_read_back():
    assert standalone.hits_of("at calls 1, 2 of 10 (calls 3, 4 could not tell)", 10) == [1, 2]
    assert standalone.hits_of("from call 46 on", 640) == list(range(46, 641))
    with pytest.raises(ValueError, match="not the words of calls"):
        standalone.hits_of("from call 46 on", 10)

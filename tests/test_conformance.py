"""The conformance gate over every strategy × shape × mode, the shapes it generates, and the
gate's own failure modes."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from collections import Counter

import pytest

from bench.core.paths import ROOT, STRATEGIES_DIR
from bench.measured import discovery, modes, shapes, workloads
from bench.report import load, repro
from bench.run import gate

NAMES = discovery.strategy_names()


@pytest.fixture(scope="session")
def gate_run(gate_runs):
    (runs, done) = gate_runs
    return runs["clip"][0], done


@pytest.fixture(scope="session")
def verdicts(gate_runs):
    return gate_runs[0]["clip"][1]


def test_the_gate_covers_every_strategy_shape_and_mode(verdicts):
    work = workloads.get("clip")
    got = Counter((v.strategy, v.mode) for v in verdicts)
    for name in NAMES:
        strategy = discovery.load(name)
        if work.expressible(strategy):
            expected = 1  # one "inexpressible" verdict for the whole strategy
        else:
            expected = 1 if strategy.custom else len(work.shapes(strategy.layout))
        for mode in modes.MODE_NAMES:
            assert got[(name, mode)] == expected, (name, mode)


@pytest.mark.parametrize("mode", modes.MODE_NAMES)
@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("workload", sorted(workloads.WORKLOADS))
def test_strategy_behaves_as_declared(gate_runs, workload, name, mode):
    verdicts = gate_runs[0][workload][1]
    mine = [v for v in verdicts if (v.strategy, v.mode) == (name, mode)]
    assert mine, (workload, name, mode)  # every strategy gets a verdict, even "inexpressible"
    wrong = [v for v in mine if not v.as_declared]
    assert not wrong, [f"{v.shape}: {v.finding} (declared: {v.expected})" for v in wrong]


def test_a_run_as_declared_exits_0(gate_run):
    assert gate_run[1].returncode == 0, gate_run[1].stdout[-3000:]


def test_the_original_report_reproduces(verdicts):
    """set_data in construct fails to compile in GRAPH_MODE with the original message."""
    graph = [v for v in verdicts if (v.strategy, v.mode) == ("set_data", "graph")]
    assert graph and all(v.status == "raises" for v in graph)
    assert all(
        "Failed to compile in GRAPH_MODE because the 'Parameter' object's method 'set_data'"
        in v.detail
        for v in graph
    )
    shape = "inline-param-after-expr"  # the report's own shape
    assert {v.status for v in verdicts if (v.strategy, v.shape) == ("set_data", shape)} == {
        "raises",
        "works",
    }
    assert (
        next(
            v for v in verdicts if (v.strategy, v.shape, v.mode) == ("set_data", shape, "pynative")
        ).status
        == "works"
    )


def _run_script(path):
    return subprocess.run(
        [sys.executable, str(path)], cwd=path.parent, capture_output=True, text=True, timeout=300
    )


def test_reproduction_scripts_reproduce(gate_run, tmp_path):
    """One script per kind of failure: it needs only MindSpore, NumPy and the suite module next
    to it, and it shows the problem when run (a crash reproduces as a crash)."""
    run = load.load(gate_run[0], n_boot=0)
    links = repro.write_all(run, tmp_path / "repros", pair_limit=0)
    assert links["failures"], "the suite is expected to find failures (set_data in graph at least)"
    classes = {}
    for (_, mode, failure), link in links["failures"].items():
        classes.setdefault((mode, failure.split(":")[0]), (failure, link))  # one per mode, status
    for failure, link in sorted(set(classes.values())):
        path = tmp_path / link
        text = path.read_text()
        assert "from bench" not in text and "import bench" not in text
        assert (path.parent / "clip_suite.py").is_file()
        done = _run_script(path)
        if failure.startswith(("crashed", "timeout")):
            assert done.returncode != 0 or "REPRODUCED" in done.stdout, (link, done.stderr[-500:])
            continue
        assert "REPRODUCED: " in done.stdout and "NOT REPRODUCED" not in done.stdout, (
            link,
            done.stdout + done.stderr[-1000:],
        )


def test_a_minimal_pair_reproduces_across_the_module_boundary(gate_run, verdicts, tmp_path):
    """Under bytecode capture, a construct inherited from ClipCell (another module) drops the
    write; the same construct in the variant's own class keeps it. Both scripts show it."""
    by = {(v.strategy, v.shape, v.mode): v for v in verdicts}
    base, own = "helper-param-after-arg-base", "helper-param-after-arg"
    assert by[("assign_add", base, "jit_bytecode")].status == "incorrect"
    assert by[("assign_add", own, "jit_bytecode")].status == "works"
    run = load.load(gate_run[0], n_boot=0)
    texts = {s: repro.variant_script(run, "assign_add", s, "jit_bytecode") for s in (base, own)}
    modules = sorted({m for t in texts.values() for m in shapes.bench_imports(t)})
    (tmp_path / "clip_suite.py").write_text(shapes.suite_module(modules))
    out = {}
    for shape, text in texts.items():
        path = tmp_path / f"{shape}.py"
        path.write_text(shapes.script(text, "clip_suite"))
        out[shape] = _run_script(path).stdout
    assert "REPRODUCED: the Parameter is not updated" in out[base], out[base]
    assert "NOT REPRODUCED" in out[own], out[own]


def test_every_strategy_file_loads(ms):
    loaded, broken = discovery.discover()
    assert not broken, [str(b) for b in broken]
    assert {s.name for s in loaded} >= {"assign", "index_add", "set_data", "host"}


@pytest.mark.parametrize("workload", sorted(workloads.WORKLOADS))
def test_every_shape_renders_and_inlines_the_write(ms, workload, tmp_path):
    work = workloads.get(workload)
    for strategy in discovery.discover()[0]:
        if work.expressible(strategy):
            continue
        variants, inexpressible = work.variants(strategy, tmp_path)
        assert variants, strategy.name
        for why in inexpressible.values():
            known = ("the write's last statement is not an expression", "it defines no write_row()")
            assert why in known or "write()" in why, why
        for variant in variants:
            text = open(variant.path).read()
            ast.parse(text)
            if variant.shape.values.get("write") == "inline":
                assert "self.write(" not in text.split("class Variant", 1)[1], variant.path
            if variant.shape.values.get("write") == "helper" and "base" not in variant.path:
                assert "self.write" in text.split("class Variant", 1)[1], variant.path
        text = open(variants[0].path).read() + "\nMODE = 'graph'\n" + work.driver()
        script = shapes.script(text, "suite")
        assert "from bench" not in script and "from suite import" in script
        suite = shapes.suite_module(shapes.bench_imports(text))
        assert not re.search(r"^\s*(from|import) bench", suite, re.M)
        tree = ast.parse(suite)
        names = Counter(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
        assert all(c == 1 for c in names.values()), (
            names
        )  # inlined modules do not shadow each other


@pytest.mark.parametrize(
    "name, status, words",
    [
        ("unchanged", "incorrect", "Parameter unchanged after step 1 at batch 8192"),
        ("wrong_value", "incorrect", "Parameter wrong after step 1 at batch 8192"),
        ("wrong_output", "incorrect", "wrong output at step 1 at batch 8192"),
        ("raises_in_init", "raises", "ValueError: deliberately broken __init__"),
        (
            "raises_in_step",
            "raises",
            "step 1 at batch 8192: RuntimeError: deliberately broken step",
        ),
    ],
)
@pytest.mark.parametrize("mode", ["graph", "pynative"])
def test_gate_names_the_failure(ms, name, status, words, mode, fixture_strategies, tmp_path):
    strategy = discovery.load(name, fixture_strategies)
    work = workloads.get("clip")
    variants, _ = work.variants(strategy, tmp_path)
    variant = next(v for v in variants if v.shape.name in ("inline-param-after-expr", "as-written"))
    got, detail = gate.check(shapes.load_variant(variant.path), work, modes.get(mode))
    assert got == status and words in detail, detail


def test_the_contract_is_checked_where_a_newcomer_looks(ms, tmp_path):
    (tmp_path / "custom.py").write_text(
        textwrap.dedent('''
        """Overrides construct without saying which workloads it fits."""
        from bench.cell import ClipCell
        DESCRIPTION = "x"
        class Cell(ClipCell):
            def construct(self, x):
                return x
    ''')
    )
    (tmp_path / "bad_regex.py").write_text(
        textwrap.dedent('''
        """A pasted error with parentheses."""
        from bench.cell import ClipCell
        DESCRIPTION = "x"
        EXPECTED_FAILURES = {"graph": "the 'Parameter' (set_data"}
        class Cell(ClipCell):
            pass
    ''')
    )
    _, broken = discovery.discover(tmp_path)
    reasons = {b.name: b.reason for b in broken}
    assert "overrides construct" in reasons["custom"] and "WORKLOADS" in reasons["custom"]
    assert "not a valid regex" in reasons["bad_regex"] and "re.escape" in reasons["bad_regex"]


def test_declarations_match_workload_shape_and_mode_patterns(ms, fixture_strategies):
    strategy = discovery.load("good_assign", fixture_strategies)
    declared = discovery.Strategy(
        **{
            **strategy.__dict__,
            "expected_failures": {
                "jit_bytecode": "a",
                "brn/graph": "b",
                "clip/helper-*/graph": "c",
            },
        }
    )
    assert declared.expected("clip", "inline-param-after-expr", "jit_bytecode") == "a"
    assert declared.expected("brn", "inline-param-construct", "graph") == "b"
    assert declared.expected("clip", "helper-param-after-arg", "graph") == "c"
    assert declared.expected("clip", "inline-param-after-expr", "graph") is None


def test_readme_template_is_a_real_strategy():
    """The README's add-a-strategy template is strategies/assign_add.py, word for word."""
    readme = (ROOT / "README.md").read_text()
    start = readme.index("This is `strategies/assign_add.py`:\n\n```python\n")
    block = readme[start:].split("```python\n", 1)[1].split("```", 1)[0]
    assert block == (STRATEGIES_DIR / "assign_add.py").read_text()
    assert len(block.splitlines()) <= 25
    assert "python3 -m nox -s bench -- --gate-only --strategies my_strategy" in readme

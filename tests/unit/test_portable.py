"""Raw data is plain and portable: params as dicts (not reprs), paths relative to the repository
root; runs written before are rewritten in place without changing a measurement."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from bench.core import portable
from bench.core.paths import ROOT
from bench.run.plan import Item


@dataclass
class Cell:
    strategy: str
    path: str
    dims: dict = field(default_factory=dict)


def test_params_become_plain_dicts_with_paths_relative_to_the_root():
    item = Item(
        "assign",
        "inline-param-after-expr",
        str(ROOT / "results/clip/raw/R/variants/assign/inline-param-after-expr.py"),
        "scalar",
        dims={"read": "param"},
        control_path=str(ROOT / "results/clip/raw/R/variants/control/scalar.py"),
        batch_size=64,
    )
    out = portable.plain_params({"benchmarks": [{"params": {"cell": item}, "name": "x"}]})
    cell = out["benchmarks"][0]["params"]["cell"]
    assert cell["path"] == "results/clip/raw/R/variants/assign/inline-param-after-expr.py"
    assert cell["control_path"] == "results/clip/raw/R/variants/control/scalar.py"
    assert cell["dims"] == {"read": "param"} and cell["batch_size"] == 64
    assert json.loads(json.dumps(out)) == out  # plain JSON: no UNSERIALIZABLE repr


@pytest.mark.parametrize(
    "path, root, want",
    [
        ("/a/suite/results/x.py", "/a/suite", "results/x.py"),
        ("/a/suite2/results/x.py", "/a/suite", "/a/suite2/results/x.py"),  # not under it
        ("relative/x.py", "/a/suite", "relative/x.py"),
        (Path("/a/suite/strategies"), "/a/suite/", "strategies"),
    ],
)
def test_a_path_is_made_relative_only_under_the_root(path, root, want):
    assert portable.portable_path(path, root) == want


def test_a_recorded_relative_path_resolves_against_the_root():
    assert portable.resolve("strategies") == ROOT / "strategies"
    assert portable.resolve("/elsewhere/strategies") == Path("/elsewhere/strategies")


def test_a_repr_is_read_back_as_its_fields():
    text = "UNSERIALIZABLE[Item(strategy='a', path='/r/x.py', dims={'read': 'view'}, k=3)]"
    assert portable.from_repr(text) == {
        "strategy": "a",
        "path": "/r/x.py",
        "dims": {"read": "view"},
        "k": 3,
    }
    assert portable.from_repr("Item(a=1, b='x')") == {"a": 1, "b": "x"}  # json default=str
    assert portable.is_repr("Item(a=1)") and portable.is_repr(text)
    assert not portable.is_repr("assign@inline-param-after-expr-graph-N64")
    with pytest.raises(ValueError, match="not a dataclass repr"):
        portable.from_repr("Item(1, 2)")


def test_a_run_written_before_is_rewritten_in_place(tmp_path):
    run = tmp_path / "results" / "clip" / "raw" / "20260101T000000Z-abcd"
    (run / "timing").mkdir(parents=True)
    old = "/home/someone/suite"
    repr_ = (
        f"UNSERIALIZABLE[Item(strategy='assign', path='{old}/results/clip/raw/{run.name}/"
        "variants/assign/x.py', dims={'read': 'param'}, batch_size=64)]"
    )
    timing = {
        "benchmarks": [
            {"params": {"cell": repr_}, "stats": {"data": [1.5e-05, 2.5e-05]}, "extra_info": {}}
        ],
        "suite": {"cells": []},
    }
    manifest = {"run_id": run.name, "plan": {"strategies_dir": f"{old}/strategies", "k": 1.5}}
    (run / "timing" / "graph-p0.json").write_text(json.dumps(timing, indent=1) + "\n")
    (run / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    changed = portable.rewrite_run(run)
    assert sorted(p.name for p in changed) == ["graph-p0.json", "manifest.json"]
    got = json.loads((run / "timing" / "graph-p0.json").read_text())
    assert got["benchmarks"][0]["params"]["cell"] == {
        "strategy": "assign",
        "path": f"results/clip/raw/{run.name}/variants/assign/x.py",
        "dims": {"read": "param"},
        "batch_size": 64,
    }
    assert got["benchmarks"][0]["stats"]["data"] == [1.5e-05, 2.5e-05]  # measurements untouched
    assert json.loads((run / "manifest.json").read_text())["plan"] == {
        "strategies_dir": "strategies",
        "k": 1.5,
    }
    assert portable.rewrite_run(run) == []  # a second pass changes nothing


def test_the_fixture_run_is_portable(tmp_path):
    from tests.conftest import RUN

    copy = tmp_path / RUN.name
    shutil.copytree(RUN, copy)
    text = "".join(p.read_text() for p in copy.rglob("*.json*"))
    assert "UNSERIALIZABLE" not in text and "/work/" not in text


def test_a_windows_path_under_the_root_is_recorded_relative_with_slashes():
    root = "C:\\Users\\me\\suite"
    got = portable.portable_path(root + "\\results\\clip\\raw\\run", root)
    assert got == "results/clip/raw/run"
    assert portable.portable_path("/home/me/suite/results/x", "/home/me/suite/") == "results/x"
    assert portable.portable_path("D:\\elsewhere\\x", root) == "D:\\elsewhere\\x"  # not under it


@pytest.mark.parametrize(
    "args, want",
    [
        (
            ["--results-dir", "/work/refs/ema", "--no-report"],
            ["--results-dir", "DIR", "--no-report"],
        ),
        (["--plots-dir=/home/me/p"], ["--plots-dir=DIR"]),
        (["--expected-dir", "C:\\runs\\e"], ["--expected-dir", "DIR"]),
        (["--results-dir", "runs/mine"], ["--results-dir", "runs/mine"]),  # relative: kept
        (["--strategies", "/x,/y"], ["--strategies", "/x,/y"]),  # not a folder option
    ],
)
def test_a_runs_arguments_are_recorded_without_the_machines_folders(args, want):
    assert portable.argv(args) == want


def test_a_stack_names_a_runs_variant_from_its_results_folder_wherever_it_is():
    stack = (
        'File "/work/refs/kvcache/raw/20261206T091053Z-055f/variants/assign/full-helper.py", '
        'line 3\n  File "/home/u/suite/bench/run/worker.py"'
    )
    got = portable.stack_text(stack, "/home/u/suite")
    assert got == (
        'File "raw/20261206T091053Z-055f/variants/assign/full-helper.py", line 3\n'
        '  File "bench/run/worker.py"'
    )


def test_a_rewrite_takes_the_folders_out_of_the_command_and_of_a_crash_stack(tmp_path):
    """Only the manifest's arguments and a verdict's stack change; the timings are untouched."""
    run = tmp_path / "results" / "raw" / "20261206T100719Z-ce58"
    (run / "gate").mkdir(parents=True)
    (run / "timing").mkdir()
    manifest = {
        "run_id": run.name,
        "plan": {"strategies_dir": "strategies"},
        "argv": ["--results-dir", "/work/refs/kvcache"],
        "invocations": [{"argv": ["--results-dir", "/work/refs/kvcache"], "at": "t"}],
    }
    (run / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    crash = {
        "status": "crashed",
        "diagnostics": {
            "traceback": (
                'File "/work/refs/kvcache/raw/20261206T091053Z-055f/variants/a/x.py", line ???'
            )
        },
    }
    timing = {"benchmarks": [{"params": None, "stats": {"data": [1.0]}}], "suite": {}}
    (run / "gate" / "jit_bytecode.r0.reused.jsonl").write_text(json.dumps(crash) + "\n")
    (run / "timing" / "graph-p0.json").write_text(json.dumps(timing, indent=1) + "\n")
    changed = {p.name for p in portable.rewrite_run(run)}
    assert changed == {"manifest.json", "jit_bytecode.r0.reused.jsonl"}
    got = json.loads((run / "manifest.json").read_text())
    assert got["argv"] == ["--results-dir", "DIR"]
    assert got["invocations"][0]["argv"] == ["--results-dir", "DIR"]
    line = json.loads((run / "gate" / "jit_bytecode.r0.reused.jsonl").read_text())
    assert line["diagnostics"]["traceback"].startswith('File "raw/20261206T091053Z-055f/')
    assert portable.rewrite_run(run) == []  # once rewritten, nothing left to do

"""Standalone reproduction scripts run on MindSpore: each shows what it recorded and only that,
in a fresh process with no ``bench`` importable; a construct inherited from another module
under bytecode capture keeps that module structure (written out in one file it does not show
the dropped write); a cell the gate saw crash only as two layers of one network reproduces that
crash in that check, from the verdict row the gate's own worker records."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.causes import standalone
from bench.core.schema import NETWORK_ONLY, SECOND_ONLY, THIRD_ONLY, Status, Verdict
from bench.measured import discovery, workloads
from bench.measured.modes import GRAPH, JIT_BYTECODE
from bench.run.plan import Item, Job

pytestmark = pytest.mark.mindspore


def _script(path, text):
    path.write_text(text)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-I", str(path)],  # isolated: the checkout is not importable
        cwd=path.parent,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        check=False,
    )


def _gated(tmp_path, strategy, shape, mode):
    """(the verdict row of one clip cell as the gate records it, its variant's code): the
    worker's own gate job (the cell in a forked child: a crash costs that child, attributed to
    the check it was in), read back as ``bench.decide.load`` reads a run."""
    from bench.decide import load

    work = workloads.get("clip")
    (variant,), _ = work.variants(discovery.load(strategy), tmp_path, only={shape})
    item = Item(strategy, variant.shape.name, variant.path, variant.layout,
                meaning=variant.meaning, dims=variant.shape.values)  # fmt: skip
    out = tmp_path / "verdicts.jsonl"
    job = Job("gate", "t", "clip", mode, str(out), (item,)).write(tmp_path / "job.json")
    done = subprocess.run([sys.executable, "-m", "bench.run.worker", str(job)],
                          capture_output=True, text=True, timeout=900, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    verdict = Verdict.from_dict(json.loads(out.read_text().splitlines()[-1]))
    return load._verdict_frame([verdict]).iloc[0].to_dict(), Path(variant.path).read_text()


def test_a_crash_only_as_a_network_of_two_layers_reproduces_in_that_check(ms, tmp_path):
    """``assign@helper-param-after-arg`` under bytecode capture (2.10.0, CPU, by hand too): the
    first, second and third instance work; two instances as the layers of one network die by
    SIGSEGV. The script of the gate's row runs the same checks and dies in the same one; the
    working side (``assign_primitive``) runs them all and works."""
    row, variant = _gated(tmp_path, "assign", "helper-param-after-arg", JIT_BYTECODE)
    assert (row["status"], row["calls"]) == (Status.CRASHED.value, NETWORK_ONLY)
    assert (
        row["detail"] == f"{NETWORK_ONLY} (the first works): the gate's process died with SIGSEGV"
    )
    done = _script(tmp_path / "crash.py", standalone.script(variant, row, "t", "2.10.0", "x.py"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"\nREPRODUCED: crashed: SIGSEGV {NETWORK_ONLY}" in done.stdout
    checks = re.findall(r"^-- check: (.*)$", done.stdout, re.M)
    assert checks == ["the first instance", SECOND_ONLY, THIRD_ONLY, NETWORK_ONLY]
    before = done.stdout.split(f"-- check: {NETWORK_ONLY}")[0]
    steps = workloads.get("clip").gate_schedule[0][1]
    assert before.count("output: as the code means") == 3 * steps  # three instances, every step
    assert "Segmentation fault" in done.stdout  # the child's native traceback, printed
    fine, variant = _gated(tmp_path, "assign_primitive", "helper-param-after-arg", JIT_BYTECODE)
    assert fine["status"] == Status.WORKS.value and fine["network"] == Status.WORKS.value
    works = _script(tmp_path / "works.py", standalone.script(variant, fine, "t", "2.10.0", "x.py"))
    assert works.returncode == 0 and "\nREPRODUCED: works" in works.stdout, works.stdout[-3000:]
    assert re.findall(r"^-- check: (.*)$", works.stdout, re.M) == checks
    assert works.stdout.count("layer 2 step 10, expected vs observed: limit 3 vs 3") == 1


def _run(tmp_path, strategy, shape, mode, status, kind="", calls="", meaning="before", **kw):
    work = workloads.get("clip")
    s = discovery.load(strategy, discovery.STRATEGIES_DIR)
    variant = work.render(s, {x.name: x for x in work.shapes(s.layout)}[shape])
    row = {"workload": "clip", "mode": mode, "status": status, "kind": kind, "calls": calls,
           "detail": "", "meaning": meaning}  # fmt: skip
    path = tmp_path / "repro.py"
    path.write_text(standalone.script(variant, row, "t", "2.10.0", path.name, **kw))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-I", str(path)],  # isolated: the checkout is not importable
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )


def test_a_script_reproduces_only_what_it_recorded(ms, tmp_path):
    def run(status, kind="", calls=""):
        return _run(tmp_path, "index_add", "inline-view-before-expr", GRAPH, status, kind, calls,
                    "after")  # fmt: skip

    # the old gate's limit reached its cap at call 3 of 4, so its 4th call could not tell and
    # it said "at the first 3 calls only"; every one of the 10 calls can tell now (issue 50)
    done = run("incorrect", "stale read", "at every call")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "\nREPRODUCED: incorrect: stale read at every call" in done.stdout
    assert "step 1, expected vs observed: limit 1.2048 vs 1.2048; output: stale read" in done.stdout
    assert "step 10, expected vs observed: limit 3 vs 3; output: stale read" in done.stdout
    first = run("incorrect", "stale read", "at the first 3 calls only")  # the calls are checked
    assert (
        first.returncode == 1 and "NOT REPRODUCED: observed incorrect: stale read" in first.stdout
    )


def test_an_inherited_construct_under_bytecode_capture_keeps_its_module(ms, tmp_path):
    done = _run(tmp_path, "assign", "helper-param-after-arg-base", JIT_BYTECODE, "incorrect",
                "write dropped", "at every call")  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "REPRODUCED: incorrect: write dropped at every call" in done.stdout
    # the same code with the state class in the script's own module: something else (on
    # 2.10.0, CPU, a segmentation fault) - the reason the state gets a module of its own
    flat = _run(tmp_path, "assign", "helper-param-after-arg-base", JIT_BYTECODE, "incorrect",
                "write dropped", "at every call", separate=False)  # fmt: skip
    assert flat.returncode != 0 and "\nREPRODUCED" not in flat.stdout

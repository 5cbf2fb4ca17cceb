"""Shards (``--shard I/N``, ``bench.run.shard``), no MindSpore: the split is the same
everywhere, disjoint and complete; bad shards exit 2 in one line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from bench import cli
from bench.core import procs
from bench.core.paths import ROOT
from bench.measured.shapes import CONTROL
from bench.run import shard
from bench.run.plan import Plan

MODES = ("graph", "pynative", "jit_ast", "jit_bytecode", "pynative_blocking")


def plan(strategies=("assign", "set_data", "assign_primitive"), modes=MODES, gate_only=True):
    return Plan("clip", tuple(strategies), tuple(modes), (1, 1024), "strategies",
                gate_only=gate_only)  # fmt: skip


PLANS = [
    plan(),
    plan(gate_only=False),
    plan(("assign",), ("graph",)),
    plan(("b", "a", "c", "d", "e", "f", "g"), ("pynative", "graph")),
    plan(("b", "a", "c", "d", "e", "f", "g"), MODES, gate_only=False),
]


def every_unit(p: Plan) -> set[str]:
    return {shard.unit(s, m) for s in (*p.strategies, CONTROL) for m in p.modes}


@pytest.mark.parametrize("p", PLANS)
@pytest.mark.parametrize("count", [1, 2, 3, 5])
def test_the_split_is_disjoint_and_complete(p, count):
    if count > len(shard.groups(p)):
        with pytest.raises(ValueError, match="fewer than"):
            shard.check(p, (1, count))
        return
    parts = shard.split(p, count)
    assert len(parts) == count and all(parts)
    assert sum(len(x) for x in parts) == len(every_unit(p))  # no unit twice
    assert set().union(*map(set, parts)) == every_unit(p)  # union = the unsharded plan
    sizes = [len([g for g in shard.groups(p) if g[0] in x]) for x in parts]
    assert max(sizes) - min(sizes) <= 1  # round-robin: as even as groups allow


@pytest.mark.parametrize("p", PLANS)
def test_a_timed_shard_holds_whole_modes(p):
    if p.gate_only:
        return
    for part in shard.split(p, 2):
        modes = {u.split("|")[1] for u in part}
        assert set(part) == {shard.unit(s, m) for s in (*p.strategies, CONTROL) for m in modes}


def test_the_split_depends_on_the_plan_not_on_the_order_of_the_command():
    a = plan(("assign", "set_data", "assign_primitive"), ("pynative", "graph"))
    b = plan(("assign_primitive", "assign", "set_data"), ("graph", "pynative"))
    assert shard.split(a, 3) == shard.split(b, 3)


def test_the_split_is_the_same_in_every_process_whatever_its_hash_seed():
    """Nothing in it depends on Python's randomized ``hash()`` (the same on every machine)."""
    code = (
        "import json; from bench.run import shard; from bench.run.plan import Plan; "
        "p = Plan('clip', ('b', 'a', 'c', 'd'), ('graph', 'pynative', 'jit_ast'), (1,), 's', "
        "gate_only=True); print(json.dumps(shard.split(p, 4)))"
    )
    outs = {
        subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout
        for seed in ("1", "2", "3")
    }  # fmt: skip
    assert len(outs) == 1
    expected = shard.split(plan(("b", "a", "c", "d"), ("graph", "pynative", "jit_ast")), 4)
    assert json.loads(outs.pop()) == expected


def test_a_shard_holds_its_units_and_a_whole_run_everything():
    p = plan(("assign", "set_data"), ("graph", "pynative"))
    assert shard.holds(p, "assign", "graph") and shard.modes(p) == ["graph", "pynative"]
    first, second = (replace(p, shard=(i, 2)) for i in (1, 2))
    for s in ("assign", "set_data", CONTROL):
        for m in p.modes:
            assert shard.holds(first, s, m) != shard.holds(second, s, m)
    assert shard.record(p) == {}
    assert shard.record(second)["shard"] == "2/2"
    assert shard.record(second)["holds"] == shard.split(p, 2)[1]


def test_a_shard_survives_its_manifest():
    p = replace(plan(), shard=(2, 3))
    assert Plan.from_dict(json.loads(json.dumps(p.to_dict()))) == p


@pytest.mark.parametrize(
    "args, words",
    [
        (["--shard", "0/2"], "shard '0/2': I must be between 1 and N"),
        (["--shard", "3/2"], "shard '3/2': I must be between 1 and N"),
        (["--shard", "a/b"], "not I/N (two whole numbers): 'a/b'"),
        (["--shard", "2"], "not I/N"),
        (["--shard", "1/6", "--modes", "graph,pynative"], "splits into 2 modes"),
        (["--shard", "1/2", "--record"], "--shard and --record do not go together"),
        (["--shard", "1/2", "--publish"], "--shard and --publish do not go together"),
    ],
)
def test_bad_shards_fail_in_one_line_before_any_work(tmp_path, args, words, capsys, monkeypatch):
    monkeypatch.delenv(procs.ENV, raising=False)  # main() sets it for the workers
    assert cli.main([*args, "--results-dir", str(tmp_path / "results")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bench: error: ") and err.count("\n") == 1, err
    assert words in err
    raw = tmp_path / "results" / "raw"
    assert not raw.exists() or not any(raw.iterdir())

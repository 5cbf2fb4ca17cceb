"""The full conformance check (``nox -s conformance``: before references are made again): every
strategy × shape × mode of every workload against the verdicts recorded for this MindSpore
release, every committed reproduction script against what it recorded, every committed report
against what its committed raw data renders to today (those two: ``test_committed.py``, a file
of their own so that pytest-xdist's ``--dist loadfile`` runs them beside the gate). CI runs the
same tests on a sample (``nox -s conformance_sample``, ``BENCH_CONFORMANCE_SAMPLE`` set;
``tests/conformance/sample.py`` says what it takes)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bench.core import expected, pins, verdicts
from bench.core.paths import ROOT
from bench.core.records import Records
from bench.core.schema import Kind, signature
from bench.measured import workloads
from tests.conformance import sample
from tests.conftest import bench

# A fresh gate of every workload (under bytecode capture every cell alone in its own process and a
# second instance of each working one) takes about half an hour here: far past the default 600 s.
pytestmark = [pytest.mark.conformance, pytest.mark.mindspore, pytest.mark.timeout(4800)]
VARIES = f"incorrect: {Kind.DIFFERS}"


def _recorded() -> dict:
    """Every line of expected/, over every release (the shapes are the same in each)."""
    out: dict = {}
    for path in sorted(expected.EXPECTED_DIR.glob("*.tsv")):
        out.update(expected.read(path))
    return out


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    """One fresh gate of every workload, one process per compiled mode (``--quick``'s gate). The
    reference gate runs two; with every bytecode cell gated alone, its two processes agreed on
    every cell of the four workloads (no 'differs between processes' line in expected/), and two
    would take this gate past CI's time (64 min here for both, most of it bytecode capture)."""
    results = tmp_path_factory.mktemp("gate")
    fresh = ["--gate-only", "--quick", "--fresh-gate", "--results-dir", str(results)]
    if sample.enabled():  # per workload, the fewest shapes holding every strategy × mode
        for workload, shapes in sample.gate_shapes(_recorded(), sample.commit()).items():
            done = bench(*fresh, "--workload", workload, "--shapes", ",".join(shapes))
            assert done.returncode in (0, 1), done.stderr[-3000:]
    else:
        done = bench(*fresh, timeout=4800)
        assert done.returncode in (0, 1), done.stderr[-3000:]
    out = {}
    for run in sorted((results / "raw").iterdir()):
        rec = Records(run)
        out[rec.manifest.plan["workload"]] = (rec, verdicts.final(rec.verdicts, []))
    return out, done


def _allowed(mode: str, recorded: str, observed: str) -> bool:
    """Bytecode capture is known to differ from process to process (the findings): a cell of it
    that varies now, or was recorded as varying, is not a change of MindSpore's."""
    if expected.accepts(recorded, observed):
        return True
    return mode == "jit_bytecode" and VARIES in (recorded, observed)


@pytest.mark.parametrize("workload", sorted(workloads.WORKLOADS))
def test_every_shape_gates_as_recorded(gated, workload):
    runs, _ = gated
    rec, final = runs[workload]
    version = rec.manifest.plan["mindspore"]
    recorded = expected.read(expected.path_for(version))
    assert recorded, f"no expected verdicts for MindSpore {version}"
    wrong = []
    for v in final:
        if v.status in expected.NOT_RECORDED:
            continue
        observed = signature(v.status, v.kind, v.detail)
        want = recorded.get(expected.key(v))
        if want is None and v.strategy == "control" and observed == "works":
            continue
        if want is None or not _allowed(v.mode, want, observed):
            wrong.append(f"{v.strategy}/{v.shape} {v.mode}: {observed}, recorded {want}")
    assert not wrong, "\n".join(wrong[:40])


def test_pynative_computes_what_every_in_place_write_means(gated):
    """The point of the oracle: no clip cell of an in-place API is silently wrong in an eager mode
    unless the API itself departs from eager semantics. Such a departure is MindSpore's, not the
    oracle's, only if the strategy's write, called once on a plain Parameter in PYNATIVE_MODE
    outside any Cell or shape, leaves it unchanged too (2.10.0: ``Tensor.add_`` on a Parameter,
    ``ops.InplaceUpdateV2`` whose output is a new Tensor), or, for a stale read, writes it but
    leaves a view taken before the write with the old data (2.10.0: ``param[...] = value``, which
    the index guide documents as changing the tensor's elements); its cells must then be recorded
    in expected/ (the gate test) so the pages report them as findings."""
    rec, final = gated[0]["clip"]
    facts = rec.manifest.strategies
    bad = [
        v
        for v in final
        if v.mode in ("pynative", "pynative_blocking")
        and v.status == "incorrect"
        and facts.get(v.strategy, {}).get("semantics") == "in-place"
    ]
    eager = {name: _eager_write(name) for name in sorted({v.strategy for v in bad})}
    suspect = [
        f"{v.strategy}/{v.shape} {v.mode}: {v.detail}"
        for v in bad
        if not _explained(eager[v.strategy], v.kind)
    ]
    assert not suspect, suspect
    recorded = expected.read(expected.path_for(rec.manifest.plan["mindspore"]))
    unrecorded = [
        f"{v.strategy}/{v.shape} {v.mode}" for v in bad if expected.key(v) not in recorded
    ]
    assert not unrecorded, unrecorded


EAGER_WRITE = """
import sys
import numpy as np
import mindspore as ms
from mindspore import Parameter, Tensor
from bench.measured import discovery
from bench.strategy import LAYOUTS
ms.set_context(mode=ms.PYNATIVE_MODE)
cell = discovery.load(sys.argv[1]).cell_class()
shape = LAYOUTS[cell.layout]
param = Parameter(Tensor(np.full(shape, 1.0, np.float32)), name="limit")
view = param.reshape(shape)  # a view taken before the write, as the view shapes read it
cell.write(param, Tensor(np.full(shape, 2.5, np.float32)))
wrote = float(param.asnumpy().reshape(-1)[0]) == 2.5
seen = float(view.asnumpy().reshape(-1)[0]) == 2.5
print("WROTE" if wrote and seen else "VIEW_STALE" if wrote else "UNCHANGED")
"""
WROTE, VIEW_STALE, UNCHANGED = "WROTE", "VIEW_STALE", "UNCHANGED"


def _explained(eager: str, kind: str | None) -> bool:
    """Whether what the write does on a plain Parameter explains a cell's kind: a write MindSpore
    drops explains any divergence; one an earlier view does not see explains a stale read only."""
    if eager == WROTE:
        return False
    if eager == VIEW_STALE:
        return kind == Kind.STALE_READ
    return True


def _eager_write(strategy: str) -> str:
    """What the strategy's write does to a plain Parameter in PYNATIVE_MODE, in a fresh process:
    ``WROTE``, ``VIEW_STALE`` (written, but a view taken before keeps the old data),
    ``UNCHANGED``, or the end of the error it raised."""
    done = subprocess.run(
        [sys.executable, "-c", EAGER_WRITE, strategy],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = done.stdout.split()
    if done.returncode or not lines:
        return f"raises: {done.stderr.strip()[-300:]}"
    return lines[-1]


def test_a_plain_eager_write_is_told_from_a_dropped_one():
    """The eager check above is not vacuous: it tells a working write from one MindSpore drops."""
    assert _eager_write("assign") == WROTE
    assert _eager_write("add_") == UNCHANGED
    assert _eager_write("slice_ellipsis") == VIEW_STALE


def test_only_what_a_plain_write_shows_explains_a_cell():
    """A write that works on a plain Parameter explains nothing; a dropped one everything; one an
    earlier view misses only a stale read (hand-made table)."""
    assert not _explained(WROTE, Kind.STALE_READ)
    assert _explained(UNCHANGED, Kind.WRITE_DROPPED)
    assert _explained(VIEW_STALE, Kind.STALE_READ)
    assert not _explained(VIEW_STALE, Kind.WRITE_DROPPED)
    assert not _explained(VIEW_STALE, Kind.WRONG_VALUE)
    assert _explained("raises: RuntimeError: ...", Kind.STALE_READ)  # not the oracle's either


def test_a_twin_grows_with_the_state_as_its_subject_does():
    """A twin must do the work of its subject but the write: in the committed EMA reference, the
    twin's step grows with the state size like its subject's (a twin whose arithmetic a compiler
    removed would stay flat, and every update would look hundreds of times its cost)."""
    from bench.decide import load

    reference = pins.reference("ema")
    assert reference, "the EMA reference run is committed"
    run = load.load(reference)
    checked = 0
    for mode, m in run.analysis.items():
        for c in m.of_role("update"):
            if c.id.strategy != "assign" or c.status != "works":
                continue
            mine = {x.id.size: x for x in m.of_role("update") if x.id.strategy == "assign"}
            small, big = mine[min(mine)], mine[max(mine)]
            subject_growth = big.step_s / small.step_s
            twin_growth = big.control_step_s / small.control_step_s
            assert twin_growth > subject_growth / 3, (mode, subject_growth, twin_growth)
            checked += 1
            break
    assert checked

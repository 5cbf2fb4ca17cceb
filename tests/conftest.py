from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bench.core import records
from bench.core.paths import ROOT

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def ms():
    """MindSpore on the CPU; the tests that take this fixture need the measuring environment."""
    mindspore = pytest.importorskip("mindspore")
    mindspore.set_device("CPU")
    return mindspore


@pytest.fixture(scope="session")
def fixture_strategies() -> Path:
    return FIXTURES / "strategies"


@pytest.fixture(scope="session")
def gate_runs(ms, tmp_path_factory):
    """The harness's own gate of every strategy × shape × mode, for every workload: one
    `python -m bench --gate-only` (forked worker processes), as a newcomer runs it."""
    results = tmp_path_factory.mktemp("gates")
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--gate-only", "--results-dir", str(results)],
        cwd=ROOT, capture_output=True, text=True, timeout=3600,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr[-3000:]
    runs = {}
    for run in sorted((results / "raw").iterdir()):
        verdicts = records.read_verdicts(run, [])
        runs[verdicts[0].workload] = (run, verdicts)
    return runs, done

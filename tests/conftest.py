"""Test tiers: a test module that needs MindSpore says so (``pytestmark =
pytest.mark.mindspore``) and takes the ``ms`` fixture; the full conformance gate is marked
``conformance`` and runs in ``nox -s conformance``. Everything else needs neither."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bench.core.paths import ROOT

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RUN = FIXTURES / "runs" / "complete"


@pytest.fixture(scope="session")
def ms():
    """MindSpore on the CPU; the tests that take this fixture need the measuring environment."""
    mindspore = pytest.importorskip("mindspore")
    mindspore.set_device("CPU")
    return mindspore


@pytest.fixture(scope="session")
def fixture_strategies() -> Path:
    return FIXTURES / "strategies"


@pytest.fixture
def run_copy(tmp_path) -> Path:
    """A writable copy of the fixture run, as ``<tmp>/raw/<run-id>``."""
    target = tmp_path / "raw" / RUN.name
    shutil.copytree(RUN, target)
    return target


def bench(*args, timeout=900, cwd=ROOT, **kw) -> subprocess.CompletedProcess:
    """``python -m bench ARGS`` as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "bench", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        **kw,
    )

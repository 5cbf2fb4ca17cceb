"""Test tiers: a test module that needs MindSpore says so (``pytestmark =
pytest.mark.mindspore``) and takes the ``ms`` fixture; the full conformance gate is marked
``conformance`` and runs in ``nox -s conformance``. Everything else needs neither."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bench.core.paths import ROOT

FIXTURES = Path(__file__).resolve().parent / "fixtures"
RUN = FIXTURES / "runs" / "complete"

# A shell starts a background job (`nox -s tests &`) with SIGINT ignored, and every process it
# starts inherits that. The tests that press Ctrl-C on purpose would then wait for a run that
# cannot be interrupted, and fail after minutes. A handled signal is reset on exec, so the
# processes the tests start get SIGINT back; a user's own run is left as its shell started it.
if os.name != "nt" and signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(config, items):
    """Windows has no POSIX signals: a test that crashes a process by one and checks its name
    (``posix``) is skipped there (a crash there is an exit code, ``procs.Ended`` names it)."""
    if os.name != "nt":
        return
    skip = pytest.mark.skip(reason="POSIX signals (Windows ends a process with an exit code)")
    for item in items:
        if "posix" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def ms():
    """MindSpore on the CPU; the tests that take this fixture need the measuring environment.

    Where MindSpore must be present (``CI`` set, or ``BENCH_REQUIRE_MINDSPORE=1``) a missing
    MindSpore fails the tier instead of skipping it."""
    mindspore = require_mindspore(os.environ)
    try:
        mindspore.set_device("CPU")
    except RuntimeError:  # a test before ran a kernel in this process: its runtime has started
        if mindspore.get_context("device_target") != "CPU":  # on the CPU, as set here, or not
            raise
    return mindspore


def mindspore_required(environ) -> bool:
    return bool(environ.get("CI")) or environ.get("BENCH_REQUIRE_MINDSPORE") == "1"


def require_mindspore(environ, name: str = "mindspore"):
    """Import MindSpore: skip where it may be missing, fail where it must be present."""
    try:
        return __import__(name)
    except ImportError as exc:
        if mindspore_required(environ):
            pytest.fail(f"MindSpore is required here (CI / BENCH_REQUIRE_MINDSPORE=1): {exc}")
        pytest.skip(f"MindSpore is not installed ({exc})")


@pytest.fixture(scope="session")
def fixture_strategies() -> Path:
    return FIXTURES / "strategies"


@pytest.fixture
def run_copy(tmp_path) -> Path:
    """A writable copy of the fixture run, as ``<tmp>/raw/<run-id>``."""
    target = tmp_path / "raw" / RUN.name
    shutil.copytree(RUN, target)
    return target


def check_workflow(path: Path) -> None:
    """Fail unless ``path`` is a valid GitHub workflow: check-jsonschema's copy of SchemaStore's
    schema of a workflow (actionlint does not install here); skipped where check-jsonschema is
    missing and MindSpore is not required (nox -s tests and CI install both: never skipped)."""
    here = Path(sys.executable).parent / ("check-jsonschema" + (".exe" if os.name == "nt" else ""))
    checker = str(here) if here.exists() else shutil.which("check-jsonschema")
    if checker is None:
        if mindspore_required(os.environ):
            pytest.fail("check-jsonschema is not installed (the test dependency group has it)")
        pytest.skip("check-jsonschema is not installed (the test dependency group has it)")
    done = subprocess.run(
        [checker, "--builtin-schema", "vendor.github-workflows", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


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

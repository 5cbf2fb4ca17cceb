from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURE_STRATEGIES = Path(__file__).resolve().parent / "fixtures" / "strategies"
sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def ms():
    """MindSpore on the CPU; the tests that take this fixture need the measuring environment."""
    mindspore = pytest.importorskip("mindspore")
    mindspore.set_device("CPU")
    return mindspore

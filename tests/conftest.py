from __future__ import annotations

from pathlib import Path

import pytest

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

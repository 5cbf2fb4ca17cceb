"""Every committed strategy file loads under the contract and names an API that
``bench/measured/apis.py`` documents. MindSpore is not needed: stand-ins for ``mindspore`` and
``bench.strategy`` let the contract be checked on the files' shape alone (as in test_contract)."""

from __future__ import annotations

import sys
import types

import pytest

from bench.core.paths import STRATEGIES_DIR
from bench.measured import apis, discovery


class _Anything(types.ModuleType):
    """A module whose every attribute is a fresh class (``ops.Assign()`` can even be built)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = type(name, (), {"__init__": lambda self, *a, **k: None})
        setattr(self, name, value)
        return value


@pytest.fixture
def no_mindspore(monkeypatch):
    """Stand-ins for MindSpore and for what imports it; modules loaded meanwhile are removed."""
    before = set(sys.modules)
    for name in ("mindspore", "mindspore.ops", "mindspore.nn", "bench.cell"):
        monkeypatch.setitem(sys.modules, name, _Anything(name))
    fake = types.ModuleType("bench.strategy")

    class Strategy:
        layout = "scalar"

        def __init__(self):
            pass

        def write(self, param, value):
            """The base class writes nothing."""

        def construct(self, x):
            return x

        def after_step(self, out, inputs):
            return out

    fake.Strategy, fake.LAYOUTS = Strategy, {"scalar": (), "vector": (1,)}
    monkeypatch.setitem(sys.modules, "bench.strategy", fake)
    yield
    for name in set(sys.modules) - before:  # what may hold a stand-in (not NumPy and the like)
        if name.startswith(("strategies_", "bench", "mindspore")):
            del sys.modules[name]


NAMES = discovery.strategy_names(STRATEGIES_DIR)


def test_the_committed_strategies_are_found():
    # by hand: the files in strategies/ (issue 28 added the last seven)
    assert set(NAMES) >= {"assign", "copy_", "set_data", "rebind", "slice_index"}
    assert set(NAMES) >= {
        "add_",
        "fill_",
        "index_copy_",
        "index_put_",
        "inplace_update_v2",
        "scatter_update",
        "tensor_scatter_update",
    }


@pytest.mark.parametrize("name", NAMES)
def test_each_strategy_file_loads_and_names_a_documented_api(no_mindspore, name):
    loaded = discovery.load(name, STRATEGIES_DIR)  # raises StrategyLoadError with the reasons
    assert loaded.description.strip(), name
    assert loaded.api, f"{name} names no API (API = 'mindspore....')"
    assert apis.doc(loaded.api) is not None, f"{name}: {loaded.api} is not in apis.py"
    assert loaded.semantics_warning() == "", (name, loaded.semantics_warning())


# by hand, from each API's page (platforms listed under "Supported Platforms")
DOCUMENTED_FOR_CPU = {
    "mindspore.ops.assign",
    "mindspore.ops.Assign",
    "mindspore.ops.assign_add",
    "mindspore.ops.index_add",
    "mindspore.ops.inplace_index_add",
    "mindspore.ops.scatter_nd_update",
    "mindspore.Parameter.set_data",
    "mindspore.Tensor.__setitem__",
    "mindspore.ops.InplaceUpdateV2",
    "mindspore.ops.ScatterUpdate",
    "mindspore.ops.tensor_scatter_update",
}


def test_which_apis_are_documented_for_the_cpu():
    assert {a for a, d in apis.APIS.items() if d.documents("CPU")} == DOCUMENTED_FOR_CPU
    for ascend_only in ("copy_", "index_copy_", "index_put_", "fill_"):
        assert apis.doc(f"mindspore.Tensor.{ascend_only}").platforms == ("Ascend",)
    assert apis.doc("mindspore.Tensor.add_").platforms == ()  # its own page lists none

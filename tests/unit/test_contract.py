"""The strategy contract, enforced at load with one message per broken rule; README's list is
generated from the same table. A stand-in ``bench.strategy`` (a plain class, as MindSpore's
``nn.Cell`` is not needed to check a file's shape) keeps this in the fast tier."""

from __future__ import annotations

import sys
import textwrap
import types

import pytest

from bench.measured import discovery

HEAD = "from bench.strategy import Strategy\n\n"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    fake = types.ModuleType("bench.strategy")

    class Strategy:
        layout = "scalar"

        def write(self, param, value):
            """The base class writes nothing."""

        def construct(self, x):
            return x

        def after_step(self, out, inputs):
            return out

    fake.Strategy, fake.LAYOUTS = Strategy, {"scalar": (), "vector": (1,)}
    monkeypatch.setitem(sys.modules, "bench.strategy", fake)
    return tmp_path


def write(folder, name, body):
    (folder / f"{name}.py").write_text(HEAD + textwrap.dedent(body))


GOOD = """
DESCRIPTION = "ops.assign(param, value)"
API = "mindspore.ops.assign"

class Cell(Strategy):
    def write(self, param, value):
        ops.assign(param, value)
"""


def test_a_file_that_keeps_the_contract_loads(folder):
    write(folder, "good", GOOD)
    s = discovery.load("good", folder)
    assert (s.name, s.description, s.api, s.custom, s.semantics) == (
        "good",
        "ops.assign(param, value)",
        "mindspore.ops.assign",
        False,
        "in-place",
    )


@pytest.mark.parametrize(
    "body, messages",
    [
        (
            'API = "mindspore.ops.assign"\nclass Cell(Strategy):\n'
            "    def write(self, p, v):\n        ops.assign(p, v)\n",
            ["module does not define DESCRIPTION"],
        ),
        ('DESCRIPTION = "x"\n', ["module does not define Cell"]),
        ('DESCRIPTION = "x"\nclass Cell:\n    pass\n', ["Cell must be a subclass"]),
        (
            'DESCRIPTION = "x"\nclass Cell(Strategy):\n    pass\n',
            ["Cell does not define write(self, param, value): the base class writes nothing"],
        ),
        (
            'DESCRIPTION = "x"\nAPI = "mindspore.ops.frobnicate"\nclass Cell(Strategy):\n'
            "    def write(self, p, v):\n        pass\n",
            [
                "API 'mindspore.ops.frobnicate' is not in bench/measured/apis.py: add an ApiDoc "
                "for it there"
            ],
        ),
        (
            'DESCRIPTION = "x"\nclass Cell(Strategy):\n    layout = "matrix"\n'
            "    def write(self, p, v):\n        pass\n",
            ["unknown layout 'matrix'"],
        ),
        (
            'DESCRIPTION = "x"\nclass Cell(Strategy):\n    def after_step(self, out, x):\n'
            "        return out\n",
            [
                "Cell overrides after_step, so it runs as written and cannot be reshaped or mixed "
                'into other workloads: say which workloads it fits, e.g. WORKLOADS = ("clip",)'
            ],
        ),
        (  # every broken rule is named, each once
            'API = "nope"\nclass Cell(Strategy):\n    pass\n',
            [
                "module does not define DESCRIPTION",
                "API 'nope' is not in bench/measured/apis.py",
                "Cell does not define write",
            ],
        ),
    ],
)
def test_each_broken_rule_has_its_own_message(folder, body, messages):
    write(folder, "bad", body)
    with pytest.raises(discovery.StrategyLoadError) as err:
        discovery.load("bad", folder)
    for words in messages:
        assert err.value.reason.count(words) == 1, err.value.reason
    assert err.value.reason.count("; ") == len(messages) - 1


def test_a_cell_run_as_written_needs_no_write(folder):
    write(
        folder,
        "host",
        'DESCRIPTION = "x"\nWORKLOADS = ("clip",)\nclass Cell(Strategy):\n'
        "    def after_step(self, out, x):\n        return out\n",
    )
    s = discovery.load("host", folder)
    assert s.custom and s.workloads == ("clip",) and s.semantics_warning() == ""


def test_private_files_are_skipped_with_a_note(folder):
    write(folder, "good", GOOD)
    write(folder, "_helpers", "X = 1\n")
    assert discovery.strategy_names(folder) == ["good"]
    assert discovery.skipped_notes(folder) == [
        "note: _helpers.py skipped: a file whose name starts with '_' is not a strategy"
    ]
    loaded, broken = discovery.discover(folder)
    assert [s.name for s in loaded] == ["good"] and broken == []


def test_the_contract_table_names_every_rule_load_checks():
    rules = [rule for rule, _ in discovery.CONTRACT]
    assert rules == ["Cell", "write", "DESCRIPTION", "layout", "API", "WORKLOADS", "private"]
    lines = discovery.contract_lines()
    assert sum(line.startswith("- ") for line in lines) == len(rules)
    assert all(len(line) <= 100 for line in lines)

"""Write semantics: declared per API beside its documentation facts; the source scan only checks
them and warns when it disagrees or cannot read the source (no MindSpore)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bench.measured import apis
from bench.measured.apis import IN_PLACE, REPLACE
from bench.measured.shapes.codegen import UNKNOWN, semantics_check, write_semantics

STRATEGIES = Path(__file__).resolve().parents[2] / "strategies"

# Written by hand from each API's page (bench/measured/apis.py cites it).
DECLARED = {
    "mindspore.ops.assign": IN_PLACE,
    "mindspore.ops.Assign": IN_PLACE,
    "mindspore.ops.assign_add": IN_PLACE,
    "mindspore.Tensor.copy_": IN_PLACE,
    "mindspore.ops.index_add": IN_PLACE,
    "mindspore.ops.inplace_index_add": IN_PLACE,
    "mindspore.ops.scatter_nd_update": IN_PLACE,
    "mindspore.Parameter.set_data": REPLACE,
    "mindspore.Tensor.__setitem__": IN_PLACE,
    "mindspore.Tensor.add_": IN_PLACE,
    "mindspore.Tensor.index_copy_": IN_PLACE,
    "mindspore.Tensor.index_put_": IN_PLACE,
    "mindspore.Tensor.fill_": IN_PLACE,
    "mindspore.Tensor.mul_": IN_PLACE,
    "mindspore.Tensor.masked_fill_": IN_PLACE,
    "mindspore.ops.InplaceUpdateV2": IN_PLACE,
    "mindspore.ops.ScatterUpdate": IN_PLACE,
    "mindspore.ops.tensor_scatter_update": REPLACE,  # functional: the rebinding writes
}


def test_every_api_declares_how_it_writes_and_the_page_that_says_so():
    assert {name: doc.writes for name, doc in apis.APIS.items()} == DECLARED
    for name, doc in apis.APIS.items():
        assert doc.says and doc.url.startswith("https://"), name
    assert apis.writes("mindspore.ops.assign") == IN_PLACE
    assert apis.writes("mindspore.nope") is None
    with pytest.raises(ValueError, match="writes must be one of"):
        apis.ApiDoc(("CPU",), "https://x", writes="sideways")


def _api_of(path: Path) -> str:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets] == ["API"]:
            return node.value.value
    return ""


# strategy file -> how its write changes the Parameter (by hand: what its API does)
STRATEGY_SEMANTICS = {
    "assign": IN_PLACE,
    "assign_add": IN_PLACE,
    "assign_primitive": IN_PLACE,
    "copy_": IN_PLACE,
    "index_add": IN_PLACE,
    "inplace_index_add": IN_PLACE,
    "scatter_nd_update": IN_PLACE,
    "set_data": REPLACE,
    "slice_ellipsis": IN_PLACE,
    "slice_index": IN_PLACE,
    "add_": IN_PLACE,
    "index_copy_": IN_PLACE,
    "index_put_": IN_PLACE,
    "fill_": IN_PLACE,
    "inplace_update_v2": IN_PLACE,
    "scatter_update": IN_PLACE,
    "tensor_scatter_update": REPLACE,
}


@pytest.mark.parametrize("name, want", sorted(STRATEGY_SEMANTICS.items()))
def test_each_committed_strategy_gets_its_semantics_from_its_api(name, want):
    assert apis.writes(_api_of(STRATEGIES / f"{name}.py")) == want


# -- the source scan (a check) -------------------------------------------------------------------
def _helper_that_rebinds(cell, value):
    cell.limit = value


def _helper_that_assigns(param, value):
    ops.assign(param, value)  # noqa: F821 - source only


class Assign:
    def write(self, param, value):
        ops.assign(param, value)  # noqa: F821


class SetData:
    def write(self, param, value):
        param.set_data(value)


class Rebind:
    def write(self, param, value):
        self.limit = value


class AugRebind:
    def write(self, param, value):
        self.limit += value - self.limit


class SetAttr:
    def write(self, param, value):
        setattr(self, self.target, value)


class SetAttrOnOther:
    def write(self, param, value):
        setattr(value, self.target, 1)  # not self: no Parameter of the cell is replaced
        ops.assign(param, value)  # noqa: F821


class HelperMethod:
    def write(self, param, value):
        self._store(param, value)

    def _store(self, param, value):
        param.set_data(value)


class HelperFunction:
    def write(self, param, value):
        _helper_that_rebinds(self, value)


class InPlaceHelperFunction:
    def write(self, param, value):
        _helper_that_assigns(param, value)


Unreadable = type("Unreadable", (), {"write": eval("lambda self, param, value: None")})
NoWrite = type("NoWrite", (), {})


@pytest.mark.parametrize(
    "cls, want",
    [
        (Assign, IN_PLACE),
        (SetData, REPLACE),
        (Rebind, REPLACE),
        (AugRebind, REPLACE),  # self.limit += v goes through Cell.__setattr__
        (SetAttr, REPLACE),
        (SetAttrOnOther, IN_PLACE),
        (HelperMethod, REPLACE),
        (HelperFunction, REPLACE),
        (InPlaceHelperFunction, IN_PLACE),
        (Unreadable, UNKNOWN),  # a lambda: no plain method to read
        (NoWrite, UNKNOWN),
    ],
)
def test_the_scan_reads_what_the_write_does(cls, want):
    assert write_semantics(cls) == want


@pytest.mark.parametrize(
    "declared, cls, api, warns",
    [
        (IN_PLACE, Assign, "mindspore.ops.assign", ""),
        (REPLACE, SetData, "mindspore.Parameter.set_data", ""),
        (
            IN_PLACE,
            Rebind,
            "mindspore.ops.assign",
            "documented as in-place but write() looks like replace",
        ),
        (
            REPLACE,
            Assign,
            "mindspore.Parameter.set_data",
            "documented as replace but write() looks like in-place",
        ),
        (IN_PLACE, Unreadable, "mindspore.ops.assign", "cannot be read to check"),
        (None, Rebind, "", "no API declared: write semantics guessed from its source (replace)"),
        (None, Unreadable, "", "cannot be read: taken as in-place"),
    ],
)
def test_a_disagreeing_or_unreadable_source_is_a_warning(declared, cls, api, warns):
    got = semantics_check(declared, cls, api)
    assert (warns in got) if warns else got == ""

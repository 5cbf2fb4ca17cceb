"""Code shapes: what each shape means, the code it renders, its no-update twin
(fake strategy classes: no MindSpore)."""

from __future__ import annotations

import ast

import pytest

from bench.measured import workloads
from bench.measured.oracle import AFTER, BEFORE
from bench.measured.shapes import Shape
from bench.measured.shapes.codegen import IN_PLACE, REPLACE, Emit, write_semantics


class InPlace:
    layout = "vector"

    def write(self, param, value):
        ops.assign(param, value)  # noqa: F821 - source only, never run

    def write_row(self, param, index, row):
        ops.index_add(param, index, row, 2)  # noqa: F821


class SetData:
    def write(self, param, value):
        param.set_data(value)


class Rebind:
    def write(self, param, value):
        self.limit = value


def test_write_semantics_follow_the_code():  # more cases: test_apis.py
    assert write_semantics(InPlace) == IN_PLACE
    assert write_semantics(SetData) == REPLACE
    assert write_semantics(Rebind) == REPLACE


CLIP = workloads.get("clip")


def clip_shape(**values) -> Shape:
    base = {"write": "inline", "read": "param", "order": "after", "new": "expr", "construct": "own"}
    return Shape(tuple({**base, **values}.items()), ("own",))


@pytest.mark.parametrize(
    "read, order, semantics, meaning",
    [
        ("param", "after", IN_PLACE, BEFORE),
        ("alias", "before", IN_PLACE, AFTER),  # the alias is the Parameter: it sees the write
        ("alias", "before", REPLACE, AFTER),
        ("view", "before", IN_PLACE, AFTER),  # a view sees an in-place write
        ("view", "before", REPLACE, BEFORE),  # ... and keeps the old data after a replacement
        ("copy", "before", IN_PLACE, BEFORE),  # a copy is a snapshot
    ],
)
def test_what_a_clip_shape_means_under_eager_semantics(read, order, semantics, meaning):
    assert CLIP.meaning(clip_shape(read=read, order=order), semantics) == meaning


def test_the_answer_holds_where_the_write_follows_the_read():
    assert CLIP.in_scope(clip_shape()) and not CLIP.in_scope(
        clip_shape(read="alias", order="before")
    )
    assert all(
        workloads.get(w).in_scope(s)
        for w in ("brn", "kvcache", "ema")
        for s in workloads.get(w).shapes("vector")
    )


def test_a_copy_read_exists_only_where_it_can_matter():
    names = {s.name for s in CLIP.shapes("scalar")}
    assert "inline-copy-before-expr" in names and "inline-copy-after-expr" not in names


@pytest.mark.parametrize("name", sorted(workloads.WORKLOADS))
def test_every_shape_renders_the_write_where_the_shape_says(name):
    work = workloads.get(name)
    for shape in work.shapes("vector"):
        if shape.values.get("construct") == "base":
            continue
        source = work.construct_source(shape, Emit(InPlace, set(work.reserved)))
        ast.parse("class V:\n" + source)
        placement = shape.values.get("write")
        if placement == "inline":
            assert "self.write" not in source
            assert "ops.assign" in source or "index_add" in source
        if placement == "helper":
            assert "self.write" in source
        if placement == "depend":
            assert "ops.depend(" in source


@pytest.mark.parametrize("name", sorted(workloads.WORKLOADS))
def test_a_twin_keeps_every_written_value_alive_and_writes_nothing(name):
    work = workloads.get(name)
    seen = set()
    for shape in work.shapes("vector"):
        twin = work.twin(shape, "vector")
        if twin.name in seen:
            continue
        seen.add(twin.name)
        text = work.render_twin(twin)
        ast.parse(text)
        assert "ops.assign" not in text and "index_add" not in text and "self.write" not in text
        assert "ops.depend(" in text, (name, twin.name)
        assert "write" not in twin.values and "construct" not in twin.values


def test_the_twin_of_the_ema_computes_every_new_value():
    text = workloads.get("ema").render_twin(Shape((("layout", "weights"),)))
    assert "new = self.decay * ema + self.rest * w" in text and "x = ops.depend(x, new)" in text

"""The shapes page of a workload whose dimensions have no lines of their own shows the code of
every shape (issue 28: the brn, kvcache and ema pages promised it and showed none)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from bench.measured import workloads
from bench.report import shapes_page


@pytest.mark.parametrize("name", ["brn", "kvcache", "ema"])
def test_every_shape_shows_its_construct(name):
    work = workloads.get(name)
    text = "\n".join(shapes_page.shape_code(SimpleNamespace(work=work)))
    for layout in shapes_page.SHOWN:
        for shape in work.shapes(layout):
            block = text.split(f"<summary><code>{shape.name}</code> ({layout},", 1)[1]
            block = block.split("</details>", 1)[0]
            assert "def construct(" in block, (name, shape.name)


def test_the_clip_keeps_its_lines_per_value():
    assert shapes_page.shape_code(SimpleNamespace(work=workloads.get("clip"))) == []

"""Code shapes: one update API written the ways users write it, generated from one strategy file.

MindSpore's graph capture decides by the *code*, not only by the API: the same ``ops.assign`` can
work inline in ``construct`` and be silently dropped when written another way. So a verdict is
about an API *in a shape*. A strategy file says only how one value is written into one Parameter;
each workload declares its shape dimensions and a template that renders ``construct`` for every
combination. ``model`` holds the shape model, ``codegen`` pastes a write into a template and writes
the variant files (``bench.causes.standalone`` writes a finding's reproduction script).
"""

from bench.measured.shapes.model import (
    AS_WRITTEN,
    CONTROL,
    HEADER,
    Dimension,
    Inexpressible,
    Shape,
    Variant,
)

__all__ = ["AS_WRITTEN", "CONTROL", "HEADER", "Dimension", "Inexpressible", "Shape", "Variant"]

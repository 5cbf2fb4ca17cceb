"""What a strategy file subclasses: a workload-neutral cell that knows how to write one value.

A strategy answers one question, "how do I write this value into this Parameter?", in
``write(self, param, value)`` (and, for row writes into a cache, ``write_row(self, param, index,
row)``). The workload supplies the state and ``construct``: the harness mixes the strategy's class
with the workload's state class (``class Variant(ClipState, Cell)``) and pastes or calls the write
in every code shape. ``after_step`` is host-side work after each call, outside any graph.
"""

from __future__ import annotations

from mindspore import nn

# layout -> shape of a workload's small Parameters (the clip's limit, BRN's r_max, d_max, step):
# 0-d, or a 1-element vector for index-based writes. It also picks the no-update twin's layout.
LAYOUTS = {"scalar": (), "vector": (1,)}


class Strategy(nn.Cell):
    """Base class of every strategy's ``Cell``; writes nothing by itself."""

    layout = "scalar"  # "vector": the state's small Parameters are 1-element vectors (index ops)

    def write(self, param, value):
        """Write ``value`` into the Parameter ``param``. The base class does not."""

    def after_step(self, out, inputs):
        """Host-side work after each call, outside the graph. Returns the step's output."""
        return out


__all__ = ["LAYOUTS", "Strategy"]

"""No update, vector layout: the control that vector-layout strategies are compared with."""

from bench.cell import VectorControl

DESCRIPTION = "no update (vector Parameter): the forward alone"
CONTROL = True
Cell = VectorControl

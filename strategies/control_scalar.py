"""No update, scalar layout: the control that scalar-layout strategies are compared with."""

from bench.cell import ScalarControl

DESCRIPTION = "no update (scalar Parameter): the forward alone"
CONTROL = True
Cell = ScalarControl

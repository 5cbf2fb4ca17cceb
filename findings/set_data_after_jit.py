"""A host-side ``Parameter.set_data`` after a function is compiled, per mode.

A cell clips a ramp with its Parameter ``limit`` (and, in the second cell, also adds 1 to it with
``ops.assign`` each call). After three calls the host writes the Parameter, once with
``set_data`` and once with an eager ``ops.assign``, and calls the cell three more times. Under
``jit(capture_mode="ast")`` the compiled function keeps reading and writing the Parameter's old
storage after ``set_data``: the read-only cell keeps clipping at the old value, the writing cell's
writes no longer reach the Parameter. An eager ``ops.assign`` (in place) is seen in every mode.
This is why the timing harness gives a twin its subject's state with ``ops.assign``, and why a
host-side update written with ``set_data`` (strategies/host.py) is wrong under jit(ast).

    python findings/set_data_after_jit.py > findings/set_data_after_jit.txt
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

CELLS = """import numpy as np
from mindspore import nn, ops, Parameter, Tensor


class Reads(nn.Cell):
    def __init__(self):
        super().__init__()
        self.limit = Parameter(Tensor(np.full((), 1.0, np.float32)), name="limit")

    def construct(self, x):
        return ops.clip_by_value(x, -self.limit, self.limit)


class Writes(Reads):
    def construct(self, x):
        out = ops.clip_by_value(x, -self.limit, self.limit)
        ops.assign(self.limit, self.limit + 1)
        return out
"""


def one(mode: str, folder: str) -> None:
    import mindspore as ms
    import numpy as np
    from mindspore import Tensor

    sys.path.insert(0, folder)
    import cells

    ms.set_device("CPU")
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    x = Tensor(np.linspace(-50, 50, 101).astype(np.float32))
    for name in ("Reads", "Writes"):
        for how in ("set_data", "ops.assign"):
            cell = getattr(cells, name)()
            if mode.startswith("jit"):
                cell.construct = ms.jit(cell.construct, capture_mode=mode[4:])
            before = [float(cell(x).asnumpy().max()) for _ in range(3)]
            value = Tensor(np.full((), 10.0, np.float32))
            if how == "set_data":
                cell.limit.set_data(value)
            else:
                ms.ops.assign(cell.limit, value)
            after = []
            for _ in range(3):
                out = float(cell(x).asnumpy().max())
                after.append(f"{out:g}/{float(cell.limit.asnumpy()):g}")
            print(
                f"{mode:13s} {name:6s} host {how:10s} bounds before {before}; after the host "
                f"wrote 10, bound/Parameter per call: {', '.join(after)}",
                flush=True,
            )


if __name__ == "__main__":
    if len(sys.argv) > 2:
        one(sys.argv[1], sys.argv[2])
    else:
        import mindspore

        folder = tempfile.mkdtemp()
        Path(folder, "cells.py").write_text(CELLS)
        print(f"MindSpore {mindspore.__version__}, CPU")
        for mode in ("graph", "pynative", "jit_ast", "jit_bytecode"):
            subprocess.run([sys.executable, __file__, mode, folder], check=False,
                           stderr=subprocess.DEVNULL)  # fmt: skip

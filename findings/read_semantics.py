"""What a read taken before a write sees, per mode: the facts the suite's oracle rests on.

A cell reads its Parameter ``limit`` (1.0) in one of several ways, writes ``limit + 1`` with one
of three APIs, then clips a ramp with what it read; the clip bound shows which value the read saw
(1.0: the old one, 2.0: the new one). Eager semantics (NumPy, PyTorch) say: an alias is the
Parameter (sees any write), a ``reshape`` is a view (sees an in-place write; after ``set_data``,
which gives the Parameter new data, it keeps the old), a ``copy()`` or ``+ 0`` is a snapshot.

    python findings/read_semantics.py > findings/read_semantics.txt

Needs MindSpore and NumPy only. Every cell is generated as a file (graph capture needs source).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path

READS = {
    "alias": "self.limit",
    "view": "self.limit.reshape(())",
    "copy": "self.limit.copy()",
    "plus0": "self.limit + 0",
    "identity": "ops.identity(self.limit)",
}
WRITES = {
    "ops.assign": "ops.assign(self.limit, self.limit + 1)",
    "copy_": "self.limit.copy_(self.limit + 1)",
    "set_data": "self.limit.set_data(self.limit + 1)",
}
MODES = ("pynative", "graph", "jit_ast", "jit_bytecode")
CELL = """import numpy as np
from mindspore import nn, ops, Parameter, Tensor


class C(nn.Cell):
    def __init__(self):
        super().__init__()
        self.limit = Parameter(Tensor(np.full((1,), 1.0, np.float32)), name="limit",
                               requires_grad=False)

    def construct(self, x):
        lim = {read}
        {write}
        return ops.clip_by_value(x, -lim, lim)
"""


def one_mode(mode: str) -> None:
    import mindspore as ms
    import numpy as np

    ms.set_device("CPU")
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    x = ms.Tensor(np.linspace(-5, 5, 11).astype(np.float32))
    folder = Path(tempfile.mkdtemp())
    for read_name, read in READS.items():
        for write_name, write in WRITES.items():
            path = folder / f"c_{read_name}_{write_name.replace('.', '_')}.py"
            path.write_text(CELL.format(read=read, write=write))
            spec = importlib.util.spec_from_file_location(path.stem, path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[path.stem] = module
            spec.loader.exec_module(module)
            cell = module.C()
            if mode.startswith("jit"):
                cell.construct = ms.jit(cell.construct, capture_mode=mode[4:])
            try:
                bound = float(cell(x).asnumpy().max())
                seen = {1.0: "old", 2.0: "new"}.get(bound, f"{bound:g}")
                state = float(cell.limit.asnumpy()[0])
                text = f"read saw the {seen} value; limit = {state:g}"
            except Exception as exc:  # the error is the observation
                text = f"{type(exc).__name__}: {str(exc).splitlines()[0][:70]}"
            print(f"{mode:13s} {read_name:9s} {write_name:11s} {text}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        one_mode(sys.argv[1])
    else:  # one process per mode: MindSpore's context is process-global
        import mindspore

        print(
            f"MindSpore {mindspore.__version__}, CPU; a (1,) Parameter at 1.0, the write stores 2.0"
        )
        for mode in MODES:
            subprocess.run([sys.executable, __file__, mode], check=False,
                           stderr=subprocess.DEVNULL)  # fmt: skip

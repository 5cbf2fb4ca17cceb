EXPECTED = 'write dropped in a network of two layers'  # exits 0 iff it shows this
import numpy as np, mindspore as ms
from mindspore import ops
exec("""class State(ms.nn.Cell):
    def __init__(self): super().__init__(); self.limit = ms.Parameter(ms.Tensor(np.ones((1,), np.float32)), name="limit")
    def read(self): return self.limit * 1
class Two(ms.nn.CellList):  # a network of two layers, each called on the same input
    def construct(self, x): return self[0](x), self[1](x)""", STATE := {"__name__": "state", "np": np, "ms": ms})  # a module of its own, as a library's classes are
class Net(STATE["State"]):  # jit(capture_mode="bytecode"): `write=inline` (works with `write=depend`) — write dropped in a network of two layers only
    def construct(self, x):
        ops.inplace_index_add(self.limit, ops.arange(self.limit.shape[0], dtype=ms.int32), self.limit + x - self.limit, 0)
        return self.read()
def judge():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for n in (1, 2):  # one cell, then two as the layers of one network
        cells = [Net() for _ in range(n)]; net = STATE["Two"](cells) if n > 1 else cells[0]
        net.construct = ms.jit(net.construct, capture_mode="bytecode")
        for call in range(1, 4):
            olds = [c.limit.asnumpy().copy() for c in cells]; net(ms.Tensor(np.full((1,), call, np.float32)))
            bad = [(c.limit.asnumpy(), o) for c, o in zip(cells, olds) if not np.allclose(c.limit.asnumpy(), o + call)]  # the code means limit + call
            if bad: return f"{('wrong value', 'write dropped')[bool(np.allclose(*bad[0]))]}{' in a network of two layers' * (n > 1)} at call {call}"
got = judge() or "works"  # an error ends it with exit 1: not this outcome
print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)
raise SystemExit(0 if got.startswith(EXPECTED) else 1)

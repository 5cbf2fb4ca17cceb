EXPECTED = 'stale read at call 1'  # exits 0 iff it shows this
import numpy as np
import mindspore as ms
from mindspore import nn, ops
class Net(nn.Cell):  # GRAPH_MODE, jit(capture_mode="ast"), jit(capture_mode="bytecode"): `ops.index_add`, `ops.inplace_index_add`, `ops.scatter_nd_update` — stale read at the first call only
    def __init__(self):
        super().__init__()
        self.limit = ms.Parameter(ms.Tensor(np.ones((1,), np.float32)), name="limit")
    def construct(self, x):
        lim = self.limit.reshape(())
        lim = ops.depend(lim, ops.index_add(self.limit, ops.arange(self.limit.shape[0], dtype=ms.int32), self.limit + x - self.limit, 0))
        return lim * 1
def judge():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    for call in range(1, 4):
        old, out = net.limit.asnumpy().copy(), net(ms.Tensor(np.full((1,), call, np.float32))).asnumpy()  # in this order
        for got, want, kind in ((net.limit.asnumpy(), old + call, ('wrong value', 'write dropped')), (out, old + call, ('wrong output', 'stale read'))):
            if not np.allclose(got, want):  # limit + call, and the output the new limit
                return f'{kind[bool(np.allclose(got, old))]} at call {call}'
try:
    got = judge() or "works"
except Exception as exc:  # an error is an outcome: its words, rules of dashes out
    got = " ".join(w for w in f"raises: {type(exc).__name__}: {exc}".split() if w.strip("-"))
print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)
raise SystemExit(0 if got.startswith(EXPECTED) else 1)

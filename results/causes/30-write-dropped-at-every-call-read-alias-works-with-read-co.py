EXPECTED = 'write dropped at call 1'  # exits 0 iff it shows this
import numpy as np
import mindspore as ms
from mindspore import nn, ops
class Net(nn.Cell):  # jit(capture_mode="bytecode"): `read=alias` (works with `read=copy`) — write dropped at every call
    def __init__(self):
        super().__init__()
        self.limit = ms.Parameter(ms.Tensor(np.ones((1,), np.float32)), name="limit")
    def write(self, param, new):
        self.limit = new
    def construct(self, x):
        lim = self.limit
        self.write(self.limit, self.limit + x)
        return lim * 1
def judge():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    net.construct = ms.jit(net.construct, capture_mode="bytecode")
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

EXPECTED = 'write dropped at call 1'  # exits 0 iff it shows this
import numpy as np, mindspore as ms
from mindspore import nn, ops
class Net(nn.Cell):  # jit(capture_mode="ast"): `Tensor.copy_` — write dropped at every call
    def __init__(self):
        super().__init__()
        self.limit = ms.Parameter(ms.Tensor(np.ones((1,), np.float32)), name="limit")
        self.other = ms.Parameter(ms.Tensor(np.ones((1,), np.float32)), name="other")
    def write(self, param, new):
        param.copy_(new)
    def construct(self, x):
        self.write(self.limit, self.limit + x)
        self.write(self.other, self.other + x)
        return self.limit * 1
def judge():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    net.construct = ms.jit(net.construct, capture_mode="ast")
    for call in range(1, 4):
        old = net.limit.asnumpy().copy()
        out = net(ms.Tensor(np.full((1,), call, np.float32))).asnumpy()
        for got, kind in ((net.limit.asnumpy(), ('wrong value', 'write dropped')), (out, ('wrong output', 'stale read'))):
            if not np.allclose(got, old + call):  # the code means limit + call
                return f'{kind[bool(np.allclose(got, old))]} at call {call}'
try:
    got = judge() or "works"
except Exception as exc:  # an error is an outcome: its words, rules of dashes out
    got = " ".join(w for w in f"raises: {type(exc).__name__}: {exc}".split() if w.strip("-"))
print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)
raise SystemExit(0 if got.startswith(EXPECTED) else 1)

EXPECTED = "raises: AttributeError: 'Tensor' object has no attribute 'set_data'"  # exits 0 iff it shows this
import numpy as np
import mindspore as ms
from mindspore import nn, ops
class Net(nn.Cell):  # jit(capture_mode="bytecode"): `Parameter.set_data` — raises: AttributeError: 'Tensor' object has no attribute 'set_data'
    def __init__(self):
        super().__init__()
        self.limit = ms.Parameter(ms.Tensor(np.ones((1,), np.float32)), name="limit")
    def construct(self, x):
        x = ops.depend(x, self.limit.set_data(self.limit + x))
        return self.limit * 1 + x * 0
def judge():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    net.construct = ms.jit(net.construct, capture_mode="bytecode")
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

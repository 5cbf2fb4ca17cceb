EXPECTED = 'follows the old values after a reload at call 5'  # exits 0 iff it shows this
import numpy as np
import mindspore as ms
from mindspore import nn, ops
class Net(nn.Cell):  # jit(capture_mode="ast"): `ops.assign` — follows the old values after a reload from call 5 on
    def __init__(self):
        super().__init__()
        self.limit, self.w = ms.Parameter(ms.Tensor(np.zeros((1,), np.float32)), name="limit"), ms.Parameter(ms.Tensor(np.ones((1,), np.float32)), name="w")  # limit: an EMA of the weight w
    def construct(self, x):
        x = ops.depend(x, ops.assign(self.limit, self.limit * 0.9 + self.w * 0.1))
        return self.limit * 1 + x * 0
def judge():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    net.construct = ms.jit(net.construct, capture_mode="ast")
    for call in range(1, 6):
        if call == 5:  ms.load_param_into_net(net, {"w": ms.Parameter(10 * ms.Tensor(np.ones((1,), np.float32)), name="w")})  # another w, as a loop resumes
        old, w, out = net.limit.asnumpy().copy(), net.w.asnumpy().copy(), net(ms.Tensor(np.full((1,), call, np.float32))).asnumpy()  # in this order
        for got, kind in ((net.limit.asnumpy(), ('wrong value', 'write dropped')), (out, ('wrong output', 'stale read'))):
            if not np.allclose(got, old * 0.9 + w * 0.1):  # the EMA of w now, else:
                return f"{'follows the old values after a reload' if np.allclose(got, old * 0.9 + 0.1) else kind[bool(np.allclose(got, old))]} at call {call}"  # the old w's (1)?
try:
    got = judge() or "works"
except Exception as exc:  # an error is an outcome: its words, rules of dashes out
    got = " ".join(w for w in f"raises: {type(exc).__name__}: {exc}".split() if w.strip("-"))
print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)
raise SystemExit(0 if got.startswith(EXPECTED) else 1)

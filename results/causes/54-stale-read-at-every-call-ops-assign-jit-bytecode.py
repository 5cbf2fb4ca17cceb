EXPECTED = 'stale read at call 1'  # exits 0 iff it shows this
import numpy as np, mindspore as ms
from mindspore import nn, ops
exec("""class State(ms.nn.Cell):
    def __init__(self): super().__init__(); self.limit = ms.Parameter(ms.Tensor(np.ones((), np.float32)), name="limit")
    def next_limit(self, x): return self.limit + x""", STATE := {"__name__": "state", "np": np, "ms": ms})  # a module of its own, as a library's classes are
class Net(STATE["State"]):  # jit(capture_mode="bytecode"): `ops.assign` — stale read at every call
    def construct(self, x):
        lim = self.limit
        lim = ops.depend(lim, ops.assign(self.limit, self.next_limit(x)))
        return ops.clip_by_value(x * 1000, -lim, lim)
def judge():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    net.construct = ms.jit(net.construct, capture_mode="bytecode")
    for call in range(1, 4):
        old, out = net.limit.asnumpy().copy(), net(ms.Tensor(np.full((), call, np.float32))).asnumpy()  # in this order
        for got, want, kind in ((net.limit.asnumpy(), old + call, ('wrong value', 'write dropped')), (out, old + call, ('wrong output', 'stale read'))):
            if not np.allclose(got, want):  # limit + call, and the output the new limit
                return f'{kind[bool(np.allclose(got, old))]} at call {call}'
try:
    got = judge() or "works"
except Exception as exc:  # an error is an outcome: its words, rules of dashes out
    got = " ".join(w for w in f"raises: {type(exc).__name__}: {exc}".split() if w.strip("-"))
print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)
raise SystemExit(0 if got.startswith(EXPECTED) else 1)

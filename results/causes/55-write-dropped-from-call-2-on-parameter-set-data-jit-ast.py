EXPECTED = 'write dropped at call 2'  # exits 0 iff it shows this
import numpy as np, mindspore as ms
from mindspore import ops
class Net(ms.nn.Cell):  # jit(capture_mode="ast"): `Parameter.set_data` — write dropped from call 2 on
    def __init__(self):  # the clip's state, by the clip's names
        super().__init__()
        self.limit = ms.Parameter(ms.Tensor(np.ones((), np.float32)), name="limit")
    def next_limit(self, x): return self.limit + 1  # as the clip's: not of x's values
    def construct(self, x):
        return (ops.clip_by_value(x, -self.limit, self.limit), self.next_limit(x))
    def after_step(self, result, x):
        out, new = result
        self.limit.set_data(new)
        return out
def judge():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    net.construct = ms.jit(net.construct, capture_mode="ast")
    for call in range(1, 4):
        old = net.limit.asnumpy().copy()
        out = net(x := ms.Tensor(np.full((), call, np.float32))); net.after_step(out, x)  # as the harness calls it
        if not np.allclose(got := net.limit.asnumpy(), old + 1):  # the code means limit + 1
            return f"{('wrong value', 'write dropped')[bool(np.allclose(got, old))]} at call {call}"
got = judge() or "works"  # an error ends it with exit 1: not this outcome
print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)
raise SystemExit(0 if got.startswith(EXPECTED) else 1)

EXPECTED = 'write dropped at call 1'  # exits 0 iff it shows this
import numpy as np, mindspore as ms
class Net(ms.nn.Cell):  # PYNATIVE_MODE, jit(capture_mode="bytecode"), PYNATIVE_MODE + launch_blocking(): `Tensor.mul_` — write dropped at every call
    def __init__(self):  # a weight w and its EMA, by the EMA workload's names
        super().__init__()
        self.weights, self.emas = ms.ParameterTuple([ms.Parameter(ms.Tensor(np.ones((1,), np.float32)), name="w")]), ms.ParameterTuple([ms.Parameter(0 * ms.Tensor(np.ones((1,), np.float32)), name="ema")])
        self.decay, self.rest = ms.Tensor(0.9, ms.float32), ms.Tensor(0.1, ms.float32)
    def construct(self, x):
        for ema, w in zip(self.emas, self.weights):
            ema.mul_(self.decay)
            ema.add_(self.rest * w)
        return x
def judge():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    net.construct = ms.jit(net.construct, capture_mode="bytecode")
    for call in range(1, 4):
        old, w = net.emas[0].asnumpy().copy(), net.weights[0].asnumpy().copy()
        out = net(x := ms.Tensor(np.full((1,), call, np.float32)))
        if not np.allclose(got := net.emas[0].asnumpy(), old * 0.9 + w * 0.1):  # the EMA of w now
            return f"{'follows the old values after a reload' if np.allclose(got, old * 0.9 + 0.1) else ('wrong value', 'write dropped')[bool(np.allclose(got, old))]} at call {call}"
got = judge() or "works"  # an error ends it with exit 1: not this outcome
print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)
raise SystemExit(0 if got.startswith(EXPECTED) else 1)

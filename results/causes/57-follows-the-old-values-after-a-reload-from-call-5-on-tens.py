EXPECTED = 'follows the old values after a reload at call 5'  # exits 0 iff it shows this
import numpy as np, mindspore as ms
class Net(ms.nn.Cell):  # jit(capture_mode="ast"): `Tensor.mul_` — follows the old values after a reload from call 5 on
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
    net.construct = ms.jit(net.construct, capture_mode="ast")
    for call in range(1, 6):
        if call == 5:  ms.load_param_into_net(net, {"w": ms.Parameter(10 * ms.Tensor(np.ones((1,), np.float32)), name="w")})  # another w, as a loop resumes
        old, w = net.emas[0].asnumpy().copy(), net.weights[0].asnumpy().copy()
        out = net(x := ms.Tensor(np.full((1,), call, np.float32)))
        if not np.allclose(got := net.emas[0].asnumpy(), old * 0.9 + w * 0.1):  # the EMA of w now
            return f"{'follows the old values after a reload' if np.allclose(got, old * 0.9 + 0.1) else ('wrong value', 'write dropped')[bool(np.allclose(got, old))]} at call {call}"
got = judge() or "works"  # an error ends it with exit 1: not this outcome
print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)
raise SystemExit(0 if got.startswith(EXPECTED) else 1)

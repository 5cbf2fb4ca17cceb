EXPECTED = 'follows the old values after a reload in a network of two layers'  # exits 0 iff it shows this
import numpy as np, mindspore as ms
from mindspore import ops
exec("""class State(ms.nn.Cell):  # a layer, its weights and their EMAs
    def __init__(self):
        super().__init__(); self.net = ms.nn.Dense(1, 1, ms.Tensor(np.ones((1, 1), np.float32)), ms.Tensor(np.ones((1,), np.float32)))
        self.weights = ms.ParameterTuple(list(self.net.trainable_params()))
        self.emas = ms.ParameterTuple([ms.Parameter(0 * w, name=f'ema{i}') for i, w in enumerate(self.weights)])
class Two(ms.nn.CellList):  # a network of two layers, each called on the same input
    def construct(self, x): return self[0](x), self[1](x)""", STATE := {"__name__": "state", "np": np, "ms": ms})  # a module of its own, as a library's classes are
class Net(STATE["State"]):  # jit(capture_mode="bytecode"): `ops.Assign`, `ops.ScatterUpdate`, `ops.assign_add`, `ops.index_add` — follows the old values after a reload in a network of two layers only
    def write(self, param, new): ops.assign_add(param, new - param)
    def construct(self, x):
        for e, w in zip(self.emas, self.weights):
            self.write(e, e * 0.9 + w * 0.1)
        return x
def judge():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    for n in (1, 2):  # one cell, then two as the layers of one network
        cells = [Net() for _ in range(n)]; net = STATE["Two"](cells) if n > 1 else cells[0]
        net.construct = ms.jit(net.construct, capture_mode="bytecode")
        for call in range(1, 6):  # before call 4, other weights loaded by their names
            if call == 4: [ms.load_param_into_net(c.net, {p.name: ms.Parameter(10 * p, name=p.name) for p in c.weights}) for c in cells]
            olds = [(c.emas[0].asnumpy().copy(), c.weights[0].asnumpy().copy()) for c in cells]; net(ms.Tensor(np.zeros((1,), np.float32)))
            bad = [(c.emas[0].asnumpy(), o, w) for c, (o, w) in zip(cells, olds) if not np.allclose(c.emas[0].asnumpy(), o * 0.9 + w * 0.1)]  # the EMA of w now
            if bad: return f"{'follows the old values after a reload' if np.allclose(bad[0][0], bad[0][1] * 0.9 + bad[0][2] * 0.01) else ('wrong value', 'write dropped')[bool(np.allclose(*bad[0][:2]))]}{' in a network of two layers' * (n > 1)} at call {call}"
got = judge() or "works"  # an error ends it with exit 1: not this outcome
print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)
raise SystemExit(0 if got.startswith(EXPECTED) else 1)

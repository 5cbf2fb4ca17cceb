EXPECTED = 'crashed'  # exits 0 iff it shows this
import os, subprocess, sys
import numpy as np
import mindspore as ms
from mindspore import nn, ops
class Net(nn.Cell):  # jit(capture_mode="bytecode"): `Tensor.__setitem__`, `ops.assign` — crashed
    def __init__(self):
        super().__init__()
        self.limit = ms.Parameter(ms.Tensor(np.ones((1,), np.float32)), name="limit")
    def write(self, param, new):
        ops.assign(param, new)
    def construct(self, x):
        self.write(self.limit, self.limit + x)
        return self.limit * 1
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
# a crash kills the process: the program runs itself in a child and sees it die
child = subprocess.run([sys.executable, __file__], env={**os.environ, "CHILD": "1"}) if "CHILD" not in os.environ else None
got = (judge() or "works") if child is None else ('crashed' if child.returncode < 0 else f"exit {child.returncode}")
print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)
raise SystemExit(0 if got.startswith(EXPECTED) else 1)

EXPECTED = 'timeout'  # exits 0 iff it shows this
import os, subprocess, sys
import numpy as np, mindspore as ms
from mindspore import nn
class Net(nn.Cell):  # jit(capture_mode="bytecode"): `Tensor.__setitem__` — timeout
    def __init__(self):  # the KV cache: four rows on axis 2
        super().__init__()
        self.cache = ms.Parameter(ms.Tensor(np.zeros((1, 1, 4, 1), np.float32)), name="cache")
    def write_row(self, param, index, row):
        param[:, :, index] = row
    def construct(self, row, t):
        self.write_row(self.cache, t, row)
        return self.cache * 1
def judge():
    ms.set_context(mode=ms.PYNATIVE_MODE)
    net = Net()
    net.construct = ms.jit(net.construct, capture_mode="bytecode")
    for call in range(1, 4):  # the row at call - 1
        net(ms.Tensor(np.full((1, 1, 1, 1), call, np.float32)), ms.Tensor(np.asarray([call - 1], np.int32)))
# a hang never ends: the program runs itself in a child and gives it 60 s
if "CHILD" in os.environ: raise SystemExit(judge())
try:
    child = subprocess.run([sys.executable, __file__], env={**os.environ, "CHILD": "1"}, timeout=60)
    got = "works" if child.returncode == 0 else f"exit {child.returncode}"
except subprocess.TimeoutExpired:
    got = 'timeout'
print(("REPRODUCED: " if got.startswith(EXPECTED) else "NOT REPRODUCED: ") + got)
raise SystemExit(0 if got.startswith(EXPECTED) else 1)

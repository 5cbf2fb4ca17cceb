"""Host-side EMA: the host keeps NumPy copies, updates them and copies each EMA in with set_data."""

from mindspore import Tensor

from bench.measured.workloads.ema.spec import DECAY
from bench.strategy import Strategy

DESCRIPTION = "NumPy EMA on the host after each step, then ema.set_data(...) for every weight"
API = "mindspore.Parameter.set_data"  # the documented MindSpore API the write uses
WORKLOADS = ("ema",)  # overrides construct and after_step


class Cell(Strategy):
    def construct(self, x):
        return x

    def after_step(self, out, x):
        if getattr(self, "host", None) is None:  # the host's copies, read once
            self.host = [(w.asnumpy(), e.asnumpy()) for w, e in zip(self.weights, self.emas)]
        for (weight, ema), param in zip(self.host, self.emas):
            ema[...] = DECAY * ema + (1 - DECAY) * weight  # the host's copy moves on
            param.set_data(Tensor(ema))
        return out

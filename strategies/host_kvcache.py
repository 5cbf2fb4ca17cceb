"""Host-side KV cache: the step uses the new row directly; the host keeps the cache, sets it."""

from mindspore import Tensor, ops

from bench.strategy import Strategy

DESCRIPTION = (
    "construct adds the new row to the cached one; the host writes a NumPy mirror, then set_data"
)
API = "mindspore.Parameter.set_data"  # the documented MindSpore API the write uses
WORKLOADS = ("kvcache",)  # overrides construct and after_step


class Cell(Strategy):
    def construct(self, row, t):
        return row + ops.gather(self.cache, ops.floor_mod(t + self.back, self.length), 2)

    def after_step(self, out, inputs):
        row, t = inputs
        if getattr(self, "mirror", None) is None:
            self.mirror = self.cache.asnumpy()  # the host's copy, read once
        self.mirror[:, :, int(t.asnumpy()[0])] = row.asnumpy()[:, :, 0]
        self.cache.set_data(Tensor(self.mirror))
        return out

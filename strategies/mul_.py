"""The EMA in place, as PyTorch users write it: `ema.mul_(decay)`, `ema.add_((1 - decay) * w)`."""

from bench.strategy import Strategy

DESCRIPTION = "ema.mul_(decay) then ema.add_((1 - decay) * w) for every weight (in place)"
API = "mindspore.Tensor.mul_"  # the documented MindSpore API the write uses
WORKLOADS = ("ema",)  # an EMA's own update, not a value written into a Parameter


class Cell(Strategy):
    def construct(self, x):
        for ema, w in zip(self.emas, self.weights):
            ema.mul_(self.decay)
            ema.add_(self.rest * w)
        return x

"""Under jit(capture_mode="bytecode"), a later instance of a class runs the first one's graph.

A Cell whose construct loops over a ParameterTuple: three instances hold 3 Parameters of 10, 20
and 30 ones, and construct returns the sum of their sums (30, 60, 90). Under
jit(capture_mode="ast") each instance returns its own sum; under bytecode capture every instance
returns 30, the first instance's: the graph captured for the first is reused for the others, with
the first instance's Parameters. What it costs this suite: the EMA's no-update twin (a loop over
its ParameterTuples) timed at a second size ran the first size's graph, so its step stayed flat
over 1000x the state; and a write in such a loop lands in the first instance's Parameters (the
"second instance never writes" finding). Timing under bytecode capture therefore runs every race
in a process of its own, with no warm-up instance (bench/measured/modes.py, race_per_process).

    python findings/bytecode_parameter_tuple.py    # exit 0 when bytecode capture reuses the graph
"""

import sys

import mindspore as ms
import numpy as np
from mindspore import Parameter, ParameterTuple, Tensor, nn

ms.set_device("CPU")


class Net(nn.Cell):
    def __init__(self, n):
        super().__init__()
        ones = [Tensor(np.ones(n, np.float32)) for _ in range(3)]
        self.ps = ParameterTuple(
            [Parameter(t, name=f"p{i}", requires_grad=False) for i, t in enumerate(ones)]
        )

    def construct(self, x):
        for p in self.ps:
            x = x + p.sum()
        return x


def outputs(capture: str) -> list[float]:
    out = []
    for n in (10, 20, 30):
        cell = Net(n)
        cell.construct = ms.jit(cell.construct, capture_mode=capture)
        out.append(float(cell(Tensor(np.zeros(1, np.float32))).asnumpy()[0]))
    return out


if __name__ == "__main__":
    print(f"MindSpore {ms.__version__}; expected (each instance's own Parameters): [30, 60, 90]")
    seen = {capture: outputs(capture) for capture in ("ast", "bytecode")}
    for capture, got in seen.items():
        print(f'jit(capture_mode="{capture}"): {got}')
    reused = seen["bytecode"] == [30.0, 30.0, 30.0] and seen["ast"] == [30.0, 60.0, 90.0]
    print("REPRODUCED: bytecode capture reuses the first instance's graph" if reused else
          "NOT REPRODUCED")  # fmt: skip
    sys.exit(0 if reused else 1)

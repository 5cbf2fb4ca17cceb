"""Training after a checkpoint is loaded mid-run, per mode: does the optimizer still move the
weights the network has?

A dense layer is trained by ``nn.SGD`` through ``nn.TrainOneStepCell`` for three steps; then a
checkpoint of other weights is loaded (``load_param_into_net``), or every weight is set from the
host (``Parameter.set_data``), and two more steps are trained. After each step the script prints
how far the network's weight moved and whether it is what one SGD step from the weights before
it gives (NumPy). Seen on MindSpore 2.10.0, CPU: in GRAPH_MODE the steps after the reload train
the loaded weights; in PYNATIVE_MODE they leave them where the checkpoint put them (moved 0),
the optimizer's updates going elsewhere. This is the training loop of the suite's EMA workload:
the gate judges each EMA step against the weights the network has, so this is not held against
any strategy; it is MindSpore's.

    python findings/reload_while_training.py > findings/reload_while_training.txt
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np

LR, STEPS_BEFORE, STEPS_AFTER = 0.1, 3, 2


def sgd(w, b, x, y):
    """One NumPy SGD step of mean((x w' + b - y) ** 2)."""
    p = x @ w.T + b
    dp = 2 * (p - y) / p.size
    return w - LR * (dp.T @ x), b - LR * dp.sum(0)


def run(mode: str, replace: str) -> str:
    import mindspore as ms
    from mindspore import Parameter, Tensor, nn

    ms.set_device("CPU")
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.default_rng(0)
    w0 = rng.standard_normal((4, 8)).astype(np.float32) / 3
    x = rng.standard_normal((16, 8)).astype(np.float32)
    y = rng.standard_normal((16, 4)).astype(np.float32)
    net = nn.Dense(8, 4, Tensor(w0), Tensor(np.zeros(4, np.float32)))
    train = nn.TrainOneStepCell(
        nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), LR)
    )
    said = []
    for step in range(1, STEPS_BEFORE + STEPS_AFTER + 1):
        if step == STEPS_BEFORE + 1:  # the weights replaced from outside
            new = rng.standard_normal((4, 8)).astype(np.float32)
            if replace == "load_param_into_net":
                checkpoint = {"weight": Parameter(Tensor(new), name="weight")}
                ms.load_param_into_net(net, checkpoint)
            else:
                net.weight.set_data(Tensor(new))
            said.append(f"replaced by {replace}")
        w, b = net.weight.asnumpy().copy(), net.bias.asnumpy().copy()
        train(Tensor(x), Tensor(y))
        got = net.weight.asnumpy()
        want, _ = sgd(w, b, x, y)
        moved = float(np.max(np.abs(got - w)))
        said.append(
            f"step {step}: moved {moved:.3g}, one SGD step: {np.allclose(got, want, 1e-4, 1e-5)}"
        )
    return "; ".join(said)


if __name__ == "__main__":
    if len(sys.argv) == 3:  # one configuration, in a fresh process
        print(run(sys.argv[1], sys.argv[2]))
        sys.exit(0)
    import mindspore as ms

    print(f"MindSpore {ms.__version__}, CPU")
    for mode in ("GRAPH_MODE", "PYNATIVE_MODE"):
        for replace in ("load_param_into_net", "set_data"):
            done = subprocess.run(
                [sys.executable, __file__, mode, replace],
                capture_output=True,
                text=True,
                check=False,
            )
            print(f"{mode:14} {replace:20} {done.stdout.strip() or done.stderr.strip()[-300:]}")

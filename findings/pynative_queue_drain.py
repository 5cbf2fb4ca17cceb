"""Minimal standalone repro (MindSpore 2.10.0, CPU, PYNATIVE_MODE, Linux, 2 vCPUs).

Issue: in the default asynchronous PyNative pipeline on CPU, some ops block the Python thread
until the async queue (frontend_queue) has drained -- ops.assign / ops.assign_add (even into a
Parameter no pending op touches), ops.stop_gradient, Tensor.mean(axis=tuple),
ops.clip_by_value with tensor bounds, Parameter.set_data -- while others (Tensor.copy_,
ops.add, ...) are queued and return at once. On a small machine each such drain costs
milliseconds, because the queue worker threads and the waiting Python thread all busy-wait and
share the CPUs in scheduler time slices (~4 ms here). With mindspore.runtime.launch_blocking()
the same calls cost tens of microseconds and the whole loop runs ~5-10x faster.

Run:  python repro_pynative_cpu_sync_ops.py            (default async pipeline)
      python repro_pynative_cpu_sync_ops.py --blocking (mindspore.runtime.launch_blocking())
"""

import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, ops

ms.set_device("CPU")
ms.set_context(mode=ms.PYNATIVE_MODE)
if "--blocking" in sys.argv:
    ms.runtime.launch_blocking()

x = Tensor(np.random.default_rng(0).standard_normal((64, 3, 32, 32)).astype(np.float32))
small = Tensor(np.ones(3, np.float32))
p = Parameter(Tensor(np.float32(1.0)), name="p", requires_grad=False)
q = Parameter(
    Tensor(np.ones(3, np.float32)), name="q", requires_grad=False
)  # read by nothing pending
calls = {
    "ops.add(small, small)": lambda: ops.add(small, small),
    "q.copy_(small)": lambda: q.copy_(small),
    "ops.assign(q, small)": lambda: ops.assign(q, small),
    "ops.assign_add(q, small)": lambda: ops.assign_add(q, small),
    "ops.stop_gradient(small)": lambda: ops.stop_gradient(small),
    "x.mean(axis=(0, 2, 3))": lambda: x.mean(axis=(0, 2, 3)),
    "ops.clip_by_value(small, -p, p)": lambda: ops.clip_by_value(small, -p, p),
    "q.set_data(small)": lambda: q.set_data(small),
}
for f in calls.values():
    f()
x.asnumpy()
print(
    f"MindSpore {ms.__version__}, launch_blocking={'--blocking' in sys.argv}, cpus={os.cpu_count()}"
)
print("median time for the call to return while a clip of x is pending in the queue (ms):")
for name, f in calls.items():
    t = []
    for _ in range(100):
        pending = ops.clip_by_value(x, -p, p)  # something in flight
        s = time.perf_counter()
        f()
        t.append(time.perf_counter() - s)
        pending.asnumpy()
    print(f"  {name:34s} {np.median(t) * 1e3:8.3f}")
# one full sync costs:
t = []
for _ in range(100):
    s = time.perf_counter()
    ops.add(small, small).asnumpy()
    t.append(time.perf_counter() - s)
print(
    f"one op + asnumpy(): median {np.median(t) * 1e3:.3f} ms, "
    f"p90 {np.percentile(t, 90) * 1e3:.3f} ms"
)

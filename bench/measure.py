"""What a worker process needs around the timer: thread pinning, synchronization, environment."""

from __future__ import annotations

import os
import platform
import resource
import sys

THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pin_threads(n: int) -> dict:
    """Pin every thread pool we know of to ``n`` (call before MindSpore runs any op)."""
    for var in THREAD_ENV:
        os.environ[var] = str(n)
    import mindspore as ms

    ms.set_device("CPU")
    try:  # not every MindSpore release has this API: then only the environment variables apply
        ms.device_context.cpu.op_tuning.threads_num(n)
        op_threads = n
    except AttributeError:
        op_threads = "unavailable in this MindSpore (OMP_NUM_THREADS only)"
    # The runtime's actor/dispatch threads stay at MindSpore's default: pinning them to 1 makes
    # the graph scheduler warn that "the performance may not reach the optimal level".
    return {
        "op_threads": op_threads,
        "dispatch_threads": "mindspore default",
        **{var: os.environ[var] for var in THREAD_ENV},
    }


def sync(out, cell) -> None:
    """Wait until all dispatched work is done (the output, and the last state the step writes).

    ``mindspore.runtime.synchronize()`` only logs an error on the CPU in 2.10, so read the last
    output and the Parameter back instead: ``asnumpy`` waits for PyNative's queue to drain.
    """
    out.asnumpy()
    cell.state_probe().asnumpy()


def peak_rss_bytes() -> int:
    """Peak resident memory of this process so far (ru_maxrss is KiB on Linux, bytes on macOS)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if sys.platform == "darwin" else peak * 1024)


def environment() -> dict:
    """Versions and machine facts recorded with every result."""
    import mindspore as ms
    import numpy as np

    try:
        import pytest_benchmark

        pb = pytest_benchmark.__version__
    except Exception:  # pragma: no cover
        pb = None
    return {
        "python": platform.python_version(),
        "mindspore": ms.__version__,
        "numpy": np.__version__,
        "pytest_benchmark": pb,
        "platform": platform.platform(),
        "machine": platform.machine(),
        "node": platform.node(),
        "cpu_count": os.cpu_count(),
    }

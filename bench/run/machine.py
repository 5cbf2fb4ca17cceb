"""What a worker process needs around the timer: thread pinning, memory, the machine's facts."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sys
import time
from pathlib import Path

try:  # POSIX only: peak memory from getrusage; elsewhere psutil's, or "unknown"
    import resource
except ImportError:  # pragma: no cover - Windows
    resource = None

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


def peak_rss_bytes() -> int | None:
    """Peak resident memory of this process so far (ru_maxrss is KiB on Linux, bytes on macOS;
    Windows: psutil's peak working set); None where nothing gives it (unknown)."""
    if resource is not None:
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return int(peak if sys.platform == "darwin" else peak * 1024)
    try:  # pragma: no cover - Windows
        import psutil

        info = psutil.Process().memory_info()
        peak = getattr(info, "peak_wset", None)
        return int(peak) if peak is not None else None
    except Exception:
        return None


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def environment() -> dict:
    """Versions and machine facts recorded with every result (no package is imported)."""
    return {
        "python": platform.python_version(),
        "mindspore": _version("mindspore"),
        "numpy": _version("numpy"),
        "pytest_benchmark": _version("pytest-benchmark"),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "node": platform.node(),
        "cpu_count": os.cpu_count(),
        "cpu": cpu_model(),
    }


def cpu_model() -> str:
    """The CPU's model name (Linux: /proc/cpuinfo), else the machine type."""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _busy_seconds() -> float | None:
    """CPU-seconds all processes of the machine have run so far (Linux: /proc/stat)."""
    try:
        fields = Path("/proc/stat").read_text(encoding="utf-8").splitlines()[0].split()[1:]
    except (OSError, IndexError):
        return _busy_seconds_psutil()
    ticks = [int(f) for f in fields]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle + iowait
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")  # /proc: POSIX, sysconf there


def _busy_seconds_psutil() -> float | None:
    """The same from psutil where there is no /proc (macOS, Windows), else None."""
    try:
        import psutil

        t = psutil.cpu_times()
    except Exception:
        return None
    return float(sum(t)) - t.idle - getattr(t, "iowait", 0.0)


class LoadMeter:
    """How busy the rest of the machine was while this process measured (in CPUs).

    A neighbour that takes a core changes what a 2-core machine measures, so every timing file
    records it: ``others_cpus`` = (machine CPU time - this process's CPU time) / wall time."""

    def __init__(self):
        self.start = (os.times(), _busy_seconds(), time.monotonic())

    def read(self) -> dict:
        (t0, busy0, wall0), t1, busy1 = self.start, os.times(), _busy_seconds()
        wall = time.monotonic() - wall0  # os.times().elapsed is 0 on Windows
        own = (t1.user + t1.system) - (t0.user + t0.system)
        if busy0 is None or busy1 is None or wall <= 0:
            return {"wall_s": wall, "own_cpus": own / wall if wall > 0 else None}
        return {
            "wall_s": round(wall, 2),
            "own_cpus": round(own / wall, 3),
            "others_cpus": round(max(0.0, (busy1 - busy0) - own) / wall, 3),
        }

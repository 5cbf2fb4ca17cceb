"""This machine's memory bandwidth, measured in each run that needs it (STREAM-style, NumPy).

The physical floor of a big-state update is the bytes it must move divided by the bandwidth. The
bandwidth depends on where the bytes live: a state that fits in the last-level cache moves at
cache speed (this machine's L3 is large), so the copy and triad kernels are timed over arrays of
several sizes, from cache-resident to twice the last-level cache, one thread, best of several
repetitions (STREAM's rule: the best run is the one least disturbed). A floor is then taken at
the measured size nearest above the state's working set. Bytes are counted as STREAM counts them
(copy moves 2 × the array, triad 3 ×; write-allocate traffic not counted).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

MIB = 2**20
REPEATS = 5


def last_level_cache() -> int:
    """Bytes of the largest CPU cache (Linux sysfs), 32 MiB if unknown."""
    best = 0
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    try:
        entries = [e for e in os.listdir(base) if e.startswith("index")]
    except OSError:
        entries = []
    for index in entries:
        try:
            text = (base / index / "size").read_text(encoding="utf-8").strip()
        except OSError:
            continue
        unit = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
        best = max(best, int(text.rstrip("KMG") or 0) * unit)
    return best or 32 * MIB


def _best(kernel) -> float:
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        kernel()
        times.append(time.perf_counter() - start)
    return min(times)


def _kernels(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> dict:
    n = a.nbytes
    copy = _best(lambda: np.copyto(b, a))
    triad = _best(lambda: (np.multiply(b, np.float32(3.0), out=a), np.add(a, c, out=a)))
    # copy moves a and b (2N); triad b*s -> a (2N), then a + c -> a (3N)
    return {"copy_GBs": round(2 * n / copy / 1e9, 2), "triad_GBs": round(5 * n / triad / 1e9, 2)}


def measure(sizes: list[int] | None = None) -> dict:
    """Copy and triad bandwidth (GB/s) for each array size in bytes (default: 1 MiB … 2 × LLC)."""
    llc = last_level_cache()
    sizes = sizes or sorted({MIB, 8 * MIB, 64 * MIB, min(2 * llc, 1024 * MIB)})
    points = []
    for size in sizes:
        n = max(size // 4, 1)
        arrays = [np.full(n, v, np.float32) for v in (1.0, 2.0, 0.5)]
        points.append({"array_bytes": n * 4, **_kernels(*arrays)})
        del arrays
    return {"llc_bytes": llc, "threads": 1, "repeats": REPEATS, "points": points}

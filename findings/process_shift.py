"""Why does one process run a cell slower than another, for its whole life?

Starts fresh processes one after the other; each times the clip's no-update cell in GRAPH_MODE
(N = 64 and 1024, blocks of ~20 ms, median of 30) and records what could explain a difference:
the CPU time the rest of the machine used meanwhile, the CPUs its threads ran on, transparent
huge pages backing its memory, and its RSS. Configurations: MindSpore's defaults; transparent
huge pages disabled for the process (prctl PR_SET_THP_DISABLE); the process pinned to CPU 0.

Run: python findings/process_shift.py [processes per configuration]   (prints a JSON line each)
"""

from __future__ import annotations

import json
import subprocess
import sys

CHILD = r"""
import ctypes, json, os, sys, time
config = sys.argv[1]
if config == "no-thp":
    ctypes.CDLL("libc.so.6").prctl(41, 1, 0, 0, 0)  # PR_SET_THP_DISABLE
if config == "cpu0":
    os.sched_setaffinity(0, {0})
os.environ["OMP_NUM_THREADS"] = "1"
import numpy as np
import mindspore as ms
from bench.run.machine import LoadMeter, pin_threads
from bench.measured import modes, shapes, workloads
from bench.run import pairing
meter = LoadMeter()
pin_threads(1)
modes.get("graph").activate()
work = workloads.get("clip")
path = sys.argv[2]
out = {"config": config}
for n in (64, 1024):
    x = tuple(ms.Tensor(a) for a in work.make_inputs(n, 0))
    st = pairing.Stepper(work, shapes.load_variant(path), modes.get("graph"), x, n)
    st.warm_up(0.2)
    k, _ = pairing.calibrate(st, 0.02)
    times = [st.timed_block(k) / k for _ in range(30)]
    out[f"N{n}_ms"] = float(np.median(times)) * 1e3
    out[f"N{n}_iqr"] = float(np.subtract(*np.percentile(times, [75, 25])) / np.median(times))
cpus = set()
for tid in os.listdir("/proc/self/task"):
    fields = open(f"/proc/self/task/{tid}/stat").read().rsplit(")", 1)[1].split()
    cpus.add(int(fields[36]))
rollup = open("/proc/self/smaps_rollup").read()
huge = [l for l in rollup.splitlines() if l.startswith("AnonHugePages")]
out.update(meter.read())
out["cpus_last_used"] = sorted(cpus)
out["anon_huge_kb"] = int(huge[0].split()[1]) if huge else None
out["rss_mb"] = int([l for l in rollup.splitlines() if l.startswith("Rss")][0].split()[1]) // 1024
print("RESULT " + json.dumps(out))
"""


def main(argv):
    per = int(argv[1]) if len(argv) > 1 else 6
    variant = argv[2] if len(argv) > 2 else None
    if variant is None:
        from bench.measured import workloads
        from bench.measured.shapes import Shape

        work = workloads.get("clip")
        control = work.control_variant(
            Shape((("layout", "scalar"), ("read", "param"))), "/tmp/shift"
        )
        variant = control.path
    for _ in range(per):
        for config in ("default", "no-thp", "cpu0"):  # interleaved: drift hits all alike
            done = subprocess.run([sys.executable, "-c", CHILD, config, variant],
                                  capture_output=True, text=True, check=False)  # fmt: skip
            line = next((ln for ln in done.stdout.splitlines() if ln.startswith("RESULT ")), None)
            print(line[7:] if line else json.dumps({"config": config, "error": done.stderr[-300:]}),
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv)

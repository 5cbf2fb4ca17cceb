"""Where the width of an overhead interval comes from: rounds within a process, or processes.

For every timed update cell at batch size >= 64 of a run, per process: the median of the
per-round ratios (strategy block / paired no-update block) and its standard error (robust:
IQR / 1.349 / sqrt(rounds) x 1.25). Per mode: the median over cells of the between-process
standard deviation of those medians, of the within-process standard error, and of the rounds
per process. When the two are about equal, the processes differ only by sampling noise, and
what narrows the interval is more rounds (a longer cell), not more processes.

Run: python findings/round_scatter.py results/raw/<run-id>      (standard library only)
"""

from __future__ import annotations

import collections
import json
import math
import statistics as st
import sys
from pathlib import Path


def main(run_dir: str) -> None:
    cells = collections.defaultdict(list)
    for path in sorted(Path(run_dir, "timing").glob("*.json")):
        for bench in json.loads(path.read_text())["benchmarks"]:
            info = bench["extra_info"]
            if info.get("role") != "update" or info["batch_size"] < 64:
                continue
            ratios = sorted(a / c for a, c in zip(info["step_s"], info["control_s"]))
            if len(ratios) < 3:
                continue
            iqr = ratios[3 * len(ratios) // 4] - ratios[len(ratios) // 4]
            se = iqr / 1.349 / math.sqrt(len(ratios)) * 1.25
            cells[(info["mode"], bench["name"])].append((st.median(ratios), se, len(ratios)))
    by_mode = collections.defaultdict(list)
    for (mode, _), procs in cells.items():
        if len(procs) >= 2:
            medians = [p[0] for p in procs]
            by_mode[mode].append(
                (st.stdev(medians) / st.mean(medians), st.median(p[1] for p in procs),
                 st.median(p[2] for p in procs))
            )  # fmt: skip
    print(f"run {Path(run_dir).name}: update cells at N >= 64")
    for mode, rows in sorted(by_mode.items()):
        print(
            f"{mode:18s} cells={len(rows):3d}  between-process SD of the median ratio "
            f"{100 * st.median(r[0] for r in rows):4.1f} %  within-process SE "
            f"{100 * st.median(r[1] for r in rows):4.1f} %  rounds per process "
            f"{st.median(r[2] for r in rows):g}"
        )


if __name__ == "__main__":
    main(sys.argv[1])

"""Where the width of an overhead interval comes from: rounds within a process, or processes.

For every timed update cell at batch size >= 64 of a run, per process: the median of the
per-round ratios (strategy block / paired no-update block) and its standard error (robust:
IQR / 1.349 / sqrt(rounds) x 1.25). Per mode: the median over cells of the between-process
standard deviation of those medians, of the within-process standard error, and of the rounds
per process. When the two are about equal, the processes differ only by sampling noise, and
what narrows the interval is more rounds (a longer cell), not more processes.

Then what a +-2 % interval would cost, per mode: a round's ratio scatters by sigma (robust SD of
the per-round ratios around their process's median, relative); a 95 % interval of a median of R
rounds is about +-1.96 x 1.2533 x sigma / sqrt(R), so R = (2.46 sigma / 0.02)^2 rounds a cell.
A round takes k x (strategy step + control step) seconds; a cell also costs a fixed set-up per
process (compile, warm-up, checks: the process's wall time minus its measured blocks, per cell).
Printed: the rounds and seconds a cell got in this run, and the seconds R rounds in 2 processes
would take.

Run: python findings/round_scatter.py results/raw/<run-id>      (standard library only)
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import math
import statistics as st
import sys
from pathlib import Path


def _seconds(stamp: str) -> float:
    return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def main(run_dir: str) -> None:
    cells = collections.defaultdict(list)
    setup = collections.defaultdict(list)  # per mode: set-up seconds per cell, per process
    spent = collections.defaultdict(lambda: collections.defaultdict(float))  # mode: cell: s
    scatter = collections.defaultdict(list)  # per mode: relative deviations of round ratios
    round_s = collections.defaultdict(list)
    for path in sorted(Path(run_dir, "timing").glob("*.json")):
        data = json.loads(path.read_text())
        suite, benches = data["suite"], data["benchmarks"]
        measured = sum(
            (sum(b["extra_info"]["step_s"]) + sum(b["extra_info"]["control_s"]))
            * b["extra_info"]["k"]
            for b in benches
        )
        wall = _seconds(suite["finished"]) - _seconds(suite["started"]) if benches else 0
        if len(benches) >= 10:  # a restarted process's one-cell file says little about set-up
            setup[suite["mode"]].append((wall - measured) / len(benches))
        for bench in benches:
            info = bench["extra_info"]
            if info.get("role") != "update" or info["batch_size"] < 64:
                continue
            ratios = sorted(a / c for a, c in zip(info["step_s"], info["control_s"]))
            if len(ratios) < 3:
                continue
            iqr = ratios[3 * len(ratios) // 4] - ratios[len(ratios) // 4]
            se = iqr / 1.349 / math.sqrt(len(ratios)) * 1.25
            cells[(info["mode"], bench["name"])].append((st.median(ratios), se, len(ratios)))
            mid = st.median(ratios)
            scatter[info["mode"]] += [abs(r / mid - 1) for r in ratios]
            one_round = (st.median(info["step_s"]) + st.median(info["control_s"])) * info["k"]
            round_s[info["mode"]].append(one_round)
            spent[info["mode"]][bench["name"]] += len(ratios) * one_round
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
    print("\nwhat +-2 % would cost (a cell at N >= 64; set-up is paid once per process)")
    for mode in sorted(scatter):
        sigma = st.median(scatter[mode]) * 1.4826  # MAD -> SD
        need = math.ceil((2.46 * sigma / 0.02) ** 2)
        per_round, per_setup = st.median(round_s[mode]), st.median(setup[mode] or [math.nan])
        now = st.median(spent[mode].values())
        print(
            f"{mode:18s} round ratio SD {100 * sigma:4.1f} %  round {1e3 * per_round:5.0f} ms  "
            f"set-up {per_setup:4.2f} s/cell/process  this run: {now:5.1f} s measuring a cell  "
            f"+-2 %: {need:5d} rounds = {need * per_round:6.1f} s measuring "
            f"(+ {2 * per_setup:4.1f} s set-up in 2 processes)"
        )


if __name__ == "__main__":
    main(sys.argv[1])

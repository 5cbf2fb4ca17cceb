"""Where a run's wall time goes (issue 27: what limits the default tier, --quick, and a run of two
strategies), from the run's own records, nothing timed again:

- per phase, the manifest's seconds (generate, gate, prepare, time);
- per mode of the time phase, its timing processes: how many, per stage, and the sum of their
  wall times (each timing file's ``suite.started`` to ``suite.finished``); with the mode's share
  of that sum. Processes of one mode may run two at once where that was measured harmless
  (GRAPH), so a mode's sum can exceed the wall time it took;
- per mode, what that process time was spent on: the first call of every cell a race built
  (graph compilation, or the first dispatch: each ``Timing``'s ``first_call_s`` and its twin's
  ``control_first_call_s``, each cell of a race counted once), the timed rounds (pytest-benchmark's
  total of each race's whole rounds) and the rest (building the cells, warm-up, choosing k, the
  final-state checks, pytest itself); and the part of the time phase spent outside any timing
  process (starting Python, importing MindSpore and pytest, exiting).

    python findings/wall_times.py RUN_DIR [RUN_DIR ...]
"""

from __future__ import annotations

import json
import math
import sys
from collections import defaultdict
from datetime import datetime
from pathlib import Path

from bench.core import paths
from bench.core.schema import RACE_ROUNDS
from bench.measured.modes import label


def _seconds(a: str, b: str) -> float:
    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()


def processes(run: Path) -> dict[str, dict[int, list[float]]]:
    """{mode: {stage: [wall seconds of each timing process]}} from the run's timing files."""
    out: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for f in sorted((run / "timing").glob("*.json")):
        suite = json.loads(f.read_text()).get("suite", {})
        if suite.get("started") and suite.get("finished"):
            wall = _seconds(suite["started"], suite["finished"])
            out[suite["mode"]][int(suite.get("stage", 0))].append(wall)
    return out


def spent(run: Path) -> dict[str, dict[str, float]]:
    """{mode: {"wall", "first calls", "rounds"}} in seconds, summed over the mode's timing files:
    each cell a race built is counted once (a twin is named by its control key, which is also a
    layout member's label; a member by its strategy and shape, the A/A copy apart)."""
    out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for f in sorted((run / "timing").glob("*.json")):
        data = json.loads(f.read_text())
        suite = data.get("suite", {})
        if not (suite.get("started") and suite.get("finished")):
            continue
        mine = out[suite["mode"]]
        mine["wall"] += _seconds(suite["started"], suite["finished"])
        first: dict[tuple, float] = {}
        for bench in data.get("benchmarks", []):
            info = bench.get("extra_info", {})
            if info.get("kind") == RACE_ROUNDS:
                mine["rounds"] += float(bench.get("stats", {}).get("total", 0.0))
                continue
            if "first_call_s" not in info:
                continue
            race, n = info.get("race", ""), info.get("batch_size")
            if info.get("role") == "layout":
                name = f"control/{info['shape']}"
            elif info.get("role") == "aa":
                name = f"aa:{info['shape']}"
            else:
                name = f"{info['strategy']}/{info['shape']}"
            first[(race, n, name)] = info["first_call_s"]
            first.setdefault((race, n, info.get("control")), info.get("control_first_call_s"))
        mine["first calls"] += sum(v for v in first.values() if v is not None and not math.isnan(v))
    return out


def describe(run: Path) -> list[str]:
    manifest = json.loads((run / "manifest.json").read_text())
    phases = manifest.get("phases", {})
    total = sum(phases.values())
    lines = [f"{run.name}: `{manifest.get('command', '')}`", ""]
    lines.append(
        "phases: "
        + ", ".join(f"{k} {v / 60:.1f} min" for k, v in phases.items())
        + f"; total {total / 60:.1f} min"
    )
    found = processes(run)
    whole = sum(sum(w) for stages in found.values() for w in stages.values())
    head = "| mode | processes per stage | process wall, summed | share |"
    lines += ["", head, "|---|---|---|---|"]
    for mode, stages in sorted(found.items(), key=lambda kv: -sum(map(sum, kv[1].values()))):
        per = ", ".join(f"{s}: {len(w)}" for s, w in sorted(stages.items()))
        secs = sum(sum(w) for w in stages.values())
        lines.append(f"| {label(mode)} | {per} | {secs / 60:.1f} min | {secs / whole:.0%} |")
    lines += [
        "",
        "| mode | process wall | first calls (compile, first dispatch) | timed rounds | the rest "
        "(building, warm-up, choosing k, checks) |",
        "|---|---|---|---|---|",
    ]
    parts = spent(run)
    total = defaultdict(float)
    for mode, got in sorted(parts.items(), key=lambda kv: -kv[1]["wall"]):
        rest = got["wall"] - got["first calls"] - got["rounds"]
        for key, value in (*got.items(), ("rest", rest)):
            total[key] += value
        lines.append(
            f"| {label(mode)} | {_share(got['wall'], got['wall'])} | "
            f"{_share(got['first calls'], got['wall'])} | "
            f"{_share(got['rounds'], got['wall'])} | {_share(rest, got['wall'])} |"
        )
    if parts:
        lines.append(
            f"| all modes | {_share(total['wall'], total['wall'])} | "
            f"{_share(total['first calls'], total['wall'])} | "
            f"{_share(total['rounds'], total['wall'])} | "
            f"{_share(total['rest'], total['wall'])} |"
        )
    outside = phases.get("time", 0.0) - whole
    if whole and outside > 0:
        lines += [
            "",
            f"time phase outside any timing process (starting Python, importing MindSpore "
            f"and pytest, exiting): {outside / 60:.1f} min of {phases['time'] / 60:.1f}",
        ]
    elif whole:
        lines += ["", "timing processes overlapped: their walls add up to more than the phase"]
    return [*lines, ""]


def _share(seconds: float, of: float) -> str:
    return f"{seconds / 60:.1f} min" + (f" ({seconds / of:.0%})" if of and seconds != of else "")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    runs = [paths.run_folder(a) or Path(a) for a in args]  # a folder or an archive
    if not runs:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    for run in runs:
        if not (run / "manifest.json").is_file():
            print(f"not a run folder (no manifest.json): {run}", file=sys.stderr)
            return 2
        print("\n".join(describe(run)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

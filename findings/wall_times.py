"""Where a run's wall time goes (issue 27: what limits the default tier, --quick, and a run of two
strategies), from the run's own records, nothing timed again:

- per phase, the manifest's seconds (generate, gate, prepare, time);
- per mode of the time phase, its timing processes: how many, per stage, and the sum of their
  wall times (each timing file's ``suite.started`` to ``suite.finished``); with the mode's share
  of that sum. Processes of one mode may run two at once where that was measured harmless
  (GRAPH), so a mode's sum can exceed the wall time it took.

    python findings/wall_times.py RUN_DIR [RUN_DIR ...]
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from datetime import datetime
from pathlib import Path

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
    return [*lines, ""]


def main(argv: list[str] | None = None) -> int:
    runs = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
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

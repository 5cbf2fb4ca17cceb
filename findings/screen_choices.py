"""Which shape each strategy is timed in, decided again from a run's own screen with this
suite's rule (``bench.run.select.choose``), against the shape the run timed
(``prepare/selection.json``): nothing is timed again.

A run whose every choice is the same was timed as this harness would time it; one that differs
was made under another selection rule (its references must be made again).

    python findings/screen_choices.py RUN_DIR [RUN_DIR ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

from bench.core import verdicts as final_verdicts
from bench.core.records import read_verdicts
from bench.core.rundir import RunDir
from bench.measured import workloads
from bench.run import prepare_phase, select


def differences(run: Path) -> tuple[int, list[tuple[str, str, str, str]]]:
    """(how many choices, [(mode, strategy, timed shape, shape chosen now)] that differ)."""
    manifest = json.loads((run / "manifest.json").read_text())
    ctx = SimpleNamespace(workload=workloads.get(manifest["plan"]["workload"]))
    problems: list[str] = []
    gated = final_verdicts.final(read_verdicts(RunDir(run), problems), [])
    timed = json.loads((run / "prepare" / "selection.json").read_text())["chosen"]
    count, out = 0, []
    for row in timed:
        mode, strategy = row["mode"], row["strategy"]
        prepared = json.loads((run / "prepare" / f"{mode}.json").read_text())
        screen = {
            r["shape"]: r["ratios"]
            for r in prepared.get("screen", [])
            if r["strategy"] == strategy and r.get("ratios")
        }
        shapes = prepare_phase.working(ctx, gated, mode).get(strategy)
        if not shapes:
            continue
        now, _ = select.choose(
            shapes,
            screen,
            lambda v: prepare_phase._simplicity(ctx, v),
            lambda v: prepare_phase._cost_class(ctx, v),
        )
        count += 1
        if now != row["shape"]:
            out.append((mode, strategy, row["shape"], now))
    return count, out


def main(argv: list[str] | None = None) -> int:
    runs = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    if not runs:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    for run in runs:
        if not (run / "prepare" / "selection.json").is_file():
            print(f"not a timed run folder (no prepare/selection.json): {run}", file=sys.stderr)
            return 2
        count, diff = differences(run)
        print(f"{run.name}: {count - len(diff)} of {count} choices the same")
        for mode, strategy, then, now in diff:
            print(f"  {mode} {strategy}: timed {then}, chosen now {now}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

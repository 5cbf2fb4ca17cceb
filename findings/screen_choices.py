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

from bench.core import paths
from bench.core import verdicts as final_verdicts
from bench.core.records import read_verdicts
from bench.core.rundir import RunDir
from bench.measured import workloads
from bench.run import prepare_phase


def differences(run: Path) -> tuple[int, list[tuple[str, str, str, str]]]:
    """(how many choices, [(mode, strategy, timed shape, shape chosen now)] that differ)."""
    manifest = json.loads((run / "manifest.json").read_text())
    ctx = SimpleNamespace(workload=workloads.get(manifest["plan"]["workload"]))
    problems: list[str] = []
    gated = final_verdicts.final(read_verdicts(RunDir(run), problems), [])
    timed = json.loads((run / "prepare" / "selection.json").read_text())["chosen"]
    now: dict[str, dict[str, tuple[str, str]]] = {}  # mode -> prepare_phase.choices
    origins = prepare_phase.screen_origins(run, manifest["plan"]["workload"])
    count, out = 0, []
    for row in timed:
        mode, strategy = row["mode"], row["strategy"]
        if mode not in now:
            screened = run / "prepare" / f"{mode}.json"  # none: nothing screened in the mode
            prepared = json.loads(screened.read_text()) if screened.is_file() else {}
            reused = prepare_phase.reused_screens(ctx, gated, mode, origins)  # a reused screen
            now[mode] = prepare_phase.choices(ctx, gated, mode, prepared, reused)
        if strategy not in now[mode]:
            continue
        count += 1
        shape = now[mode][strategy][0]
        if shape != row["shape"]:
            out.append((mode, strategy, row["shape"], shape))
    return count, out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    runs = [paths.run_folder(a) or Path(a) for a in args]  # a folder or an archive
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

"""How precise is each run, and how well do runs of the same cells agree?

For every run folder given (``<results>/raw/<run-id>``, its report already rendered): wall time
per phase, and per mode, over the working update cells at N >= 64, the median 95 % half-width of
the overhead ratio and how many cells are within +-2 %; then for every two runs, over the cells
both timed (same strategy, shape, mode, N), the median |ratio_B / ratio_A - 1| and how many
cells agree within 2 % and 3 %. ``nox -s compare A B`` gives the same per cell, with intervals.

Run: python findings/run_agreement.py RUN_DIR [RUN_DIR ...]       (needs pandas)
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import pandas as pd


def load(run: Path) -> tuple[dict, pd.DataFrame]:
    manifest = json.loads((run / "manifest.json").read_text())
    csv = run / "report" / "results.csv"
    if not csv.is_file():  # a published run: its report is the reference's
        csv = Path("results") / "results.csv"
    df = pd.read_csv(csv)
    df = df[df.run_id == run.name] if "run_id" in df else df
    keep = (df.role == "update") & (df.status == "works") & (df.batch_size >= 64)
    return manifest, df[keep & ~df.control_invalid.astype(bool)]


def main(paths: list[str]) -> None:
    runs = {Path(p).name: load(Path(p)) for p in paths}
    for name, (manifest, df) in runs.items():
        phases = manifest.get("phases", {})
        plan = manifest.get("plan", {})
        print(
            f"{name}: {sum(phases.values()) / 60:.1f} min ("
            + ", ".join(f"{k} {v / 60:.1f}" for k, v in phases.items())
            + f"), --jobs {plan.get('time_jobs')}, cell_seconds {plan['precision']['cell_seconds']}"
        )
        for mode, g in df.groupby("mode"):
            print(
                f"    {mode:18s} cells {len(g):3d}"
                f"  median half-width {100 * g.halfwidth.median():4.1f} %"
                f"  within 2 %: {(g.halfwidth <= 0.02).sum():2d}/{len(g)}"
                f"  processes {g.processes.mean():.1f}  rounds a cell {g.rounds.median():.0f}"
            )
    for a, b in itertools.combinations(runs, 2):
        both = runs[a][1].merge(
            runs[b][1], on=["strategy", "shape", "mode", "batch_size"], suffixes=("_a", "_b")
        )
        both["dev"] = (both.ratio_b / both.ratio_a - 1).abs()
        print(f"{a} -> {b}: {len(both)} cells in both")
        for mode, g in [("all", both), *both.groupby("mode")]:
            print(
                f"    {mode:18s} median |B/A - 1| {100 * g.dev.median():4.2f} %"
                f"  within 2 %: {(g.dev <= 0.02).sum():2d}/{len(g)}"
                f"  within 3 %: {(g.dev <= 0.03).sum():2d}/{len(g)}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])

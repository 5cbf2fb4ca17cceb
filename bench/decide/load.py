"""A run folder -> what the report renders (no MindSpore needed).

- ``verdicts``: one row per strategy × shape × mode: the final verdict over every gate and timing
  process (``bench.core.verdicts``), its kind, what the code means, the evidence;
- ``analysis``: per mode, every timed cell's estimate and the decisions (``bench.core.analysis``);
- ``cells``: the same cells as a tidy frame (``results.csv``).
"""

from __future__ import annotations

import copy
import functools
import math
import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from bench.core import analysis, cellstats, verdicts
from bench.core.records import Records
from bench.core.schema import Manifest, Status, instance_qualifier, signature
from bench.measured import workloads
from bench.measured.oracle import calls

VERDICT_COLUMNS = (
    "workload strategy shape mode status label kind kinds outcome calls detail layout meaning "
    "intended "
    "gate_processes timed_cells timed_wrong graph_breaks fullgraph second_instance third_instance "
    "network reused dims steps"
).split()
LATER_CHECKS = ("second_instance", "third_instance", "network")  # bench.run.gate.check records
CELL_COLUMNS = (
    "workload strategy shape mode size role control twin_valid status processes rounds step_s "
    "control_step_s ratio ratio_low ratio_high halfwidth added_s added_low_s added_high_s "
    "added_q1_s added_q3_s first_call_s"
).split()


@dataclass
class RunData:
    """Everything one run folder holds, read and tidied."""

    run_dir: Path
    manifest: Manifest
    verdicts: pd.DataFrame
    analysis: dict
    cells: pd.DataFrame
    selection: list = field(default_factory=list)
    bandwidth: dict = field(default_factory=dict)
    screen: pd.DataFrame = field(default_factory=pd.DataFrame)
    load: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)
    memo: dict = field(default_factory=dict, repr=False, compare=False)  # derived, per run

    @property
    def plan(self) -> dict:
        return self.manifest.plan

    @property
    def environment(self) -> dict:
        return self.manifest.environment

    @property
    def workload(self) -> str:
        return self.plan.get("workload", "clip")

    @cached_property
    def work(self):
        return workloads.get(self.workload)

    @property
    def symbol(self) -> str:
        """How the report names the size a cell is timed at: N (batch), T (cache), E (elements)."""
        return self.work.size_symbol

    @property
    def modes(self) -> list[str]:
        return list(self.plan.get("modes", []))

    @property
    def margin(self) -> cellstats.Margin:
        p = self.plan.get("precision", {})
        return cellstats.Margin.of_plan(p)

    @property
    def tier(self) -> str:
        return self.plan.get("precision", {}).get("tier", "default")


def _verdict_frame(final) -> pd.DataFrame:
    rows = []
    for v in final:
        breaks = v.diagnostics.get("graph_breaks")
        timed = v.evidence.get("timed", {})
        rows.append(
            {
                "workload": v.workload,
                "strategy": v.strategy,
                "shape": v.shape,
                "mode": v.mode,
                "status": str(v.status),
                "label": v.status.label,
                "kind": v.kind,
                "kinds": ", ".join(v.kinds),
                "outcome": signature(v.status, v.kind, v.detail),
                "calls": (
                    instance_qualifier(v.detail)
                    or (calls(v.steps, v.kind, v.meaning) if v.kind else "")
                ),
                "detail": v.detail,
                "layout": v.layout,
                "meaning": v.meaning,
                "intended": v.intended,
                "gate_processes": len(v.evidence.get("gate", [])) or 1,
                "timed_cells": timed.get("cells", 0),
                "timed_wrong": timed.get("wrong", 0),
                "graph_breaks": sum(breaks.values()) if isinstance(breaks, dict) else np.nan,
                "fullgraph": v.diagnostics.get("fullgraph", ""),
                **{key: v.diagnostics.get(key, "") for key in LATER_CHECKS},
                "reused": v.reused,
                "dims": v.dims,
                "steps": v.steps,
            }
        )
    return pd.DataFrame(rows, columns=VERDICT_COLUMNS)


ADDED = ("added_s", "added_low_s", "added_high_s", "added_q1_s", "added_q3_s")


def _cell_frame(workload: str, found: dict) -> pd.DataFrame:
    """One row per timed cell (``results.csv``). Against an invalid twin (``twin_valid`` False:
    ``analysis.check_twins``) the added time is blank: it is not shown anywhere; the whole step
    and the ratio stay."""
    rows = []
    for m in found.values():
        for c in m.cells.values():
            e = c.estimate
            low, high = e.ratio_interval
            alow, ahigh = e.added_interval
            q1, _, q3 = c.added_quartiles()
            if c.twin_invalid:
                alow = ahigh = q1 = q3 = math.nan
            rows.append(
                {
                    "workload": workload,
                    "strategy": c.id.strategy,
                    "shape": c.id.shape,
                    "mode": c.id.mode,
                    "size": c.id.size,
                    "role": c.role,
                    "control": c.control,
                    "twin_valid": not c.twin_invalid,
                    "status": c.status,
                    "processes": c.processes,
                    "rounds": c.rounds,
                    "step_s": c.step_s,
                    "control_step_s": c.control_step_s,
                    "ratio": e.ratio,
                    "ratio_low": low,
                    "ratio_high": high,
                    "halfwidth": e.halfwidth,
                    "added_s": math.nan if c.twin_invalid else e.added_s,
                    "added_low_s": alow,
                    "added_high_s": ahigh,
                    "added_q1_s": q1,
                    "added_q3_s": q3,
                    "first_call_s": c.first_call_s,
                }
            )
    return pd.DataFrame(rows, columns=CELL_COLUMNS)


def _load(rec: Records) -> dict:
    """The rest of the machine's CPU use while timing: median and maximum over the processes."""
    values = [
        f.suite.get("load", {}).get("others_cpus")
        for f in rec.timing
        if isinstance(f.suite.get("load"), dict)
    ]
    values = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    if not values:
        return {}
    return {"median": float(np.median(values)), "max": float(np.max(values)), "files": len(values)}


def _files(run_dir: Path) -> tuple:
    """Every file of a run folder with its size and modification time: a run written to since
    it was read is read again."""
    out = []
    for root, dirs, files in os.walk(run_dir):
        dirs.sort()
        for name in sorted(files):
            st = os.stat(os.path.join(root, name))
            out.append((root, name, st.st_size, st.st_mtime_ns))
    return tuple(out)


def load(run_dir: Path, margin: cellstats.Margin | None = None, between_runs=None) -> RunData:
    """Read and tidy one run folder; damaged files become ``problems``, not exceptions.
    ``margin``: decide at this margin instead of the one the run's plan recorded (a what-if:
    ``findings/margin_stability.py``; the pages always decide at the plan's). ``between_runs``:
    {(mode, role): (τ²_run, df)} added to each cost's interval; default the committed estimate
    from the back-to-back pairs (``between_runs.read``), ``{}`` for each run's own intervals.

    A run read before in this process, with the same arguments and every file as it was then, is
    not read and analysed again (0.5 s a reference; ``report --all`` read each several times):
    each caller gets a copy of it (20-60 ms), its own to change."""
    from bench.decide import between_runs as between

    run_tau2 = between.read() if between_runs is None else between_runs
    folder = Path(run_dir)
    tau2 = tuple(sorted(run_tau2.items()))
    return copy.deepcopy(_read_once(folder, folder.resolve(), margin, tau2, _files(folder)))


# 16 runs: the report and the check read each pinned reference several times
@functools.lru_cache(maxsize=16)
def _read_once(run_dir: Path, resolved: Path, margin, tau2: tuple, files: tuple) -> RunData:
    """``_read`` once a process per folder, arguments and files (their sizes and mtimes)."""
    return _read(run_dir, margin, dict(tau2))


def _read(run_dir: Path, margin: cellstats.Margin | None, run_tau2: dict) -> RunData:
    rec = Records(run_dir)
    manifest = rec.manifest
    final = verdicts.final(rec.verdicts, rec.cell_statuses)
    plan = manifest.plan
    p = plan.get("precision", {})
    margin = margin or cellstats.Margin.of_plan(p)
    found = analysis.analyse(
        rec.timings,
        rec.cell_statuses,
        list(plan.get("modes", [])),
        plan.get("batch_sizes", []),
        margin,
        looks=p.get("stages", 0) + 1,  # the decision was looked at once per timing stage
        # a strategy in a shape whose final verdict is not "works" (a timing process saw it
        # wrong at one size) is incorrect at every size: none of its numbers is a cost
        wrong_shapes={(v.strategy, v.shape, v.mode) for v in final if v.status != Status.WORKS},
        between_runs=run_tau2,
    )
    screen = pd.DataFrame(
        [
            {
                "mode": mode,
                **{k: row[k] for k in ("strategy", "shape", "batch_size")},
                "cost": float(np.median(row["ratios"])) if row["ratios"] else math.nan,
                "error": row.get("error", ""),  # the harness could not screen it (no ratios)
            }
            for mode, data in rec.prepare.items()
            for row in data["screen"]
        ],
        columns=["mode", "strategy", "shape", "batch_size", "cost", "error"],
    )
    return RunData(
        run_dir,
        manifest,
        _verdict_frame(final),
        found,
        _cell_frame(plan.get("workload", "clip"), found),
        selection=rec.selection,
        bandwidth=rec.bandwidth,
        screen=screen,
        load=_load(rec),
        problems=rec.problems + rec.restarts(),
    )

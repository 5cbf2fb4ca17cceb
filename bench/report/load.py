"""A run folder -> tidy pandas frames (no MindSpore needed).

- ``verdicts``: one row per strategy × shape × mode (the gate), with its short phrase and class;
- ``cells``: one row per timed strategy × shape × mode × batch size, its numbers pooled over
  worker processes: per-step median and per-process spread, the paired control, the overhead
  ratio and the time the update adds per step, each with a 95 % hierarchical-bootstrap interval
  (resample processes, then rounds: ``bench.core.stats``), the first call, the final-state check.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from bench.core import records, stats
from bench.core.schema import SCHEMA_VERSION, Manifest, Status, Timing
from bench.report.findings import failure_class, phrase

CONTROL_INVALID = 0.99  # a subject significantly faster than this × its no-update twin
VERDICT_COLUMNS = (
    "workload strategy shape mode status detail phrase failure declared expected layout dims"
).split()
CELL_COLUMNS = (
    "workload strategy shape mode batch_size role control status detail layout processes rounds "
    "k step_s step_low_s step_high_s process_min_s process_max_s control_step_s ratio ratio_low "
    "ratio_high added_s added_low_s added_high_s first_call_s control_first_call_s "
    "final_state_ok control_invalid halfwidth"
).split()
RAW = ("ratio_groups", "added_groups", "step_groups")  # per-process samples: memory, not CSV


@dataclass
class RunData:
    """Everything one run folder holds, read and tidied."""

    run_dir: Path
    manifest: Manifest
    verdicts: pd.DataFrame
    cells: pd.DataFrame
    selection: list = field(default_factory=list)
    bandwidth: dict = field(default_factory=dict)
    screen: pd.DataFrame = field(default_factory=pd.DataFrame)
    environment: dict = field(default_factory=dict)
    problems: list = field(default_factory=list)

    @property
    def plan(self) -> dict:
        return self.manifest.plan

    @cached_property
    def written_schema(self) -> int:
        """The schema version the run's manifest was written with (1 = before code shapes)."""
        try:
            raw = json.loads((Path(self.run_dir) / "manifest.json").read_text())
        except (OSError, ValueError):
            return SCHEMA_VERSION
        return int(raw.get("schema_version", 1)) if isinstance(raw, dict) else SCHEMA_VERSION

    @property
    def workload(self) -> str:
        return self.plan.get("workload", "clip")

    @property
    def symbol(self) -> str:
        """How the report names the size a cell is timed at: N (batch), T (cache), E (elements)."""
        from bench.measured import workloads

        name = self.workload
        return workloads.get(name).size_symbol if name in workloads.WORKLOADS else "N"


def _verdict_frame(verdicts) -> pd.DataFrame:
    rows = [
        {
            **{k: getattr(v, k) for k in ("workload", "strategy", "shape", "mode", "detail")},
            "status": str(v.status),
            "phrase": phrase(v),
            "failure": failure_class(v) if v.status.failed else "",
            "declared": v.as_declared,
            "expected": v.expected,
            "layout": v.layout,
            "dims": v.dims,
        }
        for v in verdicts
    ]
    return pd.DataFrame(rows, columns=VERDICT_COLUMNS)


def _pooled(timings: list[Timing], n_boot: int) -> dict:
    """The statistics of one cell over its worker processes."""
    step_groups = [t.step_s for t in timings]
    ratio_groups = [t.ratios for t in timings]
    added_groups = [t.added_s for t in timings]
    every = np.concatenate([np.asarray(g, float) for g in step_groups])
    medians = [float(np.median(g)) for g in step_groups if len(g)]
    if n_boot:
        step, step_low, step_high = stats.hierarchical_bootstrap(step_groups, n_boot=n_boot)
        ratio, low, high = stats.hierarchical_bootstrap(ratio_groups, n_boot=n_boot)
        added, added_low, added_high = stats.hierarchical_bootstrap(added_groups, n_boot=n_boot)
    else:  # point estimates only (bench.report.compare computes its own tests)
        step, step_low, step_high = float(np.median(every)), math.nan, math.nan
        ratio = float(np.median(np.concatenate([np.asarray(g) for g in ratio_groups])))
        added = float(np.median(np.concatenate([np.asarray(g) for g in added_groups])))
        low = high = added_low = added_high = math.nan
    controls = np.concatenate([np.asarray(t.control_s, float) for t in timings])
    first = [t.first_call_s for t in timings if np.isfinite(t.first_call_s)]
    control_first = [t.control_first_call_s for t in timings if np.isfinite(t.control_first_call_s)]
    return {
        "processes": len(timings),
        "rounds": int(every.size),
        "k": "/".join(map(str, sorted({t.k for t in timings}))),
        "step_s": step,
        "step_low_s": step_low,
        "step_high_s": step_high,
        "process_min_s": min(medians) if medians else math.nan,
        "process_max_s": max(medians) if medians else math.nan,
        "control_step_s": float(np.median(controls)) if controls.size else math.nan,
        "ratio": ratio,
        "ratio_low": low,
        "ratio_high": high,
        "added_s": added,
        "added_low_s": added_low,
        "added_high_s": added_high,
        "first_call_s": float(np.median(first)) if first else math.nan,
        "control_first_call_s": float(np.median(control_first)) if control_first else math.nan,
        "final_state_ok": all(t.final_state_ok for t in timings),
        "control_invalid": bool(high < CONTROL_INVALID) if n_boot else False,
        "halfwidth": (high - low) / 2 / ratio if n_boot and ratio else math.nan,
        "ratio_groups": ratio_groups,
        "added_groups": added_groups,
        "step_groups": step_groups,
    }


def _cell_frame(timings, statuses, n_boot: int) -> pd.DataFrame:
    grouped: dict[tuple, list[Timing]] = {}
    for t in timings:
        key = (t.workload, t.strategy, t.shape, t.mode, t.batch_size)
        grouped.setdefault(key, []).append(t)
    failed: dict[tuple, list[dict]] = {}
    for c in statuses:
        if c.get("status") != "works":
            failed.setdefault(c["test"], []).append(c)
    rows = []
    for key, group in sorted(grouped.items()):
        workload, strategy, shape, mode, n = key
        test = f"{strategy}@{shape}-{mode}-N{n}"
        bad = failed.pop(test, [])
        numbers = _pooled(group, n_boot)
        status = "works" if numbers["final_state_ok"] else "incorrect"
        if bad and status == "works":
            status = bad[0]["status"]
        detail = "; ".join(c.get("detail", "") for c in bad)
        rows.append(
            {
                "workload": workload,
                "strategy": strategy,
                "shape": shape,
                "mode": mode,
                "batch_size": n,
                "role": group[0].role,
                "control": group[0].control,
                "status": status,
                "detail": detail,
                "layout": "",
                **numbers,
            }
        )
    for test, bad in failed.items():  # cells that never produced a timing (crashed, hung)
        head, _, size = test.rpartition("-N")
        name, _, rest = head.partition("@")
        shape, _, mode = rest.rpartition("-")
        rows.append(
            {
                "strategy": name,
                "shape": shape,
                "mode": mode,
                "batch_size": int(size or 0),
                "status": bad[0]["status"],
                "detail": bad[0].get("detail", ""),
                "processes": 0,
                "rounds": 0,
                "role": "update",
            }
        )
    frame = pd.DataFrame(rows, columns=[*CELL_COLUMNS, *RAW])
    return frame.astype({"processes": int, "rounds": int}) if len(frame) else frame


def environment(run_dir: Path, problems: list[str]) -> dict:
    """Machine, versions, threads, date and commit, from the first timing file with them."""
    env: dict = {}
    earliest = None
    for _, data in records.read_timing_files(run_dir, problems):
        suite = data["suite"]
        for key, value in suite.get("environment", {}).items():
            env.setdefault(key, value)
        if "threads" in suite:
            env.setdefault("threads", suite["threads"])
        if "commit_info" in data:
            env.setdefault("commit", data["commit_info"].get("id"))
            env.setdefault("dirty", data["commit_info"].get("dirty"))
        started = suite.get("started") or data.get("datetime")
        if started and (earliest is None or started < earliest):
            earliest = started
    env["first_measurement"] = earliest
    return env


def restarts(run_dir: Path) -> list[str]:
    """One line per timing process that died and whose finished cells were kept."""
    lines = []
    for path, data in records.read_timing_files(run_dir, []):
        ended = data["suite"].get("ended")
        if isinstance(ended, dict):
            at = f" at `{ended['at']}`" if ended.get("at") else ""
            kept = len(data["suite"].get("cells", []))
            lines.append(
                f"{path.name}: the timing process stopped ({ended.get('status')}: "
                f"{ended.get('detail')}){at}; {kept} finished cells kept, the others measured "
                "in a new process"
            )
    return lines


def load(run_dir: Path, n_boot: int = stats.N_BOOTSTRAP) -> RunData:
    """Read and tidy one run folder; damaged files become ``problems``, not exceptions."""
    run_dir, problems = Path(run_dir), []
    manifest = records.read_manifest(run_dir, problems)
    verdicts = records.read_verdicts(run_dir, problems)
    timings, statuses = records.read_timings(run_dir, problems)
    prepared = records.read_prepare(run_dir, problems)
    selection_file = run_dir / "prepare" / "selection.json"
    selection = []
    if selection_file.is_file():
        selection = records._read(selection_file, problems).get("chosen", [])
    screen = pd.DataFrame(
        [
            {
                "mode": mode,
                **{k: row[k] for k in ("strategy", "shape", "batch_size")},
                "cost": float(np.median(row["ratios"])) if row["ratios"] else math.nan,
            }
            for mode, data in prepared.items()
            for row in data["screen"]
        ],
        columns=["mode", "strategy", "shape", "batch_size", "cost"],
    )
    vframe = _verdict_frame(verdicts)
    cframe = _cell_frame(timings, statuses, n_boot)
    layouts = dict(zip(vframe.strategy + "/" + vframe["shape"], vframe.layout))
    if len(cframe):
        cframe["layout"] = (cframe.strategy + "/" + cframe["shape"]).map(layouts).fillna("")
    return RunData(
        run_dir,
        manifest,
        vframe,
        cframe,
        selection=selection,
        bandwidth=records.read_bandwidth(run_dir, problems),
        screen=screen,
        environment=environment(run_dir, problems),
        problems=problems + restarts(run_dir),
    )


def status_of(frame: pd.DataFrame) -> set[str]:
    return set(frame.status)


WORKS = str(Status.WORKS)

"""Where things live. The project is installed editable, so these are folders of the checkout."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STRATEGIES_DIR = ROOT / "strategies"
RESULTS_DIR = ROOT / "results"
PLOTS_DIR = ROOT / "plots"
DEFAULT_WORKLOAD = "clip"


def results_dir(workload: str = DEFAULT_WORKLOAD) -> Path:
    """The reference report of a workload: ``results/<workload>/`` (``results/`` itself holds
    the pages across workloads: the answer, the findings, the releases)."""
    return RESULTS_DIR / workload


def plots_dir(workload: str = DEFAULT_WORKLOAD) -> Path:
    """The reference plots of a workload: ``plots/<workload>/``."""
    return PLOTS_DIR / workload


def raw_dir(results: Path) -> Path:
    """Run folders of a results folder: ``<results>/raw/<run-id>/``."""
    return Path(results) / "raw"


def runs(raw: Path) -> list[Path]:
    """Run folders under ``raw``, oldest first (run ids sort by start time)."""
    return sorted(p for p in Path(raw).glob("*") if (p / "manifest.json").is_file())


def reference(raw: Path) -> Path | None:
    """The run a workload's reference report comes from: the newest complete run that wrote the
    reference (a full run, or one with ``--publish``); a run still going, stopped or failed, or
    a subset run, is never the reference while such a run exists. Else the newest."""
    import json

    from bench.core.schema import RunStatus

    found = runs(raw)
    for run in reversed(found):
        try:
            manifest = json.loads((run / "manifest.json").read_text())
        except (OSError, ValueError):
            continue
        if manifest.get("status") == RunStatus.COMPLETE and manifest.get("publish"):
            return run
    return found[-1] if found else None

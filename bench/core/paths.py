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


def find_run(raw: Path, run_id: str) -> Path | None:
    """The run folder ``run_id`` under ``raw``, or None."""
    candidate = Path(raw) / run_id
    return candidate if (candidate / "manifest.json").is_file() else None

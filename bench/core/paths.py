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
    """Run folders under ``raw``, oldest first (run ids sort by start time): each folder
    ``<raw>/<run-id>/`` and each archive ``<raw>/<run-id>.tar.xz`` (a committed run), the
    archive as its folder extracted into the cache (``bench.core.archive``); where both exist,
    the folder."""
    from bench.core import archive

    raw = Path(raw)
    found = {p.name: p for p in raw.glob("*") if (p / "manifest.json").is_file()}
    for p in raw.glob(f"*{archive.SUFFIX}"):
        run_id = archive.run_id_of(p)
        if run_id not in found and p.is_file():
            found[run_id] = archive.extracted(p)
    return [found[k] for k in sorted(found)]


def find_run(raw: Path, run_id: str) -> Path | None:
    """The run ``run_id`` under ``raw``: its folder, or its archive extracted; None if neither."""
    from bench.core import archive

    folder = Path(raw) / run_id
    if (folder / "manifest.json").is_file():
        return folder
    packed = Path(raw) / f"{run_id}{archive.SUFFIX}"
    return archive.extracted(packed) if packed.is_file() else None


def named_run(name: str, raw: Path) -> Path:
    """The run ``name`` (a run id under ``raw``, or a path: a folder or a run archive; an
    archived run is read from its extracted copy); UsageError if it is not there, or if a
    pointer it holds names a run that is not present."""
    from bench.core.archive import ArchiveError
    from bench.core.args import UsageError

    try:
        found = find_run(raw, name) or run_folder(name)
        if found is None:
            recent = ", ".join(p.name for p in runs(raw)[-5:]) or "none"
            raise UsageError(f"no run {name!r} in {str(raw)!r} (recent: {recent})")
    except ArchiveError as err:
        raise UsageError(str(err)) from err
    return found


def run_folder(path: Path | str) -> Path | None:
    """A run named on a command line as a folder, an archive (``<raw>/<run-id>.tar.xz``) or the
    folder of an archived run (``<raw>/<run-id>``): its folder; None if it is none of them."""
    from bench.core import archive

    path = Path(path)
    if (path / "manifest.json").is_file():
        return path
    if archive.is_archive(path):
        return archive.extracted(path)
    return find_run(path.parent, path.name) if path.name else None

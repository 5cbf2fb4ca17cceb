"""Which runs the committed pages stand on: ``results/references.json``.

Nothing is ever chosen as "the newest run": a user's gate-only, ``--quick`` or subset run
beside the references would otherwise become a workload's reference by accident. The file names,
per workload, the run its pages are rendered from, and per MindSpore release the runs of the
release matrix::

    {"schema_version": 1,
     "references": {"brn": "20261204T174040Z-c6cf", ...},
     "releases": {"2.7.2": {"brn": "20261202T025128Z-5e17", ...}, ...}}

A reference lives in ``results/<workload>/raw/``, a release run in
``results/releases/<version>/raw/``. ``nox -s report -- --pin RUN_ID`` changes a pin; nothing
else writes this file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from bench.core import paths

FILE = "references.json"
SCHEMA_VERSION = 1


class PinError(Exception):
    """The pins file is unreadable, or names a run that is not there: the message says which."""


@dataclass(frozen=True)
class Pins:
    """The runs ``results/references.json`` names (run ids)."""

    references: dict = field(default_factory=dict)  # workload -> run id
    releases: dict = field(default_factory=dict)  # version -> {workload: run id}
    schema_version: int = SCHEMA_VERSION

    def to_dict(self) -> dict:
        return {
            "schema_version": self.schema_version,
            "references": dict(sorted(self.references.items())),
            "releases": {v: dict(sorted(r.items())) for v, r in sorted(self.releases.items())},
        }


def file(root: Path = paths.RESULTS_DIR) -> Path:
    return Path(root) / FILE


def in_force(results: Path) -> Path:
    """The results folder whose pins hold for ``results``: itself where it has the file, else the
    committed ``results/`` (a results folder of one's own pins nothing)."""
    return Path(results) if file(results).is_file() else paths.RESULTS_DIR


def read(root: Path = paths.RESULTS_DIR) -> Pins:
    """The pins of the results folder ``root``; PinError with the reason if unreadable. A root
    without the file pins nothing (a user's own results folder)."""
    path = file(root)
    if not path.is_file():
        return Pins()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise PinError(f"{path}: cannot read the pinned runs ({err})") from err
    if not isinstance(data, dict):
        raise PinError(f"{path}: not a JSON object")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        raise PinError(f"{path}: schema_version {version!r}, this suite reads {SCHEMA_VERSION}")
    refs, rels = data.get("references", {}), data.get("releases", {})
    if not isinstance(refs, dict) or not all(isinstance(v, str) for v in refs.values()):
        raise PinError(f"{path}: 'references' must map a workload to a run id")
    if not isinstance(rels, dict) or not all(
        isinstance(r, dict) and all(isinstance(i, str) for i in r.values()) for r in rels.values()
    ):
        raise PinError(f"{path}: 'releases' must map a version to {{workload: run id}}")
    return Pins(references=dict(refs), releases={v: dict(r) for v, r in rels.items()})


def write(pins: Pins, root: Path = paths.RESULTS_DIR) -> Path:
    from bench.core.io import write_text_atomic

    return write_text_atomic(file(root), json.dumps(pins.to_dict(), indent=1) + "\n")


def _resolve(raw: Path, run_id: str, what: str) -> Path:
    from bench.core.archive import ArchiveError

    try:
        found = paths.find_run(raw, run_id)  # a folder, or its archive read extracted
    except ArchiveError as err:  # e.g. a pointer to a run that is not committed
        raise PinError(f"the pinned {what} run {run_id!r}: {err}") from err
    if found is None:
        raise PinError(f"the pinned {what} run {run_id!r} is not in {raw} ({FILE} names it)")
    return found


def reference(workload: str, root: Path = paths.RESULTS_DIR) -> Path | None:
    """The run folder of ``workload``'s pinned reference; None if it pins none; PinError if the
    pinned run is missing."""
    run_id = read(root).references.get(workload)
    if run_id is None:
        return None
    return _resolve(paths.raw_dir(Path(root) / workload), run_id, f"{workload} reference")


def references(root: Path = paths.RESULTS_DIR, workloads=None) -> dict[str, Path]:
    """{workload: run folder} of every pinned reference (in ``workloads``' order if given)."""
    pinned = read(root).references
    names = [w for w in (workloads or pinned) if w in pinned]
    return {w: _resolve(paths.raw_dir(Path(root) / w), pinned[w], f"{w} reference") for w in names}


def release_runs(root: Path = paths.RESULTS_DIR) -> dict[str, dict[str, Path]]:
    """{version: {workload: run folder}} of the pinned release runs."""
    out = {}
    for version, by in read(root).releases.items():
        raw = paths.raw_dir(Path(root) / "releases" / version)
        out[version] = {w: _resolve(raw, i, f"{version} {w} release") for w, i in by.items()}
    return out


__all__ = [
    "FILE",
    "PinError",
    "Pins",
    "in_force",
    "read",
    "reference",
    "references",
    "release_runs",
    "write",
]

"""What one worker process is asked to do, as plain data (JSON on its command line)."""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Precision:
    """How long and how often to measure one cell (one strategy × mode × batch size)."""

    processes: int = 3  # worker processes per strategy × mode (between-process spread)
    cell_seconds: float = 2.0  # measurement budget per cell, shared by its processes
    block_seconds: float = 0.01  # a timed block runs k steps, k chosen so a block takes >= this
    min_rounds: int = 5
    max_rounds: int = 60
    warmup_seconds: float = 0.2


PRECISIONS = {
    "default": Precision(),
    "quick": Precision(
        processes=1, cell_seconds=0.25, min_rounds=3, max_rounds=15, warmup_seconds=0.03
    ),
}


@dataclass(frozen=True)
class Job:
    kind: str  # "gate" or "time"
    strategy: str
    mode: str
    out: str  # path of the JSON this job writes
    strategies_dir: str
    batch_sizes: tuple[int, ...] = ()
    process: int = 0
    threads: int = 1
    seed: int = 0
    run_id: str = ""
    precision: Precision = field(default_factory=Precision)
    gate_steps: int = 30
    gate_batch_sizes: tuple[int, ...] = (4, 1024)
    workload: str = "clip"

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Job:
        data = json.loads(text)
        data["precision"] = Precision(**data["precision"])
        data["batch_sizes"] = tuple(data["batch_sizes"])
        data["gate_batch_sizes"] = tuple(data["gate_batch_sizes"])
        return cls(**data)


def write_json_atomic(path: Path | str, data) -> None:
    """Write JSON to a temporary file in the same folder, then rename it into place."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh, indent=1, default=str)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise

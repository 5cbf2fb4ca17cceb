"""What a run is asked to do (the Plan) and what one worker process is asked to do (a Job).

Plain frozen dataclasses, stored as JSON: the plan in the run's manifest (``--resume`` reuses it),
a job in a file the worker reads (``python -m bench.run.worker JOB_FILE``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from bench.core.io import write_json_atomic

STABLE_MODES = ("graph", "jit_ast", "jit_bytecode", "pynative_blocking")  # 2 % targets


@dataclass(frozen=True)
class Precision:
    """How long and how often to measure (defaults: ``nox -s bench``)."""

    min_processes: int = 2  # worker processes every timed cell gets
    max_processes: int = 4  # more only for cells whose interval is still too wide
    target: float = 0.02  # stop adding processes once the overhead's 95 % CI half-width is below
    pynative_target: float = 0.03  # the same for PYNATIVE as users run it (its queues add noise)
    # rounds per cell and process: as many as a pilot of min_rounds says the target needs
    # (bench.run.pairing.rounds_needed), at most cell_seconds of paired blocks of both cells
    cell_seconds: float = 1.5
    block_seconds: float = 0.01  # a timed block runs k steps, k chosen so a block takes >= this
    min_rounds: int = 5
    max_rounds: int = 200
    warmup_seconds: float = 0.05
    screen_seconds: float = 0.08  # per shape, in the screen that picks each API's fastest shape
    screen_batch_size: int = 256
    pilot: bool = True  # False: every cell gets rounds_for(cell_seconds), no pilot (--quick)

    def target_for(self, mode: str) -> float:
        return self.target if mode in STABLE_MODES else self.pynative_target


PRECISIONS = {
    "default": Precision(),
    "quick": Precision(
        min_processes=1,
        max_processes=1,
        cell_seconds=0.06,
        block_seconds=0.005,
        min_rounds=3,
        max_rounds=10,
        warmup_seconds=0.02,
        screen_seconds=0.03,
        pilot=False,
    ),
}


@dataclass(frozen=True)
class Plan:
    """Everything a run was asked to do (stored in its manifest, reused by --resume)."""

    workload: str
    strategies: tuple[str, ...]
    modes: tuple[str, ...]
    batch_sizes: tuple[int, ...]
    strategies_dir: str
    precision: Precision = field(default_factory=Precision)
    shapes: tuple[str, ...] | None = None  # None: every shape
    threads: int = 1
    timeout: float = 300.0  # seconds a worker may go without finishing a cell
    seed: int = 0
    gate_jobs: int = 2  # concurrent gate workers (the gate measures nothing)
    time_jobs: int = 1  # concurrent timing workers
    gate_only: bool = False
    screen_all: bool = False  # screen every working shape, not one per way of reading the state

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Plan:
        known = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k in known}
        data["precision"] = Precision(**data.get("precision", {}))
        for key in ("strategies", "modes", "batch_sizes", "shapes"):
            if data.get(key) is not None:
                data[key] = tuple(data[key])
        return cls(**data)

    def with_precision(self, **changes) -> Plan:
        return replace(self, precision=replace(self.precision, **changes))


@dataclass(frozen=True)
class Item:
    """One thing a worker does: gate a variant, or time a cell (a variant at a batch size)."""

    strategy: str
    shape: str
    path: str  # the generated variant file
    layout: str
    expected: str | None = None  # gate: the strategy's declared failure
    update: bool = True  # False for a generated control (checked against no-update)
    dims: dict = field(default_factory=dict)
    control: str = ""  # time: "control/<shape>" paired with it
    control_path: str = ""
    role: str = "update"  # time: "update" or "layout" (a control vs the base control)
    batch_size: int = 0
    k: int = 0  # time: steps per block (0: calibrate)

    @property
    def key(self) -> str:
        size = f"/N{self.batch_size}" if self.batch_size else ""
        return f"{self.strategy}/{self.shape}{size}"

    def test_id(self, mode: str) -> str:
        """The cell's pytest id in a timing file: ``<strategy>@<shape>-<mode>-N<n>``."""
        return f"{self.strategy}@{self.shape}-{mode}-N{self.batch_size}"


@dataclass(frozen=True)
class Job:
    """What one worker process does: ``kind`` gate | calibrate | screen | time, for one mode."""

    kind: str
    run_id: str
    workload: str
    mode: str
    out: str  # gate: a folder of verdict files; otherwise the JSON file to write
    items: tuple[Item, ...]
    process: int = 0
    threads: int = 1
    seed: int = 0
    precision: Precision = field(default_factory=Precision)
    timeout: float = 300.0  # seconds one item may take (a forked gate child is killed after)

    def write(self, path: Path) -> Path:
        return write_json_atomic(path, asdict(self))

    @classmethod
    def read(cls, path: Path) -> Job:
        data = json.loads(Path(path).read_text())
        data["precision"] = Precision(**data["precision"])
        data["items"] = tuple(Item(**i) for i in data["items"])
        return cls(**data)

    def without(self, done: set[str]) -> Job:
        return replace(self, items=tuple(i for i in self.items if i.key not in done))

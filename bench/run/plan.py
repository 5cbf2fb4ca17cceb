"""What a run is asked to do (the Plan, with its precision tier) and what one worker process is
asked to do (a Job of Items).

Plain frozen dataclasses, stored as JSON: the plan in the run's manifest (``--resume`` reuses it),
a job in a file the worker reads (``python -m bench.run.worker JOB_FILE``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

from bench.core.io import write_json_atomic
from bench.core.margin import Margin
from bench.core.rundir import CellId


@dataclass(frozen=True)
class Precision:
    """How long and how often to measure: one of the tiers in ``TIERS``.

    Stage 0 times every race in ``processes`` processes of ``rounds`` rounds each; each later
    stage (one new process) races the candidates whose decision is still open against the
    fastest, as many rounds as the decision needs (at most ``max_rounds``, at most
    ``cell_seconds`` of blocks per pair of blocks)."""

    tier: str = "default"
    processes: int = 2  # every race (so every decision) is timed in two processes at least
    rounds: int = 10
    stages: int = 1  # later stages: races of the decisions still open
    max_rounds: int = 40
    cell_seconds: float = 1.0
    block_seconds: float = 0.01  # a timed block runs k steps, k chosen so a block takes >= this
    max_block_seconds: float = 2.0  # a slower block of k steps of a member: a smaller k
    warmup_seconds: float = 0.05
    distribution_rounds: int = 24  # PYNATIVE as users run it: a fixed budget, reported as quartiles
    screen: bool = True  # time each way of reading the state once to pick the shape to time
    screen_seconds: float = 0.08
    screen_batch_size: int = 256
    gate_replicas: int = 2  # gate processes per compiled mode
    layout_cells: bool = True
    target: float = 0.0  # rigorous: also stop only once the interval is narrower than ±target
    margin_rel: float = Margin.rel  # bench.core.cellstats.Margin: of the candidate's whole step
    margin_abs_s: float = Margin.abs_s
    sizes: str = "three"  # the sizes timed when none are named: "all" the workload's, "three"
    # its smallest, a middle one and its largest, "ends" its smallest and largest, "largest" the
    # largest alone, the size the pages' costs are told at (``sizes_of``)

    def sizes_of(self, sizes) -> tuple[int, ...]:
        """The sizes a run of this tier times when the command names none."""
        ordered = tuple(sorted(set(sizes)))
        if self.sizes == "largest":
            return ordered[-1:]
        if self.sizes == "all" or len(ordered) <= 2:
            return ordered
        if self.sizes == "ends":
            return (ordered[0], ordered[-1])
        if self.sizes == "three":  # the middle one: the upper median of an even count
            return (ordered[0], ordered[len(ordered) // 2], ordered[-1])
        raise ValueError(f"unknown sizes rule {self.sizes!r} (all, three, ends, largest)")


TIERS = {
    "quick": Precision(
        tier="quick",
        processes=1,
        rounds=4,
        stages=0,
        max_rounds=4,
        cell_seconds=0.1,
        block_seconds=0.005,
        max_block_seconds=0.25,
        warmup_seconds=0.0,  # the three warm-up steps every member runs at least (Stepper.warm_up)
        distribution_rounds=4,
        screen=False,
        gate_replicas=1,
        layout_cells=False,
        sizes="largest",  # a first look at the cost the pages print: PYNATIVE's 64-step blocks
        # at N=1 were 19 of quick's 108 s, and N=1 a bytecode process of its own
    ),
    "default": Precision(),
    "rigorous": Precision(
        tier="rigorous",
        processes=2,
        rounds=20,
        stages=4,
        max_rounds=200,
        cell_seconds=2.0,
        distribution_rounds=60,
        screen_seconds=0.2,
        target=0.02,
        sizes="all",
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
    time_jobs: int = 1  # concurrent timing workers (modes measured harmless may use 2)
    gate_only: bool = False
    screen_all: bool = False  # screen every working shape, not one per way of reading the state
    reuse_gate: bool = False  # copy verdicts of identical code from earlier runs (gate_cache)
    shard: tuple[int, int] | None = None  # (I, N): this run is shard I of N (bench.run.shard)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Plan:
        known = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k in known}
        wanted = {f.name for f in fields(Precision)}
        # a plan written before the sizes rule timed every size (the rule's default then)
        precision = {"sizes": "all", **data.get("precision", {})}
        data["precision"] = Precision(**{k: v for k, v in precision.items() if k in wanted})
        for key in ("strategies", "modes", "batch_sizes", "shapes", "shard"):
            if data.get(key) is not None:
                data[key] = tuple(data[key])
        return cls(**data)

    def with_precision(self, **changes) -> Plan:
        return replace(self, precision=replace(self.precision, **changes))


@dataclass(frozen=True)
class Item:
    """One thing a worker does: gate a variant, or time a cell (a variant at a size)."""

    strategy: str
    shape: str
    path: str  # the generated variant file
    layout: str
    update: bool = True  # False for a generated twin (checked against no update)
    dims: dict = field(default_factory=dict)
    meaning: str = "before"  # gate: what the shape's reads see under eager semantics
    intended: bool = True
    control: str = ""  # time: "control/<shape>" paired with it
    control_path: str = ""
    role: str = "update"  # time: "race"; prepare: "calibrate", "screen"
    batch_size: int = 0
    k: int = 0  # time: steps per block (0: calibrate)
    rounds: int = 0  # time: paired rounds to run (0: the precision's)
    key_hash: str = ""  # gate: what the verdict depends on, hashed (bench.run.gate_cache)
    members: tuple = ()  # a race: its Members (as dicts in a job file), timed in the same rounds
    steps: int = 0  # gate: a re-gate alone over this many steps at batch_size (0: the gate's)

    def cell(self, mode: str) -> CellId:
        return CellId(self.strategy, self.shape, mode, self.batch_size)

    @property
    def key(self) -> str:
        size = f"/N{self.batch_size}" if self.batch_size else ""
        return f"{self.strategy}/{self.shape}{size}"

    def test_id(self, mode: str) -> str:
        return self.cell(mode).test_id

    def without_member(self, label: str) -> tuple[Item, Member | None]:
        """This race without the member named ``label`` (and that member, None if no member
        has that name: a twin)."""
        gone = next((m for m in self.members if m.label == label), None)
        return replace(self, members=tuple(m for m in self.members if m is not gone)), gone


@dataclass(frozen=True)
class Member:
    """One cell of a race: a strategy's variant (``update``), the A/A copy of the base twin
    (``aa``) or a layout twin (``layout``), with the twin its added time is measured against."""

    strategy: str
    shape: str
    path: str
    layout: str
    role: str  # "update", "aa", "layout"
    control: str  # "control/<shape>"
    control_path: str
    update: bool = True

    def cell(self, mode: str, size: int) -> CellId:
        return CellId(self.strategy, self.shape, mode, size)

    @property
    def label(self) -> str:
        """Its name in its race (the A/A copy is not its base twin)."""
        return f"aa:{self.shape}" if self.role == "aa" else f"{self.strategy}/{self.shape}"

    def item(self, size: int) -> Item:
        """Itself as a cell of its own (what a failure of this member is recorded as)."""
        return Item(self.strategy, self.shape, self.path, self.layout, update=self.update,
                    control=self.control, control_path=self.control_path, role=self.role,
                    batch_size=size)  # fmt: skip


RACE = "race"  # the strategy and shape names of a race item (its test id: race@race-<mode>-N<n>)


@dataclass(frozen=True)
class Job:
    """What one worker process does: ``kind`` gate | prepare | time, for one mode."""

    kind: str
    run_id: str
    workload: str
    mode: str
    out: str  # gate: its verdict line file; otherwise the JSON file to write
    items: tuple[Item, ...]
    process: int = 0
    threads: int = 1
    seed: int = 0
    precision: Precision = field(default_factory=Precision)
    timeout: float = 300.0  # seconds one item may take (a forked gate child is killed after)
    stage: int = 0
    deadline: float = 0.0  # time: seconds since the epoch after which no cell starts (--budget)

    def write(self, path: Path) -> Path:
        return write_json_atomic(path, asdict(self))

    @classmethod
    def read(cls, path: Path) -> Job:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        data["precision"] = Precision(**data["precision"])
        data["items"] = tuple(
            Item(**{**i, "members": tuple(Member(**m) for m in i.get("members", ()))})
            for i in data["items"]
        )
        return cls(**data)

    @classmethod
    def of(cls, kind: str, plan: Plan, run_id: str, mode: str, out, items, **extra) -> Job:
        """A job of ``plan``'s run: what every job shares comes from the plan."""
        return cls(kind=kind, run_id=run_id, workload=plan.workload, mode=mode, out=str(out),
                   items=tuple(items), threads=plan.threads, seed=plan.seed,
                   precision=plan.precision, **extra)  # fmt: skip

    def without(self, done: set[str]) -> Job:
        return replace(self, items=tuple(i for i in self.items if i.key not in done))

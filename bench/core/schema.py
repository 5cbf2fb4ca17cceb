"""The result model: what every raw file holds, typed and versioned.

A run folder holds three kinds of file, each a JSON object with ``schema_version``:

- ``manifest.json``: a :class:`Manifest` (what was asked, how it ended, how long each phase took);
- ``gate/<strategy>--<shape>--<mode>.json``: a :class:`Verdict` (does this code shape of this
  update API compute the workload correctly in this mode?);
- ``timing/<mode>-p<process>.json``: pytest-benchmark's own JSON (so ``pytest-benchmark compare``
  reads it), with a :class:`Timing` in each benchmark's ``extra_info`` and the worker's facts in
  a top-level ``suite`` object.

Readers call :func:`check_version`: files without a version are version 1 (the layout before
shapes existed; ``bench.report.load`` still reads them), a newer version than this code knows is
refused with a message that says so. Progress from a worker to the runner is a JSON line too
(:func:`event_line`).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from enum import Enum

SCHEMA_VERSION = 2
EVENT_PREFIX = "@@bench "  # a worker's progress line: this prefix, then one JSON object


class SchemaError(ValueError):
    """A file this version of the suite cannot read."""


class Status(str, Enum):
    """What happened to one strategy × shape × mode (× batch size, once timed)."""

    WORKS = "works"
    RAISES = "raises"
    INCORRECT = "incorrect"
    CRASHED = "crashed"
    TIMEOUT = "timeout"
    INEXPRESSIBLE = "inexpressible"
    BROKEN = "broken"
    SKIPPED = "skipped"
    MISSING = "missing"

    def __str__(self) -> str:
        return self.value

    @property
    def meaning(self) -> str:
        return MEANINGS[self]

    @property
    def failed(self) -> bool:
        """A behaviour of MindSpore worth reporting (and declarable in EXPECTED_FAILURES)."""
        return self in FAILURES


MEANINGS = {
    Status.WORKS: "matches the NumPy reference at every step",
    Status.RAISES: "raises an error (when compiling or running)",
    Status.INCORRECT: "runs without an error, but the output or the state is wrong (silent)",
    Status.CRASHED: "the process died (e.g. a segmentation fault inside MindSpore)",
    Status.TIMEOUT: "did not finish in time",
    Status.INEXPRESSIBLE: "this strategy cannot be written in this shape or workload",
    Status.BROKEN: "the strategy file does not load or does not follow the contract",
    Status.SKIPPED: "not timed (see the detail)",
    Status.MISSING: "no result: the run ended before this cell",
}
FAILURES = frozenset({Status.RAISES, Status.INCORRECT, Status.CRASHED, Status.TIMEOUT})


def check_version(data: dict, what: str) -> int:
    """The schema version of ``data`` (1 when absent); SchemaError if newer than this code."""
    if not isinstance(data, dict):
        raise SchemaError(f"{what}: not a JSON object")
    version = data.get("schema_version", 1)
    if not isinstance(version, int) or version < 1:
        raise SchemaError(f"{what}: bad schema_version {version!r}")
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"{what}: schema_version {version} is newer than this suite reads "
            f"({SCHEMA_VERSION}); update the suite (git pull) to read it"
        )
    return version


def _build(cls, data: dict):
    """``cls(**data)`` keeping only known fields (extra keys of a minor change are ignored)."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class Verdict:
    """The gate's finding for one strategy × shape × mode of a workload."""

    workload: str
    strategy: str
    shape: str
    mode: str
    status: Status
    detail: str = ""
    dims: dict = field(default_factory=dict)  # the shape's value per dimension
    expected: str | None = None  # the strategy's declared failure (a regex) for this cell
    declared: bool = False  # status is a failure and ``expected`` matches it
    layout: str = ""
    seconds: float = 0.0
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self):
        object.__setattr__(self, "status", Status(self.status))

    @property
    def as_declared(self) -> bool:
        """True when the cell behaves as its strategy file says it does."""
        if self.status == Status.WORKS:
            return self.expected is None
        if self.status in (Status.INEXPRESSIBLE, Status.SKIPPED):
            return True
        return self.declared

    @property
    def finding(self) -> str:
        """``status: detail``, the text a declared failure's regex is searched in."""
        return f"{self.status}: {self.detail}" if self.detail else str(self.status)

    def to_dict(self) -> dict:
        return {**asdict(self), "status": str(self.status)}

    @classmethod
    def from_dict(cls, data: dict) -> Verdict:
        check_version(data, "verdict")
        return _build(cls, data)


@dataclass(frozen=True)
class Timing:
    """One timed cell in one worker process: raw per-round samples, nothing derived.

    ``step_s[i]`` is round i's block of ``k`` subject steps divided by k (pytest-benchmark's
    ``stats.data`` with ``iterations = k``); ``control_s[i]`` the paired control block, run right
    before or after it (``control_position[i]``), divided by k.
    """

    workload: str
    strategy: str
    shape: str
    mode: str
    batch_size: int
    process: int
    control: str  # "<control strategy>/<shape>" that each round is paired with
    role: str  # "update" (a strategy vs its no-update twin) or "layout" (a control vs the base)
    k: int
    step_s: list = field(default_factory=list)
    control_s: list = field(default_factory=list)
    control_position: list = field(default_factory=list)
    first_call_s: float = float("nan")
    control_first_call_s: float = float("nan")
    warmup_steps: int = 0
    pilot_ratios: list = field(default_factory=list)  # untimed rounds that chose the rounds
    steps_run: int = 0
    final_state_ok: bool = True
    final_state: dict = field(default_factory=dict)
    expected_final_state: dict = field(default_factory=dict)
    sync: str = "once at the end of every block of k steps (throughput)"
    peak_rss_bytes: int = 0
    order: int = 0  # position of this cell in its process (cells run in a shuffled order)
    schema_version: int = SCHEMA_VERSION

    @property
    def ratios(self) -> list[float]:
        return [s / c for s, c in zip(self.step_s, self.control_s)]

    @property
    def added_s(self) -> list[float]:
        """Per round: subject step minus paired control step (seconds the update adds)."""
        return [s - c for s, c in zip(self.step_s, self.control_s)]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Timing:
        check_version(data, "timing")
        return _build(cls, data)


@dataclass
class Manifest:
    """What a run was asked to do and how it went (``manifest.json``)."""

    run_id: str
    plan: dict
    status: str = "running"  # running | interrupted | complete
    command: str = ""
    argv: list = field(default_factory=list)
    started: str = ""
    finished: str = ""
    invocations: list = field(default_factory=list)
    phases: dict = field(default_factory=dict)  # phase -> wall seconds (summed over resumes)
    publish: bool = False  # the run writes the reference report (results/summary.md, plots/)
    strategies: dict = field(default_factory=dict)  # name -> what the report needs to know of it
    schema_version: int = SCHEMA_VERSION

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Manifest:
        check_version(data, "manifest")
        return _build(cls, data)


def event_line(event: str, **data) -> str:
    """A worker's progress line for the runner: the prefix, then one JSON object."""
    return EVENT_PREFIX + json.dumps({"event": event, **data}, default=str)


def parse_event(line: str) -> dict | None:
    """The event of a progress line, or None for any other output."""
    if not line.startswith(EVENT_PREFIX):
        return None
    try:
        event = json.loads(line[len(EVENT_PREFIX) :])
    except ValueError:
        return None
    return event if isinstance(event, dict) and "event" in event else None

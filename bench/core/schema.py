"""The result model: what every raw file holds, typed and versioned.

A run folder (``bench.core.rundir.RunDir``) holds:

- ``manifest.json``: a :class:`Manifest` (what was asked, how it ended, how long each phase took);
- ``gate/<mode>.r<replica>.p<part>.jsonl``: one :class:`Verdict` per line (does this code shape
  of this update API compute what its code means, in this mode, in this gate process?);
- ``timing/<mode>-p<process>.json``: pytest-benchmark's own JSON (so ``pytest-benchmark compare``
  reads it), with a :class:`Timing` in each benchmark's ``extra_info`` and the worker's facts in
  a top-level ``suite`` object.

Readers call :func:`upgrade` (or :func:`check_version`): a record of an older version is read
through the upgrade functions of ``UPGRADES`` (one per version step, as pyperf does), a newer one
or an older one with no upgrade path is refused with a message that says which. Progress from a
worker to the runner is a JSON line too (:func:`event_line`).
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, fields
from enum import Enum

SCHEMA_VERSION = 3
EVENT_PREFIX = "@@bench "  # a worker's progress line: this prefix, then one JSON object


class RunStatus(str, Enum):
    """How a run stands (``Manifest.status``)."""

    RUNNING = "running"
    INTERRUPTED = "interrupted"
    COMPLETE = "complete"

    def __str__(self) -> str:
        return self.value


class SchemaError(ValueError):
    """A file this version of the suite cannot read."""


class Status(str, Enum):
    """What happened to one strategy × shape × mode (× size, once timed)."""

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
    def label(self) -> str:
        """The word every page, CSV and plot uses for it."""
        return LABELS[self]

    @property
    def meaning(self) -> str:
        return MEANINGS[self]

    @property
    def failed(self) -> bool:
        """A behaviour of MindSpore worth reporting."""
        return self in FAILURES


LABELS = {
    Status.WORKS: "works",
    Status.RAISES: "raises",
    Status.INCORRECT: "silently wrong",
    Status.CRASHED: "crashes",
    Status.TIMEOUT: "hangs",
    Status.INEXPRESSIBLE: "n/a",
    Status.BROKEN: "broken file",
    Status.SKIPPED: "skipped",
    Status.MISSING: "missing",
}
MEANINGS = {
    Status.WORKS: "computes what the code means (eager semantics) at every step",
    Status.RAISES: "raises an error (when compiling or running)",
    Status.INCORRECT: "runs without an error, but computes something the code does not mean",
    Status.CRASHED: "the process dies (e.g. a segmentation fault inside MindSpore)",
    Status.TIMEOUT: "does not finish in time",
    Status.INEXPRESSIBLE: "this strategy cannot be written in this shape or workload",
    Status.BROKEN: "the strategy file does not load or does not follow the contract",
    Status.SKIPPED: "not timed (see the detail)",
    Status.MISSING: "no result: the run ended before this cell",
}
FAILURES = frozenset({Status.RAISES, Status.INCORRECT, Status.CRASHED, Status.TIMEOUT})


class Kind(str, Enum):
    """Kinds of silent failure: the mode computes something the code does not mean."""

    WRITE_DROPPED = "write dropped"  # the Parameter keeps its value where the code writes one
    WRONG_VALUE = "wrong value"  # the Parameter changes, but not to what the code writes
    OUTDATED = "follows the old values after a reload"  # the update keeps using replaced values
    STALE_READ = "stale read"  # a read saw the old value where the code's read sees the new one
    FUTURE_READ = "future read"  # a read placed before the write returned the written value
    WRONG_OUTPUT = "wrong output"  # the output is wrong in another way
    # output and state right, the gradient not: after the kinds of the forward, which explain it
    WRONG_GRADIENT = "wrong gradient"
    DIFFERS = "differs between processes"  # the same code gives different results per process

    def __str__(self) -> str:
        return self.value

    @property
    def meaning(self) -> str:
        return KIND_MEANINGS[self]


KIND_MEANINGS = {
    Kind.WRITE_DROPPED: "no error, but the Parameter keeps its old value",
    Kind.WRONG_VALUE: "no error, but the Parameter gets a value the code does not write",
    Kind.OUTDATED: (
        "no error, but after the weights are replaced from outside (a checkpoint loaded with "
        "load_param_into_net, or set_data) the update goes on with their old values"
    ),
    Kind.STALE_READ: "a read that the code places after the write returns the value from before it",
    Kind.FUTURE_READ: "a read the code places before the write returns the value it writes",
    Kind.WRONG_OUTPUT: "the output is wrong in a way no reading of the state explains",
    Kind.WRONG_GRADIENT: (
        "no error, but the gradient of a loss of the output, with respect to the input or the "
        "trainable weights, is not the one the code defines"
    ),
    Kind.DIFFERS: "the same code is right in some processes and wrong in others",
}
KINDS = tuple(Kind)  # in this order: the first kind a cell shows is its kind

# Where a failure shows when the first instance of the class is right (the gate's qualifiers,
# the start of such a verdict's detail): a later instance of the same class in the same process,
# or the class's layers inside one network (issue 29: users build many layers of one class).
SECOND_ONLY = "in a second instance only"
THIRD_ONLY = "in a third instance only"
NETWORK_ONLY = "in a network of two layers only"
INSTANCE_QUALIFIERS = (SECOND_ONLY, THIRD_ONLY, NETWORK_ONLY)


def instance_qualifier(detail: str) -> str:
    """The instance qualifier a verdict's detail starts with ("" when none)."""
    return next((q for q in INSTANCE_QUALIFIERS if str(detail).startswith(q)), "")


_VOLATILE = (  # what differs between two processes raising the same error (issue 29)
    (re.compile(r"<([\w.]+(?: [\w.]+)*) object at 0x[0-9a-fA-F]+>"), r"<\1 object>"),
    (re.compile(r"\b0x[0-9a-fA-F]{4,}\b"), "0x…"),
    (re.compile(r"\b(id|pid|tid|thread|handle)([=: ]+)\d+", re.I), r"\1\2…"),
    (re.compile(r"(?:/tmp|/var/tmp|/var/folders|/dev/shm)/[^\s'\":,)\]]*"), "<tmp path>"),
    (re.compile(r"\b(tmp|temp)[\w-]*[0-9a-z_]{6,}\b", re.I), "<tmp name>"),
)


def comparable(message: str) -> str:
    """``message`` without what changes from process to process for the same error: object
    addresses (``0x7f...``, ``<X object at 0x...>``), ids (``id=1234``), temporary paths."""
    for pattern, repl in _VOLATILE:
        message = pattern.sub(repl, message)
    return message


def signature(status: str, kind: str = "", detail: str = "") -> str:
    """What a verdict is, in one comparable string: ``works``, ``incorrect: <kind>``,
    ``raises: <exception type>: <first words of its message>`` or the bare status."""
    status = str(status)
    if status == "incorrect":
        return f"incorrect: {kind}" if kind else status
    if status == "raises":
        where = instance_qualifier(detail)  # "<qualifier> (the first works): step 1 (...): ..."
        text = detail.split("): ", 1)[1] if where and "): " in detail else detail
        if text.startswith(("step ", "building")):
            text = text.split(": ", 1)[1]
        exc, _, message = text.partition(": ")
        words = " ".join(comparable(message).split()[:8])
        said = f"raises: {exc}: {words}" if words else f"raises: {exc}"
        return f"{said} ({where})" if where else said
    return status


def _verdict_2_to_3(data: dict) -> dict:
    """Version 2 judged every cell against the cell's intended result and let a strategy file
    declare its failures (``expected``, ``declared``); version 3 judges the code's meaning and
    names the kind. A version-2 verdict is kept as it was judged: against the intent, no kind."""
    out = {k: v for k, v in data.items() if k not in ("expected", "declared")}
    return {**out, "intended": True, "kind": "", "kinds": [], "schema_version": 3}


def _fields_added_2_to_3(data: dict) -> dict:
    """Version 3 only added fields with defaults (timing ``stage``; manifest ``refused``,
    ``environment``, ``suite_commit``)."""
    return {**data, "schema_version": 3}


# kind of record -> {version: function that turns a record of that version into the next one}
UPGRADES = {
    "verdict": {2: _verdict_2_to_3},
    "timing": {2: _fields_added_2_to_3},
    "manifest": {2: _fields_added_2_to_3},
}


def check_version(data: dict, what: str, kind: str | None = None) -> int:
    """The schema version of ``data``; SchemaError unless this code writes it or can upgrade it
    (``kind``: which ``UPGRADES`` chain applies; None: only the current version is read)."""
    if not isinstance(data, dict):
        raise SchemaError(f"{what}: not a JSON object")
    version = data.get("schema_version", 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise SchemaError(f"{what}: bad schema_version {version!r}")
    if version > SCHEMA_VERSION:
        raise SchemaError(
            f"{what}: schema_version {version} is newer than this suite reads "
            f"({SCHEMA_VERSION}); update the suite (git pull) to read it"
        )
    steps = UPGRADES.get(kind, {})
    if version < SCHEMA_VERSION and not all(v in steps for v in range(version, SCHEMA_VERSION)):
        raise SchemaError(
            f"{what}: schema_version {version} was written by an older suite (this one reads "
            f"{SCHEMA_VERSION} and upgrades {_upgradable(kind)}); re-run it with this suite"
        )
    return version


def _upgradable(kind: str | None) -> str:
    steps = sorted(UPGRADES.get(kind, {}))
    return f"{kind} records from version {steps[0]}" if steps else "nothing older"


def upgrade(data: dict, kind: str, what: str | None = None) -> dict:
    """``data`` as the current version: older versions go through ``UPGRADES[kind]`` step by
    step; SchemaError for a version it cannot read."""
    version = check_version(data, what or kind, kind)
    while version < SCHEMA_VERSION:
        data = UPGRADES[kind][version](data)
        version = data["schema_version"]
    return data


def _build(cls, data: dict):
    """``cls(**data)`` keeping only known fields (extra keys of a minor change are ignored)."""
    names = {f.name for f in fields(cls)}
    return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class Verdict:
    """The gate's finding for one strategy × shape × mode of a workload, in one gate process
    (``replica``), or merged over several (``replica`` -1, see ``bench.core.verdicts``)."""

    workload: str
    strategy: str
    shape: str
    mode: str
    status: Status
    kind: str = ""  # the kind of silent failure (bench.measured.oracle.Kind) of an incorrect one
    kinds: list = field(default_factory=list)
    detail: str = ""
    dims: dict = field(default_factory=dict)  # the shape's value per dimension
    layout: str = ""
    meaning: str = ""  # what the shape's reads see under eager semantics: before / after
    intended: bool = True  # the code's meaning is the cell's intent
    replica: int = 0
    steps: list = field(default_factory=list)  # per step: what it showed (oracle.Step)
    diagnostics: dict = field(default_factory=dict)  # e.g. graph breaks under bytecode capture
    evidence: dict = field(default_factory=dict)  # merged: what each gate and timing process saw
    cache_key: str = ""  # what it depends on (code, mode, release, gate), hashed (gate_cache)
    reused: str = ""  # the run this verdict was copied from (same key), "" when gated here
    seconds: float = 0.0
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self):
        object.__setattr__(self, "status", Status(self.status))

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.strategy, self.shape, self.mode)

    def to_dict(self) -> dict:
        return {**asdict(self), "status": str(self.status)}

    @classmethod
    def from_dict(cls, data: dict) -> Verdict:
        return _build(cls, upgrade(data, "verdict"))


@dataclass(frozen=True)
class Timing:
    """One timed cell in one worker process: raw per-round samples, nothing derived.

    ``step_s[i]`` is round i's block of ``k`` subject steps divided by k (pytest-benchmark's
    ``stats.data`` with ``iterations = k``); ``control_s[i]`` the paired twin block, run right
    before or after it (``control_position[i]``, ABBA), divided by k. In a race the twin's
    blocks are its own (divided by its own steps): a layout twin may run fewer steps a block than
    the race's k (``bench.run.race``), and ``k`` is then its own.
    """

    workload: str
    strategy: str
    shape: str
    mode: str
    batch_size: int
    process: int
    control: str  # "control/<shape>": the twin each round is paired with
    role: str  # "update" (vs its twin), "aa" (a twin vs itself), "layout" (a twin vs the base)
    k: int
    step_s: list = field(default_factory=list)
    control_s: list = field(default_factory=list)
    control_position: list = field(default_factory=list)
    first_call_s: float = float("nan")
    control_first_call_s: float = float("nan")
    warmup_steps: int = 0
    steps_run: int = 0
    final_state_ok: bool = True
    final_state: dict = field(default_factory=dict)
    expected_final_state: dict = field(default_factory=dict)
    sync: str = "once at the end of every block of k steps (throughput)"
    # the process's peak resident memory so far (on no page, for diagnosis only); a warm worker
    # (bench.run.warm) counts only the pages it touched since its fork, so its peak is lower
    # than a cold one's by most of the import (clip, 2026-12-07: 218-359 MB against 423-554 MB)
    peak_rss_bytes: int = 0
    order: int = 0  # position of this cell in its process (cells run in a shuffled order)
    stage: int = 0  # the timing stage that measured it (0 first; later ones for undecided cells)
    race: str = ""  # the race it ran in (every member of a race shares its rounds), "" for none
    race_base_s: list = field(default_factory=list)  # the race's base twin, the same rounds
    schema_version: int = SCHEMA_VERSION

    @property
    def ratios(self) -> list[float]:
        """Per round, the subject's block over its paired twin block (the lists pair by round:
        unequal lengths are a damaged record, not something to truncate)."""
        if len(self.step_s) != len(self.control_s):
            raise ValueError(
                f"{self.strategy}/{self.shape} N={self.batch_size}: {len(self.step_s)} subject "
                f"blocks but {len(self.control_s)} twin blocks"
            )
        return [s / c for s, c in zip(self.step_s, self.control_s, strict=True)]

    def versus(self, other: Timing) -> list[float]:
        """Per-round whole-step ratios to another member of the same race (its same rounds)."""
        if not self.race or self.race != other.race or len(self.step_s) != len(other.step_s):
            raise ValueError(f"{self.strategy} and {other.strategy} did not share rounds")
        return [a / b for a, b in zip(self.step_s, other.step_s)]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Timing:
        return _build(cls, upgrade(data, "timing"))


RACE_ROUNDS = "race rounds"  # the ``extra_info`` kind of a race's whole-round record: no Timing


@dataclass
class Manifest:
    """What a run was asked to do and how it went (``manifest.json``)."""

    run_id: str
    plan: dict
    status: RunStatus = RunStatus.RUNNING
    command: str = ""
    argv: list = field(default_factory=list)
    started: str = ""
    finished: str = ""
    invocations: list = field(default_factory=list)
    phases: dict = field(default_factory=dict)  # phase -> wall seconds (summed over resumes)
    publish: bool = False  # the run writes the reference report
    strategies: dict = field(default_factory=dict)  # name -> what the report needs to know of it
    refused: dict = field(default_factory=dict)  # strategy name -> why its file was refused
    environment: dict = field(default_factory=dict)  # versions and machine (run.machine)
    suite_commit: str = ""
    # a shard (``--shard I/N``): {"shard": "I/N", "holds": its strategy|mode units, "split"};
    # a merged run: {"merged": [each shard's run id, shard, holds, phases, environment]}
    shard: dict = field(default_factory=dict)
    # --budget: {"reached": bool, "races", "untimed", "short", "processes"} (time_phase.short_of)
    budget: dict = field(default_factory=dict)
    # how its worker processes started: {"warm": forked from a parent that had imported
    # MindSpore, "cold": a fresh interpreter each} (``bench.run.warm``; empty before 2026-12-07)
    workers: dict = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self):
        self.status = RunStatus(self.status)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Manifest:
        return _build(cls, upgrade(data, "manifest"))


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

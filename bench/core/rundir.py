"""One owner for a run folder: where every file lives, the ids that name cells, and the
checkpoint that keeps a dying timing process's finished cells.

``<results>/raw/<run-id>/``::

    manifest.json                     what was asked, how it ended (schema.Manifest)
    variants/<strategy>/<shape>.py    the generated code (regenerated from the strategy files;
                                      not committed: ``nox -s repro`` writes any of them again)
    gate/<mode>.r<replica>.p<part>.jsonl  one Verdict per line, appended as the gate finishes
    gate/fixed.jsonl                  verdicts known without gating (a refused file, a shape
                                      the workload cannot express), written at generate
    prepare/<mode>.json               steps per block (k) and the shape screen, per mode
    prepare/selection.json            which shape of each strategy is timed, and why
    prepare/bandwidth.json            the memory bandwidth (workloads with a floor)
    timing/<mode>-p<process>[-<part>][.aN].json  pytest-benchmark JSON of one timing process
                                      (attempt N; part: its race, where each has its own)
    timing/*.partial.jsonl            the checkpoint of a process still running (or that died)
    timing/*.failed.json              cells a process could not finish (crash, hang)
    logs/                             worker logs and job files
    report/                           the report of a run that is not the reference

Every file is written atomically or appended line by line with fsync; every reader skips a
damaged file with a reason instead of failing.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path

from bench.core.io import read_json, write_json_atomic

_VERDICT = re.compile(r"^(?P<strategy>[^@]+)@(?P<shape>.+)-(?P<mode>[a-z_]+)$")
_TEST = re.compile(r"^(?P<strategy>[^@]+)@(?P<shape>.+)-(?P<mode>[a-z_]+)-N(?P<size>\d+)$")


def new_run_id() -> str:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{now}-{secrets.token_hex(2)}"


def now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True, order=True)
class CellId:
    """A timed cell: a strategy (or ``control``) in a shape, in a mode, at a size."""

    strategy: str
    shape: str
    mode: str
    size: int

    @property
    def test_id(self) -> str:
        """Its pytest id in a timing file: ``<strategy>@<shape>-<mode>-N<size>``."""
        return f"{self.strategy}@{self.shape}-{self.mode}-N{self.size}"

    @property
    def key(self) -> str:
        """Its progress key: ``<strategy>/<shape>/N<size>`` (the mode is the job's)."""
        return f"{self.strategy}/{self.shape}/N{self.size}"

    @classmethod
    def parse(cls, test_id: str) -> CellId:
        m = _TEST.match(test_id)
        if not m:
            raise ValueError(f"not a cell id: {test_id!r}")
        return cls(m["strategy"], m["shape"], m["mode"], int(m["size"]))


def verdict_name(strategy: str, shape: str, mode: str) -> str:
    """A verdict's name (a reproduction script's, without ``.py``): ``<strategy>@<shape>-<mode>``
    (a cell id without the size)."""
    return f"{strategy}@{shape}-{mode}"


def parse_verdict_name(name: str) -> tuple[str, str, str]:
    """(strategy, shape, mode) of ``verdict_name`` (a trailing ``.py`` is ignored)."""
    m = _VERDICT.match(name.removesuffix(".py"))
    if not m:
        raise ValueError(f"not a verdict name (STRATEGY@SHAPE-MODE): {name!r}")
    return m["strategy"], m["shape"], m["mode"]


def k_key(control: str, size: int) -> str:
    """The key of the steps-per-block table: a twin at a size."""
    return f"{control}/N{size}"


class RunDir:
    """The paths of one run folder (see the module docstring)."""

    def __init__(self, path: Path | str):
        self.path = Path(path)

    @property
    def run_id(self) -> str:
        return self.path.name

    @property
    def manifest(self) -> Path:
        return self.path / "manifest.json"

    @property
    def variants(self) -> Path:
        return self.path / "variants"

    @property
    def gate(self) -> Path:
        return self.path / "gate"

    @property
    def prepare(self) -> Path:
        return self.path / "prepare"

    @property
    def timing(self) -> Path:
        return self.path / "timing"

    @property
    def logs(self) -> Path:
        return self.path / "logs"

    @property
    def report(self) -> Path:
        return self.path / "report"

    def exists(self) -> bool:
        return self.manifest.is_file()

    def variant(self, strategy: str, shape: str) -> Path:
        return self.variants / strategy / f"{shape}.py"

    def gate_file(self, mode: str, replica: int, part: int = 0) -> Path:
        """The verdict lines of one gate process (``part``: one of a mode's parallel chunks)."""
        return self.gate / f"{mode}.r{replica}.p{part}.jsonl"

    @property
    def fixed(self) -> Path:
        """Verdicts decided at generate, without a gate process (see the module docstring)."""
        return self.gate / "fixed.jsonl"

    def gate_files(self) -> list[Path]:
        return sorted(self.gate.glob("*.jsonl"))

    def prepare_file(self, mode: str) -> Path:
        return self.prepare / f"{mode}.json"

    @property
    def selection(self) -> Path:
        return self.prepare / "selection.json"

    @property
    def bandwidth(self) -> Path:
        return self.prepare / "bandwidth.json"

    def timing_file(self, mode: str, process: int, part: str = "") -> Path:
        """A fresh file for a timing process: a resumed or retried one never overwrites.
        ``part``: which of the process's parts it is, where a mode runs each race in a process
        of its own (``-N1024``)."""
        stem = f"{mode}-p{process}" + (f"-{part}" if part else "")
        out = self.timing / f"{stem}.json"
        n = 0
        while (
            out.exists() or partial_path(out).exists() or out.with_suffix(".failed.json").exists()
        ):
            n += 1
            out = self.timing / f"{stem}.a{n}.json"
        return out

    def timing_files(self) -> list[Path]:
        return sorted(
            p
            for p in self.timing.glob("*.json")
            if not p.name.endswith((".failed.json", ".pytest.json"))
        ) + sorted(self.timing.glob("*.failed.json"))

    def checkpoints(self) -> list[Path]:
        return sorted(self.timing.glob("*.partial.jsonl"))

    def timing_of(self, mode: str, process: int) -> list[Path]:
        return [
            p
            for p in self.timing_files()
            if re.fullmatch(
                rf"{re.escape(mode)}-p{process}(-\w+)?(\.a\d+)*(\.failed)?\.json", p.name
            )
        ]


def partial_path(out: str | Path) -> Path:
    return Path(out).with_suffix(".partial.jsonl")


class Checkpoint:
    """Lines appended and fsync'd as results finish: a timing process's cells, the gate's
    verdicts. The first line of a timing checkpoint is the file's ``suite`` header; then one line
    per cell: its pytest-benchmark record and its status. A process that ends normally writes its
    timing file and removes the checkpoint; if it dies, ``salvage`` turns the checkpoint into
    that file, so only unfinished cells are lost."""

    def __init__(self, path: Path, mode: str = "a"):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = open(self.path, mode, encoding="utf-8", newline="\n")  # for the process's life

    def write(self, **line) -> None:
        self._file.write(json.dumps(line, default=str) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()

    def remove(self) -> None:
        self._file.close()
        self.path.unlink(missing_ok=True)


def read_lines(path: Path, problems: list[str]) -> list[dict]:
    """The JSON objects of a line file; a torn last line (a process died writing it) skipped."""
    out = []
    for n, line in enumerate(
        Path(path).read_text(encoding="utf-8", errors="replace").splitlines(), 1
    ):
        try:
            record = json.loads(line)
        except ValueError:
            problems.append(f"{Path(path).name}: line {n} is not JSON (cut short?), skipped")
            continue
        if isinstance(record, dict):
            out.append(record)
    return out


def salvage(out: str | Path, ended: dict) -> set[str]:
    """Write the timing file of a process that died from its checkpoint; the tests it holds.

    ``ended`` says how the process ended (``status``, ``detail``; stored as ``suite.ended``).
    Never overwrites a file; removes the checkpoint."""
    partial = partial_path(out)
    if not partial.is_file():
        return set()
    suite, benchmarks, cells = {}, [], []
    for record in read_lines(partial, []):
        suite = record.get("suite", suite)
        if "benchmark" in record:
            benchmarks.append(record["benchmark"])
        if "cell" in record:
            cells.append(record["cell"])
            suite["finished"], suite["load"] = record.get("at"), record.get("load")
    target, written = Path(out), False
    if suite and not target.exists():  # even with no cell: the file says how the process ended
        suite.update(cells=cells, pytest_exit_code=None, ended=ended)
        write_json_atomic(target, {"benchmarks": benchmarks, "suite": suite})
        written = True
    partial.unlink()
    return {c["test"] for c in cells} if written else set()


def recorded_tests(paths: list[Path]) -> set[str]:
    """The cells (test ids) the given timing files hold."""
    found = set()
    for path in paths:
        try:
            found |= {c["test"] for c in read_json(path)["suite"].get("cells", [])}
        except (OSError, ValueError, KeyError, TypeError):
            continue  # unreadable: the report names it; its cells are measured again
    return found

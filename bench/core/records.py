"""Read a run folder into the result model: verdicts, timings, the prepare step, the manifest.

Bad files are skipped with a reason (``problems``), never raised, so a damaged run still reports
what it has; a file of another schema version raises SchemaError (``bench.core.schema``). Each
timing file is read once (``Records.timing``) and everything else is derived from that.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from bench.core.rundir import RunDir, read_lines
from bench.core.schema import (
    RACE_ROUNDS,
    Manifest,
    SchemaError,
    Status,
    Timing,
    Verdict,
    check_version,
)


def _read(path: Path, problems: list[str]):
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        problems.append(f"{Path(path).name}: unreadable JSON, skipped ({exc})")
        return None


def read_manifest(run: RunDir, problems: list[str]) -> Manifest:
    data = _read(run.manifest, problems)
    if not isinstance(data, dict):
        return Manifest(run_id=run.run_id, plan={}, status="unknown")
    manifest = Manifest.from_dict(data)
    manifest.run_id = run.run_id  # the name the user types, even for a copied run
    return manifest


def read_verdicts(run: RunDir, problems: list[str]) -> list[Verdict]:
    """Every verdict of every gate process (one per strategy × shape × mode × replica)."""
    out = []
    for path in run.gate_files():
        for record in read_lines(path, problems):
            try:
                out.append(Verdict.from_dict(record))
            except SchemaError:
                raise
            except (TypeError, ValueError) as exc:
                problems.append(f"gate/{path.name}: not a verdict, skipped ({exc})")
    return out


@dataclass
class TimingFile:
    path: Path
    suite: dict
    timings: list[Timing] = field(default_factory=list)

    @property
    def cells(self) -> list[dict]:
        return [{**c, "file": self.path.name} for c in self.suite.get("cells", [])]


def read_timing(run: RunDir, problems: list[str]) -> list[TimingFile]:
    """Every timing file of the run, parsed once."""
    out = []
    for path in run.timing_files():
        data = _read(path, problems)
        if data is None:
            continue
        if not (isinstance(data, dict) and isinstance(data.get("suite"), dict)):
            problems.append(f"{path.name}: no 'suite' object, skipped")
            continue
        check_version(data["suite"], path.name, "timing")
        file = TimingFile(path, data["suite"])
        for bench in data.get("benchmarks", []):
            if bench.get("extra_info", {}).get("kind") == RACE_ROUNDS:
                continue  # a race's whole rounds: its members are records of their own
            try:
                file.timings.append(Timing.from_dict(bench["extra_info"]))
            except SchemaError:
                raise
            except (KeyError, TypeError, ValueError) as exc:
                problems.append(f"{path.name}: benchmark {bench.get('name')!r} unusable: {exc!r}")
        out.append(file)
    return out


def read_prepare(run: RunDir, problems: list[str]) -> dict[str, dict]:
    """{mode: {"k": {...}, "screen": [...]}} of every prepare file."""
    out: dict[str, dict] = {}
    for path in sorted(run.prepare.glob("*.json")):
        if path.name in ("selection.json", "bandwidth.json"):
            continue
        data = _read(path, problems)
        if not isinstance(data, dict) or "suite" not in data:
            continue
        check_version(data["suite"], path.name)
        mode = out.setdefault(data["mode"], {"k": {}, "screen": []})
        mode["k"].update(data.get("k", {}))
        mode["screen"].extend(data.get("screen", []))
    return out


class Records:
    """Everything a run folder holds, each file read once (the runner, the report and the
    terminal summary all read a run through this)."""

    def __init__(self, path: Path | str):
        self.run = RunDir(path)
        self.problems: list[str] = []

    @cached_property
    def manifest(self) -> Manifest:
        return read_manifest(self.run, self.problems)

    @cached_property
    def verdicts(self) -> list[Verdict]:
        return read_verdicts(self.run, self.problems)

    @cached_property
    def timing(self) -> list[TimingFile]:
        return read_timing(self.run, self.problems)

    @property
    def timings(self) -> list[Timing]:
        return [t for f in self.timing for t in f.timings]

    @property
    def cell_statuses(self) -> list[dict]:
        return [c for f in self.timing for c in f.cells]

    @cached_property
    def prepare(self) -> dict[str, dict]:
        return read_prepare(self.run, self.problems)

    @cached_property
    def selection(self) -> list[dict]:
        if not self.run.selection.is_file():
            return []
        data = _read(self.run.selection, self.problems)
        return data.get("chosen", []) if isinstance(data, dict) else []

    @cached_property
    def bandwidth(self) -> dict:
        if not self.run.bandwidth.is_file():
            return {}
        data = _read(self.run.bandwidth, self.problems)
        if not isinstance(data, dict):
            return {}
        check_version(data, self.run.bandwidth.name)
        return data

    def restarts(self) -> list[str]:
        """One line per timing process that died and whose finished cells were kept."""
        lines = []
        for f in self.timing:
            ended = f.suite.get("ended")
            if isinstance(ended, dict):
                at = f" at `{ended['at']}`" if ended.get("at") else ""
                lines.append(
                    f"{f.path.name}: the timing process stopped ({ended.get('status')}: "
                    f"{ended.get('detail')}){at}; {len(f.suite.get('cells', []))} finished "
                    "cells kept, the others measured in a new process"
                )
        return lines


def failed_status(text: str) -> Status:
    return Status(text) if text in Status._value2member_map_ else Status.CRASHED

"""Read a run folder into the result model: verdicts, timings, the prepare step, the manifest.

Bad files are skipped with a reason (``problems``), never raised: a damaged run still reports
what it has. Files of schema version 1 (runs made before code shapes existed: ``gate-*.json`` and
``time-*.json`` at the top of the run folder) are read too, as the shape ``as-written``.
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.core.schema import Manifest, SchemaError, Status, Timing, Verdict, check_version

V1_STATUS = {  # version-1 status -> (status, declared)
    "works": ("works", False),
    "unsupported": ("raises", True),
    "broken": ("raises", False),
    "incorrect": ("incorrect", None),
    "unexpected-success": ("works", False),
    "inexpressible": ("inexpressible", False),
    "crashed": ("crashed", False),
    "timeout": ("timeout", False),
}


def _read(path: Path, problems: list[str]):
    try:
        return json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        problems.append(f"{path.name}: unreadable JSON, skipped ({exc})")
        return None


def read_manifest(run_dir: Path, problems: list[str]) -> Manifest:
    data = _read(Path(run_dir) / "manifest.json", problems)
    try:
        manifest = Manifest.from_dict(data if isinstance(data, dict) else {})
    except (SchemaError, TypeError) as exc:
        if isinstance(exc, SchemaError):
            raise
        manifest = Manifest(run_id=Path(run_dir).name, plan={}, status="unknown")
    manifest.run_id = Path(run_dir).name  # the name the user types, even for a copied run
    return manifest


def _v1_verdict(suite: dict) -> Verdict:
    v = suite["verdict"]
    status, declared = V1_STATUS.get(v["status"], (v["status"], False))
    if v["status"] == "broken" and v.get("detail", "").startswith("failed to load"):
        status = "broken"
    return Verdict(
        workload=suite.get("workload", "clip"),
        strategy=v["strategy"],
        shape="as-written",
        mode=v["mode"],
        status=status,
        detail=v.get("detail", ""),
        declared=bool(v.get("declared")) if declared is None else declared,
        expected="(declared)" if (declared or v.get("declared")) else None,
        layout=suite.get("layout", ""),
        schema_version=2,
    )


def _v1_timing(bench: dict, suite: dict) -> Timing:
    info = bench["extra_info"]
    k = int(info["steps_per_round"])
    layout = info.get("layout") or suite.get("layout", "scalar")
    return Timing(
        workload=info.get("workload", "clip"),
        strategy=info["strategy"],
        shape="as-written",
        mode=info["mode"],
        batch_size=int(info["batch_size"]),
        process=int(info["process"]),
        control=f"control/{layout}-param",
        role="update",
        k=k,
        step_s=[t / k for t in bench["stats"]["data"]],
        control_s=[t / k for t in info.get("control_data", [])],
        control_position=info.get("control_position", []),
        first_call_s=info.get("first_call_s", float("nan")),
        control_first_call_s=info.get("control_first_call_s", float("nan")),
        steps_run=info.get("steps_run", 0),
        final_state_ok=info.get("final_state_ok", info.get("final_limit_ok", True)),
        peak_rss_bytes=info.get("peak_rss_bytes", 0),
        schema_version=2,
    )


def read_verdicts(run_dir: Path, problems: list[str]) -> list[Verdict]:
    run_dir, out = Path(run_dir), []
    for path in sorted((run_dir / "gate").glob("*.json")):
        data = _read(path, problems)
        if data is None:
            continue
        try:
            out.append(Verdict.from_dict(data))
        except SchemaError:
            raise
        except (TypeError, ValueError) as exc:
            problems.append(f"gate/{path.name}: not a verdict, skipped ({exc})")
    for path in sorted(run_dir.glob("gate-*.json")):  # version 1
        data = _read(path, problems)
        if isinstance(data, dict) and isinstance(data.get("suite"), dict):
            try:
                out.append(_v1_verdict(data["suite"]))
            except (KeyError, TypeError, ValueError) as exc:
                problems.append(f"{path.name}: not a verdict, skipped ({exc!r})")
    return out


def read_timing_files(run_dir: Path, problems: list[str]) -> list[tuple[Path, dict]]:
    """(path, parsed pytest-benchmark JSON) of every timing file, current and version 1."""
    run_dir, out = Path(run_dir), []
    for path in [
        *sorted((run_dir / "timing").glob("*.json")),
        *sorted(run_dir.glob("time-*.json")),
    ]:
        if path.name.endswith(".pytest.json"):
            continue
        data = _read(path, problems)
        if data is None:
            continue
        if not (isinstance(data, dict) and isinstance(data.get("suite"), dict)):
            problems.append(f"{path.name}: no 'suite' object, skipped")
            continue
        out.append((path, data))
    return out


def read_timings(run_dir: Path, problems: list[str]) -> tuple[list[Timing], list[dict]]:
    """(every timed cell, every cell status a worker or the runner recorded)."""
    timings, cells = [], []
    for path, data in read_timing_files(run_dir, problems):
        suite = data["suite"]
        version = check_version(suite, path.name)
        for cell in suite.get("cells", []):
            cells.append({**cell, "file": path.name})
        for bench in data.get("benchmarks", []):
            try:
                info = bench["extra_info"]
                if version == 1:
                    if str(info.get("strategy", "")).startswith("control_"):
                        continue  # version 1 timed its controls against themselves
                    timings.append(_v1_timing(bench, suite))
                else:
                    timings.append(Timing.from_dict(info))
            except SchemaError:
                raise
            except (KeyError, TypeError, ValueError) as exc:
                problems.append(f"{path.name}: benchmark {bench.get('name')!r} unusable: {exc!r}")
    return timings, cells


def read_prepare(run_dir: Path, problems: list[str]) -> dict[str, dict]:
    """{mode: {"k": {...}, "screen": [...]}} merged over every prepare file of a mode."""
    out: dict[str, dict] = {}
    for path in sorted((Path(run_dir) / "prepare").glob("*.json")):
        data = _read(path, problems)
        if not isinstance(data, dict) or "suite" not in data:
            continue
        check_version(data["suite"], path.name)
        mode = out.setdefault(data["mode"], {"k": {}, "screen": []})
        mode["k"].update(data.get("k", {}))
        mode["screen"].extend(data.get("screen", []))
    return out


def read_bandwidth(run_dir: Path, problems: list[str]) -> dict:
    """The memory bandwidth a run measured (``prepare/bandwidth.json``), or {}."""
    path = Path(run_dir) / "prepare" / "bandwidth.json"
    data = _read(path, problems) if path.is_file() else None
    if not isinstance(data, dict):
        return {}
    check_version(data, path.name)
    return data


def failed_status(text: str) -> Status:
    return Status(text) if text in Status._value2member_map_ else Status.CRASHED

"""What the terminal shows after a run: the final verdicts per strategy and mode, the strategy
files that were refused and why, every verdict that differs from the record of this MindSpore
release (``bench.core.expected``), and the exit code of ``python -m bench``."""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from bench.core import expected, verdicts
from bench.core.exits import Outcome, exit_code, message
from bench.core.records import Records
from bench.core.schema import Status
from bench.measured.shapes import CONTROL

CRASHES = (Status.CRASHED.value, Status.TIMEOUT.value)


def _outcome(v) -> str:
    return f"{v.status.label}: {v.kind}" if v.kind else v.status.label


def print_summary(
    run_dir: Path,
    record: bool = False,
    out=print,
    folder=None,
    varying: bool = False,
    outcomes: list | None = None,
) -> int:
    """Print a finished run's verdicts and what differs from the record; return its exit code
    (and append its ``Outcome`` to ``outcomes`` when given: several workloads' total)."""
    rec = Records(run_dir)
    manifest = rec.manifest
    final = verdicts.final(rec.verdicts, rec.cell_statuses)
    by_strategy = defaultdict(list)
    for v in final:
        by_strategy[v.strategy].append(v)
    out("\nverdicts per strategy and mode (works / shapes; what the code means, eager semantics)")
    for name, vs in sorted(by_strategy.items()):
        if name in manifest.refused:
            continue
        if all(v.status == Status.INEXPRESSIBLE for v in vs) and len({v.shape for v in vs}) == 1:
            out(f"  {name:20s} n/a: {vs[0].detail}")
            continue
        parts = []
        for mode in manifest.plan.get("modes", sorted({v.mode for v in vs})):
            mine = [v for v in vs if v.mode == mode and v.status != Status.INEXPRESSIBLE]
            if not mine:
                continue
            counts = Counter(_outcome(v) for v in mine if v.status != Status.WORKS)
            works = sum(v.status == Status.WORKS for v in mine)
            fails = ", ".join(f"{n} {k}" for k, n in counts.most_common())
            parts.append(f"{mode} {works}/{len(mine)}" + (f" ({fails})" if fails else ""))
        out(f"  {name:20s} " + "; ".join(parts))
    for name, reason in sorted(manifest.refused.items()):
        out(f"  REFUSED {name}: {reason}")
    differences = []
    version = manifest.plan.get("mindspore", "unknown")
    path = expected.path_for(version, folder or expected.EXPECTED_DIR)
    checked = [v for v in final if v.strategy != CONTROL or v.status != Status.WORKS]
    if record or varying:
        changed = expected.record(path, checked, version, varying=varying)
        what = "cell(s) that vary between runs" if varying else "changed verdict(s)"
        out(f"recorded {changed} {what} in {path} (review the diff)")
    else:
        differences = expected.compare(checked, expected.read(path))
        if differences:
            out(f"\nverdicts that differ from {path.name} (record them with --record):")
        for d in differences:
            v = d.verdict
            was = (
                "no line (a failure nobody recorded)" if d.unrecorded else f"recorded {d.recorded}"
            )
            out(f"  {v.strategy}/{v.shape} {v.mode}: {d.observed}; {was}")
            if v.detail:
                out(f"      {v.detail[:200]}")
    crashed = [c for c in rec.cell_statuses if c.get("status") in CRASHES]
    for c in crashed:
        out(f"  timing: {c['test']}: {c['status']}: {c.get('detail', '')[:160]}")
    for p in rec.problems:
        out(f"  problem: {p}")
    outcome = Outcome(
        refused=len(manifest.refused), differences=len(differences), crashes=len(crashed)
    )
    if message(outcome):
        out(message(outcome))
    if outcomes is not None:
        outcomes.append(outcome)
    return int(exit_code(outcome))

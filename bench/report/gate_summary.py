"""What the terminal shows after a run: verdict counts, what is not as declared, what to paste.

Returns the exit code of ``python -m bench``: 1 when a verdict differs from what its strategy
file declares (an undeclared failure, or a declared one that works) or a timing worker crashed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from bench.core import records
from bench.core.schema import Status
from bench.measured.shapes import CONTROL
from bench.report.findings import declarations, failure_class, render_declarations


def print_summary(run_dir: Path, strategies_dir: Path, out=print) -> int:
    problems: list[str] = []
    verdicts = records.read_verdicts(run_dir, problems)
    _, cells = records.read_timings(run_dir, problems)
    by_strategy = defaultdict(list)
    for v in verdicts:
        by_strategy[v.strategy].append(v)
    out("\ngate: verdicts per strategy and mode (works / all shapes)")
    bad = 0
    for name, vs in sorted(by_strategy.items()):
        per_mode = defaultdict(Counter)
        for v in vs:
            per_mode[v.mode][failure_class(v) if v.status.failed else str(v.status)] += 1
        cells_text = []
        if all(v.status == Status.INEXPRESSIBLE for v in vs) and len({v.shape for v in vs}) == 1:
            out(f"  {name:20s} n/a: {vs[0].detail}")
            continue
        for mode, counts in sorted(per_mode.items()):
            total = sum(n for k, n in counts.items() if k != "inexpressible")
            fails = ", ".join(
                f"{n} {k}" for k, n in counts.most_common() if k not in ("works", "inexpressible")
            )
            if not total:
                cells_text.append(f"{mode} n/a ({next(v.detail for v in vs if v.mode == mode)})")
                continue
            cells_text.append(
                f"{mode} {counts['works']}/{total}" + (f" ({fails})" if fails else "")
            )
        out(f"  {name:20s} " + "; ".join(cells_text))
        if name == CONTROL:
            continue
        wrong = [v for v in vs if not v.as_declared]
        if not wrong:
            continue
        bad += len(wrong)
        undeclared = sum(v.status.failed for v in wrong)
        stale = len(wrong) - undeclared
        out(
            f"    NOT AS DECLARED: {undeclared} undeclared failure(s), {stale} declared "
            f"failure(s) that work; to declare what this run found, put in "
            f"{Path(strategies_dir) / (name + '.py')}:"
        )
        for line in render_declarations(declarations(vs)).splitlines():
            out(f"      {line}")
    crashed = [
        c
        for c in cells
        if c.get("status") in (Status.CRASHED, Status.TIMEOUT, "crashed", "timeout")
    ]
    for c in crashed:
        out(f"  timing: {c['test']}: {c['status']}: {c.get('detail', '')[:160]}")
    for p in problems:
        out(f"  problem: {p}")
    if bad or crashed:
        out(f"exit 1: {bad} verdict(s) not as declared, {len(crashed)} timing crash(es)")
        return 1
    return 0

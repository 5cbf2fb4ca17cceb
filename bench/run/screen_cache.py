"""A screen already made: a run chooses each strategy's shape from the screen of identical code
in an earlier run, where one exists, and screens only the rest. A tier that does not screen
(``--quick``) always does so; one that does, unless the run gates afresh or screens every shape
(``prepare_phase.screens``).

Without a screen a run times each strategy's simplest shape, and for some writes that is the
costliest way of reading the state: the clip's (1,) Parameter read directly costs 24–34× the
0-d view for the scatter and index writes at N = 256 (the clip reference's screen). A run
without a screen then spends most of its rounds on reads no default run times, and ranks those
writes on the read. The screen's choice (``select.choose``) is kept, not re-measured.

Reuse is exact, as for the gate's verdicts (``gate_cache``). A strategy's screen is reused only
where every cost class ``select.choose`` compares was screened in that run, against the base twin
it was screened against. Every screened shape, and that base twin, must be the same code in the
same mode, meaning, release and gate there as here (the gate's cache key). The runs searched are
those beside this one and the workload's committed reference, newest first. The choice's ``why``
names the run whose screen it reused: its ratios were measured there, on that run's machine and
day, not here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.core.records import read_prepare
from bench.core.rundir import RunDir
from bench.core.schema import SchemaError
from bench.run import gate_cache


@dataclass(frozen=True)
class Screened:
    """What one run knows: the gate's cache key of each (strategy, shape, mode) it gated, and
    each mode's screen rows (``prepare/<mode>.json``: strategy, shape, control, ratios)."""

    run_id: str
    keys: dict  # {(strategy, shape, mode): cache key}
    screen: dict  # {mode: [row, ...]}


def read(run: Path) -> Screened | None:
    """A run folder's keys and screen; None when it screened nothing (nothing to reuse)."""
    folder = RunDir(run)
    try:
        prepared = read_prepare(folder, [])
        screen = {m: d["screen"] for m, d in prepared.items() if d.get("screen")}
        if not screen:
            return None
        keys: dict = {}
        for record in gate_cache.keyed_records(run):
            keys.setdefault(
                (record["strategy"], record["shape"], record["mode"]), record["cache_key"]
            )
    except (SchemaError, OSError, ValueError, KeyError, TypeError):  # another suite's, or torn
        return None
    return Screened(run.name, keys, screen)


def known(run: RunDir, workload: str) -> list[Screened]:
    """Every run that started before ``run``, beside it or in the workload's reference folder,
    and screened, newest first (run ids sort by their start). Only earlier runs: a ``--resume``
    chooses what the run's start chose, whatever ran since."""
    earlier = [p for p in gate_cache.searched(run, workload) if p.name < run.path.name]
    out = [s for s in (read(p) for p in earlier) if s is not None]
    return sorted(out, key=lambda s: s.run_id, reverse=True)


def reusable(
    runs: list[Screened], keys: dict, mode: str, wanted: dict[str, list[str]]
) -> dict[str, tuple[dict[str, list], str]]:
    """{strategy: ({shape: screened ratios}, the run they come from)} for each strategy of
    ``wanted`` ({strategy: the shapes the screen would time for it in ``mode``: one per cost
    class}) that one of ``runs`` (newest first) screened in full: every wanted shape, and the
    base twin each was screened against, has the same cache key there as in ``keys`` (this
    run's). A strategy no run screened in full is left out (it is timed in its simplest shape)."""
    out: dict[str, tuple[dict[str, list], str]] = {}
    for strategy, shapes in sorted(wanted.items()):
        for run in runs:
            rows = {
                r["shape"]: r
                for r in run.screen.get(mode, [])
                if r.get("strategy") == strategy and r.get("ratios")
            }
            if all(shape in rows and _same(run, keys, strategy, shape, mode) for shape in shapes):
                if all(_same(run, keys, *_control(rows[s]), mode) for s in shapes):
                    out[strategy] = ({s: list(rows[s]["ratios"]) for s in shapes}, run.run_id)
                    break
    return out


def _control(row: dict) -> tuple[str, str]:
    strategy, _, shape = str(row.get("control", "")).partition("/")
    return strategy, shape


def _same(run: Screened, keys: dict, strategy: str, shape: str, mode: str) -> bool:
    here = keys.get((strategy, shape, mode))
    return bool(here) and run.keys.get((strategy, shape, mode)) == here

"""The progress line's ETA, replayed on this checkout's model (issue 52: "the ETA holds to ±20 %").

Each trace in ``findings/eta/`` is a run's ``logs/progress.jsonl`` (xz-compressed): every call
that told the progress line of work, and each line's ETA, with its time. This script makes the
calls again on the model in this checkout (``bench.run.progress.replay``) and prints, per run, the
share of lines before the run's last tenth whose ETA was within ±20 % of the time left, as
printed and as replayed, and the ETA's ratio to the time left at a tenth, a quarter, half and
three quarters of the run.

A trace holds the later stage's units as the run computed them. Where the run is at hand (a
run folder given, or a trace of a run committed in ``results/b2b/`` or as a reference), its later
races are counted again from the run's own stage-0 records, as this checkout would have counted
them when they were planned (``bench.run.race_cost``: their members, their planned rounds, the
run's seconds per pair of blocks). Otherwise:

- a trace whose ``note`` says ``later_units: records`` keeps them as recorded;
- an older trace counted every later member alike (its ``note`` gives the numbers; a trace
  without one was made with 0.75 and 1), and they are rescaled on the fallback model
  (``time_phase.units`` without records): a later race that started by its own rounds; the
  stage known once its stage 0 ended, and the one planned, by 4 times the rounds (the default
  tier's most rounds over stage 0's; a race run at fewer is counted a little off).

The table names the model each trace was replayed on. The guess is rescaled by the share and 4
times the rounds. The committed traces were made with warm workers; a trace that does not say is
taken as warm.

    python findings/eta_replay.py [TRACE | RUN_DIR ...]   (default: findings/eta/*.jsonl.xz)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

from bench.core import records
from bench.core.paths import ROOT, find_run
from bench.run import progress as P
from bench.run import time_phase
from bench.run.race_cost import RaceCosts

HERE = Path(__file__).parent / "eta"
BEFORE = {"later_fixed": 0.75, "later_share": 1.0}  # the model of a trace without a note
RHO = 4.0  # the default tier's max_rounds over its rounds


def member(fixed: float, rho: float) -> float:
    return fixed + (1 - fixed) * rho


def _later_items(segment: list[dict]) -> dict[int, tuple[str, str, int]]:
    """{index of a later race's item_started: (mode, its timing file, its place in the file)}."""
    out, seen = {}, {}
    for i, event in enumerate(segment):
        if event["call"] == "item_started" and event["args"][1] == "time":
            name = Path(event["args"][0]).name
            place = seen[name] = seen.get(name, -1) + 1
            if event.get("kw", {}).get("stage", 0) > 0:
                out[i] = (event["args"][2], name, place)
    return out


def recounted(segment: list[dict], run: Path, later: dict | None = None) -> dict[int, float]:
    """{index of a later race's item_started (``later``: ``_later_items``): its units counted
    from the run's records as this checkout would have counted them when the race was planned
    (its members, the rounds it was planned at, the run's seconds per pair of blocks)}; a race
    whose records are not found is left out."""
    timings = records.Records(run).timings
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    cell_seconds = manifest["plan"]["precision"].get("cell_seconds", 0.0)
    costs, out = {}, {}
    later = _later_items(segment) if later is None else later
    for i, (mode, name, place) in later.items():
        parts = Path(name).stem.split("-")  # mode-p2 or mode-p2-N64
        process = int(parts[1][1:])
        size = int(parts[2][1:]) if len(parts) > 2 else None
        mine = [t for t in timings if t.mode == mode and t.process == process and t.stage > 0
                and (size is None or t.batch_size == size)]  # fmt: skip
        order = sorted({t.order for t in mine})
        race = [t for t in mine if place < len(order) and t.order == order[place]]
        if mode not in costs:
            costs[mode] = RaceCosts.of(timings, mode, cell_seconds)
        if not race or costs[mode] is None:
            continue
        planned = segment[i]["kw"].get("rounds", len(race[0].step_s))
        members = [SimpleNamespace(strategy=t.strategy, shape=t.shape, role=t.role,
                                   control=t.control) for t in race]  # fmt: skip
        got = costs[mode].units(members, race[0].batch_size, planned)
        if got is not None:
            out[i] = got
    return out


def rescaled(segment: list[dict], run: Path | None = None) -> tuple[list[dict], str]:
    """The segment's events with the later stage in this checkout's units, and the model it
    is replayed on: ``records`` (recounted from its run), ``as recorded`` (a trace of this
    model whose run is not at hand), ``fallback`` (an older one's), or ``no later stage``."""
    was = next((e for e in segment if e["call"] == "note"), BEFORE)
    workload = P.init_of(segment).get("workload", "")
    fixed, share = time_phase.LATER_FIXED, time_phase.later_share(workload)
    to = lambda rho: member(fixed, rho) / member(was["later_fixed"], rho)  # noqa: E731
    ours = was.get("later_units") == "records"
    later_items = _later_items(segment)
    new = {} if run is None else recounted(segment, run, later_items)
    model = "records" if new else "as recorded" if ours else "fallback"
    if not later_items:
        model = "no later stage"
    old_total, new_total = {}, {}  # per mode: the later races' units as recorded, and again
    for i, (mode, _, _) in later_items.items():
        if i in new:
            old_total[mode] = old_total.get(mode, 0.0) + segment[i]["args"][3]
            new_total[mode] = new_total.get(mode, 0.0) + new[i]

    def known(mode: str, units: float, rho: float) -> float:
        """A known later stage's units: as recorded, recounted, or on the fallback model."""
        if new and mode in old_total:
            return units * new_total[mode] / old_total[mode]
        if new or ours:
            return units
        return units * to(rho)

    out, ended, planned, started, later = [], set(), False, False, False
    for i, recorded in enumerate(segment):
        event = {
            **recorded,
            "args": list(recorded.get("args", [])),
            "kw": dict(recorded.get("kw", {})),
        }
        call, args, kw = event["call"], event["args"], event["kw"]
        if call == "init":
            event.setdefault("warm", True)
        elif call == "item_started":
            started = True
            if kw.get("stage", 0) > 0 and kw.get("base_rounds"):
                if i in new:
                    args[3] = new[i]
                else:
                    args[3] = known(args[2], args[3], kw["rounds"] / kw["base_rounds"])
        elif call == "settle" and len(args) > 1:
            ended.add(args[1])
        elif call == "settle" and planned and started:
            later = True  # the later stage's own settle: what it plans now is the later stage
        elif call == "plan" and args and args[0] == "time":
            if later:
                args[2] = known(args[1], args[2], RHO)
            planned = True
        elif call == "expect" and planned:
            if args[1] in ended:
                args[2] = known(args[1], args[2], RHO)
            else:  # the guess, on this checkout's share and fallback member
                args[2] *= share / was["later_share"] * to(RHO)
        out.append(event)
    return out, model


def committed_run(trace: Path) -> Path | None:
    """The committed run a trace was made by (``<run-id>-<what>.jsonl.xz``), if any."""
    run_id = "-".join(trace.name.split(".")[0].split("-")[:2])
    for raw in sorted(ROOT.glob("results/**/raw")):
        found = find_run(raw, run_id)
        if found is not None:
            return found
    return None


def ratios(rows: list[tuple[float, float]]) -> str:
    end = rows[-1][0]
    out = []
    for share in (0.1, 0.25, 0.5, 0.75):
        t, eta = min(rows, key=lambda r: abs(r[0] - share * end))
        out.append(f"{eta / (end - t):.2f}" if end > t else "–")
    return ", ".join(out)


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(HERE.glob("*.jsonl*"))
    if not paths:
        print(f"no traces in {HERE}", file=sys.stderr)
        return 2
    for path in paths:
        if not path.exists():
            print(f"{path}: no such trace or run folder", file=sys.stderr)
            return 2
    print("| trace | lines | wall | within ±20 %, printed | replayed | later stage counted by | "
          "ETA / time left at 10, 25, 50, 75 %: printed | replayed |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for path in paths:
        run = path if (path / "manifest.json").is_file() else committed_run(path)
        for segment in P.read_trace(P.trace_of(path)):
            events, how = rescaled(segment, run)
            rows = P.replay(events)
            if not rows:
                continue
            printed = [(t, a) for t, a, _ in rows]
            model = [(t, b) for t, _, b in rows]
            name = run.name if path.is_dir() else path.name
            print(f"| {name.split('.')[0]} | {len(rows)} | {P.fmt_duration(rows[-1][0])} | "
                  f"{P.within(printed):.0%} | {P.within(model):.0%} | {how} | "
                  f"{ratios(printed)} | {ratios(model)} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

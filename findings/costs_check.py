"""The costs issue's checks on the committed references (issue 27), printed, not asserted:

1. A/A coverage per mode: of the A/A cells (the base twin against a second copy of itself), how
   many 95 % intervals contain 1.
2. No answer slower than another correct candidate: for each kind of state, mode and workload,
   the answer against every other candidate there (documented for the CPU, timed correct), head
   to head on the whole step where both were raced (the answer slower beyond the margin at some
   size is a violation).
3. No added time shown against an invalid twin: every twin ``analysis.check_twins`` rejects, and
   whether a page shows a number for a cell measured against it.

    python findings/costs_check.py            # every workload's reference
"""

from __future__ import annotations

import math
from pathlib import Path

from bench.core import paths
from bench.core.cellstats import SLOWER
from bench.measured.apis import PLATFORM
from bench.report import answer, load, readme

RESULTS = Path(__file__).resolve().parents[1] / "results"
WORKLOADS = ("clip", "brn", "kvcache", "ema")


def runs() -> dict:
    out = {}
    for w in WORKLOADS:
        ref = paths.reference(RESULTS / w / "raw")
        if ref:
            out[w] = load.load(ref)
    return out


def aa_coverage(found: dict) -> None:
    print("## A/A coverage (95 % intervals containing 1)")
    total = inside = 0
    for w, run in found.items():
        for mode, m in run.analysis.items():
            cells = [c for c in m.of_role("aa") if c.status == "works"]
            ok = 0
            for c in cells:
                low, high = c.estimate.ratio_interval
                ok += bool(math.isfinite(low) and low <= 1.0 <= high)
            if cells:
                print(f"- {w} {mode}: {ok}/{len(cells)} (processes: "
                      f"{sorted({c.processes for c in cells})})")  # fmt: skip
            total, inside = total + len(cells), inside + ok
    if total:
        print(f"- all: {inside}/{total} = {inside / total:.0%}")


def answers_not_slower(found: dict) -> None:
    print("\n## Answers against every other correct candidate, head to head")
    violations = 0
    for kind, per_mode in readme.kind_answers(found).items():
        for mode, (choice, table) in per_mode.items():
            if choice.strategy is None:
                continue
            for w, run in found.items():
                if answer.kind_of(run.work) != kind or mode not in run.analysis:
                    continue
                m = run.analysis[mode]
                mine = m.candidates.get(choice.strategy)
                if not mine:
                    continue
                raced = all(c.raced for c in mine.values())
                facts = run.manifest.strategies
                for other in m.candidates:
                    documented = PLATFORM in facts.get(other, {}).get("platforms", [])
                    if (
                        other == choice.strategy
                        or not documented
                        or not table.get(other, {}).get(w)
                    ):
                        continue  # a candidate: documented for the CPU, correct in this workload
                    standing = m.rank([other], others=[choice.strategy]).get(choice.strategy)
                    if standing and standing.outcome == SLOWER:
                        violations += 1
                        how = "head to head" if raced else "over separate twins (older run)"
                        print(f"- {kind} {mode} {w}: `{choice.strategy}` slower than `{other}` "
                              f"({how})")  # fmt: skip
    print(f"- violations: {violations}")


def invalid_twins(found: dict) -> None:
    print("\n## Invalid twins (added time not shown)")
    n = 0
    for w, run in found.items():
        for mode, m in run.analysis.items():
            bad = {c.control: c.twin_invalid for c in m.of_role("update") if c.twin_invalid}
            for twin, why in sorted(bad.items()):
                cells = [c for c in m.of_role("update") if c.control == twin]
                shown = [c for c in cells if c.shows_cost]
                n += 1
                print(f"- {w} {mode} `{twin}`: {why}; cells against it: {len(cells)}, with an "
                      f"added time shown: {len(shown)}")  # fmt: skip
    print(f"- invalid twins: {n}")


def main() -> None:
    found = runs()
    for w, run in found.items():
        print(f"{w}: {run.manifest.run_id} ({run.manifest.plan.get('precision', {}).get('tier')})")
    print()
    aa_coverage(found)
    answers_not_slower(found)
    invalid_twins(found)


if __name__ == "__main__":
    main()

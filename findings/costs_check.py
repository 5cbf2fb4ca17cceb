"""The costs issue's checks on the committed references (issue 27), printed, not asserted:

1. A/A coverage per mode: of the A/A cells (the base twin against a second copy of itself), how
   many 95 % intervals contain 1 (``bench.decide.calibration.aa_coverage``, what the summary
   prints).
2. No answer slower than another correct candidate: for each kind of state, mode and workload,
   the answer against every other candidate there (documented for the CPU, code a page can
   print, correct in every in-scope shape: timed, not silently wrong), head to head on the whole
   step where both were raced: the answer slower beyond the margin at some size and faster at
   none is a violation; slower at some sizes and faster at others is a crossover (listed: the
   cheaper one depends on the size, and the answer is the lower mean over the sizes).
3. No added time shown against an invalid twin: every twin ``analysis.check_twins`` rejects in
   the run the pages stand on (``page_runs``), and whether the pages show a number for a cell
   measured against it: ``results.csv`` (its ``twin_valid`` column and a blank ``added_s``) and
   the workload page's cost table.

    python findings/costs_check.py            # every workload's reference; exit 1 on a violation
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

from bench.core import pins
from bench.core.cellstats import SLOWER
from bench.decide import answer, calibration, load
from bench.measured.modes import label
from bench.report import readme

RESULTS = Path(__file__).resolve().parents[1] / "results"
WORKLOADS = ("clip", "brn", "kvcache", "ema")


def runs() -> dict:
    out = {}
    for w in WORKLOADS:
        ref = pins.reference(w)
        if ref:
            out[w] = load.load(ref)
    return out


def page_runs(results: Path = RESULTS) -> dict:
    """{workload: the run its pages under ``results`` stand on} (``results/pages.json``: the
    pinned reference, or a run a user's ``nox -s bench`` published in its place): the pages are
    checked against the run they were rendered from."""
    from bench.decide import provenance

    return provenance.page_runs(results)


def aa_coverage(found: dict) -> None:
    print("## A/A coverage (95 % intervals containing 1)")
    total = inside = 0
    for w, run in found.items():
        for mode, (ok, cells) in calibration.aa_coverage(run).items():
            procs = sorted({c.processes for c in run.analysis[mode].of_role("aa")})
            print(f"- {w} {mode}: {ok}/{cells} (processes: {procs})")
            total, inside = total + cells, inside + ok
    if total:
        print(f"- all: {inside}/{total} = {inside / total:.0%}")


def answers_not_slower(found: dict) -> int:
    print("\n## Answers against every other correct candidate, head to head")
    violations = crossovers = 0
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
                how = "head to head" if raced else "over separate twins (older run)"
                crossing = {x.other: x for x in answer.crossovers(run, mode, choice.strategy)}
                candidates = answer.candidates(run, mode)  # the answer's own candidate rule
                for other in m.candidates:
                    if (
                        other == choice.strategy
                        or other not in candidates
                        or table.get(other, {}).get(w) not in answer.TIMED
                    ):
                        continue  # a candidate (documented, pastable, in scope), timed here
                    if other in crossing:  # the cheaper one depends on the size (the pages say)
                        x = crossing[other]
                        crossovers += 1
                        print(
                            f"- crossover, {kind} {mode} {w}: `{choice.strategy}` slower "
                            f"than `{other}` at {list(x.slower)}, faster at {list(x.faster)} "
                            f"({how})"
                        )
                        continue
                    standing = m.rank([other], others=[choice.strategy]).get(choice.strategy)
                    if standing and standing.outcome == SLOWER:
                        violations += 1
                        print(f"- {kind} {mode} {w}: `{choice.strategy}` slower than `{other}` "
                              f"({how})")  # fmt: skip
    print(f"- violations: {violations}; crossovers (the cheaper one depends on the size): "
          f"{crossovers}")  # fmt: skip
    return violations


NUMBER = re.compile(r"[+-]?\d[\d.,]*\s*(?:ns|µs|ms|s)\b")


def shown_on_pages(results: Path, w: str, mode: str, cells) -> list[str]:
    """Where the committed pages show an added time for ``cells`` (measured against an invalid
    twin): a ``results.csv`` row with ``twin_valid`` true or an ``added_s``, and a cost-table cell
    of the workload page with a time that is not the whole step."""
    out = []
    keys = {(c.id.strategy, c.id.shape, str(c.id.size)) for c in cells}
    path = results / w / "results.csv"
    with path.open() as f:
        for row in csv.DictReader(f):
            if row["mode"] != mode or (row["strategy"], row["shape"], row["size"]) not in keys:
                continue
            if row.get("twin_valid") != "False" or row.get("added_s", ""):
                out.append(f"{path.name}: {row['strategy']} {row['shape']} {row['size']}")
    page = (results / w / "summary.md").read_text()
    section = page.split(f"\n### {label(mode)}\n", 1)
    table = section[1].split("\n### ", 1)[0] if len(section) > 1 else ""
    sizes = []
    for line in table.splitlines():
        parts = [x.strip() for x in line.strip().strip("|").split("|")]
        if parts[0] == "strategy (shape)":
            sizes = parts[2:]
            continue
        m = re.match(r"`([^`]+)` \(`([^`]+)`\)", parts[0])
        if not m or not sizes:
            continue
        for size, text in zip(sizes, parts[2:]):
            key = (m.group(1), m.group(2), size.split("=")[-1])
            if key in keys and NUMBER.search(text.split("whole step")[0]):
                out.append(f"summary.md: {m.group(1)} {size}: {text}")
    return out


def invalid_twins(found: dict, results: Path = RESULTS) -> int:
    print("\n## Invalid twins (added time not shown)")
    n = shown = 0
    for w, run in found.items():
        for mode, m in run.analysis.items():
            bad = {c.control: c.twin_invalid for c in m.of_role("update") if c.twin_invalid}
            for twin, why in sorted(bad.items()):
                cells = [c for c in m.of_role("update") if c.control == twin]
                where = shown_on_pages(results, w, mode, cells)
                n += 1
                shown += len(where)
                print(f"- {w} {mode} `{twin}`: {why}; cells against it: {len(cells)}, with an "
                      f"added time shown on the committed pages: {len(where)}")  # fmt: skip
                for x in where:
                    print(f"  - {x}")
    print(f"- invalid twins: {n}; numbers shown against them: {shown}")
    return shown


def main() -> int:
    found = runs()
    for w, run in found.items():
        print(f"{w}: {run.manifest.run_id} ({run.manifest.plan.get('precision', {}).get('tier')})")
    print()
    aa_coverage(found)
    bad = answers_not_slower(found)
    bad += invalid_twins(page_runs())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

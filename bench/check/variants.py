"""Feed the suite's own variants to the check, as a user would give it their Cell.

- **Findings**: for each findings entry of a workload, the failing variant it observed
  (strategy, shape, mode), written as a user file (the generated variant plus ``make_cell`` /
  ``make_inputs`` from the workload's gate inputs) and checked in that mode (``judge``).
  *Detected* = the check names the entry's kind in that mode (``named``): the kind without its
  qualifier of calls (``known.kind_of``), ``raises``/``crashes``/``hangs`` for those outcomes;
  one equivalence, counted apart: a stale read at the first call only has no earlier state for
  eager to compute it from, so the check names it ``wrong output, first call only``. The
  findings page comes from the reference runs, which can be older than the fresh gate of
  ``expected/``: where ``expected/`` records another verdict for the entry's variant and mode,
  the check is judged against that record (listed apart as "as the fresh gate records it now").
- **Working variants**: every in-scope shape (``Template.in_scope``) of every strategy of the
  workload that the gate recorded as working (``expected/``) in a compiled mode, and every
  minimal pair's working side, each checked in every compiled mode where the gate recorded it
  working. *False alarm* = the check says a mode diverges where the gate recorded it working.

Not checkable, listed apart and not counted: a variant whose PYNATIVE_MODE verdict is not
``works`` (it has no eager reference that means its code: the check takes eager MindSpore as the
truth, the gate the code's meaning), and a strategy that writes in ``after_step`` (the suite's
harness calls it on the host after each step: the Cell alone, which is what the check runs, does
not write).

``python -m bench.check.variants clip brn [--out FILE]``: prints each case, then detected /
total and false alarms; exit 1 when a finding is missed, a false alarm occurs or a check fails
(exit 3), else 0. The checks run in this process one after the other (``cli.main``: each starts
its own children), which saves MindSpore's import per variant.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.check import kinds as K
from bench.check import known
from bench.core import expected as expected_file
from bench.core.exits import Exit
from bench.core.io import write_text
from bench.core.paths import ROOT
from bench.core.schema import Status
from bench.measured import discovery, workloads
from bench.measured.modes import MODES, PYNATIVE, label

ADAPTER = """

def make_cell():
    return Variant()


def make_inputs(step):
    from bench.measured.workloads import get

    return get({workload!r}).make_inputs({size}, step, small=True)
"""
EXPECTED = expected_file.path_for("2.10.0")  # the release the pages are made on
COMPILED = tuple(m for m, mode in MODES.items() if mode.compiled and not mode.diagnostic)
OUTCOME_KIND = {Status.CRASHED.value: K.CRASHED, Status.TIMEOUT.value: K.HANGS}
FIRST_CALL_STALE = "stale read at the first call only"


def cases(workload: str, records: list[dict] | None = None) -> list[dict]:
    """One case per findings entry of ``workload``: its observed variant and its pair, from the
    root causes' data (``records``: default ``results/causes.json``)."""
    if records is None:
        from bench.causes.causes import from_json

        records = from_json(known.CAUSES.read_text(encoding="utf-8"))
    out = []
    for c in records:
        for e in c["entries"]:
            ex = e["example"]
            if e["workload"] != workload or not ex.get("strategy") or not ex.get("mode"):
                continue
            pair = e.get("pair")
            works = (pair["strategy"], pair["working_shape"], pair["mode"]) if pair else None
            outcome = known.entry_outcome(e)
            out.append(
                {"anchor": e["anchor"], "outcome": outcome, "strategy": ex["strategy"],
                 "shape": ex["shape"], "mode": ex["mode"], "pair": works}
            )  # fmt: skip
    return out


def expected_verdicts(path: Path = EXPECTED, full: bool = False) -> dict[tuple, str]:
    """(workload, strategy, shape, mode) -> the verdict the gate recorded (its first word; the
    whole verdict with ``full``)."""
    rows = [
        r
        for r in csv.reader(path.open(encoding="utf-8"), delimiter="\t")
        if r and not r[0].startswith("#")
    ]
    head, *rows = rows
    col = {name: i for i, name in enumerate(head)}
    return {
        (r[col["workload"]], r[col["strategy"]], r[col["shape"]], r[col["mode"]]): (
            r[col["verdict"]] if full else r[col["verdict"]].split(":")[0]
        )
        for r in rows
    }


def works(verdicts: dict, *key) -> bool:
    return verdicts.get(key) == Status.WORKS.value


def working_variants(workload: str, verdicts: dict) -> list[tuple[str, str, list[str]]]:
    """(strategy, shape, compiled modes where the gate recorded it working) of every in-scope
    shape with at least one, sorted."""
    work = workloads.get(workload)
    out = []
    for strategy in sorted({k[1] for k in verdicts if k[0] == workload}):
        st = discovery.load(strategy)
        shapes = {} if st.custom else {s.name: s for s in work.shapes(st.layout)}
        for name in sorted({k[2] for k in verdicts if k[:2] == (workload, strategy)}):
            if name in shapes and not work.in_scope(shapes[name]):
                continue
            modes = [m for m in COMPILED if works(verdicts, workload, strategy, name, m)]
            if modes:
                out.append((strategy, name, modes))
    return out


def kind_named(outcome: str) -> str:
    """The check's word for the kind of a findings outcome or a recorded verdict."""
    kind = known.kind_of(outcome)
    if kind.startswith(Status.RAISES.value):
        return K.RAISES
    return OUTCOME_KIND.get(kind, kind)


def named(outcome: str, kinds: list[str]) -> tuple[bool, bool]:
    """(the check names the finding's kind, only by the first-call equivalence): a pure
    decision over the finding's outcome and the kinds the check gave its mode."""
    if kind_named(outcome) in kinds:
        return True, False
    first_call_stale = outcome in (FIRST_CALL_STALE, K.STALE_READ)
    if first_call_stale and {K.WRONG_OUTPUT, K.FIRST_CALL_ONLY} <= set(kinds):
        return True, True
    return False, False


DETECTED, EQUIVALENT, AS_RECORDED, MISSED = (
    "detected",
    "detected (first-call equivalence)",
    "as the fresh gate records it now",
    "MISSED",
)


def judge(outcome: str, record: str, kinds: list[str]) -> str:
    """One findings entry against the check (pure). ``outcome``: the entry's; ``record``: the
    verdict ``expected/`` (the fresh gate) records for the same variant and mode; ``kinds``: what
    the check said of that mode. The findings page comes from the reference runs, which can be
    older than the fresh gate: where the record's kind is not the entry's, the check is judged
    against the record (``AS_RECORDED``, listed apart). A stale read without its calls (the
    record keeps none) counts as seen when the check finds a wrong output at the first call only:
    a stale read at the first call has no earlier state for eager to compute it from."""
    hit, equivalent = named(outcome, kinds)
    if hit:
        return EQUIVALENT if equivalent else DETECTED
    if not record:
        return MISSED
    word, _, rest = record.partition(": ")
    if word == Status.WORKS.value:
        return AS_RECORDED if not kinds else MISSED
    now = rest if word == Status.INCORRECT.value else record
    if kind_named(now) == kind_named(outcome):  # the record agrees with the entry: a real miss
        return MISSED
    return AS_RECORDED if named(now, kinds)[0] else MISSED


def false_alarms(gate_works: list[str], verdicts: dict[str, str]) -> list[str]:
    """The modes the gate recorded working that the check says diverge (pure)."""
    return [m for m in gate_works if verdicts.get(m) == K.DIVERGES]


def user_file(workload: str, strategy: str, shape: str, folder: Path) -> Path:
    work = workloads.get(workload)
    made, why = work.variants(discovery.load(strategy), folder, {shape})
    variant = next((v for v in made if v.shape.name == shape), None)
    if variant is None:
        raise ValueError(f"{strategy}@{shape}: not generated ({why})")
    size = work.gate_schedule[0][0]
    target = folder / f"{workload}_{strategy}_{shape}".replace("-", "_")
    target = target.with_suffix(".py")
    write_text(
        target,
        Path(variant.path).read_text(encoding="utf-8")
        + ADAPTER.format(workload=workload, size=size),
    )
    return target


@dataclass
class Checked:
    code: int
    verdicts: dict = field(default_factory=dict)  # mode -> agrees | diverges
    kinds: dict = field(default_factory=dict)  # mode -> kinds
    quoted: set = field(default_factory=set)  # anchors quoted
    error: str = ""


def not_checkable(workload: str, strategy: str, shape: str, verdicts: dict) -> str:
    """Why the check cannot judge this variant ("" when it can)."""
    eager = verdicts.get((workload, strategy, shape, PYNATIVE), Status.WORKS.value)
    if eager != Status.WORKS.value:
        return f"eager (PYNATIVE_MODE) itself is {eager}"
    if "after_step" in discovery.load(strategy).overridden:
        return "its write runs in after_step, outside the Cell (the suite's harness calls it)"
    return ""


def check(path: Path, modes: list[str], steps: int, out: Path) -> Checked:
    """``python -m bench.check PATH:Variant --modes ...`` in this process (output captured)."""
    from bench.check import cli

    argv = [f"{path}:Variant", "--modes", ",".join(modes), "--steps", str(steps), "--out", str(out)]
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = int(cli.main(argv))
    if code == Exit.INTERRUPTED:
        raise KeyboardInterrupt
    try:
        data = json.loads((out / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Checked(code, error=err.getvalue().strip().splitlines()[-1:][0] if err.getvalue()
                       else "no report")  # fmt: skip
    return Checked(
        code,
        {m["mode"]: m["verdict"] for m in data["modes"]},
        {m["mode"]: m["kinds"] for m in data["modes"]},
        {q["link"].rsplit("#", 1)[-1] for d in data["divergences"] for q in d["findings"]},
    )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.check.variants")
    p.add_argument("workloads", nargs="+")
    p.add_argument("--steps", type=int, default=4, help="steps per check (the gate's: 4)")
    p.add_argument("--limit", type=int, default=0, help="at most this many cases of each list")
    p.add_argument("--out", type=Path, help="also write the output here, with the command")
    args = p.parse_args(argv)
    start = time.monotonic()
    folder = Path(tempfile.mkdtemp(prefix="bench-check-variants-"))
    lines: list[str] = []

    def say(text: str) -> None:
        lines.append(text)
        print(text, flush=True)

    verdicts = expected_verdicts()
    total = detected = by_equivalence = quoted = 0
    missed, alarms, failed, skipped, as_recorded = [], [], [], [], []
    verdicts_full = expected_verdicts(full=True)
    checked_modes = working = 0
    for workload in args.workloads:
        say(f"## {workload}: findings entries (the failing variant, in the mode observed)")
        todo = cases(workload)[: args.limit or None]
        pair_sides = set()
        for case in todo:
            if case["pair"]:
                pair_sides.add(case["pair"][:2])
            why = not_checkable(workload, case["strategy"], case["shape"], verdicts)
            if why:
                skipped.append(f"{case['anchor']} ({why})")
                say(f"- {case['anchor']}: not checkable: {why}")
                continue
            t0 = time.monotonic()
            path = user_file(workload, case["strategy"], case["shape"], folder)
            got = check(path, [case["mode"]], args.steps, folder / "out" / f"{path.stem}-f")
            kinds = got.kinds.get(case["mode"], [])
            record = verdicts_full.get(
                (workload, case["strategy"], case["shape"], case["mode"]), ""
            )
            mark = judge(case["outcome"], record, kinds)
            total += 1
            detected += mark in (DETECTED, EQUIVALENT)
            by_equivalence += mark == EQUIVALENT
            if mark == AS_RECORDED:
                as_recorded.append(f"{case['anchor']} (the page: {case['outcome']!r}; "
                                   f"expected/: {record!r})")  # fmt: skip
            quoted += case["anchor"] in got.quoted
            if got.code == Exit.HARNESS:
                failed.append(case["anchor"])
            if mark == MISSED:
                missed.append(case["anchor"])
            say(
                f"- {case['anchor']} [{label(case['mode'])}, `{case['strategy']}` "
                f"`{case['shape']}`]: the page {case['outcome']!r}, expected/ {record!r}; the "
                f"check: exit {got.code}, "
                f"{', '.join(kinds) or got.error or 'agrees'}; entry quoted "
                f"{case['anchor'] in got.quoted}: {mark} ({time.monotonic() - t0:.0f} s)"
            )
        say(f"## {workload}: working variants (in-scope shapes and minimal pairs' working sides)")
        todo_working = working_variants(workload, verdicts)
        listed = {(s, sh) for s, sh, _ in todo_working}
        for strategy, shape in sorted(pair_sides - listed):
            modes = [m for m in COMPILED if works(verdicts, workload, strategy, shape, m)]
            if modes:
                todo_working.append((strategy, shape, modes))
        for strategy, shape, modes in todo_working[: args.limit or None]:
            why = not_checkable(workload, strategy, shape, verdicts)
            if why:
                skipped.append(f"{workload} {strategy} {shape} ({why})")
                say(f"- {strategy} {shape}: not checkable: {why}")
                continue
            t0 = time.monotonic()
            path = user_file(workload, strategy, shape, folder)
            got = check(path, modes, args.steps, folder / "out" / f"{path.stem}-w")
            working += 1
            checked_modes += len(modes)
            bad = false_alarms(modes, got.verdicts)
            if got.code == Exit.HARNESS or (got.code not in (Exit.OK, Exit.ATTENTION)):
                failed.append(f"{workload} {strategy} {shape}: exit {got.code} {got.error}")
            alarms += [f"{workload} {strategy} {shape} {label(m)}: {', '.join(got.kinds[m])}"
                       for m in bad]  # fmt: skip
            shown = ", ".join(f"{label(m)} {got.verdicts.get(m, got.error or '?')}" for m in modes)
            say(f"- {strategy} {shape}: {shown}" + (" FALSE ALARM" if bad else "")
                + f" ({time.monotonic() - t0:.0f} s)")  # fmt: skip
    minutes = (time.monotonic() - start) / 60
    say("## Result")
    say(
        f"detected {detected} / {total} findings entries (by the first-call equivalence: "
        f"{by_equivalence}; the entry itself quoted: {quoted} / {total})"
    )
    say(
        f"as the fresh gate records them now (expected/ records another verdict for the entry's "
        f"variant than the findings page, and the check names that one): {len(as_recorded)}"
        + (f": {'; '.join(as_recorded)}" if as_recorded else "")
    )
    say(f"missed: {len(missed)}" + (f": {', '.join(missed)}" if missed else ""))
    say(
        f"false alarms: {len(alarms)} in {checked_modes} working (variant, mode) cells of "
        f"{working} variants" + (f": {'; '.join(alarms)}" if alarms else "")
    )
    say(f"not checkable: {len(skipped)}" + (f": {'; '.join(skipped)}" if skipped else ""))
    say(
        f"check failures (exit 3 or other): {len(failed)}"
        + (f": {'; '.join(failed)}" if failed else "")
    )
    say(f"wall time: {minutes:.1f} min")
    code = Exit.ATTENTION if missed or alarms or failed else Exit.OK
    if args.out:
        git = ["git", "rev-parse", "--short", "HEAD"]
        commit = subprocess.run(git, capture_output=True, check=False, text=True, cwd=ROOT)
        commit = commit.stdout.strip()
        head = [
            f"# python -m bench.check.variants {shlex.join(argv or sys.argv[1:])}",
            f"# commit {commit}, {time.strftime('%Y-%m-%d %H:%M')}, Python "
            f"{platform.python_version()}, exit {int(code)}",
            "",
        ]
        write_text(args.out, "\n".join(head + lines) + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())

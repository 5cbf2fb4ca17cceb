"""Feed the suite's own failing variants to the check: for each findings entry of a workload, the
variant it observed (strategy, shape, mode) and the working side of its minimal pair, written as
a user file (the generated variant plus ``make_cell`` / ``make_inputs`` from the workload's gate
inputs); the check must call the first diverging and the second agreeing in that mode.

``python -m bench.check.variants clip brn [--limit N]``: prints detected / total and false alarms
(a development measurement of the check, not part of a run)."""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.check import known
from bench.core.schema import Status
from bench.measured import discovery, workloads
from bench.measured.modes import MODES, label

ADAPTER = """

def make_cell():
    return Variant()


def make_inputs(step):
    from bench.measured.workloads import get

    return get({workload!r}).make_inputs({size}, step, small=True)
"""


def cases(workload: str) -> list[dict]:
    """One case per findings entry of ``workload``: its observed variant and its pair's side."""
    labels = {m: label(m) for m in MODES}
    out = []
    for f in known.parse_findings(known.FINDINGS.read_text(), labels):
        if f.workload != workload:
            continue
        text = "\n".join(f.lines)
        seen = re.search(r"\*\*observed\*\* in `([^`]+)` `([^`]+)` (.+?): ", text)
        if not seen:
            continue
        mode = next((m for m, lb in labels.items() if seen.group(3).startswith(lb)), None)
        pair = re.search(
            r"\*\*minimal pair\*\* \((.+?), `([^`]+)`\): `([^`]+)` works, `([^`]+)` does not", text
        )
        works = None
        if pair and pair.group(1) == labels.get(mode) and pair.group(2) == seen.group(1):
            works = pair.group(3)
        out.append(
            {"anchor": f.anchor, "outcome": f.outcome, "strategy": seen.group(1),
             "shape": seen.group(2), "mode": mode, Status.WORKS.value: works}
        )  # fmt: skip
    return out


def user_file(workload: str, strategy: str, shape: str, folder: Path) -> Path:
    work = workloads.get(workload)
    made, why = work.variants(discovery.load(strategy), folder, {shape})
    variant = next((v for v in made if v.shape.name == shape), None)
    if variant is None:
        raise ValueError(f"{strategy}@{shape}: not generated ({why})")
    path = Path(variant.path)
    size = work.gate_schedule[0][0]
    target = folder / f"{workload}_{strategy}_{shape}".replace("-", "_")
    target = target.with_suffix(".py")
    target.write_text(path.read_text() + ADAPTER.format(workload=workload, size=size))
    return target


KIND = {Status.CRASHED.value: "crashes", Status.TIMEOUT.value: "hangs"}


def finding_seen(out: Path, mode: str, outcome: str, anchor: str) -> tuple[bool, bool]:
    """(the finding's kind is among the mode's kinds, its entry is quoted) in a check's report."""
    try:
        data = json.loads((out / "report.json").read_text())
    except (OSError, ValueError):
        return False, False
    kind = outcome.split(":", maxsplit=1)[0]
    kind = KIND.get(kind, kind)
    kinds = next((m["kinds"] for m in data["modes"] if m["mode"] == mode), [])
    quoted = any(
        q["link"].endswith(f"#{anchor}") for d in data["divergences"] for q in d["findings"]
    )
    return kind in kinds, quoted


def check(path: Path, mode: str, steps: int, out: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-m", "bench.check", f"{path}:Variant", "--modes", mode, "--steps",
         str(steps), "--out", str(out)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return done.returncode


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.check.variants")
    p.add_argument("workloads", nargs="+")
    p.add_argument("--limit", type=int, default=0, help="at most this many entries a workload")
    p.add_argument("--skip", type=int, default=0, help="skip this many entries a workload")
    p.add_argument("--steps", type=int, default=4)
    args = p.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="bench-check-variants-"))
    detected = total = alarms = pairs = same_kind = quoted = 0
    for workload in args.workloads:
        todo = cases(workload)
        end = args.skip + args.limit if args.limit else None
        for case in todo[args.skip : end]:
            start = time.monotonic()
            try:
                path = user_file(workload, case["strategy"], case["shape"], folder)
            except Exception as exc:
                print(f"{case['anchor']}: cannot generate: {exc}")
                continue
            out = folder / "out" / f"{path.stem}-{case['mode']}"
            code = check(path, case["mode"], args.steps, out)
            kind, quote = finding_seen(out, case["mode"], case["outcome"], case["anchor"])
            total += 1
            detected += code == 1
            same_kind += kind
            quoted += quote
            line = (
                f"{case['anchor']}: {case['outcome'][:40]} -> exit {code}, same kind {kind}, "
                f"entry quoted {quote}"
            )
            if case[Status.WORKS.value]:
                other = user_file(workload, case["strategy"], case[Status.WORKS.value], folder)
                code2 = check(other, case["mode"], args.steps, folder / "out" / other.stem)
                pairs += 1
                alarms += code2 != 0
                line += f"; working side {case[Status.WORKS.value]} -> exit {code2}"
            print(f"{line} ({time.monotonic() - start:.0f} s)", flush=True)
    print(
        f"detected {detected} / {total} (the same kind {same_kind}, the entry quoted {quoted}); "
        f"working sides flagged {alarms} / {pairs}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The progress line's ETA, replayed on this checkout's model (issue 52: "the ETA holds to ±20 %").

Each trace in ``findings/eta/`` is a run's ``logs/progress.jsonl`` (xz-compressed): every call
that told the progress line of work, and each line's ETA, with its time. This script makes the
calls again on the model in this checkout (``bench.run.progress.replay``) and prints, per run, the
share of lines before the run's last tenth whose ETA was within ±20 % of the time left, as
printed and as replayed, and the ETA's ratio to the time left at a tenth, a quarter, half and
three quarters of the run.

A trace holds the later stage's units as the run computed them. Where the run counted them
with another later-stage model than this checkout's (``time_phase.LATER_FIXED`` and
``LATER_SHARE``; the run's are in its trace's ``note``; a trace without one was made with 0.75
and 1), the replay rescales them:

- a later stage's race that started, by its own rounds;
- the later stage guessed before a mode's stage 0 ended, by the share and 4 times the rounds;
- the later stage known once it ended, and the one planned, by 4 times the rounds (the default
  tier's most rounds over stage 0's; a race run at fewer is counted a little off).

The committed traces were made with warm workers; a trace that does not say is taken as warm.

    python findings/eta_replay.py [TRACE ...]      (default: findings/eta/*.jsonl.xz)
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench.run import progress as P
from bench.run import time_phase

HERE = Path(__file__).parent / "eta"
BEFORE = {"later_fixed": 0.75, "later_share": 1.0}  # the model of a trace without a note
RHO = 4.0  # the default tier's max_rounds over its rounds


def member(fixed: float, rho: float) -> float:
    return fixed + (1 - fixed) * rho


def rescaled(segment: list[dict]) -> list[dict]:
    """The segment's events with the later stage in this checkout's units."""
    was = next((e for e in segment if e["call"] == "note"), BEFORE)
    fixed, share = time_phase.LATER_FIXED, time_phase.LATER_SHARE
    to = lambda rho: member(fixed, rho) / member(was["later_fixed"], rho)  # noqa: E731
    out, ended, planned, started, later = [], set(), False, False, False
    for recorded in segment:
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
                args[3] *= to(kw["rounds"] / kw["base_rounds"])
        elif call == "settle" and len(args) > 1:
            ended.add(args[1])
        elif call == "settle" and planned and started:
            later = True  # the later stage's own settle: what it plans now is the later stage
        elif call == "plan" and args and args[0] == "time":
            if later:
                args[2] *= to(RHO)
            planned = True
        elif call == "expect" and planned:
            args[2] *= to(RHO) if args[1] in ended else share / was["later_share"] * to(RHO)
        out.append(event)
    return out


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
    print("| trace | lines | wall | within ±20 %, printed | replayed | ETA / time left at 10, 25, "
          "50, 75 %: printed | replayed |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for path in paths:
        for segment in P.read_trace(path):
            rows = P.replay(rescaled(segment))
            if not rows:
                continue
            printed = [(t, a) for t, a, _ in rows]
            model = [(t, b) for t, _, b in rows]
            print(f"| {path.name.split('.')[0]} | {len(rows)} | {P.fmt_duration(rows[-1][0])} | "
                  f"{P.within(printed):.0%} | {P.within(model):.0%} | {ratios(printed)} | "
                  f"{ratios(model)} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Progress lines with an ETA for the whole run, from the first line on.

Before anything is measured, the ETA comes from a cost model: seconds per item for each phase
and mode, measured on a 2-core machine of the kind this suite runs on (see README, "How long"),
with the timing's own rates for a tier that times far less per member (``TIERS``).
A workload's timing has its own rates (``WORKLOADS``: EMA's and the KV cache's members take
1.5-3 times the clip's). As items finish, the observed rate of each phase and mode replaces the
model's, and the modes not yet timed follow the others' ratio to the model (``scale``, drawn
towards 1 until a tenth of the phase's work has run). Work is counted in units: a gate or
prepare item is one, a timing race as many as its members (a race of ten members takes about half
as long as one of twenty). A later stage is guessed from the mode's candidates until its stage 0
ends; then the races it will run are known (``bench.run.time_phase``) and replace the guess.
"""

from __future__ import annotations

import argparse
import functools
import json
import lzma
import math
import os
import sys
import threading
import time
from pathlib import Path, PurePath

from bench.measured.modes import GRAPH, JIT_AST, JIT_BYTECODE, PYNATIVE, PYNATIVE_BLOCKING

# Seconds per unit, measured on this machine: gate (one variant, all its steps, compile
# included), prepare (one calibration or screened shape), time (one member of a race in one
# process, as the progress line times a race: from its start to its first record). The time
# rates are the stage-0 races' seconds per member of the traced clip run 7dc6 (270094e,
# 2026-12-07: `python -m bench.run.progress --rates RUN`); those of 2026-12-06 (graph, ast and
# bytecode 0.8, launch_blocking 1.0) were 1.3-2.4 times them, and kept the ETA of a default run
# at 1.3-1.7 times the time left in its first minute.
MODEL = {
    "gate": {
        GRAPH: 0.28,
        PYNATIVE: 0.06,
        PYNATIVE_BLOCKING: 0.05,
        JIT_AST: 0.28,
        JIT_BYTECODE: 0.35,
    },
    "prepare": {
        GRAPH: 0.6,
        PYNATIVE: 0.8,
        PYNATIVE_BLOCKING: 0.5,
        JIT_AST: 0.6,
        JIT_BYTECODE: 0.6,
    },
    "time": {
        GRAPH: 0.62,
        PYNATIVE: 1.33,
        PYNATIVE_BLOCKING: 0.41,
        JIT_AST: 0.58,
        JIT_BYTECODE: 0.55,
    },
}
# A timing process's start (importing MindSpore, pinning threads, warming up) until one has
# ended; then what the ended ones spent outside their races (``start_cost``). A worker forked
# from a warm parent (``bench.run.warm``) has MindSpore imported already: the 20 processes of the
# traced clip run 7dc6 each spent 0.8 s (median; 2.2 s the first) outside their races.
PROCESS_START = 6.0
WARM_PROCESS_START = 1.0

# A workload's member of a race against the clip's, per mode. brn's and the KV cache's are
# their stage-0 seconds per member (the p0 and p1 workers of `python -m bench.run.progress
# --rates`, timed as ``MODEL``'s time rates are) over ``MODEL``'s.
# - brn: its traced runs 4cdc and 1ded (270094e, 2026-12-07). The numbers before (graph 1.53, ast
#   1.51, bytecode 2.31, pynative 1.33, blocking 1.66) were timed from a process's first record
#   to its last on 2026-12-06; they were 9-28 % low, and a brn run's ETA said 0.77-0.80 of the
#   time left in its first third (6417).
# - kvcache: the mean of its traced runs 0efb and 6d53 (2026-12-07 evening): graph 1.66 and
#   1.53, ast 1.70 and 1.67, bytecode 1.04 and 1.08, pynative 1.86 and 1.44, launch_blocking
#   2.77 and 2.65. The older ones (1.83, 2.7, 1.03, 1.99, 3.43) kept its ETA at 1.2-1.5 times the
#   time left.
# - ema: still the older kind (3 runs of 2026-12-06; e.g. ema graph 1.19 s against the clip's
#   0.72 s). Its traced run 9f7d ran at 0.98-1.37 of them, and its ETA held 89 % of its lines in
#   the run after (020e): kept.
# A workload not listed (one a user adds) starts from the clip's rates and is scaled as it runs.
WORKLOADS = {
    "brn": {
        GRAPH: 1.73,
        PYNATIVE: 1.46,
        PYNATIVE_BLOCKING: 2.01,
        JIT_AST: 2.05,
        JIT_BYTECODE: 3.2,
    },
    "ema": {GRAPH: 1.65, PYNATIVE: 2.09, PYNATIVE_BLOCKING: 1.74, JIT_AST: 1.6, JIT_BYTECODE: 2.56},
    "kvcache": {
        GRAPH: 1.6,
        PYNATIVE: 1.65,
        PYNATIVE_BLOCKING: 2.71,
        JIT_AST: 1.69,
        JIT_BYTECODE: 1.06,
    },
}
# How many model-seconds of finished work weigh as much as the model itself in ``scale``: a
# tenth of the phase's planned work (at least 5 s). One small first race of a default run (EMA's
# bytecode: two members, 7 s against 1.6 modelled) moved every other mode's ETA fourfold with no
# weight; a fixed minute of it kept a quick run's ETA at 0.8 of the time left on a slower day
# (2026-12-07: the whole run is about a minute of model-seconds).
SCALE_PRIOR_SHARE = 0.1
SCALE_PRIOR_MIN_S = 5.0

# The quick tier's blocks, rounds and warm-up are a fraction of the default's, so a member costs a
# fraction of its time: per mode from the two quick clip runs of 2026-12-06 (1b31, 3e99: each
# mode's one process took 4-20 s for 13-16 members; taking 3 s of each for its start). With the
# default's rates the ETA said 2-4 times the time left (issue 52).
TIERS = {
    "quick": {
        "time": {
            GRAPH: 0.33,
            PYNATIVE: 1.03,
            PYNATIVE_BLOCKING: 0.06,
            JIT_AST: 0.31,
            JIT_BYTECODE: 0.29,
        },
        "process_start": 3.0,
    },
}


def fmt_duration(seconds: float) -> str:
    if math.isnan(seconds):
        return "…"
    seconds = max(0, round(seconds))
    return f"{seconds // 60}m{seconds % 60:02d}s"


# The calls that change what the ETA knows, in the order the run made them, are the trace a
# later model is replayed on (``replay``): a change to the model is judged on recorded runs, not
# on one new run.
TRACED = (
    "plan",
    "expect",
    "settle",
    "finished",
    "item_started",
    "item_recorded",
    "process_ended",
    "process_started",
)
TRACE_NAME = "progress.jsonl"


def _traced(method):
    """Record a call in the trace, once: not the calls one traced method makes to another."""

    @functools.wraps(method)
    def call(self, *args, **kw):
        if self.trace is None or getattr(self._inside, "depth", 0):
            return method(self, *args, **kw)
        event = {"call": method.__name__, "args": [_plain(a) for a in args]}
        if kw:
            event["kw"] = {k: _plain(v) for k, v in kw.items()}
        self._record(event)
        self._inside.depth = 1
        try:
            return method(self, *args, **kw)
        finally:
            self._inside.depth = 0

    return call


def _plain(value):
    """A call's argument as the trace keeps it: a worker (a job's path) by its folder and file
    (``timing/graph-p0.json``: a committed trace names no machine's folders)."""
    if value is None or isinstance(value, (int, float)):
        return value
    text = str(value)
    if "/" in text or os.sep in text:
        return "/".join(PurePath(text).parts[-2:])
    return text


class Progress:
    """Counts items per (phase, mode) and prints lines with elapsed time and the run's ETA.
    With ``trace`` (a file), every call that changes the ETA and every line's ETA are appended to
    it, with the seconds since the start; ``clock`` replaces ``time.monotonic`` (``replay``)."""

    def __init__(
        self,
        out=print,
        parallel: dict | None = None,
        tier: str = "default",
        workload: str = "",
        trace: Path | None = None,
        clock=None,
        warm: bool = False,
    ):
        self.out = out
        self.clock = clock
        self.trace = trace
        self._inside = threading.local()
        self._lock = threading.Lock()
        own = TIERS.get(tier, {})
        ratio = WORKLOADS.get(workload, {})
        time_rates = own.get("time", MODEL["time"])
        time_rates = {mode: s * ratio.get(mode, 1.0) for mode, s in time_rates.items()}
        self.model = {**MODEL, "time": time_rates}
        self.process_start = WARM_PROCESS_START if warm else own.get("process_start", PROCESS_START)
        self.start = self._now()
        self.todo: dict[tuple[str, str], float] = {}  # units: items, or a race's members
        self.done: dict[tuple[str, str], float] = {}
        self.spent: dict[tuple[str, str], float] = {}
        self.processes: dict[str, int] = {}
        self.expected: dict[tuple[str, str], float] = {}  # units a later step may still plan
        self.expected_starts: dict[tuple[str, str], int] = {}  # and the processes they start
        self.parallel = parallel or {}
        self.open: dict[object, tuple[str, str, float, float]] = {}  # phase, mode, start, units
        self.in_items: dict[object, float] = {}  # a process's seconds inside its items so far
        self.outside: dict[str, list[float]] = {}  # per phase: each ended process's rest
        # written with the first event: a run that ends before any line writes nothing
        self._init = {"call": "init", "parallel": self.parallel, "tier": tier, "workload": workload,
                      "warm": warm}  # fmt: skip

    def _now(self) -> float:
        return self.clock() if self.clock else time.monotonic()

    def _record(self, event: dict) -> None:
        """Append one event to the trace; a trace that cannot be written is dropped, never the
        run (the progress lines do not depend on it)."""
        event = {"t": round(self._now() - self.start, 3), **event}
        try:
            with self._lock:
                first, self._init = self._init, None
                if first is not None:
                    Path(self.trace).parent.mkdir(parents=True, exist_ok=True)
                with open(self.trace, "a", encoding="utf-8") as f:
                    if first is not None:
                        f.write(json.dumps({"t": 0.0, **first}) + "\n")
                    f.write(json.dumps(event) + "\n")
        except OSError:
            self.trace = None

    def note(self, **about) -> None:
        """Keep in the trace what the ETA's units were computed with (a replay under another
        model needs it); the ETA itself does not use it."""
        if self.trace is not None:
            self._record({"call": "note", **{k: _plain(v) for k, v in about.items()}})

    @_traced
    def plan(self, phase: str, mode: str, items: float, processes: int = 1) -> None:
        """Announce ``items`` more units of a phase (the ETA counts them from now on)."""
        key = (phase, mode)
        self.todo[key] = self.todo.get(key, 0) + items
        self.processes[phase] = self.processes.get(phase, 0) + processes

    @_traced
    def expect(self, phase: str, mode: str, items: float, processes: int = 0) -> None:
        """Items that may come (a later stage's races, known only once the earlier ones are
        decided), and the processes they start: counted in the ETA until ``settle`` replaces
        them with what is planned."""
        key = (phase, mode)
        self.expected[key] = self.expected.get(key, 0) + items
        self.expected_starts[key] = self.expected_starts.get(key, 0) + processes

    @_traced
    def settle(self, phase: str, mode: str | None = None) -> None:
        """The expected items of ``phase`` (of one ``mode`` only, if given) are now known:
        forget the guess."""
        keep = lambda k: k[0] != phase or mode not in (None, k[1])  # noqa: E731
        self.expected = {k: n for k, n in self.expected.items() if keep(k)}
        self.expected_starts = {k: n for k, n in self.expected_starts.items() if keep(k)}

    @_traced
    def finished(self, phase: str, mode: str, seconds: float, units: float = 1) -> None:
        key = (phase, mode)
        self.done[key] = self.done.get(key, 0) + units
        self.spent[key] = self.spent.get(key, 0.0) + seconds

    @_traced
    def item_started(self, who, phase: str, mode: str, units: float = 1, **about) -> None:
        """``who`` (one worker process) began an item of ``units``; its first record ends it.
        ``about`` is for the trace only (a race's stage, members and rounds: what a later model
        of a race's units would be fitted on)."""
        self.open[who] = (phase, mode, self._now(), units)

    @_traced
    def item_recorded(self, who) -> None:
        """A record of ``who``'s item: the item is finished at its first (a race's members
        each report a record, and the race is one item)."""
        if who in self.open:
            phase, mode, at, units = self.open.pop(who)
            seconds = self._now() - at
            self.finished(phase, mode, seconds, units)
            self.in_items[who] = self.in_items.get(who, 0.0) + seconds

    @_traced
    def process_ended(self, who, phase: str, seconds: float) -> None:
        """``who``'s process ran ``seconds`` in all: what its items did not take (its start,
        the gaps between its items, its end) is what the next processes' starts will cost."""
        rest = max(0.0, seconds - self.in_items.pop(who, 0.0))
        self.outside.setdefault(phase, []).append(rest)

    def start_cost(self, phase: str) -> float:
        """Seconds a process costs outside its items: the mean of the ended ones, else the
        model's (a small run's processes cost more than their items' rates say)."""
        seen = self.outside.get(phase)
        return sum(seen) / len(seen) if seen else self.process_start

    @_traced
    def process_started(self, phase: str) -> None:
        self.processes[phase] = max(0, self.processes.get(phase, 0) - 1)

    def rate(self, key: tuple[str, str]) -> float:
        """Seconds per unit: the mean of those finished, else the model's, scaled by how the
        phase's other modes ran against the model so far (``scale``)."""
        done = self.done.get(key, 0)
        if done:
            return self.spent[key] / done
        return self.model[key[0]].get(key[1], 1.0) * self.scale(key[0])

    def prior(self, phase: str) -> float:
        """The model-seconds the model weighs in ``scale``: ``SCALE_PRIOR_SHARE`` of the phase's
        planned and expected work, at least ``SCALE_PRIOR_MIN_S``."""
        planned = sum(
            (self.todo.get(k, 0) + self.expected.get(k, 0)) * self.model[k[0]].get(k[1], 1.0)
            for k in set(self.todo) | set(self.expected)
            if k[0] == phase
        )
        return max(SCALE_PRIOR_MIN_S, SCALE_PRIOR_SHARE * planned)

    def scale(self, phase: str) -> float:
        """The phase's observed seconds over what the model gave for the same units, over the
        modes with finished units, drawn towards 1 by ``prior`` model-seconds (1 before any): a
        machine slower than the one the model was measured on is slower in every mode, but one
        small first race says little of the others in a long run."""
        spent = modelled = 0.0
        for (ph, mode), done in self.done.items():
            if ph == phase and done:
                spent += self.spent.get((ph, mode), 0.0)
                modelled += done * self.model[ph].get(mode, 1.0)
        if modelled <= 0 or spent <= 0:
            return 1.0
        prior = self.prior(phase)
        return (spent + prior) / (modelled + prior)

    def eta(self) -> float:
        left = 0.0
        for key in set(self.todo) | set(self.expected):
            remaining = self.todo.get(key, 0) - self.done.get(key, 0)
            remaining = max(0, remaining) + self.expected.get(key, 0)
            left += remaining * self.rate(key) / self.parallel.get(key[0], 1)
        for phase, n in self.processes.items():
            left += n * self.start_cost(phase) / self.parallel.get(phase, 1)
        for (phase, _), n in self.expected_starts.items():
            left += n * self.start_cost(phase) / self.parallel.get(phase, 1)
        return left

    def line(self, text: str) -> None:
        elapsed = self._now() - self.start
        eta = self.eta()
        if self.trace is not None:
            self._record({"call": "line", "eta": round(eta, 3)})
        self.out(f"[{fmt_duration(elapsed)} · ETA {fmt_duration(eta)}] {text}")


# -- judging the ETA on recorded runs ------------------------------------------------------------
WITHIN = 0.2  # the ETA should hold to ±20 % of the time left (issue 52)
TAIL = 0.1  # the last tenth of a run is left out: seconds left there make any error large


def trace_of(path: Path) -> Path:
    """The trace of ``path``: a run folder's ``logs/progress.jsonl``, else ``path`` itself."""
    return path / "logs" / TRACE_NAME if path.is_dir() else path


def read_trace(path: Path) -> list[list[dict]]:
    """A trace's segments, one per ``Progress`` (a resumed run appends another); ``.xz``: one
    kept compressed."""
    path = Path(path)
    opener = lzma.open if path.suffix == ".xz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    segments: list[list[dict]] = []
    for text in lines:
        if not text.strip():
            continue
        event = json.loads(text)
        if event["call"] == "init" or not segments:
            segments.append([])
        segments[-1].append(event)
    return segments


def init_of(segment: list[dict]) -> dict:
    """A segment's ``init`` event (its parallelism, tier and workload), or {} without one."""
    return segment[0] if segment and segment[0]["call"] == "init" else {}


def replay(segment: list[dict], make=Progress) -> list[tuple[float, float, float]]:
    """(seconds since the start, the ETA the run printed, the ETA ``make``'s model gives) at each
    line of one segment: its calls are made again, in order, on a clock set to their times."""
    init = init_of(segment)
    now = [0.0]
    progress = make(
        out=lambda _: None,
        parallel=init.get("parallel"),
        tier=init.get("tier", "default"),
        workload=init.get("workload", ""),
        clock=lambda: now[0],
        warm=init.get("warm", False),
    )
    rows = []
    for event in segment:
        now[0] = event["t"]
        if event["call"] == "line":
            rows.append((event["t"], event["eta"], progress.eta()))
        elif event["call"] in TRACED:
            getattr(progress, event["call"])(*event["args"], **event.get("kw", {}))
    return rows


def within(rows: list[tuple[float, float]], share: float = WITHIN, tail: float = TAIL) -> float:
    """The share of lines whose ETA was within ``share`` of the time left, over the lines before
    the last ``tail`` of the run (its end: the last line); nan with no such line."""
    if not rows:
        return math.nan
    end = rows[-1][0]
    use = [(t, eta) for t, eta in rows if t < (1 - tail) * end and end - t > 0]
    if not use:
        return math.nan
    return sum(abs(eta - (end - t)) <= share * (end - t) for t, eta in use) / len(use)


def item_rates(segment: list[dict]) -> dict[tuple[str, str, str], tuple[float, float]]:
    """{(phase, mode, worker): (seconds, units)} of the items a segment finished, a worker by its
    job file's name (``graph-p2`` for the time phase's third process): the rate each stage's
    items ran at, against the units the run gave them."""
    opened: dict[str, tuple[str, str, float, float]] = {}
    out: dict[tuple[str, str, str], tuple[float, float]] = {}
    for event in segment:
        if event["call"] == "item_started":
            who, phase, mode, *units = event["args"]
            units = units[0] if units else event.get("kw", {}).get("units", 1)
            opened[who] = (phase, mode, event["t"], units)
        elif event["call"] == "item_recorded" and event["args"][0] in opened:
            who = event["args"][0]
            phase, mode, at, units = opened.pop(who)
            key = (phase, mode, Path(str(who)).stem)
            seconds, total = out.get(key, (0.0, 0.0))
            out[key] = (seconds + event["t"] - at, total + units)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.run.progress RUN_DIR_OR_TRACE...``: per run, the share of its lines
    whose ETA held to ±20 % as printed, and as the model in this checkout gives it (a replay);
    with ``--rates``, the seconds per unit each worker's items ran at."""
    parser = argparse.ArgumentParser(prog="python -m bench.run.progress", description=main.__doc__)
    parser.add_argument("paths", nargs="+", type=Path, metavar="RUN_DIR_OR_TRACE")
    parser.add_argument("--rates", action="store_true", help="the seconds per unit per worker")
    try:
        args = parser.parse_args(argv)
    except SystemExit as stop:  # a usage error (2), or --help (0)
        return int(stop.code or 0)
    rates = args.rates
    for path in args.paths:
        trace = trace_of(path)
        if not trace.is_file():
            print(
                f"{path}: no {TRACE_NAME} (a run made before the trace was kept)", file=sys.stderr
            )
            return 2
        for n, segment in enumerate(read_trace(trace)):
            rows = replay(segment)
            printed = within([(t, eta) for t, eta, _ in rows])
            model = within([(t, eta) for t, _, eta in rows])
            end = rows[-1][0] if rows else 0.0
            print(f"{path} [{n}]: {len(rows)} lines over {fmt_duration(end)}; ETA within ±20 %: "
                  f"{printed:.0%} as printed, {model:.0%} by this checkout's model")  # fmt: skip
            if rates:
                for (phase, mode, who), (seconds, units) in sorted(item_rates(segment).items()):
                    print(f"  {phase} {mode} {who}: {seconds:.1f} s for {units:g} units, "
                          f"{seconds / units if units else math.nan:.2f} s per unit")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

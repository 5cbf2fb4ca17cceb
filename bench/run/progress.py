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

import math
import time

from bench.measured.modes import GRAPH, JIT_AST, JIT_BYTECODE, PYNATIVE, PYNATIVE_BLOCKING

# Seconds per unit, measured on this machine: gate (one variant, all its steps, compile
# included), prepare (one calibration or screened shape), time (one member of a race in one
# process, as the progress line times a race: from its start to its first record; from the clip
# runs' progress lines of 2026-12-06, about 40-80 s per mode and process of three races of about
# 20 members). The rates a first-to-last record of each process gives (0.58-1.56 s) are not the
# rates the run observes: with them the clip's ETA ran at 0.8 of the time left (2026-12-07).
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
        GRAPH: 0.8,
        PYNATIVE: 1.3,
        PYNATIVE_BLOCKING: 1.0,
        JIT_AST: 0.8,
        JIT_BYTECODE: 0.8,
    },
}
# A timing process's start (importing MindSpore, pinning threads, warming up) until one has
# ended; then what the ended ones spent outside their races (``start_cost``).
PROCESS_START = 6.0

# A workload's member of a race against the clip's, per mode: seconds per member of the
# stage-0 timing processes (first record to last) of the default runs of 2026-12-06 (clip 15
# runs, brn 9, ema 3, kvcache 2; e.g. ema graph 1.19 s against the clip's 0.72 s). A workload not
# listed (one a user adds) starts from the clip's rates and is scaled as it runs.
WORKLOADS = {
    "brn": {
        GRAPH: 1.53,
        PYNATIVE: 1.33,
        PYNATIVE_BLOCKING: 1.66,
        JIT_AST: 1.51,
        JIT_BYTECODE: 2.31,
    },
    "ema": {GRAPH: 1.65, PYNATIVE: 2.09, PYNATIVE_BLOCKING: 1.74, JIT_AST: 1.6, JIT_BYTECODE: 2.56},
    "kvcache": {
        GRAPH: 1.83,
        PYNATIVE: 1.99,
        PYNATIVE_BLOCKING: 3.43,
        JIT_AST: 2.7,
        JIT_BYTECODE: 1.03,
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


class Progress:
    """Counts items per (phase, mode) and prints lines with elapsed time and the run's ETA."""

    def __init__(
        self, out=print, parallel: dict | None = None, tier: str = "default", workload: str = ""
    ):
        self.out = out
        own = TIERS.get(tier, {})
        ratio = WORKLOADS.get(workload, {})
        time_rates = own.get("time", MODEL["time"])
        time_rates = {mode: s * ratio.get(mode, 1.0) for mode, s in time_rates.items()}
        self.model = {**MODEL, "time": time_rates}
        self.process_start = own.get("process_start", PROCESS_START)
        self.start = time.monotonic()
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

    def plan(self, phase: str, mode: str, items: float, processes: int = 1) -> None:
        """Announce ``items`` more units of a phase (the ETA counts them from now on)."""
        key = (phase, mode)
        self.todo[key] = self.todo.get(key, 0) + items
        self.processes[phase] = self.processes.get(phase, 0) + processes

    def expect(self, phase: str, mode: str, items: float, processes: int = 0) -> None:
        """Items that may come (a later stage's races, known only once the earlier ones are
        decided), and the processes they start: counted in the ETA until ``settle`` replaces
        them with what is planned."""
        key = (phase, mode)
        self.expected[key] = self.expected.get(key, 0) + items
        self.expected_starts[key] = self.expected_starts.get(key, 0) + processes

    def settle(self, phase: str, mode: str | None = None) -> None:
        """The expected items of ``phase`` (of one ``mode`` only, if given) are now known:
        forget the guess."""
        keep = lambda k: k[0] != phase or mode not in (None, k[1])  # noqa: E731
        self.expected = {k: n for k, n in self.expected.items() if keep(k)}
        self.expected_starts = {k: n for k, n in self.expected_starts.items() if keep(k)}

    def finished(self, phase: str, mode: str, seconds: float, units: float = 1) -> None:
        key = (phase, mode)
        self.done[key] = self.done.get(key, 0) + units
        self.spent[key] = self.spent.get(key, 0.0) + seconds

    def item_started(self, who, phase: str, mode: str, units: float = 1) -> None:
        """``who`` (one worker process) began an item of ``units``; its first record ends it."""
        self.open[who] = (phase, mode, time.monotonic(), units)

    def item_recorded(self, who) -> None:
        """A record of ``who``'s item: the item is finished at its first (a race's members
        each report a record, and the race is one item)."""
        if who in self.open:
            phase, mode, at, units = self.open.pop(who)
            seconds = time.monotonic() - at
            self.finished(phase, mode, seconds, units)
            self.in_items[who] = self.in_items.get(who, 0.0) + seconds

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
        elapsed = time.monotonic() - self.start
        self.out(f"[{fmt_duration(elapsed)} · ETA {fmt_duration(self.eta())}] {text}")

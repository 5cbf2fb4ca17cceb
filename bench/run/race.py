"""A race: every candidate of one mode and size, timed head to head in the same rounds.

Ranking candidates by each one's ratio to its own no-update twin compares through different
controls (twins differ by layout, and a compiler may shrink one twin's work more than another's).
A race times, in one process, a block of k steps of every member and of every twin in each round,
forward in one round and backward in the next (A B C … C B A), so a linear drift cancels for
every pair over two rounds, and any two members are compared on the same rounds:

- ``update`` members: the working strategies (each in its chosen shape);
- the twins: each member's no-update twin (added time = member / twin), and the base twin;
- an ``aa`` member, a second copy of the base twin (the harness's own bias), and ``layout``
  members, twins of other layouts against the base twin.

Every member that writes runs the same number of steps (the same warm-up, the same blocks), so
members that compute what the code means are at the same state at every round (a layout twin,
which writes nothing, warms up on its own clock and runs shorter blocks when its step is slow,
as long as the base twin's: ``pairing.shorter``; at the race's k the clip's (1,) Parameter read
directly made blocks of 10 s, and a third of PYNATIVE's timing); before each twin block the
twin gets the first update member's state (``Runtime.sync_state``: the clip's cost depends on
its limit). Before every block, a read of the Parameter the step writes last waits for any
leftover work. Each member's record is a :class:`~bench.core.schema.Timing` whose ``control_s``
are its twin's blocks of the same rounds and whose ``race_base_s`` are the base twin's.
"""

from __future__ import annotations

import numpy as np

from bench.core.schema import Timing, event_line
from bench.run import pairing
from bench.run.machine import peak_rss_bytes

MEMBER = "member"  # the event a race prints before it builds or runs a member


def order(labels: list[str], rounds: int, start: int = 0) -> list[list[str]]:
    """Each round's block order: forward, then backward (ABC CBA ABC …)."""
    return [labels if (r + start) % 2 == 0 else labels[::-1] for r in range(rounds)]


def budget_rounds(cell_seconds: float, blocks: int, round_s: float, low: int, high: int) -> int:
    """Rounds for a race: ``cell_seconds`` per pair of blocks (what a subject and its twin got
    when each was timed alone), at least ``low``, at most ``high``, and always even: a round runs
    forward, the next backward, so only an even count gives every pair as many rounds in each
    order (balanced ABBA: a linear drift cancels exactly)."""
    rounds = pairing.rounds_for(cell_seconds * max(1, blocks) / 2, round_s, low, high)
    return rounds + rounds % 2


def _loop(one_round, rounds: int) -> None:
    for _ in range(rounds):
        one_round()


def run(context, cell, x, order_index: int, rounds_by=_loop) -> tuple[list[Timing], list[str]]:
    """Run the race ``cell`` (an Item with members); returns each member's Timing and the
    descriptions of the members whose final state is wrong. ``rounds_by(one_round, rounds)``
    runs the rounds (pytest-benchmark's ``pedantic`` in a timing worker: its record is then the
    time of a whole round)."""
    job, work, mode = context.job, context.workload, context.mode
    precision, n = job.precision, cell.batch_size
    base_key = cell.control
    twins: dict[str, pairing.Stepper] = {}
    first_calls: dict[str, float] = {}

    def at(name: str) -> None:
        """Which member runs next: a worker that dies names the member it died on."""
        print(event_line(MEMBER, key=cell.key, member=name), flush=True)

    def twin(key: str, path: str) -> pairing.Stepper:
        if key not in twins:
            at(key)
            twins[key] = pairing.Stepper(work, context.variant(path), mode, x, n)
            first_calls[key] = twins[key].first_call_s
        return twins[key]

    base = twin(base_key, cell.control_path)
    subjects: dict[str, pairing.Stepper] = {}  # by label (``label``); twins by "control/<shape>"
    for m in cell.members:
        if m.role == "layout":  # a layout twin: its blocks are those of the twin itself
            twin(m.label, m.path)
            continue
        at(m.label)
        # the A/A member is the base twin's code in a class of its own: under bytecode capture a
        # second instance of the same class can run the first one's graph (it would time the
        # base twin's own instance, not a copy of it)
        klass = context.variant(m.path, fresh=m.role == "aa")
        subjects[m.label] = pairing.Stepper(work, klass, mode, x, n)
        if m.update:
            twin(m.control, m.control_path)
    leader = next((subjects[m.label] for m in cell.members if m.update), None)

    everyone = {**subjects, **twins}
    layouts = {m.label for m in cell.members if m.role == "layout"}
    at(base_key)
    warm = base.warm_up(precision.warmup_seconds)
    warms = {name: warm for name in everyone}  # each member's warm-up steps, for its record
    for name, stepper in everyone.items():  # the same number of steps for every member
        if stepper is base:
            continue
        at(name)
        if name in layouts:  # writes nothing, its state synced: its own warm-up is enough (at
            warms[name] = stepper.warm_up(precision.warmup_seconds)  # 20 ms a step: the
            continue  # base's 90 steps were 2 s a race)
        for _ in range(warm):
            stepper.timed_block(1)
    k = cell.k or _k(context, cell, base, subjects, at)
    steps = {name: k for name in everyone}  # per block: the same for every member that writes
    base_block = base.timed_block(k) if layouts else 0.0
    for name in sorted(layouts):  # a layout twin writes nothing (its state is synced): a slow
        at(name)  # one runs shorter blocks, as long as the base's (pairing.shorter)
        steps[name] = pairing.shorter(
            k,
            everyone[name],
            precision.block_seconds,
            mode.min_steps,
            precision.max_block_seconds,
            min_block=base_block,
        )

    def ready(name: str) -> pairing.Stepper:
        at(name)
        stepper = everyone[name]
        if leader is not None and stepper is not leader and name not in updates:
            work.sync_state(leader.params, stepper.params)  # a twin runs at the leader's state
        stepper.probe.asnumpy()
        return stepper

    updates = {m.label for m in cell.members if m.update}

    labels = sorted(subjects) + sorted(twins)
    round_s = sum(ready(name).timed_block(steps[name]) for name in labels)
    rounds = budget_rounds(precision.cell_seconds, len(labels), round_s, 4, max(4, cell.rounds))
    times: dict[str, list[float]] = {name: [] for name in labels}
    plan = iter(order(labels, rounds, order_index))

    def one_round() -> None:
        for name in next(plan, ()):  # nothing for a runner's call beyond the planned rounds
            times[name].append(ready(name).timed_block(steps[name]) / steps[name])

    with pairing.gc_off():
        rounds_by(one_round, rounds)

    out, wrong = [], []
    for m in cell.members:
        name = m.label
        mine, stepper, control = times[name], everyone[name], m.control
        if m.update:
            final = work.final_state(stepper.params, n)
            want = work.after_steps(stepper.steps, n, update=True)
            ok = bool(work.final_matches(final, want))
            if not ok:
                wrong.append(f"{name}: after {stepper.steps} steps the state is {final}, the "
                             f"code writes {want}")  # fmt: skip
        else:  # twins run at the leader's state (synced): their no-update is the gate's verdict
            final, want, ok = work.final_state(stepper.params, n), {}, True
        out.append(
            Timing(
                workload=job.workload,
                strategy=m.strategy,
                shape=m.shape,
                mode=mode.name,
                batch_size=n,
                process=job.process,
                control=control,
                role=m.role,
                k=steps[name],
                step_s=mine,
                control_s=times[control],
                control_position=["race"] * rounds,
                first_call_s=stepper.first_call_s,
                control_first_call_s=first_calls.get(control, float("nan")),
                warmup_steps=warms[name],
                steps_run=stepper.steps,
                final_state_ok=ok,
                final_state={key: np.asarray(v).reshape(-1).tolist() for key, v in final.items()},
                expected_final_state={
                    key: np.asarray(v).reshape(-1).tolist() for key, v in want.items()
                },
                peak_rss_bytes=peak_rss_bytes(),
                order=order_index,
                stage=job.stage,
                race=f"{mode.name}-N{n}-p{job.process}-s{job.stage}",
                race_base_s=times[base_key],
            )
        )
    return out, wrong


def _k(context, cell, base, subjects, at) -> int:
    """Steps per block: calibrated on the base twin, then made small enough for the slowest
    member (``pairing.cap``: a host-side update can be thousands of times slower); ``at`` names
    the member that runs."""
    at(cell.control)
    k = context.k(cell, base)
    for name, stepper in subjects.items():
        at(name)
        k = min(k, pairing.cap(k, stepper, base, context.job.precision.max_block_seconds))
    return k

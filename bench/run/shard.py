"""Shards: one run's gate and timing split over N machines (``--shard I/N``), then merged into one
run (``bench.run.merge``).

The split is by strategy × mode. A *unit* is ``"<strategy>|<mode>"`` for every strategy of the
plan and, per mode, ``"control|<mode>"`` (the no-update twins of that mode). The units are put
into *groups* and the groups, in sorted order, are dealt round-robin: group k goes to shard
(k mod N) + 1.

- A gate-only run: every unit is a group of its own (sorted by mode, then strategy, so each
  shard gets a share of every mode). A verdict depends only on its own cell.
- A timed run: a mode's units are one group. The timing of a mode is a race per size that times
  every working strategy of the mode head to head in the same rounds (``bench.run.race``), and a
  decision between two strategies is made only from rounds they shared
  (``bench.core.analysis.Cell.versus``): a mode split over two machines would leave the pairs
  across the machines without a decision. So a timed run has as many parts as it has modes.

Why round-robin over sorted names and not a hash of ``strategy|mode``: both are the same on every
machine (nothing depends on Python's randomized ``hash()``, on the order of the command line or
on the machine), but a hash can leave a shard empty or twice as full as another for the handful
of units a small run has, while round-robin gives every shard a part whenever N is at most the
number of groups, and parts that differ by one group at most. What a hash would give in return,
the same shard for a unit whatever else the plan holds, is not needed: the shards of one run are
started from the same command, and the merge checks that their plans are the same.
"""

from __future__ import annotations

import argparse

from bench.measured.shapes import CONTROL

SPLIT = "round-robin over the sorted strategy|mode units (a timed run: each mode whole)"


def parse(text: str) -> tuple[int, int]:
    """An argparse type: ``I/N`` with 1 <= I <= N."""
    index, slash, count = text.partition("/")
    try:
        if not slash:
            raise ValueError
        index, count = int(index), int(count)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not I/N (two whole numbers): {text!r}") from None
    if not 1 <= index <= count:
        raise argparse.ArgumentTypeError(f"shard {text!r}: I must be between 1 and N")
    return index, count


def name(shard) -> str:
    return f"{shard[0]}/{shard[1]}"


def unit(strategy: str, mode: str) -> str:
    return f"{strategy}|{mode}"


def groups(plan) -> list[list[str]]:
    """The plan's units in the groups that go to one shard together, in dealing order."""
    modes = sorted(plan.modes)
    names = sorted({*plan.strategies, CONTROL})
    if plan.gate_only:
        return [[unit(s, m)] for m in modes for s in names]
    return [[unit(s, m) for s in names] for m in modes]


def split(plan, count: int) -> list[list[str]]:
    """The units of each of ``count`` shards (index 0 is shard 1/N)."""
    parts: list[list[str]] = [[] for _ in range(count)]
    for k, group in enumerate(groups(plan)):
        parts[k % count].extend(group)
    return parts


def check(plan, shard) -> None:
    """ValueError when ``shard`` (I, N) leaves shards without work: N above the number of
    groups."""
    index, count = shard
    found = len(groups(plan))
    if count > found:
        what = "strategy × mode cells" if plan.gate_only else "modes (a timed run: modes whole)"
        raise ValueError(
            f"--shard {index}/{count}: this run splits into {found} {what}, "
            f"fewer than {count} shards"
        )


def held(plan) -> list[str] | None:
    """The units ``plan``'s shard holds (None: not a shard, everything)."""
    if not plan.shard:
        return None
    index, count = plan.shard
    return split(plan, count)[index - 1]


def holds(plan, strategy: str, mode: str) -> bool:
    """Whether ``plan`` (a shard or a whole run) gates and times ``strategy`` in ``mode``."""
    mine = held(plan)
    return mine is None or unit(strategy, mode) in mine


def modes(plan) -> list[str]:
    """The plan's modes this shard holds anything of, in the plan's order."""
    mine = held(plan)
    if mine is None:
        return list(plan.modes)
    found = {u.rsplit("|", 1)[1] for u in mine}
    return [m for m in plan.modes if m in found]


def record(plan) -> dict:
    """What a shard's manifest says of it (``Manifest.shard``); {} for a whole run."""
    if not plan.shard:
        return {}
    return {"shard": name(plan.shard), "holds": held(plan), "split": SPLIT}

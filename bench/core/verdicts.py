"""The final verdict of each strategy × shape × mode: every gate process and every timing process.

The gate runs each compiled-mode variant in two fresh processes, and every timed cell checks the
state after its hundreds of timed steps. One process cannot certify a nondeterministic cell, so:

- processes that agree give that verdict (``evidence.gate`` lists what each saw);
- processes that disagree make the cell silently wrong of the kind ``differs between processes``,
  with the count of each outcome;
- a cell that passed the gate but whose state was wrong after its timed steps in some timing
  process is silently wrong too (``differs between processes``: the gate's processes saw it
  work), with ``evidence.timed`` = how many timing processes saw it wrong.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace

from bench.core.rundir import CellId
from bench.core.schema import Kind, Status, Verdict, signature

ORDER = (Status.CRASHED, Status.TIMEOUT, Status.RAISES, Status.INCORRECT, Status.WORKS)


def _sig(v: Verdict) -> str:
    return signature(v.status, v.kind, v.detail)


def _counts(sigs: list[str]) -> str:
    return "; ".join(f"{s} in {n} of {len(sigs)}" for s, n in Counter(sigs).most_common())


def merge_replicas(group: list[Verdict]) -> Verdict:
    group = sorted(group, key=lambda v: v.replica)
    sigs = [_sig(v) for v in group]
    first = group[0]
    if len(set(sigs)) == 1:
        return replace(first, replica=-1, evidence={"gate": sigs})
    worst = min((v for v in group if v.status != Status.WORKS), key=lambda v: ORDER.index(v.status))
    # Right in one process and not in another is "differs between processes" (silently wrong:
    # a user cannot tell which they get), whatever the wrong processes did.
    some_work = any(v.status == Status.WORKS for v in group)
    status = Status.INCORRECT if some_work or worst.status == Status.INCORRECT else worst.status
    kinds = sorted({k for v in group for k in v.kinds} | {str(Kind.DIFFERS)})
    return replace(
        worst,
        status=status,
        kind=str(Kind.DIFFERS),
        kinds=kinds,
        detail=f"gate processes: {_counts(sigs)}. {worst.detail}",
        replica=-1,
        evidence={"gate": sigs},
    )


def timed_outcomes(cells: list[dict]) -> dict[tuple[str, str, str], list[dict]]:
    """{(strategy, shape, mode): [cell statuses of every timing process, every size]}."""
    out: dict[tuple, list[dict]] = defaultdict(list)
    for c in cells:
        try:
            cell = CellId.parse(c["test"])
        except (KeyError, ValueError):
            continue
        out[(cell.strategy, cell.shape, cell.mode)].append({**c, "size": cell.size})
    return out


def final(verdicts: list[Verdict], cells: list[dict]) -> list[Verdict]:
    """One verdict per strategy × shape × mode, from every gate and timing process."""
    groups: dict[tuple, list[Verdict]] = defaultdict(list)
    for v in verdicts:
        groups[v.key].append(v)
    timed = timed_outcomes(cells)
    out = []
    for key, group in sorted(groups.items()):
        v = merge_replicas(group)
        runs = timed.get(key, [])
        wrong = [c for c in runs if c.get("status") == Status.INCORRECT]
        if runs:
            v = replace(
                v,
                evidence={
                    **v.evidence,
                    "timed": {
                        "cells": len(runs),
                        "wrong": len(wrong),
                        "sizes": sorted({c["size"] for c in wrong}),
                    },
                },
            )
        if wrong and v.status == Status.WORKS:
            sizes = ", ".join(str(n) for n in sorted({c["size"] for c in wrong}))
            v = replace(
                v,
                status=Status.INCORRECT,
                kind=str(Kind.DIFFERS),
                kinds=[str(Kind.DIFFERS)],
                detail=(
                    f"worked in every gate process; the state was wrong after the timed steps "
                    f"in {len(wrong)} of {len(runs)} timed cells (sizes {sizes}): "
                    f"{wrong[0].get('detail', '')}"
                ),
            )
        out.append(v)
    return out

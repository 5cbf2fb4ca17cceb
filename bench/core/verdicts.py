"""The final verdict of each strategy × shape × mode: every gate process and every timing process.

The gate runs each compiled-mode variant in two fresh processes, and every timed cell checks the
state after its hundreds of timed steps. One process cannot certify a nondeterministic cell, so:

- processes that agree give that verdict (``evidence.gate`` lists what each saw);
- processes that disagree make the cell silently wrong of the kind ``differs between processes``,
  with the count of each outcome;
- a cell that passed the gate but whose state was wrong after its timed steps in some timing
  process is silently wrong too, with ``evidence.timed`` = how many timing processes saw it
  wrong; its kind comes from a re-gate alone (``timed_outcome``): the kind it shows alone, or
  ``differs between processes`` when it is right alone (or was not re-gated).
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


ALONE = 1000  # the replica number of a re-gate alone (a fresh child, the timed step count)


def timed_outcome(gate: str, timed_cells: int, timed_wrong: int, alone: str | None) -> tuple:
    """(status, kind, why) of a cell the gate saw work (``gate`` == "works") but whose state was
    wrong after the timed steps in ``timed_wrong`` of ``timed_cells`` timing processes, given
    ``alone``: the signature of the cell re-gated alone in a fresh child over as many steps as
    it was timed (None: not re-gated). Wrong alone is the cell's own failure, with the kind it
    shows alone (e.g. a lazy update that stops after 45 calls: a write dropped, every time);
    right alone is "differs between processes" (it depends on what ran before it); not re-gated
    stays "differs between processes", said so. ``(None, None, "")``: nothing to change."""
    if gate != Status.WORKS.value or not timed_wrong:
        return None, None, ""
    if alone is None:
        return Status.INCORRECT, str(Kind.DIFFERS), "not re-gated alone"
    if alone == Status.WORKS.value:
        return Status.INCORRECT, str(Kind.DIFFERS), "right when re-gated alone"
    status, _, rest = alone.partition(": ")
    if status == Status.INCORRECT.value:
        return Status.INCORRECT, rest, "wrong when re-gated alone"
    return Status(status), "", "re-gated alone it " + alone


def final(verdicts: list[Verdict], cells: list[dict]) -> list[Verdict]:
    """One verdict per strategy × shape × mode, from every gate and timing process (a verdict
    with ``replica`` == ``ALONE`` is a re-gate alone of a cell found wrong while timed)."""
    groups: dict[tuple, list[Verdict]] = defaultdict(list)
    alone: dict[tuple, Verdict] = {}
    for v in verdicts:
        if v.replica == ALONE:
            alone[v.key] = v
        else:
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
        solo = alone.get(key)
        status, kind, why = timed_outcome(
            _sig(v), len(runs), len(wrong), _sig(solo) if solo else None
        )
        if status is not None:
            sizes = ", ".join(str(n) for n in sorted({c["size"] for c in wrong}))
            timed_note = (
                f"the state was wrong after the timed steps in {len(wrong)} of {len(runs)} "
                f"timed cells (sizes {sizes}): {wrong[0].get('detail', '')}"
            )
            if solo is not None and kind != str(Kind.DIFFERS):
                v = replace(
                    solo,
                    status=status,
                    kind=kind,
                    kinds=list(solo.kinds) or ([kind] if kind else []),
                    detail=f"worked in every gate process; {timed_note}; {why}: {solo.detail}",
                    replica=-1,
                    evidence={**v.evidence, "alone": _sig(solo)},
                )
            else:
                v = replace(
                    v,
                    status=status,
                    kind=kind,
                    kinds=[kind],
                    detail=f"worked in every gate process; {timed_note} ({why})",
                    evidence={**v.evidence, **({"alone": _sig(solo)} if solo else {})},
                )
        out.append(v)
    return out

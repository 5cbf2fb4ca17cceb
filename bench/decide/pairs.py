"""What flips a verdict: minimal pairs of shapes, measured, never guessed.

A minimal pair is two shapes of one strategy, in one mode, that differ in exactly one dimension
(say ``read: param`` vs ``read: alias``) and get different outcomes (works vs a failure, or two
different failures). The report may say "changing X flips the verdict" only where such a pair
exists, and says in how many of the pairs with that same one-dimension change the flip holds:
*all of them* makes it a rule for that strategy and mode; fewer means other dimensions matter too.
"""

from __future__ import annotations

from itertools import combinations

import pandas as pd

from bench.core.schema import Status

COLUMNS = (
    "workload strategy mode dim works_value fails_value works_outcome fails_outcome pairs of "
    "works_shape fails_shape"
).split()
SKIP = {str(Status.INEXPRESSIBLE), str(Status.BROKEN), str(Status.SKIPPED), str(Status.MISSING)}


def outcome(row) -> str:
    return row.outcome


def _rank(out: str) -> tuple:
    return (out != Status.WORKS.value, out)


def minimal_pairs(verdicts: pd.DataFrame) -> pd.DataFrame:
    """One row per strategy × mode × one-dimension change whose outcome differs, with the
    number of shape pairs that flip (``pairs``) out of all pairs with that change (``of``)."""
    rows = []
    gated = verdicts[~verdicts.status.isin(SKIP) & verdicts.dims.map(bool)]
    for (workload, strategy, mode), group in gated.groupby(["workload", "strategy", "mode"]):
        shapes = list(group.itertuples())
        tally: dict[tuple, list] = {}
        for a, b in combinations(shapes, 2):
            differ = [d for d in a.dims if a.dims.get(d) != b.dims.get(d)]
            if len(differ) != 1 or set(a.dims) != set(b.dims):
                continue
            dim = differ[0]
            oa, ob = outcome(a), outcome(b)
            first, second = sorted([(a, oa), (b, ob)], key=lambda p: _rank(p[1]))
            change = tuple(sorted((a.dims[dim], b.dims[dim])))
            entry = tally.setdefault((dim, change), [0, []])
            entry[0] += 1
            if oa != ob:
                entry[1].append((first, second))
        for (dim, _), (total, flips) in tally.items():
            kinds: dict[tuple, list] = {}
            for (w, ow), (f, of) in flips:
                key = (w.dims[dim], f.dims[dim], ow, of)
                kinds.setdefault(key, []).append((w.shape, f.shape))
            for (wv, fv, ow, of), examples in kinds.items():
                example = min(examples, key=lambda e: (len(e[0]), e))
                rows.append(
                    [workload, strategy, mode, dim, wv, fv, ow, of, len(examples), total, *example]
                )
    frame = pd.DataFrame(rows, columns=COLUMNS)
    return frame.sort_values(["strategy", "mode", "dim", "works_value"], kind="stable").reset_index(
        drop=True
    )


def rules(pairs: pd.DataFrame) -> pd.DataFrame:
    """The same one-dimension flip across strategies: how many strategies show it, and where it
    holds in every pair (``consistent``)."""
    if pairs.empty:
        return pd.DataFrame(
            columns=[
                "mode",
                "dim",
                "works_value",
                "fails_value",
                "fails_outcome",
                "strategies",
                "consistent",
            ]
        )
    pairs = pairs.assign(consistent=pairs.pairs == pairs["of"])
    keys = ["mode", "dim", "works_value", "fails_value", "fails_outcome"]
    grouped = pairs.groupby(keys).agg(
        strategies=("strategy", lambda s: sorted(set(s))),
        consistent=("consistent", "all"),
    )
    return grouped.reset_index()

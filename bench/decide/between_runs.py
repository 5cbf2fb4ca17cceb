"""The variance between runs of this machine, per mode, from the committed back-to-back pairs.

A cost's interval comes from one run: its rounds and processes. The committed pairs
(``results/b2b/pairs.json``) show that in some modes a cell's overhead moves between two runs
more than those intervals allow (clip PYNATIVE: 15 % of the cells beyond 1.96 combined standard
errors, against 5 % if they held). Issue 52 asks to widen such intervals by a between-run
component estimated from the pairs. Model, on the log scale of a cell's overhead (its step over
its twin's): each run adds its own draw of variance τ²_run, so the difference of a pair has
variance s_A² + s_B² + 2 τ²_run (s: each run's own standard error).

``tau2`` estimates τ²_run per mode and kind of cell, pooled over the pairs and workloads, as
the smallest τ² that brings the 95th percentile of |B − A| / √(s_A² + s_B² + 2τ²) down to
1.96, that of |Z| for a standard normal Z. The tail, not the median: most cells move far less
than their intervals allow and a few far more (a median match gave τ = 0 everywhere, with 17 %
of GRAPH_MODE's layout cells beyond 1.96), and the tail is where an interval fails. That is
matched on the pairs it is estimated from, so the page also shows it out of sample: each pair
judged with τ from the other pairs. Its degrees of freedom: the number of pairs (one draw of
the run's state each; the cells of a pair share it).

``python -m bench.decide.between_runs`` writes ``results/between_runs.json``: per mode τ, the
cells and pairs it rests on, and a leave-one-pair-out check: each pair's cells judged with τ
estimated from the other pairs only (what a new run, not used in the estimate, would see).
``load.load`` adds each mode's τ²_run to every cell's cost interval (``Cell.estimate``); the
comparisons between candidates keep their own intervals (0 of 1,122 contradicted between runs).
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from scipy import optimize

from bench.core import paths
from bench.core.args import OneLineParser, UsageError
from bench.core.io import write_text_atomic

SCHEMA_VERSION = 1
PAIRS = paths.RESULTS_DIR / "b2b" / "pairs.json"
OUT = paths.RESULTS_DIR / "between_runs.json"
Z = 1.96  # compare.Z_CALIBRATION: |Z| lies beyond it 5 % of the time
TAIL = 0.95


def tau2(diffs, ses) -> float:
    """The smallest τ²_run ≥ 0 such that the 95th percentile of |d| / √(s² + 2τ²) is at most
    1.96 (``diffs``: B − A of each cell's log overhead; ``ses``: their combined standard errors
    from each run alone); 0 when the runs' own errors already cover the differences. Pure."""
    d = np.abs(np.asarray(diffs, float))
    s2 = np.square(np.asarray(ses, float))
    keep = np.isfinite(d) & np.isfinite(s2)
    d, s2 = d[keep], s2[keep]
    if not d.size:
        return 0.0

    def excess(t: float) -> float:
        return float(np.quantile(d / np.sqrt(s2 + 2 * t), TAIL)) - Z

    if excess(0.0) <= 0:
        return 0.0
    high = max(float(np.max(d)) ** 2, 1e-12)
    while excess(high) > 0:
        high *= 4
    return float(optimize.brentq(excess, 0.0, high, xtol=1e-14))


def beyond(diffs, ses, t2: float) -> float:
    """The share of cells whose |B − A| exceeds 1.96 √(s² + 2τ²) (``compare.beyond`` of their
    z): about 5 % when it holds."""
    from bench.decide import compare

    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.asarray(diffs, float) / np.sqrt(np.square(np.asarray(ses, float)) + 2 * t2)
    return compare.beyond(z)


ROLES = ("update", "layout")  # the cells whose costs the pages print (an A/A cell checks one run)


@dataclass(frozen=True)
class ModeFit:
    mode: str
    role: str  # "update": a write's cost; "layout": a twin of another layout against the base
    tau: float  # √τ²_run: a share of the overhead (0.05: ±5 % a run)
    df: float  # the pairs it rests on
    cells: int
    pairs: int
    beyond_own: float  # share beyond 1.96 with each run's own errors
    beyond_widened: float  # with τ²_run estimated from the same pairs (in-sample)
    beyond_held_out: float  # each pair with τ²_run from the other pairs (out of sample)


def fit(rows: list[dict]) -> list[ModeFit]:
    """Per mode and role, from rows {pair, mode, role, diff, se} (one per cell timed in both
    runs of a pair): τ, and the share beyond 1.96 three ways. Pure."""
    out = []
    for mode, role in sorted({(r["mode"], r.get("role", "update")) for r in rows}):
        mine = [r for r in rows if r["mode"] == mode and r.get("role", "update") == role]
        pairs = sorted({r["pair"] for r in mine})
        d = [r["diff"] for r in mine]
        s = [r["se"] for r in mine]
        t2 = tau2(d, s)
        held_in, held_total = 0, 0
        for p in pairs:
            rest = [r for r in mine if r["pair"] != p]
            one = [r for r in mine if r["pair"] == p]
            t_rest = tau2([r["diff"] for r in rest], [r["se"] for r in rest]) if rest else 0.0
            share = beyond([r["diff"] for r in one], [r["se"] for r in one], t_rest)
            if math.isfinite(share):
                held_in += share * len(one)
                held_total += len(one)
        out.append(
            ModeFit(
                mode=mode,
                role=role,
                tau=math.sqrt(t2),
                df=float(len(pairs)),
                cells=len(mine),
                pairs=len(pairs),
                beyond_own=beyond(d, s, 0.0),
                beyond_widened=beyond(d, s, t2),
                beyond_held_out=held_in / held_total if held_total else math.nan,
            )
        )
    return out


def to_json(fits: list[ModeFit], pairs: list[dict]) -> str:
    data = {
        "schema_version": SCHEMA_VERSION,
        "pairs": pairs,
        "fits": [asdict(f) for f in fits],
    }
    return json.dumps(data, indent=1) + "\n"


def read(path: Path = OUT) -> dict[tuple[str, str], tuple[float, float]]:
    """{(mode, role): (τ²_run, its df)} of the committed file; {} when there is none (nothing
    widened) or it is of another schema (said on stderr: never a silent change of every
    interval)."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        print(f"between_runs: {path}: unreadable ({err}): no interval widened", file=sys.stderr)
        return {}
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION:
        found = data.get("schema_version") if isinstance(data, dict) else None
        print(f"between_runs: {path}: schema {found!r} ignored", file=sys.stderr)
        return {}
    return {(f["mode"], f["role"]): (f["tau"] ** 2, f["df"]) for f in data["fits"]}


def pair_rows(pair: dict, roles=ROLES) -> list[dict]:
    """Rows {pair, mode, role, diff, se} of one committed pair: the cells of ``roles`` timed in
    both runs (``compare.compare``: each run's own standard errors)."""
    from bench.decide import compare, load

    w = pair["workload"]
    found = []
    for run in (pair["a"], pair["b"]):
        for raw in (paths.RESULTS_DIR / "b2b" / w / "raw", paths.raw_dir(paths.results_dir(w))):
            try:
                found.append(paths.named_run(run, raw))
                break
            except UsageError:
                continue
        else:
            where = f"results/b2b/{w}/raw nor results/{w}/raw"
            raise UsageError(f"pair {pair}: run {run!r} is in neither {where}")
    a, b = (load.load(d, between_runs={}) for d in found)
    table = compare.compare(a, b)
    name = f"{w} {pair['a'][-4:]}→{pair['b'][-4:]}"
    return [
        {"pair": name, "mode": r.mode, "role": r.role, "diff": math.log(r.ratio), "se": r.se}
        for r in table.itertuples()
        if r.role in roles and math.isfinite(r.se) and r.se > 0 and r.ratio > 0
    ]


def lines(fits: list[ModeFit]) -> list[str]:
    from bench.core import fmt
    from bench.measured.modes import label

    body = [
        [label(f.mode), f.role, f.pairs, f.cells, f"±{f.tau:.1%}", f"{f.beyond_own:.1%}",
         f"{f.beyond_widened:.1%}", f"{f.beyond_held_out:.1%}"]
        for f in fits
    ]  # fmt: skip
    head = ["mode", "cells of", "pairs", "cells", "τ between runs", "beyond 1.96 SE, own",
            "widened (same pairs)", "widened (pair left out)"]  # fmt: skip
    return fmt.table(head, body)


def by_pair(rows: list[dict]) -> list[str]:
    """Per pair and mode, the share of each kind of cell beyond 1.96 with each run's own errors
    (where the between-run spread shows: in which pairs, which cells). Pure."""
    from bench.core import fmt
    from bench.measured.modes import label

    keys = sorted({(r["pair"], r["mode"]) for r in rows}, key=lambda k: (k[0], k[1]))
    body = []
    for pair, mode in keys:
        cells = []
        for role in (*ROLES, "aa"):
            mine = [r for r in rows if (r["pair"], r["mode"], r.get("role")) == (pair, mode, role)]
            share = beyond([r["diff"] for r in mine], [r["se"] for r in mine], 0.0)
            cells.append(f"{share:.1%} of {len(mine)}" if mine else "–")
        body.append([pair, label(mode), *cells])
    return fmt.table(
        ["pair", "mode", *(f"{role}: beyond 1.96 SE" for role in (*ROLES, "aa"))], body
    )


def main(argv=None) -> int:
    p = OneLineParser(
        prog="python -m bench.decide.between_runs", description=__doc__.splitlines()[0]
    )
    p.add_argument("--pairs", type=Path, default=PAIRS, help="default results/b2b/pairs.json")
    p.add_argument("--out", type=Path, default=OUT, help="default results/between_runs.json")
    p.add_argument(
        "--by-pair", action="store_true", help="also print each pair's share beyond, per kind"
    )
    try:
        args = p.parse_args(sys.argv[1:] if argv is None else argv)
        if not args.pairs.is_file():
            raise UsageError(f"no pairs file {str(args.pairs)!r}")
        try:
            pairs = json.loads(args.pairs.read_text(encoding="utf-8"))["pairs"]
            keys = [(p["workload"], p["a"], p["b"]) for p in pairs]
        except (ValueError, KeyError, TypeError) as err:
            raise UsageError(f"{str(args.pairs)!r} is no pairs file ({err!r})") from err
        if not keys:
            raise UsageError(f"{str(args.pairs)!r} lists no pair")
        rows = [r for pair in pairs for r in pair_rows(pair, roles=(*ROLES, "aa"))]
    except UsageError as err:
        print(f"between_runs: error: {err}", file=sys.stderr)
        return 2
    if args.by_pair:
        print("\n".join(by_pair(rows)) + "\n")
    fits = fit([r for r in rows if r["role"] in ROLES])
    print("\n".join(lines(fits)))
    write_text_atomic(args.out, to_json(fits, pairs))
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Reproduction scripts: one standalone script per verdict a finding links to, runnable with
MindSpore and NumPy alone (``python <script>``), in every workload and mode.

Each script is written by ``bench.causes.standalone`` from the run's data only: the verdict
record (what the gate saw: status, kind, the calls or instance it shows at, the error, the
signal), the variant's code (kept with the run, or rendered again from the strategy file and the
shape) and the workload's code. It prints expected against observed per step and exits 0 only
when it shows what was recorded (a crash or a hang in a child process, a cell that differs
between processes in several).

``python -m bench.causes.repro RUN_DIR STRATEGY@SHAPE-MODE [OUT_DIR]`` (``nox -s repro``) writes
the script of any cell.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench.causes import causes, findings, inline, standalone
from bench.core import paths
from bench.core.io import remove, write_text_atomic
from bench.core.rundir import parse_verdict_name, verdict_name
from bench.core.schema import Status
from bench.decide.load import RunData
from bench.measured import discovery
from bench.measured.modes import label
from bench.measured.shapes import HEADER, Shape
from bench.run.plan import Plan

SCRIPTED = (
    Status.WORKS.value,
    Status.INCORRECT.value,
    Status.RAISES.value,
    Status.CRASHED.value,
    Status.TIMEOUT.value,
)


def script_name(strategy: str, shape: str, mode: str) -> str:
    return f"{verdict_name(strategy, shape, mode)}.py"


def variant_text(run: RunData, strategy: str, shape: str) -> str | None:
    """The variant's code: kept with the run, or rendered again from the strategy file."""
    kept = Path(run.run_dir) / "variants" / strategy / f"{shape}.py"
    if kept.is_file():
        return kept.read_text(encoding="utf-8")
    v = run.verdicts
    row = v[(v.strategy == strategy) & (v["shape"] == shape)]
    if row.empty:
        return None
    try:
        folder = Path(run.plan.get("strategies_dir", ""))
        strategy_file = discovery.load(
            strategy, folder if folder.is_dir() else discovery.STRATEGIES_DIR
        )
        return run.work.render(strategy_file, Shape(tuple(row.iloc[0].dims.items())))
    except Exception:
        return None


def scriptable(row) -> bool:
    return row["status"] in SCRIPTED


def title(row: dict) -> str:
    return (
        f"`{row['strategy']}` in the shape `{row['shape']}`, {label(row['mode'])}: {row['outcome']}"
    )


def text(run: RunData, row: dict) -> str | None:
    """The standalone script of one verdict row, or None (no variant, or one that cannot be
    written out: the reason goes to stderr)."""
    variant = variant_text(run, row["strategy"], row["shape"])
    if variant is None:
        return None
    version = run.environment.get("mindspore") or run.plan.get("mindspore", "?")
    name = script_name(row["strategy"], row["shape"], row["mode"])
    plan = Plan.from_dict(run.plan)  # how many threads the gate ran, how long it waited
    try:
        body = standalone.script(
            variant,
            row,
            title(row),
            version,
            name,
            run_id=Path(run.run_dir).name,
            threads=plan.threads,
            timeout=plan.timeout,
        )
    except inline.InlineError as err:
        print(f"repro: {name}: cannot write it out: {err}", file=sys.stderr)
        return None
    return f"{HEADER}\n{body}"


def write(run: RunData, rows: list[dict], out_dir: Path) -> dict:
    """Write the scripts of ``rows`` (verdict rows); {(strategy, shape, mode): relative path}.
    Scripts written earlier into ``out_dir`` are removed first (and an old bundle module)."""
    out_dir = Path(out_dir)
    for old in out_dir.glob("*.py"):
        if old.read_text(encoding="utf-8", errors="replace").startswith(HEADER):
            remove(old)
    links = {}
    for row in rows:
        key = (row["strategy"], row["shape"], row["mode"])
        if key in links or not scriptable(row):
            continue
        body = text(run, row)
        if body is None:
            continue
        write_text_atomic(out_dir / script_name(*key), body)
        links[key] = f"{out_dir.name}/{script_name(*key)}"
    return links


def repro_rows(run: RunData, splits=None) -> list[dict]:
    """The verdict rows whose scripts the findings link to (each entry's example and pair, and
    the example of each part a split cause takes of it: ``causes.parts``; ``splits``: default
    the committed ones)."""
    v = run.verdicts
    rows = []
    splits = causes.read_splits() if splits is None else splits
    apis = causes.apis_of([run])
    for whole in findings.entries(run):
        keys = []
        for e, _ in [(whole, False), *causes.parts(whole, apis, splits)]:
            key = (e.example.get("strategy"), e.example.get("shape"), e.example.get("mode"))
            if key not in keys:
                keys.append(key)
        e = whole
        if e.pair:
            keys += [(e.pair[0], e.pair[2], e.pair[1]), (e.pair[0], e.pair[3], e.pair[1])]
        for s, shape, mode in keys:
            hit = v[(v.strategy == s) & (v["shape"] == shape) & (v["mode"] == mode)]
            if len(hit):
                rows.append(hit.iloc[0].to_dict())
    return rows


def main(argv=None) -> int:
    """Write the reproduction script of one cell of a run."""
    from bench.decide import load

    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (2, 3):
        print(
            "usage: python -m bench.causes.repro RUN_DIR STRATEGY@SHAPE-MODE [OUT_DIR]",
            file=sys.stderr,
        )
        return 2
    run = load.load(paths.run_folder(argv[0]) or Path(argv[0]))  # a folder or an archive
    cell = argv[1].removesuffix(".py")
    try:
        strategy, shape, mode = parse_verdict_name(cell)
    except ValueError as err:
        print(f"repro: {err}", file=sys.stderr)
        return 2
    v = run.verdicts
    rows = v[(v.strategy == strategy) & (v["shape"] == shape) & (v["mode"] == mode)]
    if rows.empty:
        print(f"repro: no verdict for {cell!r} in {argv[0]}", file=sys.stderr)
        return 2
    out = Path(argv[2]) if len(argv) == 3 else Path(run.run_dir) / "repros"
    links = write(run, [rows.iloc[0].to_dict()], out)
    if not links:
        print(f"repro: {cell}: no script (no variant, or not a gated cell)", file=sys.stderr)
        return 1
    print(f"repro: wrote {out / next(iter(links.values())).split('/', 1)[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

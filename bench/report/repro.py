"""Reproduction scripts: the exact code the gate ran, plus a driver, runnable with MindSpore and
NumPy alone (``python <script>``), for every shape a finding links to.

A clip cell outside bytecode capture gets a standalone script (``bench.report.standalone``: the
cell written out, a NumPy reference, no bundle, short enough to paste into an issue). The others
get the bundled script below.

A script is the variant file (from the run folder, or regenerated from the strategy file and the
shape when the run's ``variants/`` is not kept) followed by ``MODE``, ``MEANING`` (what its reads
see under eager semantics) and ``RECORDED`` (what the gate observed), and the driver
(``bench.measured.reproduce``): it judges every step as the gate does and prints ``REPRODUCED``
(exit 0) only when the status and kind, or the error, are exactly the recorded ones. What it
imports from ``bench`` comes from ``<workload>_suite.py`` next to it. A cell whose outcome
differs between processes or that hangs gets no script (one run of it proves nothing).

``python -m bench.report.repro RUN_DIR STRATEGY@SHAPE-MODE [OUT_DIR]`` (``nox -s repro``) writes
the script of any cell.
"""

from __future__ import annotations

import sys
from pathlib import Path

from bench.core.io import write_text_atomic
from bench.core.rundir import parse_verdict_name, verdict_name
from bench.core.schema import Kind, Status
from bench.measured import discovery
from bench.measured.modes import JIT_BYTECODE
from bench.measured.shapes import HEADER, Shape, bundle
from bench.report import standalone
from bench.report.load import RunData

NO_SCRIPT = (str(Kind.DIFFERS),)
# Under bytecode capture the module a class is defined in changes what is captured: written out
# in one file, 4 of 4 clip cells checked showed the opposite verdict; these keep the bundle.
BUNDLED_MODES = (JIT_BYTECODE,)


def script_name(strategy: str, shape: str, mode: str) -> str:
    return f"{verdict_name(strategy, shape, mode)}.py"


def variant_text(run: RunData, strategy: str, shape: str) -> str | None:
    """The variant's code: kept with the run, or rendered again from the strategy file."""
    kept = Path(run.run_dir) / "variants" / strategy / f"{shape}.py"
    if kept.is_file():
        return kept.read_text()
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
    return row["status"] in (
        Status.WORKS.value,
        Status.INCORRECT.value,
        Status.RAISES.value,
        Status.CRASHED.value,
    ) and (row["kind"] not in NO_SCRIPT)


def text(run: RunData, row: dict) -> str | None:
    variant = variant_text(run, row["strategy"], row["shape"])
    if variant is None:
        return None
    recorded = {"status": row["status"], "kind": row["kind"], "detail": row["detail"][:300]}
    return (
        variant
        + f"\n\nMODE = {row['mode']!r}\nMEANING = {row['meaning']!r}\n"
        + f"RECORDED = {recorded!r}\n"
        + run.work.driver()
    )


def write(run: RunData, rows: list[dict], out_dir: Path) -> dict:
    """Write the scripts of ``rows`` (verdict rows); {(strategy, shape, mode): relative path}.
    Scripts written earlier into ``out_dir`` are removed first."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob("*.py"):
        if old.read_text(errors="replace").startswith(HEADER):
            old.unlink()
    suite = f"{run.workload}_suite"
    texts, alone, links = {}, {}, {}
    version = run.environment.get("mindspore") or run.plan.get("mindspore", "?")
    for row in rows:
        key = (row["strategy"], row["shape"], row["mode"])
        if key in links or not scriptable(row):
            continue
        name = script_name(*key)
        if row["mode"] not in BUNDLED_MODES:
            variant = variant_text(run, row["strategy"], row["shape"])
            title = f"`{row['strategy']}` `{row['shape']}` in {row['mode']}: {row['outcome']}"
            own = variant and standalone.script(variant, row, title, version, name)
            if own:
                alone[name] = own
                links[key] = f"{out_dir.name}/{name}"
                continue
        body = text(run, row)
        if body is None:
            continue
        texts[name] = body
        links[key] = f"{out_dir.name}/{name}"
    if texts:
        modules = list(dict.fromkeys(m for t in texts.values() for m in bundle.bench_imports(t)))
        write_text_atomic(out_dir / f"{suite}.py", bundle.suite_module(modules))
        for name, body in texts.items():
            write_text_atomic(out_dir / name, bundle.script(body, suite))
    for name, body in alone.items():
        write_text_atomic(out_dir / name, HEADER + "\n" + body)
    return links


def main(argv=None) -> int:
    """Write the reproduction script of one cell of a run."""
    from bench.report import load

    argv = sys.argv[1:] if argv is None else argv
    if len(argv) not in (2, 3):
        print(
            "usage: python -m bench.report.repro RUN_DIR STRATEGY@SHAPE-MODE [OUT_DIR]",
            file=sys.stderr,
        )
        return 2
    run = load.load(Path(argv[0]))
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
        print(
            f"repro: {cell}: no script (a varying or hanging cell, or no variant)", file=sys.stderr
        )
        return 1
    print(f"repro: wrote {out / next(iter(links.values())).split('/', 1)[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

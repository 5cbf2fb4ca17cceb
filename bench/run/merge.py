"""``python -m bench.run.merge SHARD...`` (``nox -s merge``): the shards of one run (``--shard
I/N``, ``bench.run.shard``) as one run, reported like a run that was never split.

A run folder already is a set of files that the suite reads together, whatever process wrote
each: every gate process appends its own ``gate/*.jsonl`` file, every timing process writes its
own ``timing/*.json``, and the reader (``bench.core.records``) takes every file of the folder;
the verdicts of several processes become one per cell in ``bench.core.verdicts.final``
(``merge_replicas``), and ``bench.core.analysis`` pools the timing processes of a cell. The raw
files hold no absolute paths (``bench.core.portable``), so files written on other machines read
the same. So merging shards is putting their files in one folder: a shard's gate files get its
number in their names (``graph.r0.p0.s2.jsonl``: two shards each had a ``graph.r0.p0``), timing
and prepare files keep theirs (a timed shard holds whole modes, and these files are per mode),
``prepare/selection.json`` is the shards' choices together, and the manifest is the plan without
the shard, with what each shard ran (``Manifest.shard["merged"]``). Nothing is measured or
decided here: the verdicts and decisions are those the suite computes from the merged folder.

A shard is a run folder or its archive (``python -m bench.core.archive pack RUN_DIR``: what CI
uploads). Refused (exit 2, with the reason, nothing written): shards of different commits,
MindSpore releases, workloads or plans, an unfinished shard, a missing or repeated shard, or
shards whose parts are not the split of their plan (another version of the split).
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from dataclasses import replace
from pathlib import Path

from bench.core import paths
from bench.core.archive import ArchiveError
from bench.core.args import OneLineParser, UsageError
from bench.core.exits import Exit, Outcome, exit_code
from bench.core.io import read_json, write_json_atomic
from bench.core.records import read_manifest
from bench.core.rundir import RunDir
from bench.core.schema import Manifest, RunStatus, SchemaError
from bench.run import shard
from bench.run.plan import Plan


class MergeError(UsageError):
    """Shards that cannot be one run: the reason, in one line (exit 2)."""


def _load(path: str) -> tuple[Path, Manifest, Plan]:
    try:
        folder = paths.run_folder(path)
    except ArchiveError as err:
        raise MergeError(str(err)) from None
    if folder is None:
        raise MergeError(f"{path}: not a run folder or a run archive")
    manifest = read_manifest(RunDir(folder), [])
    if not manifest.plan:
        raise MergeError(f"{path}: its manifest cannot be read")
    plan = Plan.from_dict(manifest.plan)
    if not plan.shard:
        raise MergeError(f"run {manifest.run_id} is not a shard (it was not run with --shard)")
    return folder, manifest, plan


def _same(what: str, values: dict[str, object]) -> None:
    """MergeError unless every shard (run id -> value) has the same ``what``."""
    if len({repr(v) for v in values.values()}) > 1:
        found = "; ".join(f"{run}: {v}" for run, v in values.items())
        raise MergeError(f"the shards are of different {what} ({found})")


def check(shards: list[tuple[Path, Manifest, Plan]]) -> Plan:
    """The plan the shards are parts of; MergeError with the reason when they are not one run's
    complete set of shards."""
    if not shards:
        raise MergeError("name the shards to merge (run folders or archives)")
    for _, m, p in shards:
        if m.status != RunStatus.COMPLETE:
            raise MergeError(
                f"shard {shard.name(p.shard)} (run {m.run_id}) is {m.status.value}: finish it "
                "with --resume first"
            )
    runs = {m.run_id: (m, p) for _, m, p in shards}
    if len(runs) < len(shards):
        raise MergeError("a run is named twice")
    _same("workloads", {r: p.workload for r, (m, p) in runs.items()})
    _same("MindSpore releases", {r: m.plan.get("mindspore", "?") for r, (m, p) in runs.items()})
    _same("commits", {r: m.suite_commit or "?" for r, (m, p) in runs.items()})
    _same("shard counts", {r: p.shard[1] for r, (m, p) in runs.items()})
    _same("plans", {r: replace(p, shard=None) for r, (m, p) in runs.items()})
    count = shards[0][2].shard[1]
    seen: dict[int, str] = {}
    for _, m, p in shards:
        index = p.shard[0]
        if index in seen:
            raise MergeError(f"shard {index}/{count} is given twice (runs {seen[index]} and "
                             f"{m.run_id})")  # fmt: skip
        seen[index] = m.run_id
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in seen]
    if missing:
        raise MergeError(f"shard {', '.join(missing)} missing (given: "
                         f"{', '.join(f'{i}/{count}' for i in sorted(seen))})")  # fmt: skip
    whole = replace(shards[0][2], shard=None)
    parts = shard.split(whole, count)
    for _, m, p in shards:
        if sorted(m.shard.get("holds", [])) != sorted(parts[p.shard[0] - 1]):
            raise MergeError(
                f"shard {shard.name(p.shard)} (run {m.run_id}) holds other cells than this "
                "suite's split gives it (a shard of another version of the split?)"
            )
    return whole


def merged_id(manifests: list[Manifest]) -> str:
    """The same shards always give the same id: the first shard's start, and a hash of the
    shards' ids (the form of a run id: ``<UTC start>-<4 hex>``)."""
    ids = sorted(m.run_id for m in manifests)
    stamp = ids[0].split("-", 1)[0]
    return f"{stamp}-{hashlib.sha256('|'.join(ids).encode()).hexdigest()[:4]}"


def _gate_name(name: str, index: int) -> str:
    """``graph.r0.p0.jsonl`` of shard 2 -> ``graph.r0.p0.s2.jsonl``; ``graph.r0.reused.jsonl``
    -> ``graph.r0.s2.reused.jsonl`` (what ``bench.core.archive`` stores as pointers)."""
    for end in (".reused.jsonl", ".jsonl"):
        if name.endswith(end):
            return f"{name[: -len(end)]}.s{index}{end}"
    return f"{name}.s{index}"


def _manifest(whole: Plan, shards, run_id: str) -> Manifest:
    manifests = [m for _, m, _ in shards]
    first = manifests[0]
    argv, skip = [], False
    for a in first.argv:  # the command without its --shard
        if skip:
            skip = False
        elif a == "--shard":
            skip = True
        elif not a.startswith("--shard="):
            argv.append(a)
    phases: dict[str, float] = {}
    for m in manifests:
        for k, v in m.phases.items():
            phases[k] = round(phases.get(k, 0.0) + v, 1)  # the work of every shard
    strategies, refused = {}, {}
    for m in manifests:
        strategies.update(m.strategies)
        refused.update(m.refused)
    return Manifest(
        run_id=run_id,
        plan={**whole.to_dict(), "mindspore": first.plan.get("mindspore")},
        status=RunStatus.COMPLETE,
        command=" ".join(["nox -s bench", *(["--", *argv] if argv else [])]),
        argv=argv,
        started=min(m.started for m in manifests),
        finished=max(m.finished for m in manifests),
        invocations=[i for m in manifests for i in m.invocations],
        phases=phases,
        strategies=dict(sorted(strategies.items())),
        refused=dict(sorted(refused.items())),
        environment=first.environment,
        suite_commit=first.suite_commit,
        shard={
            "merged": [
                {
                    "run": m.run_id,
                    "shard": m.shard.get("shard"),
                    "holds": m.shard.get("holds", []),
                    "phases": m.phases,
                    "environment": m.environment,
                }
                for m in manifests
            ],
            "split": shard.SPLIT,
        },
    )


def _files(folder: Path, index: int, into: Path, chosen: list) -> None:
    run = RunDir(folder)
    for src in run.gate_files():
        target = into / "gate" / _gate_name(src.name, index)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target)
    for sub in ("prepare", "timing"):
        for src in sorted((folder / sub).glob("*")):
            if not src.is_file() or src.name.endswith(".partial.jsonl"):
                continue
            if sub == "prepare" and src.name == "selection.json":
                chosen.extend(read_json(src).get("chosen", []))
                continue
            target = into / sub / src.name
            if target.exists():
                if src.name == "bandwidth.json":  # measured on every machine: the first one's
                    continue
                raise MergeError(
                    f"{sub}/{src.name} is in two shards (a shard of another version of the "
                    "split, or one machine's folder copied into another?)"
                )
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target)


def load(names: list[str]) -> list[tuple[Path, Manifest, Plan]]:
    """Each shard named (a run folder or archive): its folder, manifest and plan."""
    return [_load(n) for n in names]


def merge(shards: list[tuple[Path, Manifest, Plan]], results: Path) -> Path:
    """Write the run ``shards`` (``load``) are parts of into ``results/raw/<id>/``; its folder
    (MergeError: why they are not one run's shards, nothing written)."""
    whole = check(shards)
    shards = sorted(shards, key=lambda s: s[2].shard[0])
    run_id = merged_id([m for _, m, _ in shards])
    out = paths.raw_dir(results) / run_id
    if out.exists():
        raise MergeError(f"these shards are merged already: {out} (remove it to merge again)")
    tmp = out.with_name(f".{run_id}.merging")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        chosen: list = []
        for folder, _, plan in shards:
            _files(folder, plan.shard[0], tmp, chosen)
        if chosen:
            order = {m: i for i, m in enumerate(whole.modes)}
            chosen.sort(key=lambda c: order.get(c.get("mode"), len(order)))
            write_json_atomic(RunDir(tmp).selection, {"chosen": chosen})
        write_json_atomic(RunDir(tmp).manifest, _manifest(whole, shards, run_id).to_dict())
        tmp.rename(out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def parser() -> OneLineParser:
    p = OneLineParser(prog="nox -s merge --", description=__doc__.splitlines()[0])
    p.add_argument("shards", nargs="*", metavar="SHARD", help="a shard's run folder or archive")
    p.add_argument(
        "--results-dir",
        type=Path,
        help="the merged run goes to RESULTS_DIR/raw/<run-id>/ (default results/<workload>/)",
    )
    p.add_argument("--expected-dir", type=Path, help="default expected/")
    p.add_argument("--no-report", action="store_true", help="skip writing the report")
    return p


def main(argv=None) -> int:
    try:
        args = parser().parse_args(sys.argv[1:] if argv is None else argv)
        shards = load(args.shards)
        whole = check(shards)
        results = (args.results_dir or paths.results_dir(whole.workload)).resolve()
        run_dir = merge(shards, results)
    except (UsageError, SchemaError) as err:
        print(f"merge: error: {err}", file=sys.stderr)
        return int(exit_code(Outcome(usage_error=True)))
    print(f"merged {len(shards)} shards into {run_dir}")
    from bench.report import terminal

    code = terminal.print_summary(run_dir, folder=args.expected_dir)
    if not (args.no_report or whole.gate_only):
        from bench.report import main as report_main

        rendered = report_main.main([run_dir.name, "--results-dir", str(results)])
        if rendered != 0:
            print(
                f"merge: the report failed (exit {rendered}); the merged run is kept in "
                f"{run_dir}; render it again with `nox -s report -- {run_dir.name} "
                f"--results-dir {results}`",
                file=sys.stderr,
            )
            return int(Exit.HARNESS)
    return code


if __name__ == "__main__":
    sys.exit(main())

"""Run a benchmark: generate the variants, gate them, prepare, time. A run lives in one folder.

``<results>/raw/<run-id>/`` holds ``manifest.json``, ``variants/`` (the generated code of every
strategy × shape and control, exactly what MindSpore compiled), ``gate/`` (a verdict per
strategy × shape × mode), ``prepare/`` (per mode: steps per block, the shape screen, the choice),
``timing/`` (pytest-benchmark JSON, one per worker process) and ``logs/``. Run ids sort by start
time. Every file is written atomically and kept: ``--resume`` finishes an interrupted run without
measuring anything twice. A timing process checkpoints each cell as it finishes; when it dies
(crash, hang, Ctrl-C) its finished cells are saved as its timing file and only the rest run
again. Phases:

1. gate: every variant in every mode, many variants per process (``bench.run.supervisor``);
2. prepare: per mode, k per control and batch size, then the screen that picks each strategy's
   shape to time (``bench.run.select``);
3. time: each strategy in its chosen shape and each layout cell, ``min_processes`` processes per
   mode, then more processes only for cells whose interval is still wider than the target.
"""

from __future__ import annotations

import datetime as dt
import secrets
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.core import records
from bench.core.io import read_json, write_json_atomic
from bench.core.schema import Manifest, Status
from bench.measured import discovery, shapes, workloads
from bench.run import bandwidth, gate, progress, select
from bench.run.plan import Item, Job, Plan
from bench.run.progress import Progress, fmt_duration
from bench.run.supervisor import Supervisor
from bench.run.time_phase import TimePhase

NO_SHAPE = "-"  # the shape of a verdict about a whole strategy (broken, inexpressible workload)
GATE_TIMEOUT = 30.0  # a gate item (a few small steps) that takes longer is stopped as hung
GATE_SPLIT = 40  # a mode with more variants is gated by gate_jobs processes in parallel


def new_run_id() -> str:
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    return f"{now}-{secrets.token_hex(2)}"


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


class Run(TimePhase):
    def __init__(self, run_dir: Path, plan: Plan, out=print):
        self.dir = Path(run_dir)
        self.plan = plan
        self.workload = workloads.get(plan.workload)
        self.supervisor = Supervisor(self.dir / "logs", plan.timeout)
        parallel = {"gate": plan.gate_jobs, "prepare": plan.time_jobs, "time": plan.time_jobs}
        self.progress = Progress(out, parallel)
        self.out = out
        self.variants: dict[str, shapes.Variant] = {}  # key "strategy/shape"
        self.controls: dict[str, shapes.Variant] = {}  # key "control/<shape>"
        self.strategies: dict[str, discovery.Strategy] = {}

    # -- manifest -------------------------------------------------------------------------
    def manifest(self) -> Manifest:
        path = self.dir / "manifest.json"
        if path.is_file():
            return Manifest.from_dict(read_json(path))
        return Manifest(run_id=self.dir.name, plan=self.plan.to_dict(), started=_now())

    def save(self, manifest: Manifest) -> None:
        write_json_atomic(self.dir / "manifest.json", manifest.to_dict())

    def phase_done(self, name: str, seconds: float) -> None:
        manifest = self.manifest()
        manifest.phases[name] = round(manifest.phases.get(name, 0.0) + seconds, 1)
        self.save(manifest)

    # -- variants -------------------------------------------------------------------------
    def _verdict_file(self, strategy: str, shape: str, mode: str) -> Path:
        return self.dir / "gate" / f"{strategy}--{shape}--{mode}.json"

    def _fixed(self, strategy: str, shape, layout: str, status, detail: str) -> None:
        """Verdicts that need no run (broken file, inexpressible shape), in every mode."""
        name = shape if isinstance(shape, str) else shape.name
        dims = {} if isinstance(shape, str) else shape.values
        item = Item(strategy, name, "", layout, dims=dims)
        for mode in self.plan.modes:
            v = gate.verdict(item, self.plan.workload, mode, status, detail)
            write_json_atomic(self._verdict_file(strategy, name, mode), v.to_dict())

    def generate(self) -> None:
        """Write every variant file; record broken strategies and inexpressible shapes."""
        folder = self.dir / "variants"
        work = self.workload
        for name in self.plan.strategies:
            try:
                strategy = discovery.load(name, Path(self.plan.strategies_dir))
            except discovery.StrategyLoadError as err:
                self._fixed(name, NO_SHAPE, "", Status.BROKEN, f"failed to load: {err.reason}")
                continue
            why = work.expressible(strategy)
            if why:
                detail = f"cannot express the {work.name} workload: {why}"
                self._fixed(name, NO_SHAPE, strategy.layout, Status.INEXPRESSIBLE, detail)
                continue
            only = set(self.plan.shapes) if self.plan.shapes else None
            made, inexpressible = work.variants(strategy, folder, only)
            for variant in made:
                self.variants[variant.key] = variant
            for shape, why in inexpressible.items():
                self._fixed(name, shape, strategy.layout, Status.INEXPRESSIBLE, why)
            self.strategies[name] = strategy
        manifest = self.manifest()
        manifest.strategies = {n: s.facts() for n, s in self.strategies.items()}
        self.save(manifest)
        for layout in ("scalar", "vector"):  # every control: the layout cells time them all
            for shape in work.shapes(layout):
                control = work.control_shape(shape, layout)
                key = f"{shapes.CONTROL}/{control.name}"
                if key not in self.controls:
                    self.controls[key] = work.control_variant(control, folder)

    def _gate_item(self, variant: shapes.Variant, mode: str) -> Item:
        is_control = variant.strategy == shapes.CONTROL
        strategy = None if is_control else self.strategies[variant.strategy]
        expected = (
            strategy.expected(self.plan.workload, variant.shape.name, mode) if strategy else None
        )
        return Item(
            strategy=variant.strategy,
            shape=variant.shape.name,
            path=variant.path,
            layout=variant.layout,
            expected=expected,
            update=not is_control,
            dims=variant.shape.values,
            control=variant.control,
        )

    def _simplicity(self, verdict) -> int:
        return self.workload.simplicity(shapes.Shape(tuple(verdict.dims.items())), verdict.layout)

    def _cost_class(self, verdict) -> str:
        return "-".join(str(verdict.dims.get(d, "")) for d in self.workload.cost_dims)

    # -- phases ---------------------------------------------------------------------------
    def _pool(self, jobs, fn, workers: int) -> None:
        pool = ThreadPoolExecutor(max_workers=max(1, workers))
        try:
            for future in [pool.submit(fn, job) for job in jobs]:
                future.result()
        except BaseException:
            self.supervisor.stop_all()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown()

    def gate_phase(self) -> dict:
        plan, start = self.plan, time.monotonic()
        jobs = []
        every = [*self.variants.values(), *self.controls.values()]
        for mode in plan.modes:
            todo = []
            for variant in every:
                if self._verdict_file(variant.strategy, variant.shape.name, mode).is_file():
                    continue
                todo.append(self._gate_item(variant, mode))
            parts = max(1, min(plan.gate_jobs, len(todo) // GATE_SPLIT))
            chunks = [todo[i::parts] for i in range(parts)]  # interleaved: similar cost each
            for i, chunk in enumerate(chunks):
                jobs.append(
                    Job(
                        "gate",
                        self.dir.name,
                        plan.workload,
                        mode,
                        str(self.dir / "gate"),
                        tuple(chunk),
                        i,
                        plan.threads,
                        plan.seed,
                        plan.precision,
                        min(plan.timeout, GATE_TIMEOUT),
                    )
                )
            self.progress.plan("gate", mode, len(todo), len(chunks))
        counts: dict[str, int] = {}

        def on_event(job):
            def handle(event):
                if event["event"] != "verdict":
                    return
                self.progress.finished("gate", job.mode, event.get("seconds", 0.0))
                counts[job.mode] = counts.get(job.mode, 0) + 1
                if event["status"] != "works" or counts[job.mode] % 50 == 0:
                    self.progress.line(
                        f"gate {job.mode} [{counts[job.mode]}]: {event['key']}: {event['status']}"
                        + (f": {event['detail'][:90]}" if event["status"] != "works" else "")
                    )

            return handle

        def one(job: Job) -> None:
            self.progress.process_started("gate")
            name = f"gate-{job.mode}-{job.process}"
            for failure in self.supervisor.run(job, name, on_event(job)):
                item = failure.item
                v = gate.verdict(item, job.workload, job.mode, failure.status, failure.detail)
                write_json_atomic(
                    self._verdict_file(item.strategy, item.shape, job.mode), v.to_dict()
                )
                self.progress.line(
                    f"gate {job.mode}: {item.key}: {failure.status}: {failure.detail}"
                )

        cost = progress.MODEL["gate"]
        jobs.sort(key=lambda j: -len(j.items) * cost.get(j.mode, 1.0))  # longest first
        self._pool(jobs, one, plan.gate_jobs)
        self.phase_done("gate", time.monotonic() - start)
        problems: list[str] = []
        verdicts = records.read_verdicts(self.dir, problems)
        return {(v.strategy, v.shape, v.mode): v for v in verdicts}

    def measure_bandwidth(self) -> None:
        """For workloads with a physical floor: this machine's memory bandwidth, once a run."""
        out = self.dir / "prepare" / "bandwidth.json"
        if out.is_file() or not self.workload.floor_kernel:
            return
        self.progress.line("bandwidth: STREAM copy and triad, 1 MiB to 2 × the last-level cache")
        result = bandwidth.measure()
        write_json_atomic(out, {"schema_version": 2, **result})
        self.progress.line(
            "bandwidth: "
            + ", ".join(
                f"{p['array_bytes'] / 2**20:g} MiB copy {p['copy_GBs']} GB/s"
                for p in result["points"]
            )
        )

    def prepare_phase(self, verdicts: dict) -> dict:
        plan, start = self.plan, time.monotonic()
        self.measure_bandwidth()
        base = f"{shapes.CONTROL}/{self.workload.base_control}"
        jobs = []
        for mode in plan.modes:
            if (self.dir / "prepare" / f"{mode}.json").is_file():
                continue
            ok = select.controls_working(verdicts, mode)
            sizes = sorted({*plan.batch_sizes, plan.precision.screen_batch_size})
            items = [
                Item(
                    shapes.CONTROL,
                    c.shape.name,
                    c.path,
                    c.layout,
                    update=False,
                    control=key,
                    control_path=c.path,
                    role="calibrate",
                    batch_size=n,
                )
                for key, c in self.controls.items()
                if c.shape.name in ok
                for n in sizes
            ]
            if self.workload.base_control in ok:
                for strategy, shapes_ok in select.working(verdicts, mode).items():
                    reps = select.representatives(shapes_ok, self._simplicity, self._cost_class)
                    screened = shapes_ok if plan.screen_all else list(reps.values())
                    if len(screened) < 2:
                        continue
                    for v in screened:
                        variant = self.variants[f"{strategy}/{v.shape}"]
                        items.append(
                            Item(
                                strategy,
                                v.shape,
                                variant.path,
                                variant.layout,
                                control=base,
                                control_path=self.controls[base].path,
                                role="screen",
                                batch_size=plan.precision.screen_batch_size,
                            )
                        )
            out = str(self.dir / "prepare" / f"{mode}.json")
            jobs.append(
                Job(
                    "prepare",
                    self.dir.name,
                    plan.workload,
                    mode,
                    out,
                    tuple(items),
                    0,
                    plan.threads,
                    plan.seed,
                    plan.precision,
                )
            )
            self.progress.plan("prepare", mode, len(items), 1)

        def one(job: Job) -> None:
            self.progress.process_started("prepare")
            done = [0]

            def handle(event):
                if event["event"] in ("calibrated", "screened"):
                    self.progress.finished("prepare", job.mode, 0.4)
                    done[0] += 1
                    if done[0] % 40 == 0:
                        self.progress.line(f"prepare {job.mode} [{done[0]}/{len(job.items)}]")

            rerun_all = lambda *_: set()  # noqa: E731 - prepare writes its file at the end
            for failure in self.supervisor.run(job, f"prepare-{job.mode}", handle, kept=rerun_all):
                self.progress.line(f"prepare {job.mode}: {failure.item.key}: {failure.status}")

        self._pool(jobs, one, plan.time_jobs)
        self.phase_done("prepare", time.monotonic() - start)
        return records.read_prepare(self.dir, [])

    def cells(self, verdicts: dict, prepared: dict) -> dict[str, list[Item]]:
        """Per mode, the cells to time (and prepare/selection.json: why each shape)."""
        plan, base = self.plan, f"{shapes.CONTROL}/{self.workload.base_control}"
        out, chosen = {}, []
        for mode in plan.modes:
            k_table = prepared.get(mode, {}).get("k", {})
            screen: dict[str, dict[str, list]] = {}
            for row in prepared.get(mode, {}).get("screen", []):
                screen.setdefault(row["strategy"], {})[row["shape"]] = row["ratios"]
            cells = []
            for strategy, ok in sorted(select.working(verdicts, mode).items()):
                layout = ok[0].layout
                shape, why = select.choose(
                    ok, screen.get(strategy, {}), self._simplicity, self._cost_class
                )
                variant = self.variants[f"{strategy}/{shape}"]
                control = self.controls.get(variant.control)
                missing = [n for n in plan.batch_sizes if f"{variant.control}/N{n}" not in k_table]
                chosen.append(
                    {
                        "mode": mode,
                        "strategy": strategy,
                        "shape": shape,
                        "why": why,
                        "control": variant.control,
                        "timed": not missing,
                    }
                )
                if missing or control is None:
                    continue
                cells += [
                    Item(
                        strategy,
                        shape,
                        variant.path,
                        layout,
                        control=variant.control,
                        control_path=control.path,
                        batch_size=n,
                        k=k_table[f"{variant.control}/N{n}"],
                    )
                    for n in plan.batch_sizes
                ]
            if plan.workload and base in self.controls:
                for key, c in sorted(self.controls.items()):
                    if key == base or f"{key}/N{plan.batch_sizes[0]}" not in k_table:
                        continue
                    cells += [
                        Item(
                            shapes.CONTROL,
                            c.shape.name,
                            c.path,
                            c.layout,
                            update=False,
                            control=base,
                            control_path=self.controls[base].path,
                            role="layout",
                            batch_size=n,
                            k=k_table[f"{base}/N{n}"],
                        )
                        for n in plan.batch_sizes
                        if f"{base}/N{n}" in k_table
                    ]
            out[mode] = cells
        selection = self.dir / "prepare" / "selection.json"
        if not selection.is_file() or read_json(selection) != {"chosen": chosen}:
            write_json_atomic(selection, {"chosen": chosen})  # derived: rewritten only if changed
        return out


def _raise_interrupt(signum, frame):
    raise KeyboardInterrupt


def run(run_dir: Path, plan: Plan, argv: list[str], out=print, publish: bool = False) -> str:
    """Gate, prepare and time ``plan`` into ``run_dir``; returns the final status."""
    runner = Run(run_dir, plan, out)
    signal.signal(signal.SIGTERM, _raise_interrupt)  # nox and kill send SIGTERM: stop cleanly
    manifest = runner.manifest()
    if not manifest.command:
        manifest.command = " ".join(["nox -s bench", *(["--", *argv] if argv else [])])
        manifest.argv = list(argv)
    manifest.status, manifest.publish = "running", publish
    manifest.invocations.append({"argv": list(argv), "at": _now()})
    runner.save(manifest)
    try:
        runner.generate()
        verdicts = runner.gate_phase()
        if not plan.gate_only:
            prepared = runner.prepare_phase(verdicts)
            runner.time_phase(runner.cells(verdicts, prepared))
    except KeyboardInterrupt:
        runner.supervisor.stop_all()
        manifest = runner.manifest()
        manifest.status = "interrupted"
        runner.save(manifest)
        return "interrupted"
    manifest = runner.manifest()
    manifest.status, manifest.finished = "complete", _now()
    runner.save(manifest)
    total = sum(manifest.phases.values())
    phases = ", ".join(f"{k} {fmt_duration(v)}" for k, v in manifest.phases.items())
    out(f"run {run_dir.name}: complete in {fmt_duration(total)} ({phases})")
    return "complete"

"""What the phases of a run share: the run folder, the plan, the workload, the worker supervisor,
the progress line, and the variants generated from the strategy files (phase 0, ``generate``)."""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from bench.core.io import read_json, write_json_atomic
from bench.core.paths import ROOT
from bench.core.portable import resolve
from bench.core.rundir import Checkpoint, RunDir, now
from bench.core.schema import Manifest, Status
from bench.measured import discovery, modes, workloads
from bench.measured.shapes import CONTROL, Shape
from bench.measured.shapes import Variant as VariantFile
from bench.run import gate, shard, warm
from bench.run.machine import environment
from bench.run.plan import Item, Plan
from bench.run.progress import TRACE_NAME, Progress
from bench.run.supervisor import WORKER, Supervisor

# A script run in place of the suite's worker: the tests drive the whole runner with
# tests/fixtures/fake_worker.py (no MindSpore), see tests/unit/test_runner.py.
WORKER_ENV = "BENCH_WORKER"

NO_SHAPE = "-"  # the shape of a verdict about a whole strategy (broken, inexpressible workload)


def mindspore_version() -> str:
    try:
        return importlib.metadata.version("mindspore")
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def suite_commit() -> str:
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "bench", "strategies"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        return done.stdout.strip() + (" (dirty)" if dirty.stdout.strip() else "")
    except OSError:
        return ""


class RunContext:
    def __init__(self, run_dir: Path, plan: Plan, out=print):
        self.run = RunDir(run_dir)
        self.plan = plan
        self.workload = workloads.get(plan.workload)
        worker = (os.environ[WORKER_ENV],) if os.environ.get(WORKER_ENV) else WORKER
        preload = (warm.PRELOAD if worker == WORKER else ()) if warm.wanted() else None
        self.supervisor = Supervisor(self.run.logs, plan.timeout, worker, preload, plan.threads)
        parallel = {"gate": plan.gate_jobs, "prepare": 1, "time": plan.time_jobs}
        self.progress = Progress(
            out, parallel, plan.precision.tier, plan.workload, self.run.logs / TRACE_NAME,
            warm=preload is not None,
        )  # fmt: skip
        self.out = out
        self.variants: dict[str, VariantFile] = {}  # key "strategy/shape"
        self.twins: dict[str, VariantFile] = {}  # key "control/<shape>"
        self.strategies: dict[str, discovery.StrategyFile] = {}
        every = set(discovery.strategy_names(resolve(plan.strategies_dir)))
        self.full = set(plan.strategies) >= every and not plan.shapes  # the whole matrix
        self.deadline = 0.0  # --budget: seconds since the epoch when the timing ends (0: none)

    def past_deadline(self) -> bool:
        return bool(self.deadline) and time.time() >= self.deadline

    # -- manifest -------------------------------------------------------------------------
    def manifest(self) -> Manifest:
        if self.run.manifest.is_file():
            return Manifest.from_dict(read_json(self.run.manifest))
        return Manifest(run_id=self.run.run_id, plan=self.plan.to_dict(), started=now())

    def save(self, manifest: Manifest) -> None:
        write_json_atomic(self.run.manifest, manifest.to_dict())

    def phase_done(self, name: str, seconds: float) -> None:
        manifest = self.manifest()
        manifest.phases[name] = round(manifest.phases.get(name, 0.0) + seconds, 1)
        self.save(manifest)

    def pool(self, jobs, fn, workers: int) -> None:
        """``fn(job)`` for every job, ``workers`` at a time; Ctrl-C stops every worker."""
        pool = ThreadPoolExecutor(max_workers=max(1, workers))
        try:
            for future in [pool.submit(fn, job) for job in jobs]:
                future.result()
        except BaseException:
            self.supervisor.stop_all()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown()

    # -- phase 0: the variant files -------------------------------------------------------
    def _fixed(self, lines: Checkpoint, strategy: str, shape, layout: str, status, why: str):
        """Verdicts that need no run (broken file, inexpressible shape), in every mode."""
        name = shape if isinstance(shape, str) else shape.name
        dims = {} if isinstance(shape, str) else shape.values
        item = Item(strategy, name, "", layout, dims=dims)
        for mode in self.plan.modes:
            if not shard.holds(self.plan, strategy, mode):  # another shard's
                continue
            lines.write(**gate.verdict(item, self.plan.workload, mode, status, why).to_dict())

    def generate(self) -> None:
        """Write every variant and twin file; record broken strategies and inexpressible shapes."""
        start, work = time.monotonic(), self.workload
        fixed_path = self.run.fixed
        fixed_path.unlink(missing_ok=True)
        lines, refused = Checkpoint(fixed_path), {}
        for note in discovery.skipped_notes(resolve(self.plan.strategies_dir)):
            self.out(note)
        for name in self.plan.strategies:
            try:
                strategy = discovery.load(name, resolve(self.plan.strategies_dir))
            except discovery.StrategyLoadError as err:
                refused[name] = err.reason
                self._fixed(
                    lines, name, NO_SHAPE, "", Status.BROKEN, f"failed to load: {err.reason}"
                )
                continue
            warning = strategy.semantics_warning()
            if warning:
                self.out(f"warning: strategy {name}: {warning}")
            why = work.expressible(strategy)
            if why:
                detail = f"cannot express the {work.name} workload: {why}"
                self._fixed(lines, name, NO_SHAPE, strategy.layout, Status.INEXPRESSIBLE, detail)
                continue
            only = set(self.plan.shapes) if self.plan.shapes else None
            made, inexpressible = work.variants(strategy, self.run.variants, only)
            for variant in made:
                self.variants[variant.key] = variant
            for shape, why in inexpressible.items():
                self._fixed(lines, name, shape, strategy.layout, Status.INEXPRESSIBLE, why)
            self.strategies[name] = strategy
        lines.close()
        wanted = {v.control.split("/", 1)[1] for v in self.variants.values()}
        wanted |= {t.name for t in work.layout_twins()} | {work.base_control}
        every = {t.name: t for v in self.variants.values() for t in [self._twin_of(v)]}
        every |= {t.name: t for t in work.layout_twins()}
        for name in sorted(wanted):
            twin = every.get(name) or self._parse_twin(name)
            if twin is not None:
                self.twins[f"{CONTROL}/{name}"] = work.twin_variant(twin, self.run.variants)
        manifest = self.manifest()
        manifest.strategies = {n: s.facts() for n, s in self.strategies.items()}
        manifest.refused = refused
        manifest.suite_commit = manifest.suite_commit or suite_commit()
        manifest.plan = {**manifest.plan, "mindspore": mindspore_version()}
        manifest.environment = manifest.environment or environment()
        manifest.shard = shard.record(self.plan)
        self.save(manifest)
        self.phase_done("generate", time.monotonic() - start)

    def _twin_of(self, variant: VariantFile) -> Shape:
        if variant.shape.name == "as-written":
            return self.workload.custom_twin(variant.layout)
        return self.workload.twin(variant.shape, variant.layout)

    def _parse_twin(self, name: str) -> Shape | None:
        """The twin called ``name`` among the twins of every shape of every layout."""
        for layout in ("scalar", "vector"):
            for shape in self.workload.shapes(layout):
                twin = self.workload.twin(shape, layout)
                if twin.name == name:
                    return twin
        return None

    def mode(self, name: str):
        return modes.get(name)

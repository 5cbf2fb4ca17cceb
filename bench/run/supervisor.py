"""Start worker processes and survive them: a crash or a hang costs only the item it hit.

A worker prints a ``start`` event before each item and a result event after it. When a worker
dies or stops making progress for ``timeout`` seconds, the item it was on is the culprit: it is
tried once more alone in a fresh process (a crash can come from an earlier item's leftovers),
and recorded as crashed or timed out only if it fails again. The other items go to a new process.
Workers die with the runner (Linux: PR_SET_PDEATHSIG) and Ctrl-C stops them all (POSIX: their
process groups killed; Windows: their process trees, psutil).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from bench.core.schema import Status, parse_event
from bench.run.forked import HARNESS_ERROR, HarnessError
from bench.run.plan import Item, Job
from bench.run.race import MEMBER
from bench.run.warm import WarmError, WarmParent, die_with_parent

RESULT_EVENTS = ("verdict", "calibrated", "screened", "screen_failed", "cell")


def _own_group() -> dict:
    """Popen options that put a worker in a process group of its own (Ctrl-C reaches the runner
    only) and, on Linux, kill it with the runner."""
    if os.name == "nt":  # pragma: no cover - Windows: CTRL_C_EVENT does not reach the group
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    options: dict = {"start_new_session": True}
    if sys.platform.startswith("linux"):
        # only a prctl call between fork and exec: safe despite the reader threads
        options["preexec_fn"] = die_with_parent
    return options


def signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


@dataclass
class Outcome:
    """How one worker process ended."""

    code: int
    done: set = field(default_factory=set)  # keys of items that finished
    current: str | None = None  # the item it was on when it ended
    member: str | None = None  # the race member it was on when it ended
    timed_out: bool = False
    last_output: str = ""

    @property
    def ok(self) -> bool:
        return self.code == 0 and not self.timed_out


@dataclass(frozen=True)
class Failure:
    item: Item
    status: str  # crashed | timeout
    detail: str


WORKER = ("-m", "bench.run.worker")


def family(job: Job) -> tuple[str, int]:
    """The workers that may fork from one warm parent: one kind of job, one process index (the
    modes, and under bytecode capture the races, of one process; never two replicates)."""
    return (job.kind, job.process)


class Supervisor:
    """``warm``: the modules a warm parent imports before it forks each worker
    (``bench.run.warm``), None: every worker starts cold (a fresh interpreter); ``threads``: the
    thread pools' size the parent imports them with (a job asking for another starts cold).

    Workers that replicate each other never share a parent: there is one per kind of job and
    process index (``family``). A race's processes p0, p1 (and a later stage's p2) are the
    replicates its between-process variance comes from. Children of one parent share the
    parent's memory (the same addresses, and the same physical pages until written), so they
    are more alike than separate imports. In the first warm runs, with one parent for the
    whole run, brn's between-process spread under jit ast and bytecode was 0.0-0.1 % in both
    runs of a pair (0.6-8.2 % in the cold pair before), and 14-15 % of those cells lay beyond
    1.96 of the two runs' errors (0-8 % cold): one pair, no proof, but a replicate must not
    share what the variance between replicates is meant to sample."""

    def __init__(self, logs: Path, timeout: float, worker: tuple[str, ...] = WORKER,
                 warm: tuple[str, ...] | None = None, threads: int = 1):  # fmt: skip
        self.logs = Path(logs)
        self.timeout = timeout
        self.worker = worker  # what runs a job file: the suite's worker (tests use a fake one)
        self.live: set = set()  # subprocess.Popen or warm.WarmProcess
        self.lock = threading.Lock()
        self.stopping = False
        self.warm, self.threads = warm, threads
        self.parents: dict[tuple, WarmParent] = {}  # by family
        self.parent_lock = threading.Lock()  # not ``lock``: stop_all must not wait for an import
        self.started = {"warm": 0, "cold": 0}  # how the workers started (for the manifest)

    def _start(self, job: Job, job_file: Path, log):
        """The worker of ``job``: forked from the warm parent where there is one, else a fresh
        interpreter (and from then on, when the warm parent fails)."""
        env = {**os.environ, "PYTHONIOENCODING": "utf-8"}  # its events: UTF-8 everywhere
        argv = [*self.worker, str(job_file)]
        if self.warm is not None and job.threads == self.threads:
            try:
                proc = self._parent(family(job), env).start(argv, self.logs, env, log)
                with self.lock:
                    self.started["warm"] += 1
                return proc
            except WarmError as err:
                log.write(f"bench: this worker starts cold: {err}\n")
                log.flush()
                self.warm = None
        with self.lock:
            self.started["cold"] += 1
        return subprocess.Popen(
            [sys.executable, *argv],
            cwd=self.logs,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            encoding="utf-8",
            errors="replace",
            env=env,
            **_own_group(),  # Ctrl-C reaches the runner, which ends the worker itself
        )

    def _parent(self, key: tuple, env: dict) -> WarmParent:
        """The warm parent of ``key``'s family, started on its first worker (never while
        another worker is timed: the stages run one after another)."""
        with self.parent_lock:
            if key not in self.parents:
                from bench.run.machine import THREAD_ENV

                pinned = {var: str(self.threads) for var in THREAD_ENV}
                name = "warm-" + "-".join(map(str, key)) + ".log"
                with open(self.logs / name, "a", encoding="utf-8") as warm_log:
                    self.parents[key] = WarmParent(self.warm, {**env, **pinned}, warm_log)
            return self.parents[key]

    def close(self) -> None:
        """End the warm parents, if any (the run is over)."""
        with self.parent_lock:
            parents, self.parents = list(self.parents.values()), {}
        for parent in parents:
            parent.close()

    def _run_once(self, job: Job, name: str, on_event) -> Outcome:
        self.logs.mkdir(parents=True, exist_ok=True)
        job_file = job.write(self.logs / f"{name}.job.json")
        log_path = self.logs / f"{name}.log"
        if self.stopping:
            raise KeyboardInterrupt
        outcome = Outcome(code=0)
        with open(log_path, "a", encoding="utf-8") as log:
            proc = self._start(job, job_file, log)
            with self.lock:
                self.live.add(proc)
            last_progress = [time.monotonic()]

            def watchdog():
                while proc.poll() is None:
                    if time.monotonic() - last_progress[0] > self.timeout:
                        outcome.timed_out = True
                        _kill(proc)
                        return
                    time.sleep(0.2)

            threading.Thread(target=watchdog, daemon=True).start()
            try:
                for line in proc.stdout:
                    event = parse_event(line)
                    if event is None:
                        log.write(line)
                        continue
                    last_progress[0] = time.monotonic()
                    if event["event"] == "start":
                        outcome.current, outcome.member = event["key"], None
                    elif event["event"] == MEMBER:
                        outcome.member = event.get("member")
                    elif event["event"] in RESULT_EVENTS:
                        outcome.done.add(event["key"])
                        outcome.current = outcome.member = None
                    if on_event:
                        on_event(event)
                outcome.code = proc.wait()
            finally:
                with self.lock:
                    self.live.discard(proc)
        if self.stopping:  # killed by stop_all: the items are missing, not crashed
            raise KeyboardInterrupt
        tail = [
            ln
            for ln in log_path.read_text(encoding="utf-8", errors="replace").splitlines()
            if ln.strip()
        ]
        outcome.last_output = next((ln for ln in reversed(tail) if "WARNING" not in ln), "")
        return outcome

    def _describe(self, outcome: Outcome) -> tuple[str, str]:
        if outcome.timed_out:
            return Status.TIMEOUT.value, f"no progress for {self.timeout:g} s (--timeout)"
        code = outcome.code
        how = f"died with {signal_name(code)}" if code < 0 else f"exited with code {code}"
        last = f"; last output: {outcome.last_output[:200]}" if outcome.last_output else ""
        return Status.CRASHED.value, f"worker {how}{last}"

    def run(self, job: Job, name: str, on_event=None, kept=None) -> list[Failure]:
        """Run ``job`` to the end, restarting after crashes; returns the items that failed.

        After a crash the item it was on runs again alone (a second crash records it as
        failed) and a new process takes the rest. ``kept(attempt, outcome, how)`` says which
        finished items' results survived the crash (default: every finished item, as the gate
        writes each at once); the others run again.
        """
        failures: list[Failure] = []
        attempt = 0

        def attempt_of(job: Job, items=None) -> tuple[Job, str]:
            """Each attempt of a process writes its own file: a retry never overwrites one."""
            nonlocal attempt
            label = f"{name}.a{attempt}" if attempt else name
            out = Path(job.out)
            if job.kind != "gate" and attempt:
                out = out.with_name(f"{out.stem}.a{attempt}{out.suffix}")
            attempt += 1
            return replace(job, out=str(out), items=job.items if items is None else items), label

        def once(job: Job, items=None) -> tuple[Outcome, set]:
            this, label = attempt_of(job, items)
            outcome = self._run_once(this, label, on_event)
            if outcome.ok:
                return outcome, outcome.done
            how = dict(zip(("status", "detail"), self._describe(outcome)), at=outcome.current)
            return outcome, outcome.done if kept is None else kept(this, outcome, how)

        while job.items:
            outcome, survived = once(job)
            if outcome.ok:
                return failures
            if outcome.code == HARNESS_ERROR:
                raise HarnessError(
                    f"{name}: {outcome.last_output or 'the harness failed'} "
                    f"(log: {self.logs / name}.log)"
                )
            status, detail = self._describe(outcome)
            culprit = next((i for i in job.items if i.key == outcome.current), None)
            if culprit is None:  # died outside any item: every item not kept fails the same way
                return failures + [Failure(i, status, detail) for i in job.without(survived).items]
            again, _ = once(job, (culprit,))
            job = job.without(survived | {culprit.key})
            if again.ok:
                continue
            rest, member = culprit.without_member(again.member or "")
            if member is None:
                failures.append(Failure(culprit, *self._describe(again)))
                continue
            # a race member crashed (twice): it fails alone, the race goes on without it
            failures.append(Failure(member.item(culprit.batch_size), *self._describe(again)))
            if rest.members:
                job = replace(job, items=(rest, *job.items))
        return failures

    def stop_all(self) -> None:
        self.stopping = True
        with self.lock:
            for proc in list(self.live):
                _kill(proc)


def _kill(proc) -> None:
    """The worker and every process it started (its children: forked or spawned cells)."""
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the group start_new_session (or setsid) made
        except ProcessLookupError:
            if not isinstance(proc, subprocess.Popen):  # a warm worker before its setsid
                try:
                    os.kill(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        return
    try:  # pragma: no cover - Windows: no process groups to kill, the tree instead
        import psutil

        for child in psutil.Process(proc.pid).children(recursive=True):
            try:
                child.kill()
            except psutil.Error:
                pass
    except Exception:  # psutil missing, or the worker gone already
        pass
    try:  # pragma: no cover
        proc.kill()
    except OSError:
        pass

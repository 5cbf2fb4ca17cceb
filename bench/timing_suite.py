"""The pytest-benchmark module a worker runs: one test per batch size of one strategy × mode.

Each round times a block of k steps of the strategy with pytest-benchmark; the paired block of the
same-layout no-update control runs right before or right after it (random order), untimed by
pytest-benchmark but with the same clock, at the strategy's current state (for the clip: the same
limit, since the clip's cost depends on it). The clock stops only
after ``sync``. Not collected by ``nox -s tests``: the worker passes this file to pytest itself.
"""

from __future__ import annotations

import gc
import math
import time

import numpy as np
import pytest

from bench import stats, workloads
from bench.gate import run_step
from bench.measure import peak_rss_bytes, sync

TIMER = time.perf_counter  # the worker passes --benchmark-timer=time.perf_counter too


class Runner:
    """A prepared cell that counts the steps it has run (outside the timed region)."""

    def __init__(self, cell, mode, x):
        self.cell = cell
        self.step = mode.prepare(self.cell)
        self.x = x
        self.steps = 0
        start = TIMER()
        self.block(1)
        self.first_call_s = TIMER() - start

    def block(self, k: int) -> None:
        out = None
        for _ in range(k):
            out = run_step(self.step, self.cell, self.x)
        sync(out, self.cell)
        self.steps += k

    def timed_block(self, k: int) -> float:
        start = TIMER()
        self.block(k)
        return TIMER() - start


def warm_up(runner: Runner, seconds: float, min_steps: int = 3) -> int:
    """Run single-step blocks for ``seconds`` (at least ``min_steps``); returns the steps run."""
    start, steps = TIMER(), 0
    while steps < min_steps or TIMER() - start < seconds:
        runner.block(1)
        steps += 1
    return steps


def calibrate(runner: Runner, block_seconds: float, max_k: int = 4096) -> tuple[int, float]:
    """Smallest power of two k whose block takes at least ``block_seconds``; (k, block time)."""
    k = 1
    while True:
        elapsed = runner.timed_block(k)
        if elapsed >= block_seconds or k >= max_k:
            return k, elapsed
        k *= 2 if elapsed * 4 > block_seconds else 4


def test_step(benchmark, job, strategy, mode, batch_size):
    import mindspore as ms

    precision = job.precision
    work = workloads.get(job.workload)
    x = ms.Tensor(work.make_input(batch_size, seed=job.seed))
    subject = Runner(work.build(strategy), mode, x)
    control = Runner(work.build_control(strategy.layout), mode, x)

    warmup_steps = warm_up(subject, precision.warmup_seconds) + warm_up(
        control, precision.warmup_seconds
    )
    # k comes from the control, so every strategy of a layout gets the same k in every process:
    # the per-block sync is then amortized alike (PyNative's ratios depend on k otherwise).
    k, control_block_s = calibrate(control, precision.block_seconds)
    round_s = control_block_s + subject.timed_block(k)
    rounds = math.ceil(precision.cell_seconds / precision.processes / max(round_s, 1e-9))
    rounds = min(max(rounds, precision.min_rounds), precision.max_rounds)

    rng = np.random.default_rng(job.seed + 7919 * job.process + batch_size)
    control_first = list(rng.random(rounds) < 0.5)
    positions, control_times = [], []
    round_index = iter(range(rounds))

    def paired_control():
        work.copy_state(subject.cell, control.cell)  # e.g. the same limit: same clip cost; untimed
        control_times.append(control.timed_block(k))

    def setup():
        r = next(round_index)
        positions.append("before" if control_first[r] else "after")
        if control_first[r]:
            paired_control()

    def teardown(*_):
        if positions[-1] == "after":
            paired_control()

    gc_was_enabled = gc.isenabled()
    gc.disable()  # for the control blocks too: pytest-benchmark only disables it for the target
    try:
        benchmark.pedantic(subject.block, args=(k,), setup=setup, teardown=teardown, rounds=rounds)
    finally:
        if gc_was_enabled:
            gc.enable()

    subject_times = list(benchmark.stats.stats.data)
    ratios = [s / c for s, c in zip(subject_times, control_times)]
    ratio, low, high = stats.hierarchical_bootstrap([ratios], seed=job.seed)
    final = work.observe(subject.cell)
    want = work.after_steps(subject.steps, batch_size, update=not strategy.control)
    final_ok = all(
        np.allclose(np.asarray(final[name]).reshape(-1), value, rtol=1e-5, atol=1e-5)
        for name, value in want.items()
    )
    per = benchmark.stats.stats
    median_step = per.median / k
    benchmark.extra_info.update(
        {
            "strategy": strategy.name,
            "mode": mode.name,
            "batch_size": batch_size,
            "process": job.process,
            "layout": strategy.layout,
            "control": control.cell.__class__.__name__,
            "steps_per_round": k,
            "sync": "once at the end of every block of steps_per_round steps (throughput)",
            "warmup_steps": warmup_steps,
            "per_step_s": {
                "median": median_step,
                "iqr": per.iqr / k,
                "mean": per.mean / k,
                "stddev": per.stddev / k,
                "min": per.min / k,
                "max": per.max / k,
            },
            "samples_per_s": batch_size / median_step,
            "first_call_s": subject.first_call_s,
            "control_first_call_s": control.first_call_s,
            "control_data": control_times,
            "control_position": positions,
            "ratio_data": ratios,
            "ratio_median": ratio,
            "ratio_ci95_within_process": [low, high],
            "peak_rss_bytes": peak_rss_bytes(),
            "steps_run": subject.steps,
            "workload": work.name,
            "final_state": {k: np.asarray(final[k]).reshape(-1).tolist() for k in want},
            "expected_final_state": {
                k: np.asarray(v).reshape(-1).tolist() for k, v in want.items()
            },
            "final_state_ok": bool(final_ok),
        }
    )
    print(
        f"\n@@cell {strategy.name} {mode.name} {batch_size} {job.process} "
        f"{median_step:.6e} {ratio:.4f} {low:.4f} {high:.4f}",
        flush=True,
    )
    assert final_ok, f"after {subject.steps} timed steps the state is {final}, expected {want}"


@pytest.fixture(scope="session")
def job(pytestconfig):
    return pytestconfig._bench_job


@pytest.fixture(scope="session")
def strategy(pytestconfig):
    return pytestconfig._bench_strategy


@pytest.fixture(scope="session")
def mode(pytestconfig):
    return pytestconfig._bench_mode


def pytest_generate_tests(metafunc):
    if "batch_size" in metafunc.fixturenames:
        sizes = metafunc.config._bench_job.batch_sizes
        metafunc.parametrize("batch_size", sizes, ids=[f"N{n}" for n in sizes])

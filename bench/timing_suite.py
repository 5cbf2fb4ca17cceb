"""The pytest-benchmark module a worker runs: one test per batch size of one strategy × mode.

Each round times a block of k steps of the strategy with pytest-benchmark; the paired block of the
same-layout no-update control runs right before or right after it (random order), untimed by
pytest-benchmark but with the same clock, at the strategy's current limit. The clock stops only
after ``sync``. Not collected by ``nox -s tests``: the worker passes this file to pytest itself.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from bench import stats
from bench.cell import control_for, read_limit, write_limit
from bench.gate import run_step
from bench.measure import peak_rss_bytes, sync
from bench.spec import INITIAL_LIMIT, make_input, next_limit

TIMER = time.perf_counter  # the worker passes --benchmark-timer=time.perf_counter too


class Runner:
    """A prepared cell that counts the steps it has run (outside the timed region)."""

    def __init__(self, cell_class, mode, x):
        self.cell = cell_class()
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


def expected_limit(steps: int, batch_size: int, update: bool = True) -> np.float32:
    """The limit after ``steps`` steps from the start (a control never moves it)."""
    limit = np.float32(INITIAL_LIMIT)
    for _ in range(steps if update else 0):
        limit = next_limit(limit, batch_size)
        if limit >= 3.0:
            break
    return limit


def test_step(benchmark, job, strategy, mode, batch_size):
    precision = job.precision
    x = __import__("mindspore").Tensor(make_input(batch_size, seed=job.seed))
    subject = Runner(strategy.cell_class, mode, x)
    control = Runner(control_for(strategy.layout), mode, x)

    warmup_steps = warm_up(subject, precision.warmup_seconds) + warm_up(
        control, precision.warmup_seconds
    )
    k, block_s = calibrate(subject, precision.block_seconds)
    rounds = math.ceil(precision.cell_seconds / precision.processes / (2 * max(block_s, 1e-9)))
    rounds = min(max(rounds, precision.min_rounds), precision.max_rounds)

    rng = np.random.default_rng(job.seed + 7919 * job.process + batch_size)
    control_first = list(rng.random(rounds) < 0.5)
    positions, control_times = [], []
    round_index = iter(range(rounds))

    def paired_control():
        write_limit(control.cell, read_limit(subject.cell))  # same limit, same clip cost; untimed
        control_times.append(control.timed_block(k))

    def setup():
        r = next(round_index)
        positions.append("before" if control_first[r] else "after")
        if control_first[r]:
            paired_control()

    def teardown(*_):
        if positions[-1] == "after":
            paired_control()

    benchmark.pedantic(subject.block, args=(k,), setup=setup, teardown=teardown, rounds=rounds)

    subject_times = list(benchmark.stats.stats.data)
    ratios = [s / c for s, c in zip(subject_times, control_times)]
    ratio, low, high = stats.hierarchical_bootstrap([ratios], seed=job.seed)
    final = read_limit(subject.cell)
    want = expected_limit(subject.steps, batch_size, update=not strategy.control)
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
            "final_limit": float(final),
            "expected_final_limit": float(want),
            "final_limit_ok": bool(np.isclose(final, want, rtol=1e-5, atol=1e-5)),
        }
    )
    print(
        f"\n@@cell {strategy.name} {mode.name} {batch_size} {job.process} "
        f"{median_step:.6e} {ratio:.4f} {low:.4f} {high:.4f}",
        flush=True,
    )
    assert benchmark.extra_info["final_limit_ok"], (
        f"after {subject.steps} timed steps the limit is {final}, expected {want}"
    )


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

"""The pytest-benchmark module a timing worker runs: one test per cell of its job.

``test_step[<strategy>@<shape>-<mode>-N<n>]``, grouped by workload, mode and size, so
``pytest-benchmark compare`` lines up the strategies of one mode and size. pytest-benchmark times
the subject's blocks with ``pedantic(iterations=k)``, so its stats are per step; the paired twin
blocks (``bench.run.pairing``) run in its teardown and before the first round. After its rounds a
cell checks the state its hundreds of steps left against the closed form: a cell that is wrong
there is recorded ``incorrect`` (a verdict, ``bench.core.verdicts``), never timed as working.
Not collected by ``nox -s tests``: the worker hands this file to pytest itself.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

from bench.core.schema import RACE_ROUNDS, Status, Timing, event_line
from bench.run import pairing, race
from bench.run.machine import peak_rss_bytes
from bench.run.plan import RACE


def _rounds(cell, job, round_s: float) -> int:
    """The rounds the time phase asked for, at most ``cell_seconds`` of them (at least 3)."""
    return pairing.rounds_for(job.precision.cell_seconds, round_s, 3, max(3, cell.rounds))


def test_step(benchmark, cell, context):
    import mindspore as ms

    job, work, mode = context.job, context.workload, context.mode
    if job.deadline and time.time() >= job.deadline:  # --budget: no cell starts after it
        pytest.skip("the run's --budget is spent")
    order = job.items.index(cell)  # the cells of a process run in a shuffled order
    precision, n = job.precision, cell.batch_size
    x = tuple(ms.Tensor(a) for a in work.make_inputs(n, seed=job.seed))
    print("\n" + event_line("start", key=cell.key), flush=True)  # after pytest's "."
    if cell.role == RACE:
        benchmark.group = f"{job.workload} {mode.name} N={n} race"
        benchmark.extra_info["kind"] = RACE_ROUNDS  # whole rounds; each member is its own record
        run = lambda one_round, rounds: benchmark.pedantic(one_round, rounds=rounds)  # noqa: E731
        return _race(context, cell, x, order, run)
    subject = pairing.Stepper(work, context.variant(cell.path), mode, x, n)
    control, control_first = context.control(cell, x)
    warmup = subject.warm_up(precision.warmup_seconds)
    k = cell.k or pairing.cap(
        context.k(cell, control), subject, control, precision.max_block_seconds
    )
    round_s = subject.timed_block(k) + control.timed_block(k)
    rounds = _rounds(cell, job, round_s)
    pair = pairing.Pair(subject, control, k, pairing.abba(rounds, start=order))
    benchmark.group = f"{job.workload} {mode.name} N={n}"
    with pairing.gc_off():
        pair.begin()
        benchmark.pedantic(subject, teardown=pair.end_round, rounds=rounds, iterations=k)
    subject.probe.asnumpy()  # pytest-benchmark's extra call is finished too

    final = work.final_state(subject.params, n)
    want = work.after_steps(subject.steps, n, update=cell.update)
    final_ok = work.final_matches(final, want)
    timing = Timing(
        workload=job.workload,
        strategy=cell.strategy,
        shape=cell.shape,
        mode=mode.name,
        batch_size=n,
        process=job.process,
        control=cell.control,
        role=cell.role,
        k=k,
        step_s=list(benchmark.stats.stats.data),
        control_s=pair.control_s[:rounds],
        control_position=pair.positions,
        first_call_s=subject.first_call_s,
        control_first_call_s=control_first,
        warmup_steps=warmup,
        steps_run=subject.steps,
        final_state_ok=bool(final_ok),
        final_state={k: np.asarray(final[k]).reshape(-1).tolist() for k in want},
        expected_final_state={k: np.asarray(v).reshape(-1).tolist() for k, v in want.items()},
        peak_rss_bytes=peak_rss_bytes(),
        order=order,
        stage=job.stage,
    )
    benchmark.extra_info.update(timing.to_dict())
    failure = (
        f"after {subject.steps} timed steps the state is "
        f"{ {k: np.round(np.asarray(v), 6).tolist() for k, v in final.items()} }, the code "
        f"writes { {k: np.round(np.asarray(v), 6).tolist() for k, v in want.items()} }"
    )
    context.finished(
        {
            "test": cell.test_id(job.mode),
            "status": Status.WORKS.value if final_ok else Status.INCORRECT.value,
            "detail": "" if final_ok else failure,
        },
        benchmark.stats.as_dict(include_data=True),
    )
    ratios = np.asarray(timing.ratios)
    print(
        "\n"
        + event_line(
            "cell",
            key=cell.key,
            status=Status.WORKS.value if final_ok else Status.INCORRECT.value,
            step_s=float(np.median(timing.step_s)),
            ratio=float(np.median(ratios)),
        ),
        flush=True,
    )
    if not final_ok:
        pytest.fail(failure, pytrace=False)


def _race(context, cell, x, order: int, rounds_by) -> None:
    """Every member of a race in the same rounds (``bench.run.race``): pytest-benchmark times
    whole rounds; each member's blocks are a record of their own (``Context.finished_race``)."""
    timings, wrong = race.run(context, cell, x, order, rounds_by)
    status = Status.INCORRECT.value if wrong else Status.WORKS.value
    context.finished_race(
        {"test": cell.test_id(context.job.mode), "status": status, "detail": "; ".join(wrong)},
        timings,
    )
    for t in timings:
        print(
            "\n"
            + event_line(
                "cell",
                key=f"{t.strategy}/{t.shape}/N{t.batch_size}" + ("/aa" if t.role == "aa" else ""),
                status=Status.WORKS.value if t.final_state_ok else Status.INCORRECT.value,
                step_s=float(np.median(t.step_s)),
                ratio=float(np.median(t.ratios)),
            ),
            flush=True,
        )
    if wrong:
        pytest.fail("a race member's state is wrong: " + "; ".join(wrong), pytrace=False)


@pytest.fixture(scope="session")
def context(pytestconfig):
    return pytestconfig._bench_context


def pytest_generate_tests(metafunc):
    if "cell" in metafunc.fixturenames:
        context = metafunc.config._bench_context
        cells = list(context.job.items)
        metafunc.parametrize("cell", cells, ids=[c.test_id(context.job.mode) for c in cells])

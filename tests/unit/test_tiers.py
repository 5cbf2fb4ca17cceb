"""What a precision tier times when the command names no sizes, and how long a block may last
(``bench.run.plan.Precision``, ``bench.run.pairing.cap``): hand-made tables, no MindSpore."""

from __future__ import annotations

import pytest

from bench.cli import make_plan, parser
from bench.measured import workloads
from bench.run import pairing
from bench.run.plan import TIERS, Precision


@pytest.mark.parametrize(
    "rule, sizes, want",
    [
        ("all", (1, 8, 64, 256, 1024), (1, 8, 64, 256, 1024)),
        ("ends", (1, 8, 64, 256, 1024), (1, 1024)),
        ("ends", (8192, 128, 2048, 512), (128, 8192)),  # sorted first
        ("ends", (64, 1, 1), (1, 64)),  # two distinct sizes are both ends
        ("ends", (5,), (5,)),
        ("largest", (1, 8, 64, 256, 1024), (1024,)),
        ("largest", (8192, 128, 2048), (8192,)),
        ("largest", (5,), (5,)),
        ("all", (3, 1, 3), (1, 3)),
        ("three", (1, 8, 64, 256, 1024), (1, 64, 1024)),
        ("three", (8192, 128, 2048, 512), (128, 2048, 8192)),  # the upper median of four
        ("three", (10, 20, 30), (10, 20, 30)),
        ("three", (64, 1, 1), (1, 64)),  # fewer than three distinct sizes: all of them
    ],
)
def test_the_sizes_a_tier_times(rule, sizes, want):
    assert Precision(sizes=rule).sizes_of(sizes) == want


def test_an_unknown_sizes_rule_is_refused():
    with pytest.raises(ValueError, match="unknown sizes rule 'middle'"):
        Precision(sizes="middle").sizes_of((1, 2, 3))


def _plan(*argv):
    args = parser().parse_args(list(argv))
    return make_plan(args, workloads.get(args.workload or "clip"))


def test_quick_times_the_largest_size_unless_sizes_are_named():
    assert TIERS["default"].sizes == "three" and TIERS["rigorous"].sizes == "all"
    clip = workloads.get("clip").batch_sizes
    assert _plan("--workload", "clip").batch_sizes == (1, 64, 1024)
    assert _plan("--workload", "clip", "--rigorous").batch_sizes == tuple(sorted(clip))
    assert _plan("--workload", "clip", "--quick").batch_sizes == (max(clip),)
    ema = workloads.get("ema").batch_sizes
    assert _plan("--workload", "ema", "--quick").batch_sizes == (max(ema),)
    named = _plan("--workload", "clip", "--quick", "--batch-sizes", "8,64,256")
    assert named.batch_sizes == (8, 64, 256)


def test_a_quick_run_is_never_a_reference():
    from bench.cli import is_reference

    work = workloads.get("clip")
    assert is_reference(_plan("--workload", "clip"), work)
    assert not is_reference(_plan("--workload", "clip", "--quick"), work)


class Steps:
    """A stepper whose one step takes ``step_s`` (what ``cap`` reads of it)."""

    def __init__(self, step_s: float):
        self.step_s = step_s

    def timed_block(self, k: int) -> float:
        return self.step_s * k


@pytest.mark.parametrize(
    "k, subject, twin, most, want",
    [
        (8, 0.001, 0.001, 2.0, 8),  # 8 ms blocks: kept
        (8, 0.16, 0.004, 2.0, 8),  # 1.28 s: under 2 s, kept
        (8, 0.16, 0.004, 0.25, 1),  # over 0.25 s: the largest power of two under it
        (32, 0.04, 0.001, 0.25, 4),  # 1.28 s -> 4 steps (0.16 s)
        (2, 0.16, 0.004, 0.25, 1),  # 0.32 s -> 1
        (4, 1.0, 1.0, 0.25, 4),  # as slow as its twin: 20 twin blocks allow it
        (4, 3.0, 0.001, 2.0, 1),  # one step over the limit: still one
    ],
)
def test_a_slow_member_gets_fewer_steps_per_block(k, subject, twin, most, want):
    assert pairing.cap(k, Steps(subject), Steps(twin), most) == want


class Latent(Steps):
    """A stepper whose block also waits ``sync_s`` once, at its end (one step alone is slow)."""

    def __init__(self, step_s: float, sync_s: float):
        super().__init__(step_s)
        self.sync_s = sync_s

    def timed_block(self, k: int) -> float:
        return self.step_s * k + self.sync_s


@pytest.mark.parametrize(
    "k, subject, min_steps, want",
    [
        (256, Steps(0.020), 1, 1),  # a 20 ms step: one step already lasts the 10 ms
        (256, Steps(0.004), 1, 4),  # 4 ms: 3 steps would do, the next power of two is 4
        (256, Steps(0.004), 64, 64),  # PYNATIVE: never under the mode's 64 steps
        (64, Steps(0.040), 64, 64),  # already at the floor
        (256, Steps(0.0001), 1, 128),  # 0.1 ms: 100 steps → 128 (12.8 ms), under the twin's
        (64, Steps(0.0001), 1, 64),  # never more than the twin's k
        # one step looks slow (its sync): the guess, 8 steps, lasts 3.6 ms; doubled until 10 ms
        (256, Latent(0.0002, 0.0020), 1, 64),
    ],
)
def test_a_slow_subject_is_screened_in_shorter_blocks_that_still_last_block_seconds(
    k, subject, min_steps, want
):
    got = pairing.shorter(k, subject, 0.01, min_steps)
    assert got == want
    assert got == k or subject.timed_block(got) >= 0.01


@pytest.mark.parametrize(
    "k, subject, min_steps, max_block, want",
    [
        (256, Steps(0.004), 64, 2.0, 64),  # 64 steps last 0.26 s: the floor holds
        (256, Steps(0.160), 64, 2.0, 8),  # 64 would last 10 s: 8 steps (1.3 s), not 16 (2.6 s)
        (256, Steps(0.043), 64, 2.0, 32),  # 64 would last 2.8 s: 32 (1.4 s)
        (256, Steps(3.0), 64, 2.0, 1),  # one step already outlasts it: one step
        (256, Steps(0.160), 64, 0.25, 1),  # the quick tier's 0.25 s: one step of 160 ms
        (4, Steps(0.160), 64, 2.0, 4),  # never more than the race's k
        (256, Steps(0.0001), 64, 2.0, 128),  # block_seconds still rules a fast step (12.8 ms)
        (256, Latent(0.020, 0.5), 64, 2.0, 2),  # a slow first step: the guess, then still bounded
    ],
)
def test_the_modes_floor_of_steps_yields_to_the_longest_block(
    k, subject, min_steps, max_block, want
):
    """PYNATIVE's 64 steps a block are there to outlast its queue's drains, not to make a slow
    layout twin's blocks last 10 s: past ``max_block`` (as ``calibrate``) the floor is the most
    steps whose block stays within it, still at least ``block_seconds``."""
    got = pairing.shorter(k, subject, 0.01, min_steps, max_block)
    assert got == want
    assert got == k or subject.timed_block(got) >= 0.01


@pytest.mark.parametrize(
    "k, subject, min_block, want",
    [
        (64, Steps(0.020), 0.038, 2),  # 64 steps of a 0.6 ms base: 2 steps of 20 ms last as long
        (4, Steps(0.300), 0.160, 1),  # one step already outlasts the base's block
        (64, Steps(0.0006), 0.038, 64),  # as fast as the base: the mode's floor, as before
        (64, Steps(0.005), 0.038, 8),  # 8 steps (40 ms) match the base's block
        (64, Latent(0.002, 0.004), 0.038, 32),  # one step looks slow: doubled until it lasts
    ],
)
def test_a_slow_layout_twins_block_lasts_as_long_as_the_base_twins(k, subject, min_block, want):
    """The mode's 64 steps make the base twin's block outlast PYNATIVE's drains; a twin whose
    step is 30 times slower does with 2 steps (64 of them made 1.3 s blocks, a third of the
    clip's PYNATIVE timing)."""
    got = pairing.shorter(k, subject, 0.01, 64, 2.0, min_block=min_block)
    assert got == want
    assert got == k or subject.timed_block(got) >= min_block


def test_the_default_tier_blocks_as_cap_does_by_default():
    assert TIERS["default"].max_block_seconds == pairing.MAX_SUBJECT_BLOCK
    assert TIERS["quick"].max_block_seconds < TIERS["default"].max_block_seconds


def test_an_old_plan_without_the_new_fields_reads_as_before():
    from bench.run.plan import Plan

    old = Plan(workload="clip", strategies=("assign",), modes=("graph",), batch_sizes=(1,),
               strategies_dir="strategies").to_dict()  # fmt: skip
    for key in ("max_block_seconds", "sizes"):
        del old["precision"][key]
    again = Plan.from_dict(old)
    assert again.precision.max_block_seconds == 2.0 and again.precision.sizes == "all"


def test_the_help_says_what_quick_times():
    text = parser().format_help()
    assert "no later stage, the largest size unless --batch-sizes" in " ".join(text.split())

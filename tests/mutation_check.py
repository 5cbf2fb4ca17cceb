"""Mutation check of the modules whose decisions reach a user: the oracle (what a step means and
what kind a divergence is) and the decisions (interval, margin, outcome, fastest, answer, exit
code). Each mutation below is a plausible slip (a flipped comparison, an edge made exclusive, a
changed constant); the tests of that module must fail on it. ``nox -s mutation`` (or
``python tests/mutation_check.py``) copies the suite to a temporary folder, applies one mutation at
a time there, runs the fast tests of the module, and prints which tests kill it; exit 1 when a
mutation survives that is not listed as equivalent.

Why not mutmut: it mutates every operator of a module and runs the whole suite per mutant (hours
here, most mutants in messages and formatting); these mutations are chosen at the edges a user's
answer depends on, each says what it breaks, and the check takes about 3 minutes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORACLE = "bench/measured/oracle.py"
C, A, R, E = (
    "bench/core/cellstats.py",
    "bench/core/analysis.py",
    "bench/decide/answer.py",
    "bench/core/exits.py",
)
M = "bench/core/margin.py"  # the margin's defaults (cellstats re-exports Margin)
ORACLE_TESTS = [
    "tests/unit/test_oracle.py",
    "tests/unit/test_expected_values.py",
    "tests/unit/test_apis.py",
    "tests/unit/test_shapes.py",
    "tests/unit/test_observability.py",
]
DECISION_TESTS = [
    "tests/unit/test_cellstats.py",
    "tests/unit/test_analysis.py",
    "tests/unit/test_answer_decide.py",
    "tests/unit/test_exits.py",
    "tests/unit/test_races.py",
    "tests/unit/test_coverage_sim.py",
    "tests/unit/test_phrasing.py",
    "tests/unit/test_coverage_sim_races.py",
    "tests/unit/test_simultaneous_sim.py",
    "tests/unit/test_time_jobs.py",
    "tests/unit/test_alone.py",
    "tests/unit/test_select.py",
    "tests/unit/test_screen_cache.py",
]

# (file, text, replacement, what it breaks)
ORACLE_MUTATIONS = [
    (
        ORACLE,
        "    if not runtime.matches(out, expected.output):",
        "    if runtime.matches(out, expected.output):",
        "judge: the output comparison flipped",
    ),
    (
        ORACLE,
        "if self.output == BEFORE and (meaning == AFTER or self.older):",
        "if self.output == BEFORE and (meaning == BEFORE or self.older):",
        "kinds: a stale read when the code reads before the write",
    ),
    (
        ORACLE,
        "elif self.output == AFTER and meaning == BEFORE:",
        "elif self.output == AFTER and meaning == AFTER:",
        "kinds: a read of the future when the code reads after the write",
    ),
    (
        ORACLE,
        "        writes = not runtime.matches(want, old)",
        "        writes = runtime.matches(want, old)",
        "judge: 'the code writes' flipped",
    ),
    (
        ORACLE,
        "        if writes and np.array_equal(got, old):\n",
        "        if writes or np.array_equal(got, old):\n",
        "judge: a dropped write when the code writes nothing",
    ),
    (
        ORACLE,
        'BEFORE, AFTER = "before", "after"',
        'BEFORE, AFTER = "after", "before"',
        "constants: before and after swapped",
    ),
    (ORACLE, "    if len(bad) > 1:", "    if len(bad) >= 1:", "verdict: one bad step told as many"),
    (
        ORACLE,
        'return f"{value[0]:.6g}"',
        'return f"{value[0]:.3g}"',
        "message: values printed to 3 digits",
    ),
    (
        ORACLE,
        "kinds = [k for k in KINDS if any(",
        "kinds = [k for k in reversed(KINDS) if any(",
        "verdict: the order of kinds reversed",
    ),
    (
        ORACLE,
        "                step.older = j\n",
        "                step.older = j + 1\n",
        "judge: the stale value's step off by one",
    ),
    (
        "bench/measured/workloads/clip/__init__.py",
        'if v.get("read") == "view" and semantics == IN_PLACE:',
        'if v.get("read") == "view" and semantics != IN_PLACE:',
        "clip meaning: a view read of an in-place write flipped",
    ),
    (
        "bench/measured/apis.py",
        "        writes=REPLACE,\n",
        "        writes=IN_PLACE,\n",
        "apis: set_data declared in place",
    ),
    (
        "bench/measured/workloads/clip/spec.py",
        "INC_STEP = 1e-4",
        "INC_STEP = 1e-3",
        "clip: the increment",
    ),
    (
        "bench/measured/workloads/brn/spec.py",
        "MOMENTUM = 0.1",
        "MOMENTUM = 0.2",
        "brn: the momentum",
    ),
    (
        "bench/measured/workloads/kvcache/runtime.py",
        "(t - 1) % length",
        "(t + 1) % length",
        "kvcache: the row read",
    ),
    ("bench/measured/workloads/ema/spec.py", "DECAY = 0.9", "DECAY = 0.99", "ema: the decay"),
    (
        "bench/measured/workloads/clip/runtime.py",
        "gate_schedule = ((2048, 10),)",
        "gate_schedule = ((8192, 4),)",
        "clip: the limit saturates inside the checked window (the old gate)",
    ),
    (
        "bench/measured/workloads/brn/spec.py",
        "RAMP_STEPS = 8",
        "RAMP_STEPS = 4",
        "brn: r_max and d_max stop ramping inside the checked window",
    ),
    (
        "bench/measured/workloads/ema/spec.py",
        "RELOAD_STEP, SET_DATA_STEP = 5, 8",
        "RELOAD_STEP, SET_DATA_STEP = 50, 80",
        "ema: no reload within the checked window",
    ),
    (
        "bench/measured/workloads/ema/spec.py",
        "    return [(w - DTYPE(LR) * g).astype(DTYPE) for w, g in zip(weights, grads)]",
        "    return [w.astype(DTYPE) for w, g in zip(weights, grads)]",
        "ema: the weights are not trained",
    ),
    (
        ORACLE,
        "    return changes and reads\n",
        "    return True\n",
        "observable: every step called observable",
    ),
    (
        ORACLE,
        "    kind = primary(first.kinds(meaning)) or kinds[0]\n",
        "    kind = kinds[0]\n",
        "verdict: the kind by precedence over every step, not the first diverging step's",
    ),
    (
        ORACLE,
        '            step.state[name] = "outdated"\n',
        '            step.state[name] = "other"\n',
        "judge: a state that follows replaced weights called a wrong value",
    ),
]

DECISION_MUTATIONS = [
    (
        C,
        "    if low_s >= -margin_s and high_s <= margin_s:\n",
        "    if low_s > -margin_s and high_s < margin_s:\n",
        "outcome: the margin's edge made exclusive",
    ),
    (
        C,
        "    if low_s > margin_s:\n        return SLOWER",
        "    if low_s >= -margin_s:\n        return SLOWER",
        "outcome: slower as soon as the interval clears -margin",
    ),
    (
        C,
        "    if high_s < -margin_s:\n        return FASTER",
        "    if high_s < margin_s:\n        return FASTER",
        "outcome: faster against +margin",
    ),
    (
        C,
        "    if biased or not (math.isfinite(low_s) and math.isfinite(high_s)):",
        "    if not (math.isfinite(low_s) and math.isfinite(high_s)):",
        "outcome: an A/A bias ignored",
    ),
    (C, "ALPHA = 0.05", "ALPHA = 0.10", "intervals: 90 % instead of 95 %"),
    (C, "    return alpha / looks", "    return alpha", "looks: no error spending over looks"),
    (M, "    rel: float = 0.02", "    rel: float = 0.05", "margin: 5 % instead of 2 %"),
    (M, "    abs_s: float = 5e-6", "    abs_s: float = 5e-5", "margin: a floor of 50 µs"),
    (
        M,
        "        return max(self.rel * step_s, self.abs_s) if",
        "        return min(self.rel * step_s, self.abs_s) if",
        "margin: the smaller of its parts",
    ),
    (
        C,
        "    if SLOWER in outcomes:\n        return SLOWER\n"
        "    if outcomes and all(o == EQUIVALENT",
        "    if outcomes and all(o == EQUIVALENT",
        "over sizes: slower at one size not slower",
    ),
    (
        C,
        "    return outcome_ in (EQUIVALENT, FASTER)",
        "    return outcome_ == EQUIVALENT",
        "as fast: faster not counted as fast",
    ),
    (
        C,
        "    return min(found, key=lambda s: (found[s], s)) if found else None",
        "    return max(found, key=lambda s: (found[s], s)) if found else None",
        "fastest: the highest score",
    ),
    (
        C,
        "    return max(1.0, sum(v for v, _ in parts) ** 2 / denom)",
        "    return max(1.0, sum(v for v, _ in parts) ** 2 / denom) * 10",
        "intervals: degrees of freedom ×10",
    ),
    (
        C,
        "    return float(special.stdtrit(df, 1.0 - alpha / 2.0))",
        "    return float(special.stdtrit(df, 1.0 - alpha))",
        "intervals: a one-sided quantile",
    ),
    (C, "TRIM = 0.2", "TRIM = 0.0", "estimate: no trimming"),
    (
        A,
        "self._compare(mine, self.candidates[k][n], head_to_head, len(rivals)).low_s",
        "self._compare(mine, self.candidates[k][n], head_to_head, 1).low_s",
        "slower: each rival at the level of one comparison (not simultaneous)",
    ),
    (
        C,
        "    return MAD_TO_SD * mad * v.size / (v.size - 0.8)",
        "    return MAD_TO_SD * mad",
        "spread: no small-sample correction",
    ),
    (
        A,
        "            if typical >= first and grows < typical / DROPPED:",
        "            if typical >= first and grows > typical / DROPPED:",
        "twins: a flat twin taken as valid",
    ),
    (
        A,
        "            if math.isfinite(high) and high < 1.0 - m.margin.rel:",
        "            if math.isfinite(high) and high < 1.0:",
        "twins: faster than the twin without the margin",
    ),
    (
        C,
        "    floor = 0.0 if candidate else -math.inf",
        "    floor = -math.inf",
        "ranking: a candidate faster than the best (the best may be itself)",
    ),
    (
        C,
        "        max([floor, *(c.high_s for c in against)]),",
        "        min([floor, *(c.high_s for c in against)]),",
        "ranking: the upper bound from the closest candidate, not from every one",
    ),
    (
        C,
        "        max([floor, *lows]),",
        "        min([floor, *lows]),",
        "ranking: slower only than every candidate, not than one",
    ),
    (
        A,
        "                rivals = [k for k in pool if k != s]",
        "                rivals = [k for k in pool if k != s and k == best_name]",
        "ranking: against the fastest point estimate only",
    ),
    (
        A,
        "                    if c.high_s > comp.margin_s:",
        "                    if False:",
        "later stages: the candidates that keep a decision open not raced again",
    ),
    (
        R,
        "    return st.reference and st.outcome == EQUIVALENT",
        "    return st.reference",
        "answer: the fastest point estimate equivalent by definition",
    ),
    (
        R,
        "    pool = current or correct",
        "    pool = correct",
        "answer: a deprecated API not avoided",
    ),
    (
        R,
        '        and PLATFORM in facts.get(s, {}).get("platforms", [])',
        "",
        "answer: an API not documented for the CPU",
    ),
    (
        R,
        "    best = next(s for s in order if s in eq or s in und)",
        "    best = (eq or und)[0]",
        "answer: a simpler undetermined candidate passed over for an equivalent one",
    ),
    (
        R,
        "    if NOT_TIMED in values and SLOWER not in values:",
        "    if NOT_TIMED in values:",
        "answer: 'not timed' hides 'slower'",
    ),
    (
        R,
        "    if best in und:",
        "    if best in und and not eq:",
        "answer: a simpler undetermined candidate called decided",
    ),
    (
        C,
        "        margin.at(paired.step_s),",
        "        margin.at(paired.control_step_s),",
        "head to head: the margin at the fastest's step, not the candidate's",
    ),
    (
        C,
        "    low, high = paired.log_interval(alpha_per_look(looks))",
        "    low, high = paired.log_interval()",
        "head to head: no error spending over looks",
    ),
    (
        A,
        "        return cellstats.heterogeneity(groups)",
        "        return cellstats.Heterogeneity(0.0, 0.0, 0, 0)",
        "head to head: no between-process variance",
    ),
    (
        A,
        "        names = set(self.candidates) if names is None else set(names) & set(self.candidates)",  # noqa: E501
        "        names = set(self.candidates)",
        "later stages: open decisions against a fastest that is no candidate",
    ),
    (
        "bench/run/prepare_phase.py",
        "        if ok and all(ok) and PLATFORM in",
        "        if ok and any(ok) and PLATFORM in",
        "later stages: a candidate wrong in one in-scope shape",
    ),
    (
        "bench/run/race.py",
        "    return rounds + rounds % 2",
        "    return rounds",
        "races: an odd number of rounds (ABBA unbalanced)",
    ),
    (
        "bench/measured/modes.py",
        "        race_per_process=True,",
        "        race_per_process=False,",
        "bytecode timing: races of other sizes after the first in one process",
    ),
    (
        "bench/run/alone.py",
        "    return recorded == alone",
        "    return recorded.split(':')[0] == alone.split(':')[0]",
        "alone check: a different kind taken as agreeing",
    ),
    (
        E,
        "        differences=sum(o.differences for o in outcomes),",
        "        differences=max((o.differences for o in outcomes), default=0),",
        "exit line: one workload's differences for all",
    ),
    (
        E,
        "    if outcome.refused or outcome.differences or outcome.crashes:",
        "    if outcome.refused or outcome.differences:",
        "exit code: crashes ignored",
    ),
    (
        E,
        "    if outcome.usage_error:\n        return Exit.USAGE\n    if outcome.harness_error:\n"
        "        return Exit.HARNESS\n",
        "    if outcome.harness_error:\n        return Exit.HARNESS\n    if outcome.usage_error:\n"
        "        return Exit.USAGE\n",
        "exit code: a harness error before a usage error",
    ),
    (
        "bench/run/select.py",
        "TIE = 0.10 ",
        "TIE = 0.0 ",
        "screen: a read cheaper in every round by less than the tie replaces the simplest",
    ),
    (
        "bench/run/select.py",
        "pvalue <= ALPHA",
        "pvalue <= 2 * ALPHA",
        "screen: rounds that overlap in two pairs count as cheaper",
    ),
    (
        "bench/run/select.py",
        'alternative="less"',
        'alternative="two-sided"',
        "screen: a two-sided test (half the power to find the cheaper read)",
    ),
    (
        "bench/run/select.py",
        "    kept = [c for c in rounds if not any(",
        "    kept = [c for c in rounds if any(",
        "screen: the reads shown costlier kept, the others dropped",
    ),
    (
        "bench/run/screen_cache.py",
        "                if all(_same(run, keys, *_control(rows[s]), mode) for s in shapes):",
        "                if True:",
        "reused screen: ratios against another base twin's code reused",
    ),
    (
        "bench/run/screen_cache.py",
        "    return bool(here) and run.keys.get((strategy, shape, mode)) == here",
        "    return run.keys.get((strategy, shape, mode)) == here",
        "reused screen: a shape without a key here matches one without a key there",
    ),
    (
        "bench/run/screen_cache.py",
        "key=lambda s: s.run_id, reverse=True)",
        "key=lambda s: s.run_id)",
        "reused screen: the oldest run's screen preferred to the newest",
    ),
    (
        "bench/run/screen_cache.py",
        "if p.name < run.path.name]",
        "if p.name != run.path.name]",
        "reused screen: a run begun later (a --resume could choose differently)",
    ),
]

QUIET = ["-p", "no:cacheprovider", "-m", "not mindspore"]

# Mutations that cannot change behaviour, with why (kept so that no one adds a test for them).
EQUIVALENT = {
    "answer: deprecated after custom in simplicity": "decide's pool is all current or all "
    "deprecated, so the deprecated key never orders two candidates",
    "exit code: an interrupt not first in combine": "130 is already the largest code",
}


def run(mutations, tests, copy: Path, python: str) -> list[str]:
    survived = []
    for path, old, new, what in mutations:
        target = copy / path
        text = target.read_text()
        if old not in text:
            print(f"- {what}: the text to mutate is gone from {path} (update this list)")
            survived.append(what)
            continue
        target.write_text(text.replace(old, new, 1))
        try:
            done = subprocess.run(
                [python, "-m", "pytest", *tests, "-x", "-q", "--tb=no", "-rfE", *QUIET],
                cwd=copy,
                capture_output=True,
                text=True,
                check=False,
            )
        finally:
            target.write_text(text)
        failed = sorted(  # a test that fails, or errors (a workload refused at load)
            {
                line.split("::")[1].split("[")[0].split(" ")[0]
                if "::" in line
                else f"{line.split()[1]} (collecting it)"
                for line in done.stdout.splitlines()
                if line.startswith(("FAILED", "ERROR")) and len(line.split()) > 1
            }
        )
        if failed:
            print(f"- {what} ({path}): killed by {', '.join(failed)}", flush=True)
        else:
            print(f"- {what} ({path}): SURVIVED", flush=True)
            survived.append(what)
    return survived


def main() -> int:
    python = os.environ.get("MUTATION_PYTHON", sys.executable)
    with tempfile.TemporaryDirectory(prefix="mutation-") as tmp:
        copy = Path(tmp)
        for part in ("bench", "tests", "strategies", "expected", "examples"):
            if (ROOT / part).exists():
                skip = shutil.ignore_patterns("__pycache__")
                shutil.copytree(ROOT / part, copy / part, ignore=skip)
        for name in ("pyproject.toml", "README.md"):
            shutil.copy2(ROOT / name, copy / name)
        print("Oracle and meanings:")
        survived = run(ORACLE_MUTATIONS, ORACLE_TESTS, copy, python)
        print("Decisions:")
        survived += run(DECISION_MUTATIONS, DECISION_TESTS, copy, python)
    total = len(ORACLE_MUTATIONS) + len(DECISION_MUTATIONS)
    print(f"{total - len(survived)}/{total} mutations killed")
    for what, why in EQUIVALENT.items():
        print(f"  not tried (equivalent): {what}: {why}")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())

"""The decisions a run's timings support, per mode: one object the time phase's stopping rule,
the report and ``compare`` all use (``bench.core.cellstats`` for the statistics).

Per mode: every timed cell's estimate (with the mode's between-process variance, Paule–Mandel
over its cells, and Cochran's Q: ``heterogeneity``), the A/A bias per size, and for the update
cells of the strategies that worked at every size, every one's outcome against the best
candidate at each size (``rank``: compared head to head with each other candidate, bounded as
``cellstats.versus_best`` says; equivalent / slower / faster / undetermined, with the margin at
the strategy's step; every decision at a size whose A/A cell is biased beyond the margin is
undetermined; each look of a decision at the level α / ``looks``, and a "slower" at the level of
one of the rivals too), and the fastest point estimate. No probability of being the fastest is
stated: its top name changed in 5 of 9 modes back to back (issue 52); the candidates not shown
slower are the set the data cannot rank apart.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property
from itertools import combinations

import numpy as np

from bench.core import cellstats
from bench.core.cellstats import EQUIVALENT, SLOWER, UNDETERMINED, Margin
from bench.core.rundir import CellId
from bench.core.schema import Status, Timing


@dataclass
class Cell:
    """One timed cell over its processes."""

    id: CellId
    role: str
    control: str
    timings: list[Timing]
    tau2: float = 0.0
    status: str = (
        Status.WORKS.value
    )  # "incorrect" when the state was wrong after the timed steps somewhere
    tau2_df: float = math.inf  # degrees of freedom of the mode's τ² (Heterogeneity.df)
    twin_invalid: str = ""  # why its twin cannot measure what the write adds ("" when it can)
    run_tau2: float = 0.0  # the mode's variance between runs (``between_runs``): its cost only
    run_df: float = math.inf

    @property
    def shows_cost(self) -> bool:
        """Whether its added time may be shown: correct, against a twin that kept its work."""
        return self.status == Status.WORKS.value and not self.twin_invalid

    @cached_property
    def control_step_s(self) -> float:
        values = np.concatenate([np.asarray(t.control_s, float) for t in self.timings])
        return float(np.median(values)) if values.size else math.nan

    @cached_property
    def step_s(self) -> float:
        values = np.concatenate([np.asarray(t.step_s, float) for t in self.timings])
        return float(np.median(values)) if values.size else math.nan

    @cached_property
    def estimate(self) -> cellstats.Estimate:
        groups = [t.ratios for t in self.timings]
        return cellstats.estimate(
            groups, self.control_step_s, self.tau2, self.tau2_df, self.run_tau2, self.run_df
        )

    @property
    def processes(self) -> int:
        return len({t.process for t in self.timings})

    @property
    def raced(self) -> bool:
        return bool(self.timings) and all(t.race and t.race_base_s for t in self.timings)

    @cached_property
    def whole_step(self) -> cellstats.Estimate:
        """Its whole step over the base twin's, paired on the rounds of its races: the one
        quantity candidates are ranked by (every candidate's races hold the same base twin)."""
        groups = [[s / b for s, b in zip(t.step_s, t.race_base_s)] for t in self.timings]
        return cellstats.estimate(groups, self.step_s, self.tau2, self.tau2_df)

    def versus_groups(self, other: Cell) -> list[list[float]]:
        """Per process, its whole step over ``other``'s round by round, in the races both ran."""
        theirs = {t.race: t for t in other.timings if t.race}
        return [t.versus(theirs[t.race]) for t in self.timings if t.race in theirs]

    def versus(self, other: Cell, het: cellstats.Heterogeneity | None = None) -> cellstats.Estimate:
        """Its whole step over ``other``'s, paired round by round in the races both ran in;
        ``het``: the between-process variance of such head-to-head ratios (default: the
        cell's own, of subject over twin)."""
        tau2, df = (het.tau2, het.tau2_df) if het else (self.tau2, self.tau2_df)
        # kept per rival: ``rank`` asks for each pair at two levels, ``open_cells`` and the
        # standings rank again, and a cell's timings do not change once analysed
        seen = self.__dict__.setdefault("_versus", {})
        key = (other.id, tau2, df)
        if key not in seen:
            seen[key] = cellstats.estimate(self.versus_groups(other), other.step_s, tau2, df)
        return seen[key]

    @property
    def rounds(self) -> int:
        return sum(len(t.step_s) for t in self.timings)

    def added_quartiles(self) -> tuple[float, float, float]:
        """Per-round added time (subject − twin), pooled: quartiles (the distribution view)."""
        values = np.concatenate(
            [np.asarray(t.step_s, float) - np.asarray(t.control_s, float) for t in self.timings]
        )
        q1, q2, q3 = np.percentile(values, [25, 50, 75])
        return float(q1), float(q2), float(q3)

    @property
    def first_call_s(self) -> float:
        values = [t.first_call_s for t in self.timings if math.isfinite(t.first_call_s)]
        return float(np.median(values)) if values else math.nan


@dataclass
class Standing:
    """A strategy's standing against the best candidate, per size and overall: ``comparisons``
    per size its step minus the best candidate's, with the interval ``ModeAnalysis.rank``
    bounds it by; ``against`` per size the head-to-head comparisons with each other candidate
    that bound is made of."""

    strategy: str
    reference: bool = False  # the fastest point estimate
    comparisons: dict[int, cellstats.Comparison] = field(default_factory=dict)
    against: dict[int, dict[str, cellstats.Comparison]] = field(default_factory=dict)

    @property
    def outcome(self) -> str:
        return cellstats.decide([c.outcome for c in self.comparisons.values()])


@dataclass
class ModeAnalysis:
    mode: str
    cells: dict[CellId, Cell]
    margin: Margin
    sizes: tuple[int, ...]
    tau2: float = 0.0
    heterogeneity: cellstats.Heterogeneity | None = None  # τ², Cochran's Q and its p
    looks: int = 1  # how many times a decision may be looked at (the tier's stages + 1)

    def of_role(self, role: str) -> list[Cell]:
        return [c for c in self.cells.values() if c.role == role]

    @cached_property
    def candidates(self) -> dict[str, dict[int, Cell]]:
        """{strategy: {size: cell}} of the update cells that worked at every size."""
        by: dict[str, dict[int, Cell]] = defaultdict(dict)
        for c in self.of_role("update"):
            by[c.id.strategy][c.id.size] = c
        return {
            s: cells
            for s, cells in by.items()
            if set(cells) >= set(self.sizes)
            and all(
                c.status == Status.WORKS.value and math.isfinite(c.estimate.log_ratio)
                for c in cells.values()
            )
        }

    def fastest_of(self, names) -> str | None:
        """Among ``names``, the candidate with the lowest mean added time over the sizes, each
        size's added time divided by one common step (the median twin step at that size): a
        strategy's own ratio divides by its own twin, and twins differ (a host update's twin is
        the bare forward), so ratios of different twins do not rank."""
        mine = self._estimates(names)
        return cellstats.fastest(mine, self._common(names)) if mine else None

    def _estimates(self, names) -> dict[str, list[cellstats.Estimate]]:
        """Per candidate among ``names``, per size, what candidates are ranked by: the whole step
        over the base twin's where they were raced, the added time over their twins otherwise."""
        mine = {s: cells for s, cells in self.candidates.items() if s in names}
        raced = self.raced(mine)
        return {
            s: [cells[n].whole_step if raced else cells[n].estimate for n in self.sizes]
            for s, cells in mine.items()
        }

    def _common(self, names) -> list[float] | None:
        """Per size, the median twin step of the candidates among ``names`` (added times over
        different twins are ranked over one common step); None where they were raced (the
        whole step over the same base twin needs none)."""
        mine = {s: cells for s, cells in self.candidates.items() if s in names}
        if self.raced(mine):
            return None
        return [
            float(np.median([cells[n].control_step_s for cells in mine.values()]))
            for n in self.sizes
        ]

    def biased(self, size: int) -> bool:
        """Whether this size's A/A cell is biased beyond the margin (its decisions undetermined)."""
        aa = self.aa.get(size)
        return aa is not None and cellstats.aa_biased(aa, self.margin)

    def raced(self, candidates: dict[str, dict[int, Cell]]) -> bool:
        """Whether every one of ``candidates`` was raced at every size (then every decision is
        head to head on the whole step; older runs compare added times over separate twins)."""
        return all(cells[n].raced for cells in candidates.values() for n in self.sizes)

    @cached_property
    def paired_heterogeneity(self) -> cellstats.Heterogeneity:
        """The between-process variance of head-to-head ratios (one member's whole step over
        another's in the same rounds), estimated as the mode's τ² is (Paule–Mandel) from every
        pair of working update members raced together at each size. It is not the subject /
        twin τ²: each member of a pair keeps its own speed for a process's life, so a ratio of
        two members moves by both shifts."""
        groups = [cellstats.processes(a.versus_groups(b)) for a, b in self.raced_pairs()]
        return cellstats.heterogeneity(groups)

    def raced_pairs(self) -> list[tuple[Cell, Cell]]:
        """Every pair of working update members raced together at a size (by strategy)."""
        by_size: dict[int, list[Cell]] = defaultdict(list)
        for c in self.of_role("update"):
            if c.raced and c.status == Status.WORKS.value:
                by_size[c.id.size].append(c)
        return [
            pair
            for cells in by_size.values()
            for pair in combinations(sorted(cells, key=lambda c: c.id.strategy), 2)
        ]

    def _compare(
        self, cell: Cell, best: Cell, head_to_head: bool, rivals: int = 1
    ) -> cellstats.Comparison:
        """``cell`` against ``best`` at the level of one of ``looks`` looks, and of one of
        ``rivals`` comparisons a decision takes the largest of (Bonferroni over both)."""
        looks, biased = self.looks * max(1, rivals), self.biased(cell.id.size)
        if not head_to_head:
            return cellstats.compare(cell.estimate, best.estimate, self.margin, looks, biased)
        # the whole step over the fastest's whole step, paired on the rounds both ran in
        paired = cell.versus(best, self.paired_heterogeneity)
        return cellstats.compare_paired(paired, self.margin, looks, biased)

    def rank(self, names, others=()) -> dict[str, Standing]:
        """Each of ``names`` (timed candidates) and of ``others`` (working strategies that are
        not candidates) against the best of the candidates, per size: a comparison with the
        best, not with the fastest point estimate (Hsu's multiple comparisons with the best).

        Which candidate measured fastest is a noisy choice among near-equal ones; judging the
        rest against it makes their outcomes follow it (issue 27: two brn runs whose cells
        agreed swapped the fastest, and with it ten outcomes). The best's step is the lowest of
        the candidates' true steps, so a strategy's excess over it is its largest excess over
        any candidate (none below 0 for a candidate: the best may be itself). Its interval is
        bounded by the head-to-head comparisons with each other candidate: above by the largest
        upper bound (the comparison with the true best is one of them), below by the largest
        lower bound. So a candidate is *equivalent* where no other candidate may be faster than
        it beyond the margin, *slower* where some candidate is faster than it beyond the margin,
        and undetermined otherwise, whichever candidate happened to measure fastest; a strategy
        that is not a candidate is *faster* where it is faster than every candidate beyond the
        margin. The margin is at the strategy's own whole step; each look at the level of one of
        ``looks``; every decision at a size with a biased A/A cell is undetermined.

        "Slower" holds if *any* rival is faster beyond the margin: a union over the rivals, so
        its lower bounds are each at the level of one of the rivals too (Bonferroni: with four
        rivals as fast as the best, a candidate exactly one margin slower would otherwise be
        called slower four times as often as the stated level, issue 52). "Equivalent" and
        "faster" need *every* comparison to hold (an intersection): one level suffices."""
        best_name = self.fastest_of(names)
        if best_name is None:
            return {}
        pool = sorted(s for s in set(names) if s in self.candidates)
        ranked = [*sorted(names), *sorted(set(others) - set(names))]
        head_to_head = self.raced({s: self.candidates[s] for s in ranked if s in self.candidates})
        out = {}
        for s in ranked:
            if s not in self.candidates:
                continue
            standing = Standing(s, reference=s == best_name)
            for n in self.sizes:
                mine = self.candidates[s][n]
                rivals = [k for k in pool if k != s]
                against = {
                    k: self._compare(mine, self.candidates[k][n], head_to_head) for k in rivals
                }
                lows = [
                    self._compare(mine, self.candidates[k][n], head_to_head, len(rivals)).low_s
                    for k in rivals
                ]
                standing.against[n] = against
                standing.comparisons[n] = self._versus_best(
                    mine, against, s in pool, head_to_head, lows
                )
            out[s] = standing
        return out

    def _versus_best(
        self,
        cell: Cell,
        against: dict[str, cellstats.Comparison],
        candidate: bool,
        h2h: bool,
        lows: list[float] | None = None,
    ) -> cellstats.Comparison:
        """``cell``'s step minus the best candidate's (``cellstats.versus_best``), the margin at
        its own whole step; ``lows``: the lower bounds at the simultaneous level (``rank``)."""
        step = cell.step_s if h2h else cell.estimate.step_s
        return cellstats.versus_best(
            list(against.values()), self.margin.at(step), candidate, self.biased(cell.id.size),
            lows,
        )  # fmt: skip

    @cached_property
    def fastest(self) -> str | None:
        """The working strategy with the lowest mean relative added time over the sizes."""
        return self.fastest_of(set(self.candidates))

    @cached_property
    def standings(self) -> dict[str, Standing]:
        """Every working strategy against the best of them (``rank``)."""
        return self.rank(set(self.candidates))

    @cached_property
    def aa(self) -> dict[int, cellstats.Estimate]:
        return {c.id.size: c.estimate for c in self.of_role("aa")}

    def aa_flagged(self) -> list[int]:
        """Sizes whose A/A interval (a twin against itself) lies beyond ±margin: every
        comparison at them is undetermined."""
        return sorted(n for n in self.aa if self.biased(n))

    def open_cells(self, target: float = 0.0, names=None) -> list[Cell]:
        """Cells another stage should measure: per size, those of an undetermined standing (and
        of the other candidates that may still be faster than it beyond the margin: the
        comparisons that keep it open), and with ``target`` any update cell wider than ±target.
        ``names``: the candidates the answer is chosen from (documented for the platform, correct
        in every shape it must hold in); their decisions are the ones against the best *of
        them*, as the report takes them (default: every working strategy)."""
        names = set(self.candidates) if names is None else set(names) & set(self.candidates)
        out: dict[CellId, Cell] = {}
        for s, st in self.rank(names).items():
            for n, comp in st.comparisons.items():
                if comp.outcome != UNDETERMINED:
                    continue
                out[self.candidates[s][n].id] = self.candidates[s][n]
                for k, c in st.against.get(n, {}).items():
                    if c.high_s > comp.margin_s:
                        out[self.candidates[k][n].id] = self.candidates[k][n]
        if target:
            for c in self.of_role("update"):
                if c.status == Status.WORKS.value and c.estimate.halfwidth > target:
                    out[c.id] = c
        return list(out.values())


def analyse(
    timings: list[Timing],
    statuses: list[dict],
    modes: list[str],
    sizes,
    margin: Margin,
    looks: int = 1,
    wrong_shapes=frozenset(),
    between_runs=None,
) -> dict[str, ModeAnalysis]:
    """{mode: ModeAnalysis} of every cell timed (``statuses``: the cells' final-state checks;
    ``looks``: how many times the run may look at a decision, the tier's stages + 1;
    ``wrong_shapes``: {(strategy, shape, mode)} whose final verdict is not "works" (a timing
    process saw it wrong at one size): its update cells are incorrect at every size, before the
    twins are checked, so a wrong cell never judges a twin); ``between_runs``: {(mode, role):
    (τ², its df)} between runs of this machine, added to the cost of each cell of that role
    (``Cell.estimate``), not to the comparisons between candidates, which were never
    contradicted between runs."""
    between_runs = between_runs or {}
    wrong = {c["test"] for c in statuses if c.get("status") != Status.WORKS.value}
    grouped: dict[CellId, list[Timing]] = defaultdict(list)
    for t in timings:
        grouped[CellId(t.strategy, t.shape, t.mode, t.batch_size)].append(t)
    out = {}
    for mode in modes:
        mine = {cid: ts for cid, ts in grouped.items() if cid.mode == mode}
        het = cellstats.heterogeneity(
            [cellstats.processes([t.ratios for t in ts]) for ts in mine.values()]
        )
        cells = {
            cid: Cell(
                cid,
                ts[0].role,
                ts[0].control,
                ts,
                het.tau2,
                Status.INCORRECT.value
                if cid.test_id in wrong
                or not all(t.final_state_ok for t in ts)
                or (ts[0].role == "update" and (cid.strategy, cid.shape, cid.mode) in wrong_shapes)
                else Status.WORKS.value,
                tau2_df=het.tau2_df,
                run_tau2=between_runs.get((mode, ts[0].role), (0.0, math.inf))[0],
                run_df=between_runs.get((mode, ts[0].role), (0.0, math.inf))[1],
            )
            for cid, ts in sorted(mine.items())
        }
        out[mode] = ModeAnalysis(mode, cells, margin, tuple(sorted(sizes)), het.tau2, het, looks)
    for mode, bad in check_twins(out).items():
        for c in out[mode].of_role("update"):
            c.twin_invalid = bad.get(c.control, "")
    return out


DROPPED = 4.0  # a twin whose step grows by less than 1/DROPPED of what it grows elsewhere


def twin_growth(m: ModeAnalysis) -> dict[str, tuple[int, int, float, float]]:
    """{twin: (smallest size, largest size, its step at the smallest, how much its step grows
    from the smallest size to the largest, in seconds)} in one mode."""
    steps: dict[str, dict[int, float]] = defaultdict(dict)
    for c in m.of_role("update"):
        if math.isfinite(c.control_step_s) and c.control_step_s > 0:
            steps[c.control].setdefault(c.id.size, c.control_step_s)
    return {
        t: (min(by), max(by), by[min(by)], by[max(by)] - by[min(by)])
        for t, by in steps.items()
        if len(by) > 1
    }


def check_twins(found: dict[str, ModeAnalysis]) -> dict[str, dict[str, str]]:
    """{mode: {twin: why it is invalid}}. A twin is its subject's step without the write, so

    - its work must not be dropped: the same twin in the other modes shows how much its step
      grows with the size (the absolute growth is alike across modes: it is the work the larger
      state adds; eager PYNATIVE cannot drop it). Where that growth, the median over the other
      modes, is at least the twin's own step at the smallest size, a twin that grows by less than
      1/``DROPPED`` of it lost its work (a compiler removed it). Its subjects' growth is no test:
      a write's own cost can grow with the state (a copy of the whole buffer);
    - no subject may be faster than it beyond the margin (the whole 95 % interval of the ratio
      below 1 − the margin's relative part)."""
    growth = {mode: twin_growth(m) for mode, m in found.items()}
    out: dict[str, dict[str, str]] = {}
    for mode, m in found.items():
        bad: dict[str, str] = {}
        for twin, (small, big, first, grows) in sorted(growth[mode].items()):
            others = [gs[twin][3] for o, gs in growth.items() if twin in gs and o != mode]
            if not others:
                continue
            typical = float(np.median(others))
            if typical >= first and grows < typical / DROPPED:
                bad[twin] = (
                    f"its step grows by {grows * 1e6:.0f} µs from N={small} to N={big}, against "
                    f"{typical * 1e6:.0f} µs in the other modes (median): its work was dropped"
                )
        for c in sorted(m.of_role("update"), key=lambda c: (c.id.size, c.id.strategy)):
            if c.status != Status.WORKS.value or c.control in bad:
                continue
            low, high = c.estimate.ratio_interval
            if math.isfinite(high) and high < 1.0 - m.margin.rel:
                bad[c.control] = (
                    f"`{c.id.strategy}` is faster than it at N={c.id.size} "
                    f"(×{c.estimate.ratio:.2f} [{low:.2f}, {high:.2f}])"
                )
        if bad:
            out[mode] = bad
    return out


__all__ = [
    "EQUIVALENT",
    "SLOWER",
    "UNDETERMINED",
    "Cell",
    "ModeAnalysis",
    "analyse",
    "check_twins",
]

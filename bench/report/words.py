"""One vocabulary for every page, CSV and plot: the words, what each means, the glossary.

A results page uses only the words defined here and ends with the glossary of the ones it used
(``glossary``); the status and kind words come from the result model (``Status.label``,
``Kind``), the mode names from ``bench.measured.modes`` (MindSpore's own names).
"""

from __future__ import annotations

from bench.core.schema import KINDS, MEANINGS, Status
from bench.measured.modes import MODES

ORIGINAL_REPORT = (
    "the original report: a MindSpore 2.5 user on CPU whose `self.limit.set_data(...)` inside "
    "`construct` fails to compile in GRAPH_MODE (`RuntimeError: Failed to compile in "
    "GRAPH_MODE because the 'Parameter' object's method 'set_data' is not supported in "
    "'construct'`) while PYNATIVE_MODE runs it; the cell clips its input to ±limit and grows "
    "the limit a little every step, as Batch Renormalization's r_max and d_max do "
    "([the report, in Chinese](https://github.com/mindspore-ai/mindspore/issues/327))"
)

TERMS = {
    "code shape": "how the same update is written in `construct`: inline, through a helper "
    "method, inside `ops.depend`; read through the Parameter, a local alias, a copy or a view; "
    "before or after the read (the shapes page shows the lines each one produces)",
    "eager semantics": "what the code means when run line by line as NumPy or PyTorch would: a "
    "local name bound to a Parameter is that Parameter, a `reshape` of it is a view that sees "
    "in-place writes, a `copy()` is a snapshot; every verdict compares a mode with this meaning",
    Status.WORKS.label: MEANINGS[Status.WORKS],
    "silently wrong": MEANINGS[Status.INCORRECT] + "; the kind says how",
    Status.RAISES.label: MEANINGS[Status.RAISES],
    "crashes": MEANINGS[Status.CRASHED],
    "hangs": MEANINGS[Status.TIMEOUT],
    "n/a": MEANINGS[Status.INEXPRESSIBLE],
    **{str(k): k.meaning for k in KINDS},
    "no-update twin": "the same generated code with every write removed and the written value "
    "kept alive (`ops.depend`), so the compiler keeps the work: what a strategy costs is its "
    "step minus its twin's",
    "base twin": "the plainest no-update twin of a workload (a 0-d Parameter read directly); "
    "every other twin and the A/A copy are timed against it",
    "as-written": "the one shape of a strategy that writes its own construct or updates on the "
    "host after each step: timed as the strategy wrote it, against the forward alone",
    "stage": "one pass of timing; a later stage re-times only the cells whose comparison the "
    "earlier stages left undetermined",
    "quartiles": "the rounds' 25th, 50th (median) and 75th percentiles: half the rounds fall "
    "between the first and the last; not a confidence interval",
    "`write=depend`": "a shape named by its dimension and value: here the dimension `write` "
    "takes the value `depend` (the write wrapped in `ops.depend`); shapes.md shows the code of "
    "every value",
    "`construct=base`": "the state class's construct is inherited from a base class in another "
    "module (`construct=own`: defined in the class itself)",
    "`read=view`": "the new value is computed from a 0-d view `self.p.reshape(())` of a "
    "1-element vector Parameter (`read=copy`: from a copy); the view sees in-place writes "
    "eagerly, not in GRAPH_MODE",
    "added time": "time per step the update adds: the strategy's step minus its twin's, from "
    "paired blocks (a block is k steps synchronized once at its end; each round times one block "
    "of each, in ABBA order), with a 95 % interval that covers the spread between processes",
    "equivalent": "the cost differs from the fastest by less than the margin, with 95 % "
    "confidence (the whole interval of the difference lies inside ±margin)",
    "slower": "the cost exceeds the fastest's by more than the margin, with 95 % confidence",
    "undetermined": "not yet known whether it costs the same as the fastest or more: the 95 % "
    "interval of the difference straddles the margin, so more rounds are needed "
    "(`nox -s bench -- --rigorous` measures longer); not a failure of the tool",
    "A/A": "the twin timed against a second copy of itself: what the harness itself adds (ideally "
    "nothing); a mode whose A/A bias exceeds the margin has its costs flagged",
    "no detectable cost": "the added time's 95 % interval lies within ±margin of zero; the "
    "bound in brackets is the interval's upper end, the most the data allow",
    "P(fastest)": "the probability, under the same model, that the named strategy has the "
    "lowest mean relative cost over the sizes",
    "layout": "how the small state is stored: a 0-d Parameter (scalar) or a 1-element vector "
    "(vector, needed by the index ops)",
    "gate": "the correctness check: every strategy in every shape and mode, output and state "
    "compared with the code's meaning after every step (compiled modes in two processes)",
    "tier": "how long the timing ran: quick (a rough pass), default, rigorous",
    "× floor": "time per step divided by the time the update's bytes take at this machine's "
    "measured memory bandwidth (1 = as fast as memory allows)",
}


def mode_terms() -> dict[str, str]:
    return {
        m.label: m.description + (" (diagnostic, not a mode users run)" if m.diagnostic else "")
        for m in MODES.values()
    }


def glossary(text: str, extra: dict | None = None) -> list[str]:
    """The glossary lines of the terms ``text`` uses (case-insensitive), in the order above."""
    terms = {**TERMS, **mode_terms(), **(extra or {})}
    low = text.lower()
    used = [(t, d) for t, d in terms.items() if t.lower() in low]
    return [f"- **{t}**: {d}" for t, d in used] + [""]

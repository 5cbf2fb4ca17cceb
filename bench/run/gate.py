"""The conformance gate: run a variant in a mode and judge every step against what its code means.

"It didn't raise" proves nothing: some update APIs run and leave the Parameter unchanged, and
some modes compute a read differently from what the code says. So the output *and* the state are
checked after every step (``bench.measured.oracle``), the state read from the Parameter objects
the cell was built with. Under bytecode capture the gate also records the graph breaks MindSpore
counted in each function of the variant and whether ``fullgraph=True`` compiles it, so a minimal
pair can say whether a dropped write coincides with a break.
"""

from __future__ import annotations

import inspect

from bench.core.schema import Status, Verdict
from bench.measured.oracle import first_line, observe, run_step


def graph_breaks(cell) -> dict:
    """{function: breaks} that bytecode capture counted for the variant's own functions."""
    try:
        from mindspore._c_expression import get_code_extra
    except ImportError:  # not in this release
        return {}
    out = {}
    for klass in type(cell).__mro__:
        if klass.__module__.startswith(("mindspore", "builtins")):
            continue
        for name, func in vars(klass).items():
            if not inspect.isfunction(func) or name in out:
                continue
            try:
                extra = get_code_extra(func)
            except Exception:
                continue
            if isinstance(extra, dict) and "break_count_" in extra:
                out[name] = int(extra["break_count_"])
    return out


def fullgraph(variant_class, runtime, mode) -> str:
    """``compiles`` when bytecode capture with ``fullgraph=True`` runs a step, else the error."""
    import mindspore as ms

    size = runtime.gate_schedule[0][0]
    try:
        cell, _ = runtime.build(variant_class, size)
        step = mode.prepare(cell, fullgraph=True)
        inputs = tuple(ms.Tensor(a) for a in runtime.make_inputs(size, 0, small=True))
        run_step(step, cell, inputs).asnumpy()
    except Exception as exc:  # the error is the diagnostic
        return first_line(exc)[:200]
    return "compiles"


SECOND_ONLY = "in a second instance only"  # the qualifier of a failure the first instance hides


def second_instance(first, second) -> tuple[str, bool]:
    """(what ``second_instance`` records, whether the cell fails in a second instance only):
    ``works``, ``<kind>: <detail>`` or ``raises: <detail>`` of a second instance of the same
    class built in the same process after the first ran its steps; ``not checked`` when the
    first did not work (its verdict already says what is wrong)."""
    if first.status != Status.WORKS.value:
        return "not checked (the first instance does not work)", False
    if second is None:
        return "not checked (only under bytecode capture)", False
    if second.status == Status.WORKS.value:
        return Status.WORKS.value, False
    what = second.kind or second.status
    return f"{what}: {second.detail}", True


def check(variant_class, runtime, mode, item, seed: int = 0, replica: int = 0):
    """The gate's observation of one item (``bench.measured.oracle.Observation``).

    Under bytecode capture, after the first instance's steps a second
    instance of the same class is built in the same process and run over the same steps (there
    every instance after the first can stop writing); a cell right in its first instance and
    wrong in its second is incorrect ``in a second instance only``, of the second's kind
    (``diagnostics.second_instance``). Not in the other modes, where no second instance was seen
    to differ: the second compile doubled a gate item's cost (the four workloads' gate outgrew
    CI's time), so it runs where the finding lives."""
    diagnose = None
    if mode.capture_mode == "bytecode" and replica == 0:

        def diagnose(cell):
            return {"graph_breaks": graph_breaks(cell)}

    schedule = ((item.batch_size, item.steps),) if item.steps else None
    found = observe(
        variant_class, runtime, mode, item.meaning, item.update, seed, diagnose, schedule
    )
    second = None
    if found.status == Status.WORKS.value and mode.capture_mode == "bytecode":
        second = observe(
            variant_class, runtime, mode, item.meaning, item.update, seed, None, schedule
        )
    record, only = second_instance(found, second)
    found.diagnostics["second_instance"] = record
    if only:
        found.status, found.kind, found.kinds = (
            Status.INCORRECT.value,
            second.kind,
            list(second.kinds),
        )
        found.steps = second.steps
        found.detail = f"{SECOND_ONLY} (the first works): {second.detail}"
        if second.status != Status.INCORRECT.value:  # the second raises: the cell raises, its error
            found.status, found.kind, found.kinds = second.status, "", []
            found.detail = second.detail
    if mode.capture_mode == "bytecode" and found.status != Status.RAISES.value and replica == 0:
        found.diagnostics["fullgraph"] = fullgraph(variant_class, runtime, mode)
    return found


def verdict(item, workload: str, mode: str, status, detail: str = "", found=None, **extra):
    """The Verdict of ``item`` (a plan.Item) from an observation or a fixed status."""
    if found is not None:
        status, detail = found.status, found.detail
    return Verdict(
        workload=workload,
        strategy=item.strategy,
        shape=item.shape,
        mode=mode,
        status=Status(status),
        kind=found.kind if found else "",
        kinds=list(found.kinds) if found else [],
        detail=detail,
        dims=dict(item.dims),
        layout=item.layout,
        meaning=item.meaning,
        intended=item.intended,
        steps=list(found.steps) if found else [],
        diagnostics=dict(found.diagnostics) if found else {},
        **extra,
    )

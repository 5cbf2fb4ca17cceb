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

from bench.core.schema import NETWORK_ONLY, SECOND_ONLY, THIRD_ONLY, Status, Verdict
from bench.measured.oracle import Observation, first_line, observe, observe_network, run_step
from bench.run import forked

WORKS = Status.WORKS.value


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


def second_instance(first, second) -> tuple[str, bool]:
    """(what ``second_instance`` records, whether the cell fails in a second instance only):
    ``works``, ``<kind>: <detail>`` or ``raises: <detail>`` of a second instance of the same
    class built in the same process after the first ran its steps; ``not checked`` when the
    first did not work (its verdict already says what is wrong)."""
    return later_instance(first, second, "only under bytecode capture")


def later_instance(first, later, why_not: str) -> tuple[str, bool]:
    """(what the gate records of a later instance, or of a network of the class's layers:
    ``works``, ``<kind>: <detail>``, ``raises: <detail>`` or ``not checked (...)``; whether the
    cell fails there only, the first instance being right). ``why_not``: why it did not run."""
    if first.status != Status.WORKS.value:
        return "not checked (the first instance does not work)", False
    if later is None:
        return f"not checked ({why_not})", False
    if later.status == Status.WORKS.value:
        return Status.WORKS.value, False
    what = later.kind or later.status
    return f"{what}: {later.detail}", True


def _only(found, qualifier: str, other) -> None:
    """Make ``found`` (a working first instance) the failure ``other`` shows, qualified."""
    found.status, found.kind, found.kinds = Status.INCORRECT.value, other.kind, list(other.kinds)
    found.steps = other.steps
    found.detail = f"{qualifier} (the first works): {other.detail}"
    if other.status != Status.INCORRECT.value:  # it raises there: the cell raises, its error
        found.status, found.kind, found.kinds = other.status, "", []
        found.detail = f"{qualifier} (the first works): {other.detail}"


def check(variant_class, runtime, mode, item, seed: int = 0, replica: int = 0):
    """The gate's observation of one item (``bench.measured.oracle.Observation``).

    Users build many layers of one class, so a first instance that is right proves little.
    Under bytecode capture, after the first instance's steps a second and then a third instance
    of the same class are built in the same process and run over the same steps (there every
    instance after the first was seen to stop writing): a cell right in its first instance and
    wrong in a later one is incorrect ``in a second (third) instance only``, of that
    instance's kind (``diagnostics.second_instance``, ``third_instance``). Not in the other
    modes, where no later instance was seen to differ and a compile per instance doubled a gate
    item's cost. In every compiled mode, a working cell then runs as two layers of one network
    (``oracle.observe_network``: the network's ``construct`` compiled or captured, as a model
    is): wrong there only, it is incorrect ``in a network of two layers only``
    (``diagnostics.network``)."""
    diagnose = None
    bytecode = mode.capture_mode == "bytecode"
    if bytecode and replica == 0:

        def diagnose(cell):
            return {"graph_breaks": graph_breaks(cell)}

    schedule = ((item.batch_size, item.steps),) if item.steps else None
    args = (variant_class, runtime, mode, item.meaning, item.update, seed)
    found = observe(*args, diagnose, schedule)
    first = Observation(found.status, found.kind, list(found.kinds), found.detail)
    later_checks = (
        ("second_instance", SECOND_ONLY, bytecode, "only under bytecode capture"),
        ("third_instance", THIRD_ONLY, bytecode, "only under bytecode capture"),
        ("network", NETWORK_ONLY, mode.compiled and item.update, "only in compiled modes"),
    )
    for key, qualifier, applies, not_run in later_checks:
        later, why_not = None, not_run
        if applies and found.status == WORKS:
            forked.mark(qualifier)  # a crash from here on is this check's
            later = (
                observe_network(*args, schedule)
                if qualifier == NETWORK_ONLY
                else observe(*args, None, schedule)
            )
        elif applies and first.status == WORKS:
            why_not = "an earlier check already fails"
        record, only = later_instance(first, later, why_not)
        found.diagnostics[key] = record
        if only:
            _only(found, qualifier, later)
    forked.mark("")  # the checks of the cell are over
    if bytecode and found.status != Status.RAISES.value and replica == 0:
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

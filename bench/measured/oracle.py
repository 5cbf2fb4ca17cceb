"""What a step means under eager semantics, and how what a mode computed differs from it.

The expected result of a shape is what *its code* means, not what the cell was meant to do. Under
eager semantics (NumPy, PyTorch, MindSpore's own PYNATIVE) a local name bound to a Parameter is the
same object, a ``reshape`` of it is a view that sees in-place writes, and a ``copy()`` is a
snapshot. So whether a read taken before a write sees the written value depends on the read and on
the write (declared per API in ``bench.measured.apis``); each workload derives it per shape
(``Template.meaning``): ``before`` (the read sees the state from before the step's write) or
``after`` (it sees the value the write stores).

Each step is judged against the state the cell really had when the step began, so a write that is
dropped once is not also counted as a wrong read in every later step. What a step shows:

- the output: ``ok``, the other reading (what the output would be had the read seen the other
  value: the values actually used), or ``other``;
- each Parameter: ``ok``, ``unchanged`` (the write was dropped), ``outdated`` (what the write
  would store had it used values the cell's weights had before they were replaced from outside:
  a checkpoint reload), or ``other`` (a wrong value);
- where the workload checks one (``Runtime.grad_weights``), the gradient of a loss of the output
  with respect to the input and each trainable weight: ``ok`` or ``other`` (``judge_gradient``).

A cell that diverges is a silent failure of one :class:`Kind`: the kind of the first step that
diverges (the first of that step's kinds in ``KINDS``' order), every kind of every step recorded.
So a cap written wrong (2.9 where the code writes 3.0) is a wrong value, though the calls after
it keep 2.9. A step that could not show a bug (``observable``) is marked so in the per-step
record, and the words of the calls say which calls could not tell. NumPy only: the gate, the
timing check and the reproduction scripts share it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from bench.core.schema import KINDS, Kind, Status

BEFORE, AFTER = "before", "after"  # what a read sees: the state before the write, or after it


@dataclass(frozen=True)
class Expected:
    """One step under the code's meaning: its inputs, output and state after it, and the output
    under the other reading of the state (``other[reading]``) to name the values actually used."""

    inputs: tuple
    output: np.ndarray
    after: dict
    other: dict = field(default_factory=dict)
    grads: dict = field(default_factory=dict)  # name -> the reference gradient ({}: unchecked)
    # the state after the step had the write used values replaced from outside before it (a
    # host copy that still follows a weight's old memory after a checkpoint reload): name -> array
    outdated: dict = field(default_factory=dict)
    event: str = ""  # what happened before this step from outside the cell (a reload), or ""


def observable(runtime, expected: Expected, before: dict) -> bool:
    """Whether a step from ``before`` can show a bug: the state it writes changes (a dropped
    write keeps a value the reference does not), and, where the workload reads its state, the
    output under the other reading differs (a stale or early read changes the output)."""
    changes = any(
        not runtime.matches(np.asarray(want).reshape(-1), np.asarray(before[n]).reshape(-1))
        for n, want in expected.after.items()
        if n in before
    )
    reads = all(not runtime.matches(alt, expected.output) for alt in expected.other.values())
    return changes and reads


@dataclass
class Step:
    """What one step showed (labels as in the module docstring) and where it ran."""

    size: int
    step: int
    output: str = "ok"
    state: dict = field(default_factory=dict)  # name -> "unchanged" | "other" (only the wrong)
    note: str = ""  # the values: expected vs observed, in words
    older: int = 0  # a stale read of the state from before this earlier step (0: this step's)
    observable: bool = True  # the step could show a bug (``observable``): its state changes
    event: str = ""  # what was done to the cell from outside before this step (a reload)
    grads: dict = field(default_factory=dict)  # name -> "other" (only the wrong gradients)

    @property
    def ok(self) -> bool:
        return self.output == "ok" and not self.state and not self.grads

    def kinds(self, meaning: str) -> list[Kind]:
        out = []
        if "unchanged" in self.state.values():
            out.append(Kind.WRITE_DROPPED)
        if "other" in self.state.values():
            out.append(Kind.WRONG_VALUE)
        if "outdated" in self.state.values():
            out.append(Kind.OUTDATED)
        if self.output == BEFORE and (meaning == AFTER or self.older):
            out.append(Kind.STALE_READ)
        elif self.output == AFTER and meaning == BEFORE:
            out.append(Kind.FUTURE_READ)
        elif self.output not in ("ok", BEFORE, AFTER):
            out.append(Kind.WRONG_OUTPUT)
        if self.grads:
            out.append(Kind.WRONG_GRADIENT)
        return out


@dataclass
class Observation:
    """The gate's (or a reproduction's) account of one variant in one mode."""

    status: str  # Status.WORKS | Status.RAISES | Status.INCORRECT
    kind: str = ""  # the first kind of an incorrect one
    kinds: list = field(default_factory=list)
    detail: str = ""
    steps: list = field(default_factory=list)
    diagnostics: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


def _describe(value) -> str:
    value = np.asarray(value).reshape(-1)
    if value.size == 1:
        return f"{value[0]:.6g}"
    return f"mean {float(np.mean(value)):.6g} over {value.size}"


def judge(
    runtime,
    expected: Expected,
    before: dict,
    out,
    after: dict,
    size: int,
    index: int,
    earlier: dict | None = None,
):
    """One :class:`Step`: ``out`` and ``after`` (observed) against ``expected``, given the
    observed state ``before`` the step; ``earlier`` maps a step j to the output the step would
    give had it read the state from before step j (a read older than this step)."""
    step = Step(size=size, step=index, event=expected.event)
    step.observable = observable(runtime, expected, before)
    out = np.asarray(out)
    if not runtime.matches(out, expected.output):
        step.output = next(
            (label for label, alt in expected.other.items() if runtime.matches(out, alt)), "other"
        )
    if step.output == "other":
        for j, alt in (earlier or {}).items():
            if runtime.matches(out, alt):
                step.output = BEFORE  # a stale read, older still
                step.older = j
                break
    notes = []
    for name, want in expected.after.items():
        got = np.asarray(after[name], np.float32).reshape(np.shape(want))
        if runtime.matches(got, want):
            continue
        old = np.asarray(before[name], np.float32).reshape(np.shape(want))
        writes = not runtime.matches(want, old)  # the code changes this Parameter this step
        stale = expected.outdated.get(name)
        if writes and np.array_equal(got, old):
            step.state[name] = "unchanged"
        elif stale is not None and runtime.matches(got, np.reshape(stale, np.shape(want))):
            step.state[name] = "outdated"
        else:
            step.state[name] = "other"
        notes.append(
            f"{name} = {_describe(got)}, the code writes {_describe(want)}"
            + {
                "unchanged": " (unchanged)",
                "outdated": " (the update used the weights from before they were replaced)",
            }.get(step.state[name], "")
        )
    if step.output != "ok":
        used = runtime.describe_output(out, expected) or "the output differs"
        reading = runtime.readings.get(step.output)
        if step.older:
            reading = f"the output of a read of the state from before step {step.older}"
        notes.append(
            f"{used}: " + (f"that is {reading}" if reading else "no reading of the state gives it")
        )
    step.note = "; ".join(notes)
    return step


def judge_gradient(runtime, want: dict, got: dict, step: Step, of: str = "") -> Step:
    """Add to ``step`` the gradients of ``want`` (name -> the reference, e.g. an Expected's
    ``grads``) that ``got`` (name -> observed) does not match within the workload's tolerance,
    with a note each; a gradient the mode did not give counts as wrong. ``of`` names whose
    gradient it is in the note (e.g. "layer 2's ")."""
    notes = []
    for name, value in want.items():
        ref, have = np.asarray(value), got.get(name)
        if have is not None and runtime.matches(np.asarray(have), ref):
            continue
        step.grads[f"{of}{name}"] = "other"
        what = f"the gradient with respect to {of}{name}"
        if have is None or np.shape(have) != ref.shape:
            shape = "none" if have is None else f"shape {np.shape(have)}"
            notes.append(f"{what}: {shape}, the reference's is {ref.shape}")
            continue
        have = np.asarray(have, np.float64)
        close = np.isclose(have, ref, runtime.rtol, runtime.atol)
        words = f" ({runtime.gradient_words})" if runtime.gradient_words else ""
        notes.append(
            f"{what} differs from the reference{words} in {int((~close).sum())} of {ref.size}"
            f" elements, by up to {float(np.max(np.abs(have - ref))):.3g} (its largest value"
            f" {float(np.max(np.abs(ref))):.3g})"
        )
    step.note = "; ".join(n for n in (step.note, *notes) if n)
    return step


def verdict(steps: list[Step], meaning: str, symbol: str) -> Observation:
    """The observation of a run of steps: works, or incorrect with its kind(s)."""
    kinds = [k for k in KINDS if any(k in s.kinds(meaning) for s in steps)]
    bad = [s for s in steps if not s.ok]
    if not bad:
        return Observation(Status.WORKS, steps=[asdict(s) for s in steps])
    first = bad[0]
    kind = primary(first.kinds(meaning)) or kinds[0]
    detail = f"{kind} at step {first.step} ({symbol}={first.size}): {first.note}"
    if len(bad) > 1:
        detail += f" (and {len(bad) - 1} more of {len(steps)} steps)"
    return Observation(
        Status.INCORRECT, str(kind), [str(k) for k in kinds], detail, [asdict(s) for s in steps]
    )


def primary(kinds) -> Kind | None:
    """The kind of a step that shows several: the first in ``KINDS``' order."""
    return next((k for k in KINDS if k in kinds), None)


def _span(hits: list[int], total: int) -> str:
    """Where in one instance's ``total`` calls (numbered from 1) the ``hits`` are, in words."""
    if hits == list(range(1, total + 1)):
        return "at every call"
    if hits == [1]:
        return "at the first call only"
    if hits == list(range(hits[0], total + 1)):
        return f"from call {hits[0]} on"
    if hits == list(range(1, hits[-1] + 1)):
        return f"at the first {hits[-1]} calls only"
    return f"at calls {', '.join(map(str, hits))} of {total}"


def calls(steps: list[dict], kind: str, meaning: str) -> str:
    """At which calls of an instance ``kind`` shows, from a verdict's per-step record: "at
    every call", "at the first call only", "from call 3 on", ... ("" when it never shows).
    A first call that differs from the later ones is another bug than one at every call."""
    by_size: dict[int, list[Step]] = {}
    for s in steps:
        step = Step(**s) if isinstance(s, dict) else s
        by_size.setdefault(step.size, []).append(step)
    spans = []
    for group in by_size.values():
        hits = [s.step for s in group if kind in [str(k) for k in s.kinds(meaning)]]
        blind = [s.step for s in group if not s.observable and s.step not in hits]
        if hits:
            total = max(s.step for s in group)
            words = _span(hits, total)
            if blind and words.endswith(" only"):  # "only" would claim the blind calls were right
                words = f"at calls {', '.join(map(str, hits))} of {total}"
            spans.append(words + _blind(blind))
    return "; ".join(dict.fromkeys(spans))


def _blind(steps: list[int]) -> str:
    """The calls that could not show a bug (their state did not change, or a stale read gives
    the same output), in words: "" when every call could."""
    if not steps:
        return ""
    return f" (call{'s' if len(steps) > 1 else ''} {', '.join(map(str, steps))} could not tell)"


def message_line(text: str) -> str:
    """The first line of an error message that says something: MindSpore frames its messages
    with rules of dashes (``-----`` then ``- Kernel select failed:``), which say nothing; a
    heading that ends with a colon is followed by its first line."""
    said = []
    for line in str(text).strip().splitlines():
        words = line.strip().lstrip("-").strip()
        if any(ch.isalnum() for ch in words):
            said.append(words)
            if not words.endswith(":") or len(said) == 2:
                break
    return " ".join(said)


def first_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {message_line(str(exc))}"


def run_step(step, cell, inputs: tuple):
    """One step as the harness runs it: call the (prepared) cell, then its host-side hook
    (which gets the input, or the tuple of inputs of a workload that has several)."""
    return cell.after_step(step(*inputs), inputs[0] if len(inputs) == 1 else inputs)


def before_step(cell, runtime, params: dict, where: str):
    """What a training loop does to ``cell`` before a checked step (its ``before_step``, the
    workload's: an optimizer step of the weights an EMA follows, a checkpoint reload), then the
    state read again: the step is judged from the state it begins with. ``(state, None)``, or
    ``(None, Observation)`` when the loop raised (the cell's verdict says so). The timed steps
    do not run it."""
    try:
        cell.before_step()
        return runtime.observe(params), None
    except Exception as exc:
        said = f"{where}: the training loop before it raised {first_line(exc)}"
        return None, Observation(Status.RAISES, detail=said)


def _loop(runtime, state: dict) -> dict:
    """What a training loop sets in ``state`` (the weights read beside the state): a stale read
    of an earlier step's state is computed with the weights the cell has now."""
    own = set(runtime.state_names)
    return {k: v for k, v in state.items() if k not in own}


HISTORY = 16  # how many steps back a stale read is looked for (the gate runs at most 11)


def observe(
    variant_class, runtime, mode, meaning: str, update=True, seed=0, diagnose=None, schedule=None
) -> Observation:
    """Run ``variant_class`` over the runtime's gate schedule in ``mode``; judge every step.

    ``update=False`` observes a no-update twin (the expected state does not change).
    ``diagnose(cell)``, when given, is called after the first size's steps; what it returns is
    kept as the observation's ``diagnostics`` (e.g. graph breaks under bytecode capture).
    ``schedule`` ((size, steps), ...) replaces the gate's (a re-gate over the timed steps)."""
    import mindspore as ms

    from bench.measured import gradient

    mode.activate()
    steps, diagnostics = [], {}
    for size, count in schedule or runtime.gate_schedule:
        try:
            cell, params = runtime.build(variant_class, size)
            step = gradient.prepare(runtime, mode, cell)  # mode.prepare(cell) if no gradient
        except Exception as exc:
            return Observation(Status.RAISES, detail=f"building the cell: {first_line(exc)}")
        before = runtime.observe(params)
        history = []
        for i in range(1, count + 1):
            where = f"step {i} ({runtime.size_symbol}={size})"
            if hasattr(cell, "before_step"):
                before, failed = before_step(cell, runtime, params, where)
                if failed:
                    return failed
            expected = runtime.expect(size, seed + i - 1, before, meaning, update)
            try:
                tensors = tuple(ms.Tensor(a) for a in expected.inputs)
                out = run_step(step, cell, tensors).asnumpy()
                after = runtime.observe(params)
            except Exception as exc:
                said = f"{where}{gradient.during(step)}: {first_line(exc)}"
                return Observation(Status.RAISES, detail=said)
            loop = _loop(runtime, before)  # an earlier step's state, this one's loop weights
            earlier = {
                j: runtime.expect(size, seed + i - 1, {**state, **loop}, BEFORE, update).output
                for j, state in reversed(history[-HISTORY:])
            }
            steps.append(judge(runtime, expected, before, out, after, size, i, earlier))
            gradient.check(step, [expected], steps[-1:])
            history.append((i, before))
            before = after
        if diagnose is not None and not diagnostics:
            diagnostics = diagnose(cell) or {}
    found = verdict(steps, meaning, runtime.size_symbol)
    found.diagnostics = diagnostics
    return found


def network(layers):
    """A network of ``layers`` (cells of one class): a container Cell holding them in an
    ``nn.CellList`` (their Parameters named per layer, as in any network), whose ``construct``
    calls every layer on the same inputs and returns their outputs; a step's host-side hook
    runs each layer's own."""
    from mindspore import nn

    class Network(nn.Cell):
        def __init__(self, cells):
            super().__init__()
            self.layers = nn.CellList(cells)

        def construct(self, *inputs):
            outs = ()
            for layer in self.layers:
                outs = outs + (layer(*inputs),)  # noqa: RUF005 - graph syntax: no starred tuples
            return outs

        def after_step(self, outs, inputs):
            return tuple(layer.after_step(o, inputs) for layer, o in zip(self.layers, outs))

    return Network(layers)


def observe_network(
    variant_class, runtime, mode, meaning: str, update=True, seed=0, schedule=None, layers=2
) -> Observation:
    """``layers`` instances of ``variant_class`` as the layers of one network (``network``),
    the network prepared for ``mode`` (its own ``construct`` compiled or captured, the layers'
    inside it), run over the first size of the schedule; every layer's output and state judged
    per step as ``observe`` judges one cell's. The observation is the first failing layer's,
    its detail naming the layer."""
    import mindspore as ms

    from bench.measured import gradient

    mode.activate()
    size, count = (schedule or runtime.gate_schedule)[0]
    try:
        built = [runtime.build(variant_class, size) for _ in range(layers)]
        net = network([cell for cell, _ in built])
        step = gradient.prepare(runtime, mode, net, net.layers)  # mode.prepare(net) if none
    except Exception as exc:
        return Observation(Status.RAISES, detail=f"building the network: {first_line(exc)}")
    befores = [runtime.observe(params) for _, params in built]
    steps: list[list[Step]] = [[] for _ in built]
    histories: list[list] = [[] for _ in built]
    for i in range(1, count + 1):
        if hasattr(built[0][0], "before_step"):
            for j, (cell, params) in enumerate(built):
                where = f"layer {j + 1} of {layers}: step {i} ({runtime.size_symbol}={size})"
                befores[j], failed = before_step(cell, runtime, params, where)
                if failed:
                    return failed
        expected = [runtime.expect(size, seed + i - 1, b, meaning, update) for b in befores]
        try:
            tensors = tuple(ms.Tensor(a) for a in expected[0].inputs)
            outs = run_step(step, net, tensors)
            outs = [o.asnumpy() for o in outs]
            afters = [runtime.observe(params) for _, params in built]
        except Exception as exc:
            where = f"step {i} ({runtime.size_symbol}={size}){gradient.during(step)}"
            return Observation(Status.RAISES, detail=f"{where}: {first_line(exc)}")
        for j, (want, before, out, after) in enumerate(zip(expected, befores, outs, afters)):
            loop = _loop(runtime, before)  # an earlier step's state, this one's loop weights
            earlier = {
                k: runtime.expect(size, seed + i - 1, {**state, **loop}, BEFORE, update).output
                for k, state in reversed(histories[j][-HISTORY:])
            }
            steps[j].append(judge(runtime, want, before, out, after, size, i, earlier))
            histories[j].append((i, before))
        gradient.check(step, expected, [layer[-1] for layer in steps])
        befores = afters
    found = [verdict(layer_steps, meaning, runtime.size_symbol) for layer_steps in steps]
    bad = next((j for j, f in enumerate(found) if f.status != Status.WORKS), None)
    if bad is None:
        return Observation(Status.WORKS, steps=[asdict(s) for layer in steps for s in layer])
    worst = found[bad]
    worst.detail = f"layer {bad + 1} of {layers}: {worst.detail}"
    return worst

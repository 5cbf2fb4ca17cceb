"""A standalone reproduction script per verdict, short enough to paste into a MindSpore issue.

Only ``mindspore``, ``numpy`` and the standard library are imported. The cell is written out:
what the variant imports from the suite (the workload's state class, the strategy base, the
helpers they use: only the definitions used, ``bench.causes.inline``) goes into a module of its
own, embedded as a string and written to a temporary folder, because under bytecode capture the
module a class is defined in changes what is captured (a ``construct`` inherited from another
module, ``construct=base``, is captured otherwise than one of the variant's own class: written
out in one file, 4 of 4 clip cells checked showed the opposite verdict). The strategy's code and
the variant's generated ``construct`` follow as plain code. The expected values of every step
come from a few lines of NumPy (``reference``: what the code means under eager semantics, from
the state the cell really had when the step began), and every step prints expected against
observed.

A script runs the gate's checks (``bench.run.gate.check``) in the gate's order, each only when
the ones before it worked: the first instance; under bytecode capture a second and a third
instance of the class; in every compiled mode two instances as the layers of one network (the
container written out: ``nn.CellList``, every layer called on the same inputs, each judged per
step). A failure in a later check is qualified as the gate qualifies it ("in a third instance
only", ``bench.core.schema.INSTANCE_QUALIFIERS``). A script runs the checks the gate ran for
its recorded outcome: up to the qualified one; only the first instance for a failure of the
first; all of them for "works" (so "works" means what the gate meant), a crash without a
qualifier or processes that differ. Before each check it prints ``-- check: <qualifier>``, so a
child that dies is attributed to the check it was in.

The script exits 0 when it shows what the gate recorded, 1 when it does not:

- works / silently wrong / raises: the checks run in the script's process; the status and kind
  must be the recorded ones, with the recorded qualifier ("at the first call only", "in a
  network of two layers only"), and the exception type for an error;
- crashed / hangs: the checks run in a child process (the script runs itself with ``--child``
  under ``PYTHONFAULTHANDLER=1`` and prints the child's stderr: the native traceback); a crash
  reproduces only when the child dies by the recorded signal in the recorded check, a hang only
  when the child gives no result in the recorded time (a crash without a qualifier under
  bytecode capture: after the checks, as the gate, a step with ``fullgraph=True``);
- differs between processes: the checks run in ``PROCESSES`` fresh child processes; it
  reproduces when their outcomes are the recorded ones, at least two different.

What is judged is what the recorded kinds need: where every recorded kind is one of the state
(write dropped, wrong value, follows the old values after a reload), the script judges the state
and only says whether the output is the code's; every other script judges as the oracle does
(stale reads of older states included). The kind is the first diverging step's, as the oracle's.
A workload whose state class has a training loop (``before_step``: the EMA's) runs it before
every step, reads the state again, and judges the step from it, as the gate does. A script
steps the cell forward only: it checks no gradient (``bench.measured.gradient``), so a verdict
of a wrong gradient has no script, and a raise the gate saw in a step taken with its gradient
reproduces only when the forward alone raises it.
"""

from __future__ import annotations

import ast
import re
import textwrap
from dataclasses import dataclass

from bench.causes import inline
from bench.core.schema import (
    INSTANCE_QUALIFIERS,
    NETWORK_ONLY,
    SECOND_ONLY,
    THIRD_ONLY,
    Kind,
    Status,
    instance_qualifier,
    signature,
)
from bench.measured.modes import MODES
from bench.measured.oracle import AFTER, BEFORE, HISTORY, _span
from bench.measured.shapes.model import CONTROL
from bench.measured.workloads import get as get_workload
from bench.measured.workloads.runtime import Runtime

PROCESSES = 3  # fresh processes a "differs between processes" script runs its checks in
ALONE, CHILD, MANY = "alone", "child", "processes"  # where a script runs its checks
FIRST = ""  # the first check: the first instance (no qualifier)
STATE_KINDS = (str(Kind.WRITE_DROPPED), str(Kind.WRONG_VALUE), str(Kind.OUTDATED))  # of the state
OTHER_OUTPUT = "an output other than the code's"  # what a state-kind script says of the output
# names a script defines besides its functions (a suite name must not clash with them)
SCRIPT_NAMES = (
    *("RECORDED", "MEANING", "SIZE", "STEPS", "LATER", "RTOL", "ATOL", "NAMES", "KINDS"),
    *("TIMEOUT", "PROCESSES", "STATE", "FOLDER", "ms", "np", "nn", "Tensor", "os", "sys"),
    *("pathlib", "tempfile", "faulthandler", "re", "signal", "subprocess"),
)
COMMON = ("import mindspore as ms", "import numpy as np", "from mindspore import Tensor")
NN = "from mindspore import nn"  # what the network of the gate's network check needs


def gate_checks(mode: str, update: bool = True) -> tuple[str, ...]:
    """The checks ``bench.run.gate.check`` runs in ``mode``, in its order, by their qualifiers
    (``FIRST`` for the first instance): each runs only when the ones before it work."""
    m = MODES[mode]
    later = (SECOND_ONLY, THIRD_ONLY) if m.capture_mode == "bytecode" else ()
    return (FIRST, *later, *((NETWORK_ONLY,) if m.compiled and update else ()))


@dataclass(frozen=True)
class Want:
    """What a script must show to reproduce one verdict, and the gate's checks it runs."""

    how: str  # ALONE (in the script's process), CHILD (a crash or hang), MANY (processes)
    recorded: tuple[str, ...]  # the outcome(s): "incorrect: stale read at every call", ...
    size: int
    steps: int
    checks: tuple[str, ...] = (FIRST,)  # the gate's checks run, in order (``gate_checks``)
    timeout: float = 300.0
    fullgraph: bool = False  # after the checks, a step with fullgraph=True (as the gate does)

    @property
    def words(self) -> str:
        if self.how == MANY:
            return "different outcomes in different processes: " + " / ".join(self.recorded)
        return self.recorded[0]

    @property
    def spans(self) -> bool:
        """The recorded outcome names the calls of the first instance it shows at (only a
        failure of the first instance names its calls: a later check's names its check)."""
        kind = _kind_of(self.recorded[0])
        plain = f"{Status.INCORRECT}: {kind}"
        first = self.how == ALONE and self.checks == (FIRST,)
        return first and bool(kind) and self.recorded[0] != plain

    @property
    def replaced(self) -> bool:
        """A recorded outcome is the state following the old values after a reload: the
        script's judge needs what that state would be (``outdated``)."""
        return str(Kind.OUTDATED) in {_kind_of(r) for r in self.recorded}

    @property
    def judged(self) -> str:
        """What the script's judge needs: ``all`` (the oracle's judgement, reads of older
        states included) where an outcome of an output kind is recorded, as which output kind
        shows then matters; else ``state``: the state's kinds and whether the output is the
        code's tell the recorded outcome from any other (works, a raise, a crash, a state kind:
        the state kinds come before every kind of the output)."""
        kinds = {_kind_of(r) for r in self.recorded} - {""}
        return "all" if kinds - set(STATE_KINDS) else "state"


def _kind_of(outcome: str) -> str:
    """The kind of an ``incorrect: <kind> ...`` outcome ("" for any other)."""
    if not outcome.startswith(f"{Status.INCORRECT}: "):
        return ""
    rest = outcome.split(": ", 1)[1]
    return next((str(k) for k in Kind if rest == str(k) or rest.startswith(f"{k} ")), "")


def _qualified(text: str, qualifier: str) -> str:
    return f"{text} {qualifier}" if qualifier else text


def _raise(detail: str) -> str:
    """``raises: <exception type>`` of a raise's detail (or of its signature's words), the
    qualifier of a later check after it: "raises: AttributeError in a second instance only"."""
    q = instance_qualifier(detail)
    text = detail[len(q) :].split("): ", 1)[-1] if q else detail  # after "(the first works): "
    text = re.sub(r"^(step \d+ \([^)]*\)[^:]*|building the \w+): ", "", text)  # ", the ...":
    # a step taken with its gradient (``bench.measured.gradient.DURING``)
    return _qualified(f"{Status.RAISES}: {text.partition(': ')[0]}", q)


def _core(sig: str) -> str:
    """A recorded signature as a script compares it: a raise by its exception type only (and
    the later check it happened in: ``signature`` ends such a raise with "(<qualifier>)")."""
    if sig.startswith(f"{Status.RAISES}:"):
        found = re.search(r" \((" + "|".join(map(re.escape, INSTANCE_QUALIFIERS)) + r")\)$", sig)
        body = sig[: found.start()] if found else sig
        said = _raise(body.split(": ", 1)[1])
        return _qualified(said, found.group(1)) if found else said
    return sig


def want(row: dict, runtime: Runtime, timeout: float = 300.0) -> Want:
    """What ``row`` (a verdict row: status, kind, calls, detail, mode) recorded, as a script
    checks it, and which of the gate's checks it runs; ``timeout``: how long the run's gate
    waited for a cell."""
    size, steps = runtime.gate_schedule[0]
    status, kind = str(row["status"]), str(row.get("kind") or "")
    detail, calls = str(row.get("detail") or ""), str(row.get("calls") or "")
    every = gate_checks(row["mode"], row.get("strategy") != CONTROL)
    q = instance_qualifier(detail) or (calls if calls in INSTANCE_QUALIFIERS else "")
    upto = every[: every.index(q) + 1] if q in every[1:] else every  # FIRST: every check
    bytecode = MODES[row["mode"]].capture_mode == "bytecode"
    if status == Status.CRASHED.value:
        sig = re.search(r"died with (SIG\w+)", detail)
        code = re.search(r"exited with code (-?\d+)", detail)
        what = sig.group(1) if sig else f"exit code {code.group(1)}" if code else "?"
        recorded = _qualified(f"{Status.CRASHED}: {what}", q)
        return Want(CHILD, (recorded,), size, steps, upto, timeout, bytecode and not q)
    if status == Status.TIMEOUT.value:
        took = re.search(r"for (\d+(?:\.\d+)?) s", detail)
        seconds = float(took.group(1)) if took else timeout
        recorded = _qualified(str(Status.TIMEOUT), q)
        return Want(CHILD, (recorded,), size, steps, upto, seconds, bytecode and not q)
    if status == Status.INCORRECT.value and kind == str(Kind.DIFFERS):
        gate = re.match(r"gate processes: (.*?)\. ", detail)
        if gate:
            seen = [re.sub(r" in \d+ of \d+$", "", s) for s in gate.group(1).split("; ")]
            return Want(MANY, tuple(dict.fromkeys(map(_core, seen))), size, steps, every)
        # right in every gate process, wrong after the timed steps: the timed steps, each alone
        timed = re.search(r"after (\d+) timed steps", detail)
        sizes = re.search(r"\(sizes ([\d, ]+)\)", detail)
        if timed and sizes:
            size, steps = int(sizes.group(1).split(",")[0]), int(timed.group(1))
        return Want(MANY, (str(Status.WORKS), str(Status.INCORRECT)), size, steps, every)
    if status == Status.INCORRECT.value:
        text = f"{Status.INCORRECT}: {kind}"
        alone = re.search(r"after (\d+) timed steps.*wrong when re-gated alone", detail)
        sizes = re.search(r"\(sizes ([\d, ]+)\)", detail)
        if alone and sizes:  # found while timed, its kind from a re-gate alone over those steps
            size, steps = int(sizes.group(1).split(",")[0]), int(alone.group(1))
        if q:
            return Want(ALONE, (f"{text} {q}",), size, steps, upto)
        if calls and ";" not in calls:
            text += f" {calls}"
        return Want(ALONE, (text,), size, steps)
    if status == Status.RAISES.value:
        return Want(ALONE, (_raise(detail),), size, steps, upto if q else (FIRST,))
    return Want(ALONE, (_core(signature(status, kind, detail)),), size, steps, every)


# -- the NumPy reference of each workload: one step as the code means it --------------------
REFERENCE_DOC = (
    '"""Step `step` from `state` in NumPy: its inputs, output per reading, state after."""'
)


def _clip(runtime) -> str:
    from bench.measured.workloads.clip.spec import INC_STEP, INPUT_SCALE, MAX_LIMIT

    (x,) = runtime.make_inputs(1, 0, small=True)
    return f"""
def reference(state, step):
    {REFERENCE_DOC}
    x = np.random.default_rng(step - 1).standard_normal((SIZE, *{x.shape[1:]}), dtype=np.float32)
    x = (x * np.float32({INPUT_SCALE!r})).astype(np.float32)  # sd {INPUT_SCALE}: the clip is active
    old = np.float32(state["limit"][0])
    new = np.minimum(old + np.float32({INC_STEP!r}) * np.float32(SIZE), np.float32({MAX_LIMIT!r}))
    reads = {{"{BEFORE}": np.clip(x, -old, old), "{AFTER}": np.clip(x, -new, new)}}
    return (x,), reads, {{"limit": np.asarray([new], np.float32)}}
"""


def _brn(runtime) -> str:
    from bench.measured.workloads.brn import spec

    (x,) = runtime.make_inputs(1, 0, small=True)
    eps, m = spec.EPS, spec.MOMENTUM
    return f"""
SCALE = np.array({spec.INPUT_SCALE.ravel().tolist()}, np.float32).reshape(1, -1, 1, 1)
SHIFT = np.array({spec.INPUT_SHIFT.ravel().tolist()}, np.float32).reshape(1, -1, 1, 1)


def reference(state, step):
    {REFERENCE_DOC}
    x = np.random.default_rng(step - 1).standard_normal((SIZE, *{x.shape[1:]}), dtype=np.float32)
    x64 = (x * SCALE + SHIFT).astype(np.float32).astype(np.float64)
    mean, var = x64.mean(axis=(0, 2, 3)), x64.var(axis=(0, 2, 3))
    gamma = np.asarray(state.get("gamma", np.ones(3)), np.float64)[:, None, None]  # as trained
    beta = np.asarray(state.get("beta", np.zeros(3)), np.float64)[:, None, None]
    def forward(s):
        sigma_b = np.sqrt(var + {eps!r})
        sigma = np.sqrt(s["moving_var"].astype(np.float64) + {eps!r})
        r = np.clip(sigma_b / sigma, 1.0 / s["r_max"][0], s["r_max"][0])
        d = np.clip((mean - s["moving_mean"]) / sigma, -s["d_max"][0], s["d_max"][0])
        xhat = (x64 - mean[:, None, None]) / sigma_b[:, None, None] * r[:, None, None]
        return (gamma * (xhat + d[:, None, None]) + beta).astype(np.float32)
    count = np.float32(state["step"][0] + 1)
    frac = min(float(count) / {spec.RAMP_STEPS}, 1.0)  # r_max and d_max ramp, then hold
    new = {{"moving_mean": state["moving_mean"] + {m!r} * (mean - state["moving_mean"]),
           "moving_var": state["moving_var"] + {m!r} * (var - state["moving_var"]),
           "r_max": [1.0 + {spec.R_MAX_END - 1.0!r} * frac], "d_max": [{spec.D_MAX_END!r} * frac],
           "step": [count]}}
    new = {{k: np.asarray(v).astype(np.float32) for k, v in new.items()}}
    x = (x * SCALE + SHIFT).astype(np.float32)
    return (x,), {{"{BEFORE}": forward(state), "{AFTER}": forward(new)}}, new
"""


def _kvcache(runtime) -> str:
    from bench.measured.workloads.kvcache.spec import B, D, H

    return f"""
def reference(state, step):
    {REFERENCE_DOC}
    row = np.random.default_rng(step - 1).standard_normal(({B}, {H}, 1, {D}), dtype=np.float32)
    t = (step - 1) % SIZE  # the position written: it advances and wraps
    cache = state["cache"].reshape({B}, {H}, SIZE, {D})
    new = cache.copy()
    new[:, :, t : t + 1] = row
    def read(c):  # the rows at t and t - 1 (mod T), summed
        return c[:, :, t : t + 1] + c[:, :, (t - 1) % SIZE : (t - 1) % SIZE + 1]

    reads = {{"{BEFORE}": read(cache), "{AFTER}": read(new)}}
    return (row, np.array([t], np.int32)), reads, {{"cache": new.reshape(-1)}}
"""


def _ema(runtime) -> str:
    from bench.measured.workloads.ema.spec import DECAY, WEIGHT_NAMES

    return f"""
WEIGHTS = {WEIGHT_NAMES!r}  # the network's weights, as the training loop left them


def reference(state, step):
    {REFERENCE_DOC}
    x, d = np.zeros((1,), np.float32), np.float32({DECAY!r})
    new = {{f"ema{{i}}": (d * state[f"ema{{i}}"] + (np.float32(1) - d) * state[w])
           for i, w in enumerate(WEIGHTS)}}
    return (x,), {{"{BEFORE}": x}}, {{k: v.astype(np.float32) for k, v in new.items()}}


def outdated(state, step):  # the EMAs had the update used the weights from before their first
    first = replaced(step)  # replacement (a host copy of their old memory); {{}} before any
    if not first:
        return {{}}
    old = weights_at(shapes_for(SIZE), first - 1)
    d = np.float32({DECAY!r})
    return {{f"ema{{i}}": (d * state[f"ema{{i}}"] + (np.float32(1) - d) * w.reshape(-1))
            for i, w in enumerate(old)}}
"""


_EMA_SPEC = "bench.measured.workloads.ema.spec"
# workload -> (its reference, the suite's names the reference uses besides the variant's)
REFERENCES = {
    "clip": (_clip, ()),
    "brn": (_brn, ()),
    "kvcache": (_kvcache, ()),
    "ema": (
        _ema,
        ((_EMA_SPEC, "replaced"), (_EMA_SPEC, "weights_at"), (_EMA_SPEC, "shapes_for")),
    ),
}


# -- the driver: the gate's checks and judgement, in short -------------------------------------
COMMON_DRIVER = """

def close(a, b):
    return np.shape(a) == np.shape(b) and bool(np.allclose(a, b, RTOL, ATOL))

def show(a):
    return f"{np.ravel(a)[0]:.6g}" if np.size(a) == 1 else f"mean {np.mean(a):.6g} of {np.size(a)}"

def read(params):  # the state, from the Parameters a cell was built with (as the gate reads it)
    return {n: params[n].asnumpy().astype(np.float32).reshape(-1) for n in NAMES}
"""
STATE_JUDGE = '''
def judge(out, reads, old, new, want, stale=None):
    """The state's kinds of divergence a step shows, and whether its output is not the code's
    (``stale``: the state had the write used values replaced before the step)."""
    kinds = [@WRITE_DROPPED@ if np.array_equal(new[n], old[n]) and not close(w, old[n])
             else @OUTDATED@ if stale and close(new[n], stale[n])
             else @WRONG_VALUE@ for n, w in want.items() if not close(new[n], w)]
    return kinds + ([] if close(out, reads[MEANING]) else [@OTHER_OUTPUT@])
'''
FULL_JUDGE = '''
def judge(out, reads, old, new, want, older, stale=None):
    """The kinds of divergence one step shows (the suite's oracle, in short)."""
    kinds = [@WRITE_DROPPED@ if np.array_equal(new[n], old[n]) and not close(w, old[n])
             else @OUTDATED@ if stale and close(new[n], stale[n])
             else @WRONG_VALUE@ for n, w in want.items() if not close(new[n], w)]
    if not close(out, reads[MEANING]):
        seen = next((r for r, o in reads.items() if close(out, o)), None)
        if seen == "@BEFORE@" or seen is None and any(close(out, o) for o in older):
            kinds.append(@STALE_READ@)  # the output of a read of the state from before a write
        else:
            kinds.append(@FUTURE_READ@ if seen == "@AFTER@" else @WRONG_OUTPUT@)
    return kinds
'''
JUDGES = {"state": STATE_JUDGE, "all": FULL_JUDGE}

SPAN = """
def span(hits):  # at which calls a kind shows: the recorded words for the recorded calls
    return @WORDS@ if hits == @HITS@ else f"at calls {', '.join(map(str, hits))} of {STEPS}"
"""


def hits_of(calls: str, total: int) -> list[int]:
    """The calls (numbered from 1) that ``calls`` (``oracle.calls``'s words) names of ``total``:
    its inverse; ValueError for words it does not use. The calls that could not tell (a
    trailing "(calls 9, 10 could not tell)") are not hits."""
    calls = re.sub(r" \(calls? [\d, ]+ could not tell\)$", "", calls)
    listed = re.fullmatch(r"at calls ([\d, ]+) of (\d+)", calls)
    if calls == "at every call":
        hits = list(range(1, total + 1))
    elif calls == "at the first call only":
        hits = [1]
    elif m := re.fullmatch(r"at the first (\d+) calls only", calls):
        hits = list(range(1, int(m.group(1)) + 1))
    elif m := re.fullmatch(r"from call (\d+) on", calls):
        hits = list(range(int(m.group(1)), total + 1))
    elif m := re.fullmatch(r"at calls ([\d, ]+) of (\d+)", calls):
        hits = [int(c) for c in m.group(1).split(", ")]
    else:
        hits = []
    if not hits or max(hits) > total or (_span(hits, total) != calls and not listed):
        raise ValueError(f"not the words of calls: {calls!r}")
    return hits


# The gate's network (``bench.measured.oracle.network``), written with the suite's code the cell
# uses: under bytecode capture, in the state module. Where the container class is defined
# changes what is captured (checked on 2.10.0, CPU, clip ``assign@helper-param-after-arg``: in
# ``oracle`` or in the state class's module the network dies with SIGSEGV; in ``__main__`` or in
# a module of its own it works, also under the gate itself).
NETWORK = '''
class Network(nn.Cell):
    """The gate's network: its layers in an nn.CellList, each called on the same inputs."""
    def __init__(self, cells):
        super().__init__()
        self.layers = nn.CellList(cells)

    def construct(self, *inputs):
        outs = ()
        for layer in self.layers:
            outs = outs + (layer(*inputs),)
        return outs
'''
NETWORK_HOOK = """
    def after_step(self, outs, inputs):
        return tuple(layer.after_step(o, inputs) for layer, o in zip(self.layers, outs))
"""


OLDER = f"history[-{HISTORY}:]"  # the states a stale read is looked for in, as the oracle


def _call(obj: str, hooks: bool) -> str:
    """One step of ``obj``: its call, then its host-side hook where the variant has one."""
    if hooks:
        return f"{obj}.after_step({obj}(*xs), xs[0] if len(xs) == 1 else xs)"
    return f"{obj}(*xs)"


def _check(
    network: bool,
    older: bool,
    build: str,
    capture: str,
    hooks: bool,
    every: bool,
    trains: bool = False,
    replaced: bool = False,
):
    """The text of ``check(where)``: one of the gate's checks over the steps, every cell judged
    per step. ``network``: the script runs the network check too (one instance, or two as the
    layers of a network); ``older``: its judge looks for reads of older states; ``capture``: the
    capture mode (or ""); ``every``: print every step (else the first 8 and the last)."""
    obj = "net" if network else "cell"
    # the judge's state after a reload, had the update used the old weights (one cell, a layer)
    stale, stale_j = (
        (", outdated(state, step)", ", outdated(states[j], step)") if replaced else ("", "")
    )
    prepare = (
        [f"    {obj}.construct = ms.jit({obj}.construct, capture_mode={capture!r})"]
        if capture
        else []
    )
    show = [
        "print(f\"{f'layer {j + 1} ' if len(cells) > 1 else ''}step {step}, "
        'expected vs observed: "'
        if network
        else 'print(f"step {step}, expected vs observed: "',
        '      + "; ".join(f"{n} {show(want[n])} vs {show(new[n])}" for n in want)',
        f"      + f\"; output: {{', '.join({'found[j][-1]' if network else 'found[-1]'})"
        " or 'as the code means'}\")",
    ]
    if not every:
        show = ["if step <= 8 or step == STEPS:", *("    " + s for s in show)]
    if not network:
        lines = [
            "def check(where):",
            '    """A check of the gate (a fresh instance): None, or (its first kind, at which'
            ' calls)."""',
            f"    cell = {build}",
            "    params = dict(cell.parameters_and_names())  # read by identity, as the gate",
            *prepare,
            "    state, history, found = read(params), [], []"
            if older
            else "    state, found = read(params), []",
            "    for step in range(1, STEPS + 1):",
            *(
                [
                    "        cell.before_step()  # the training loop: an SGD step, or a reload",
                    "        state = read(params)",
                ]
                if trains
                else []
            ),
            "        inputs, reads, want = reference(state, step)",
            "        xs = tuple(Tensor(a) for a in inputs)",
            f"        out, new = {_call('cell', hooks)}.asnumpy(), read(params)",
            *(
                [
                    f'        older = (reference(s, step)[1]["{BEFORE}"] for s in {OLDER})',
                    f"        found.append(judge(out, reads, state, new, want, older{stale}))",
                ]
                if older
                else [f"        found.append(judge(out, reads, state, new, want{stale}))"]
            ),
            *("        " + s for s in show),
            "        history, state = [*history, state], new" if older else "        state = new",
            "    kind = next((k for f in found for k in KINDS if k in f), None)  # first step's",
            "    return kind and (kind, [i + 1 for i, f in enumerate(found) if kind in f])",
        ]
        return "\n" + "\n".join(lines) + "\n"
    lines = [
        "def check(where):",
        '    """A gate check (a fresh instance, or two as a network\'s layers): None or (kind,'
        ' calls)."""',
        f'    cells = [{build} for _ in range(2 if where == "{NETWORK_ONLY}" else 1)]',
        "    params = [dict(c.parameters_and_names()) for c in cells]  # read by identity",
        "    net = Network(cells) if len(cells) > 1 else cells[0]",
        *prepare,
        "    states, history, found = [read(p) for p in params], [], [[] for _ in cells]"
        if older
        else "    states, found = [read(p) for p in params], [[] for _ in cells]",
        "    for step in range(1, STEPS + 1):",
        *(
            [
                "        for c in cells:  # the training loop: an SGD step, or a reload",
                "            c.before_step()",
                "        states = [read(p) for p in params]",
            ]
            if trains
            else []
        ),
        "        expected = [reference(s, step) for s in states]",
        "        xs = tuple(Tensor(a) for a in expected[0][0])",
        f"        outs = {_call('net', hooks)}",
        "        outs = [o.asnumpy() for o in (outs if len(cells) > 1 else (outs,))]",
        "        news = [read(p) for p in params]",
        "        for j, ((_, reads, want), out, new) in enumerate(zip(expected, outs, news)):",
        *(
            [
                f'            older = (reference(h[j], step)[1]["{BEFORE}"] for h in {OLDER})',
                "            found[j].append(judge(out, reads, states[j], new, want, older"
                f"{stale_j}))",
            ]
            if older
            else [f"            found[j].append(judge(out, reads, states[j], new, want{stale_j}))"]
        ),
        *("            " + s for s in show),
        "        history, states = [*history, states], news" if older else "        states = news",
        "    for kinds in found:  # the first failing cell's first kind, and at which calls",
        "        kind = next((k for f in kinds for k in KINDS if k in f), None)  # first step's",
        "        if kind:",
        "            return kind, [i + 1 for i, f in enumerate(kinds) if kind in f]",
    ]
    return "\n" + "\n".join(lines) + "\n"


RUN = '''
def run():
    """The gate's checks in order, each only when the ones before it work: the outcome."""
@SETUP@
    for where in ("", *LATER):  # '': the first instance
        print(f"-- check: {where or 'the first instance'}", flush=True)  # a crash is this check's
        try:
            found = check(where)
        except Exception as exc:  # an error is an outcome: its type is what is compared
            print(f"{type(exc).__name__}: {exc}")
            return f"@s:RAISES@: {type(exc).__name__} {where}".rstrip()
        if found:
            return @RESULT@
    return @WORKS@
'''
# the first instance only (no later check is run): no loop, no marks
RUN_ONE = '''
def run():
    """The gate's first check (the first instance): the outcome, in the suite's words."""
@SETUP@
    try:
        found = check("")
    except Exception as exc:  # an error is an outcome: its type is what is compared
        print(f"{type(exc).__name__}: {exc}")
        return f"@s:RAISES@: {type(exc).__name__}"
    return @RESULT@ if found else @WORKS@
'''
RESULT = 'f"@s:INCORRECT@: {found[0]} {where}".rstrip()'
SPAN_RESULT = 'f"@s:INCORRECT@: {found[0]} {span(found[1])}"'

FULLGRAPH = '''
def fullgraph():
    """The gate's diagnostic after the checks: a step with fullgraph=True (its crash is the
    cell's, unqualified; its error is no outcome)."""
    print("-- check: fullgraph=True", flush=True)
    try:
        net = @BUILD@
        net.construct = ms.jit(net.construct, capture_mode="bytecode", fullgraph=True)
        xs = tuple(Tensor(a) for a in reference(read(dict(net.parameters_and_names())), 1)[0])
        @CALL@.asnumpy()
    except Exception as exc:
        print(f"fullgraph=True: {type(exc).__name__}: {exc}")
'''

# a process's outcome against a gate process's signature (which names no calls, no check and
# no signal: "incorrect: write dropped", "crashed")
SAME = """
def same(got, recorded):  # the recorded outcome, or it with more words (the calls, the signal)
    return got == recorded or got.startswith((recorded + " ", recorded + ":"))
"""

CHILD_DRIVER = '''
def child(timeout):
    """The checks in a fresh child process (this script with --child): its outcome, a crash by
    its signal and a hang in the check it was in."""
    env = dict(os.environ, PYTHONFAULTHANDLER="1")  # a crash prints the native traceback
    try:
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"], env=env,
                              capture_output=True, text=True, timeout=timeout)
        out, code = done.stdout + done.stderr, done.returncode
    except subprocess.TimeoutExpired as exc:
        out, code = "".join(t.decode(errors="replace") if isinstance(t, bytes) else t or ""
                            for t in (exc.stdout, exc.stderr)), None
    print(out)
    marks = re.findall(r"^-- check: (.*)$", out, re.M)
    where = marks[-1] if marks and marks[-1] in LATER else ""  # the check it was in
    if code is None:
        return f"@s:TIMEOUT@ {where}".rstrip()
    if code < 0:
        return f"@s:CRASHED@: {signal.Signals(-code).name} {where}".rstrip()
    found = re.findall(r"^OUTCOME: (.*)$", out, re.M)
    return found[-1] if found else f"@s:CRASHED@: exit code {code} {where}".rstrip()
'''

VERDICT = """    ok = got == RECORDED  # the signal, and the check it died in
    print(f"REPRODUCED: {got}" if ok else f"NOT REPRODUCED: observed {got}, recorded {RECORDED}")
    sys.exit(0 if ok else 1)
"""
# the script's main part (``if __name__ == "__main__":``), per where it runs the checks
MAIN = {
    ALONE: """
if __name__ == "__main__":
    got = run()
    ok = got == RECORDED or got.startswith(RECORDED + " ")  # with the calls, if not recorded
    print(f"REPRODUCED: {got}" if ok else f"NOT REPRODUCED: observed {got}, recorded {RECORDED}")
    sys.exit(0 if ok else 1)
""",
    CHILD: """
if __name__ == "__main__" and "--child" in sys.argv:
    faulthandler.dump_traceback_later(TIMEOUT + 25)  # where a hang hangs, before it is killed
    got = run()@FULLGRAPH@
    print(f"OUTCOME: {got}", flush=True)
elif __name__ == "__main__":
    got = child(TIMEOUT + 30)  # the suite's time for the cell, and MindSpore's import
"""
    + VERDICT,
    MANY: """
if __name__ == "__main__" and "--child" in sys.argv:
    print(f"OUTCOME: {run()}", flush=True)
elif __name__ == "__main__":
    seen = []
    for process in range(1, PROCESSES + 1):
        print(f"---- process {process} of {PROCESSES}")
        seen.append(child(TIMEOUT + 30))  # the suite's time for the cell, and MindSpore's import
        print(f"process {process}: {seen[-1]}")
    matched = [[r for r in RECORDED if same(s, r)] for s in seen]
    ok = len(set(seen)) > 1 and all(matched) and {m[0] for m in matched} == set(RECORDED)
    print(("REPRODUCED: " if ok else "NOT REPRODUCED: observed ") + " / ".join(seen)
          + f" (recorded in different processes: {' / '.join(RECORDED)})")
    sys.exit(0 if ok else 1)
""",
}
CALL_FULLGRAPH = """
    if not got.startswith("@s:RAISES@"):  # as the gate: then a step with fullgraph=True
        fullgraph()"""


def _fill(text: str, **parts: str) -> str:
    """The template with ``@NAME@`` filled: the parts, then the owners' words (a kind or a
    status as a literal; ``@s:NAME@`` as bare text inside a string)."""
    for key, value in parts.items():
        text = text.replace(f"@{key}@", value)
    for k in Kind:
        text = text.replace(f"@{k.name}@", repr(str(k)))
    for s in Status:
        text = text.replace(f"@s:{s.name}@", str(s)).replace(f"@{s.name}@", repr(str(s)))
    return text.replace("@OTHER_OUTPUT@", repr(OTHER_OUTPUT))


def _literal(text: str) -> str:
    """``text`` as a readable string literal (a raw triple-quoted one where it can be)."""
    for quote in ("'''", '"""'):
        if quote not in text and not text.endswith(("\\", quote[0])):
            return f"r{quote}\n{text}{quote}"
    return repr(text)


def _bound(line: str) -> dict[str, str]:
    """{name bound: what it is} of one import line."""
    node = ast.parse(line).body[0]
    if isinstance(node, ast.Import):
        return {a.asname or a.name.split(".")[0]: a.name for a in node.names}
    return {a.asname or a.name: f"{node.module}.{a.name}" for a in node.names}


def merge_imports(lines: list[str]) -> list[str]:
    """Import lines without repeats, the ``from`` lines of one module merged into one."""
    plain, froms = [], {}
    for line in dict.fromkeys(lines):
        node = ast.parse(line).body[0]
        if isinstance(node, ast.ImportFrom) and not node.level:
            names = froms.setdefault(node.module, [])
            names += [ast.unparse(a) for a in node.names if ast.unparse(a) not in names]
        else:
            plain.append(line)
    return plain + [f"from {m} import {', '.join(sorted(n))}" for m, n in froms.items()]


@dataclass
class VariantCode:
    """A variant file split for a script: its own definitions (verbatim, in dependency order),
    the import lines they need, and the (module, name) pairs they import from the suite."""

    imports: list[str]
    blocks: list[str]
    suite: list[tuple[str, str]]


def split_variant(text: str) -> VariantCode:
    """The definitions ``Variant`` needs of ``text`` (a generated variant file)."""
    tree = ast.parse(text)
    defined, imported = inline._namespace(tree)
    if "Variant" not in defined:
        raise inline.InlineError("the variant defines no class Variant")
    imports: dict[str, None] = {}
    suite: dict[tuple[str, str], None] = {}
    blocks, done = [], set()

    def need(name: str) -> None:
        if name in defined:
            node = defined[name]
            if id(node) in done:
                return
            done.add(id(node))
            for used in sorted(inline.uses(node) - inline.BUILTINS):
                if (used in defined and defined[used] is not node) or used in imported:
                    need(used)
            blocks.append(inline.segment(text, node))
            return
        module, attr = imported[name]
        if inline.is_bench(module):
            if attr is None or attr != name:
                raise inline.InlineError(f"`{name}` is imported from {module} under another name")
            suite[(module, attr)] = None
        elif attr is None:
            imports[f"import {module}" + (f" as {name}" if name != module else "")] = None
        else:
            imports[f"from {module} import {attr}" + (f" as {name}" if name != attr else "")] = None

    need("Variant")
    return VariantCode(list(imports), blocks, list(suite))


def _hooks(code: VariantCode) -> bool:
    """Whether a class of the variant's own defines ``after_step`` (host work after a step)."""
    for block in code.blocks:
        for node in ast.walk(ast.parse(block)):
            if isinstance(node, ast.FunctionDef) and node.name == "after_step":
                return True
            if isinstance(node, ast.Assign) and any(
                getattr(t, "id", "") == "after_step" for t in node.targets
            ):
                return True
    return False


CHECK_WORDS = {  # what each check builds, as a script's docstring lists them
    FIRST: "the first instance",
    SECOND_ONLY: "a second instance",
    THIRD_ONLY: "a third",
    NETWORK_ONLY: "two instances as the layers of one network",
}


def _tuple(name: str, values: tuple, comment: str = "") -> str:
    """``NAME = (...)  # comment`` within 99 characters a line: the values over more lines when
    they do not fit in one, the comment after the last (or above, when it does not fit)."""
    text, note = f"{name} = {values!r}", f"  # {comment}" if comment else ""
    if len(text) + len(note) <= 99:
        return text + note
    lines, line = [], f"{name} = ("
    for v in values:
        item = f"{v!r}, "
        if len(line) + len(item) > 98:
            lines.append(line.rstrip())
            line = " " * (len(name) + 4)
        line += item
    last = (line.rstrip() if len(values) == 1 else line.rstrip().rstrip(",")) + ")"
    if len(last) + len(note) <= 99:
        return "\n".join([*lines, last + note])
    return "\n".join([*([f"# {comment}"] if comment else []), *lines, last])


def _used(blocks: list[str], outside: str) -> list[str]:
    """``blocks`` (pruned top-level definitions) without those nothing uses: a method pruned
    away can leave the names only it used (a constant, a helper) behind."""
    defined = [set(inline._namespace(ast.parse(b))[0]) for b in blocks]
    uses = [inline.uses(ast.parse(b)) for b in blocks]
    wanted = inline.uses(ast.parse(outside))
    kept = set(range(len(blocks)))
    while True:
        used = wanted.union(*(uses[i] - defined[i] for i in kept))
        drop = {i for i in kept if defined[i] and not defined[i] & used}
        if not drop:
            return [b for i, b in enumerate(blocks) if i in kept]
        kept -= drop


def _span_text(w: Want) -> str:
    """``span(hits)`` of a script whose recorded outcome names the calls: those words when the
    hits are the recorded ones, else the calls listed (what the oracle says of other hits is
    not needed to tell that they are not the recorded ones)."""
    calls = w.recorded[0].removeprefix(f"{Status.INCORRECT}: {_kind_of(w.recorded[0])} ")
    return SPAN.replace("@WORDS@", repr(calls)).replace("@HITS@", repr(hits_of(calls, w.steps)))


def _sizes(w: Want, work) -> list[str]:
    """The lines of the size, the steps, the tolerance and the names of the Parameters the
    reference reads (the state, and the weights of a training loop)."""
    names = tuple(work.read_names)
    line = f"SIZE, STEPS, RTOL, ATOL = {w.size}, {w.steps}, {work.rtol!r}, {work.atol!r}"
    one = line.replace(" =", ", NAMES =", 1) + f", {names!r}"
    return [one] if len(one) <= 99 else [line, _tuple("NAMES", names)]


def _compact(text: str) -> str:
    """One blank line at most between two lines (the script is read, pasted, not linted)."""
    return re.sub(r"\n(?:[ \t]*\n){2,}", "\n\n", text)


def driver_text(w: Want, mode, build: str, hooks: bool, trains: bool = False) -> tuple[str, str]:
    """(the driver's functions, the script's main part) of a script that must show ``w`` in
    ``mode`` (a ``modes.Mode``): ``build`` makes an instance (``Variant()``), ``hooks``: the
    variant has host-side work after each step (``after_step``). They use the script's
    constants, ``Variant``, ``reference`` and, with the network check, ``Network``."""
    network = NETWORK_ONLY in w.checks
    setup = ['    ms.set_device("CPU")', f"    ms.set_context(mode=ms.{mode.context_mode})"]
    if mode.blocking:
        setup.append("    ms.runtime.launch_blocking()  # every op runs synchronously")
    older = w.judged == "all"
    one = 'f"@s:INCORRECT@: {found[0]}"'  # the outcome of a failure of the only check
    if w.spans:
        result = SPAN_RESULT
    else:
        result = one if len(w.checks) == 1 else RESULT
    driver = "".join(
        [
            COMMON_DRIVER,
            JUDGES[w.judged],
            _span_text(w) if w.spans else "",
            _check(
                network,
                older,
                build,
                mode.capture_mode or "",
                hooks,
                every=w.steps <= 12,
                trains=trains,
                replaced=trains and w.replaced,
            ),
            (RUN if len(w.checks) > 1 else RUN_ONE)
            .replace("@SETUP@", "\n".join(setup))
            .replace("@RESULT@", result),
            FULLGRAPH.replace("@BUILD@", build).replace("@CALL@", _call("net", hooks))
            if w.fullgraph
            else "",
        ]
    )
    main = MAIN[w.how].replace("@FULLGRAPH@", CALL_FULLGRAPH if w.fullgraph else "")
    tail = _fill((SAME if w.how == MANY else "") + (CHILD_DRIVER if w.how != ALONE else "") + main)
    return _fill(driver, BEFORE=BEFORE, AFTER=AFTER), tail


def script(
    variant: str,
    row: dict,
    title: str,
    version: str,
    name: str,
    run_id: str = "",
    threads: int = 1,
    timeout: float = 300.0,
    separate: bool | None = None,
) -> str:
    """The standalone script of the verdict ``row`` (a dict of the verdict table) of the variant
    source ``variant``; ``inline.InlineError`` for a variant it cannot write out. ``separate``:
    the suite's code in a module of its own (default: under bytecode capture, or where its names
    clash with the script's); False writes it into the script (what not to do under bytecode
    capture: kept to show the difference)."""
    work = get_workload(row["workload"])
    mode = MODES[row["mode"]]
    if str(row.get("kind") or "") == str(Kind.WRONG_GRADIENT):  # the script steps forward only
        raise inline.InlineError("a script checks no gradient yet: not one of a wrong gradient")
    w = want(row, work, timeout)
    code = split_variant(variant)
    reference, extra = REFERENCES[work.name]
    suite = list(dict.fromkeys([*code.suite, *extra]))
    hooks = _hooks(code)
    network = NETWORK_ONLY in w.checks
    build = "Variant(SIZE)" if type(work).build is not Runtime.build else "Variant()"
    driver, tail = driver_text(w, mode, build, hooks, trains=work.trains)
    ref_text = reference(work)
    if not (work.trains and w.replaced):  # the state after a reload: only where it is recorded
        ref_text = ref_text.split("\n\ndef outdated(")[0].rstrip() + "\n"
    local = "\n".join(code.blocks)
    found = inline.collect(suite)
    keep = inline.attributes("\n".join([local, driver, tail, ref_text, *found.blocks]))
    if not hooks:
        keep.discard("after_step")  # host-side work: none here, so it is not called
    local = "\n\n".join(inline.prune(b, keep, docstrings=False) for b in code.blocks)
    overridden = inline.overrides(code.blocks)
    state_blocks = [inline.prune(b, keep, overridden=overridden) for b in found.blocks]
    if network:  # the gate's container is the suite's code too: it goes with the state (where
        # it is defined changes what bytecode capture does: see NETWORK)
        state_blocks.append((NETWORK + (NETWORK_HOOK if hooks else "")).strip())
    rest = "\n".join([local, ref_text, driver, tail])
    state_blocks = _used(state_blocks, rest)
    script_names = set(inline._namespace(ast.parse(rest))[0]) | set(SCRIPT_NAMES)
    clash = set(found.defined) & script_names
    # Under bytecode capture the module a class is defined in changes what is captured: the
    # suite's code goes into a module of its own there (and wherever its names clash).
    if separate is None:
        separate = mode.capture_mode == "bytecode"
    separate = separate or bool(clash)
    head = ["os", "sys"] + (["pathlib", "tempfile"] if separate else [])
    if w.how != ALONE:
        head += ["re", "signal", "subprocess"] + (["faulthandler"] if w.how == CHILD else [])
    common = [*COMMON, *([NN] if network and not separate else [])]
    bound = {k: v for line in common for k, v in _bound(line).items()}
    own = [i for i in code.imports if any(bound.get(k) != v for k, v in _bound(i).items())]
    imports = [*common, *own, *([] if separate else found.import_lines())]
    meaning = row.get("meaning") or work.intent
    reading = work.readings.get(meaning, "")
    state_module = f"{work.name}_state"
    state_imports = merge_imports([*found.import_lines(), *([NN] if network else [])])
    # only what the state module defines: a suite name the script does not use (``_used``
    # dropped its block, e.g. the reload's helpers where no reload is judged) is not imported
    defined = {
        node.name
        for block in state_blocks
        for node in ast.parse(block).body
        if isinstance(node, (ast.FunctionDef, ast.ClassDef))
    } | {
        t.id
        for block in state_blocks
        for node in ast.parse(block).body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    names = [n for _, n in suite if n in defined] + (["Network"] if network else [])
    if separate:
        state = [
            "# The suite's code the cell uses: a module of its own (its module matters to capture)",
            f"STATE = {_literal(inline.module_text(state_imports, state_blocks))}",
            'FOLDER = tempfile.TemporaryDirectory(prefix="repro-")',
            f'pathlib.Path(FOLDER.name, "{state_module}.py").write_text(STATE)',
            "sys.path.insert(0, FOLDER.name)",
            f"from {state_module} import {', '.join(names)}  # noqa: E402",
        ]
    else:
        state = ["# The suite's code the cell uses (the workload's state, the strategy's base)"]
        state.append(inline.module_text([], state_blocks, future=False).strip())
    future = not separate and inline.annotated("\n".join(state_blocks))
    kinds = (
        (*STATE_KINDS, OTHER_OUTPUT)
        if w.judged == "state"
        else tuple(str(k) for k in Kind if k not in (Kind.DIFFERS, Kind.WRONG_GRADIENT))
    )
    checks = ", ".join(CHECK_WORDS[c] for c in w.checks)
    about = textwrap.wrap(
        f"MindSpore {version} (CPU). Recorded by the suite"
        + (f" (run {run_id})" if run_id else "")
        + f": {w.words}. Runs the gate's checks ({checks}); prints expected (eager semantics) vs"
        ' observed per step; exit 0 when it shows what was recorded, else 1."""',
        99,
        break_on_hyphens=False,
    )
    lines = [
        f'"""{title}',
        "",
        *about,
        *(["from __future__ import annotations", ""] if future else []),
        f"import {', '.join(sorted(head))}",
        "",
        f'os.environ.setdefault("OMP_NUM_THREADS", "{threads}")  # as the suite ran MindSpore',
        *merge_imports(imports),
        "",
        f"RECORDED = {(w.recorded if w.how == MANY else w.recorded[0])!r}",
        f"MEANING = {meaning!r}" + (f"  # the code's reads see {reading}" if reading else ""),
        *_sizes(w, work),
        _tuple("KINDS", kinds, "precedence"),
        *(
            [_tuple("LATER", w.checks[1:], "the gate's checks after the first instance, in order")]
            if len(w.checks) > 1 or w.how != ALONE
            else []
        ),
        *(
            [f"TIMEOUT = {w.timeout!r}  # seconds the suite gave the cell"]
            if w.how != ALONE
            else []
        ),
        *([f"PROCESSES = {PROCESSES}"] if w.how == MANY else []),
        "",
        *state,
        "",
        local,
        "",
        ref_text.rstrip(),
        driver.rstrip(),
        tail.rstrip(),
    ]
    return _compact("\n".join(lines) + "\n")

"""A standalone reproduction script per verdict, short enough to paste into a MindSpore issue.

Only ``mindspore``, ``numpy`` and the standard library are imported. The cell is written out:
what the variant imports from the suite (the workload's state class, the strategy base, the
helpers they use: only the definitions used, ``bench.report.inline``) goes into a module of its
own, embedded as a string and written to a temporary folder, because under bytecode capture the
module a class is defined in changes what is captured (a ``construct`` inherited from another
module, ``construct=base``, is captured otherwise than one of the variant's own class: written
out in one file, 4 of 4 clip cells checked showed the opposite verdict). The strategy's code and
the variant's generated ``construct`` follow as plain code. The expected values of every step
come from a few lines of NumPy (``reference``: what the code means under eager semantics, from
the state the cell really had when the step began), and every step prints expected against
observed.

The script exits 0 when it shows what the gate recorded, 1 when it does not:

- works / silently wrong / raises: the cell runs in the script's process; the status and kind
  must be the recorded ones, with the recorded qualifier ("at the first call only", "in a second
  instance only": under bytecode capture a second instance of the class runs after the first,
  as the gate does), and the exception type for an error;
- crashed / hangs: the cell runs in a child process (the script runs itself with ``--child``
  under ``PYTHONFAULTHANDLER=1`` and prints the child's stderr: the native traceback); a crash
  reproduces only when the child dies by the recorded signal, a hang only when the child gives
  no result in the recorded time;
- differs between processes: the cell runs in ``PROCESSES`` fresh child processes; it
  reproduces when their outcomes are the recorded ones, at least two different.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from bench.core.schema import Kind, Status, signature
from bench.measured.modes import MODES
from bench.measured.oracle import AFTER, BEFORE
from bench.measured.workloads import get as get_workload
from bench.measured.workloads.runtime import Runtime
from bench.report import inline

SECOND_ONLY = "in a second instance only"  # bench.run.gate.SECOND_ONLY
PROCESSES = 3  # fresh processes a "differs between processes" script runs its cell in
ALONE, CHILD, MANY = "alone", "child", "processes"  # where a script runs its cell
# names a script defines besides its functions (a suite name must not clash with them)
SCRIPT_NAMES = (
    *("RECORDED", "MEANING", "SIZE", "STEPS", "INSTANCES", "RTOL", "ATOL", "NAMES", "KINDS"),
    *("TIMEOUT", "PROCESSES", "STATE", "FOLDER", "ms", "np", "Tensor", "os", "sys", "pathlib"),
    *("tempfile", "faulthandler", "re", "signal", "subprocess"),
)
COMMON = ("import mindspore as ms", "import numpy as np", "from mindspore import Tensor")


@dataclass(frozen=True)
class Want:
    """What a script must show to reproduce one verdict."""

    how: str  # ALONE (in the script's process), CHILD (a crash or hang), MANY (processes)
    recorded: tuple[str, ...]  # the outcome(s): "incorrect: stale read at every call", ...
    size: int
    steps: int
    instances: int
    timeout: float = 300.0

    @property
    def words(self) -> str:
        if self.how == MANY:
            return "different outcomes in different processes: " + " / ".join(self.recorded)
        return self.recorded[0]

    @property
    def qualified(self) -> bool:
        """The recorded outcome names the calls (or the instance) it shows at."""
        return self.how != MANY and self.recorded[0].startswith(f"{Status.INCORRECT}:")


def _core(sig: str) -> str:
    """A recorded signature as a script compares it: a raise by its exception type only."""
    if sig.startswith(f"{Status.RAISES}:"):
        return ": ".join(sig.split(": ")[:2])
    return sig


def want(row: dict, runtime: Runtime, timeout: float = 300.0) -> Want:
    """What ``row`` (a verdict row: status, kind, calls, detail, mode) recorded, as a script
    checks it; ``timeout``: how long the run's gate waited for a cell."""
    size, steps = runtime.gate_schedule[0]
    status, kind = str(row["status"]), str(row.get("kind") or "")
    detail, calls = str(row.get("detail") or ""), str(row.get("calls") or "")
    bytecode = MODES[row["mode"]].capture_mode == "bytecode"
    instances = 2 if bytecode or calls == SECOND_ONLY else 1  # the gate's second instance
    if status == Status.CRASHED.value:
        sig = re.search(r"died with (SIG\w+)", detail)
        code = re.search(r"exited with code (-?\d+)", detail)
        what = sig.group(1) if sig else f"exit code {code.group(1)}" if code else "?"
        return Want(CHILD, (f"{Status.CRASHED}: {what}",), size, steps, instances, timeout)
    if status == Status.TIMEOUT.value:
        took = re.search(r"for (\d+(?:\.\d+)?) s", detail)
        seconds = float(took.group(1)) if took else timeout
        return Want(CHILD, (str(Status.TIMEOUT),), size, steps, instances, seconds)
    if status == Status.INCORRECT.value and kind == str(Kind.DIFFERS):
        gate = re.match(r"gate processes: (.*?)\. ", detail)
        if gate:
            seen = [re.sub(r" in \d+ of \d+$", "", s) for s in gate.group(1).split("; ")]
            return Want(MANY, tuple(dict.fromkeys(map(_core, seen))), size, steps, instances)
        # right in every gate process, wrong after the timed steps: the timed steps, each alone
        timed = re.search(r"after (\d+) timed steps", detail)
        sizes = re.search(r"\(sizes ([\d, ]+)\)", detail)
        if timed and sizes:
            size, steps = int(sizes.group(1).split(",")[0]), int(timed.group(1))
        return Want(MANY, (str(Status.WORKS), str(Status.INCORRECT)), size, steps, instances)
    if status == Status.INCORRECT.value:
        text = f"{Status.INCORRECT}: {kind}"
        if calls and ";" not in calls:
            text += f" {calls}"
        return Want(ALONE, (text,), size, steps, instances)
    return Want(ALONE, (_core(signature(status, kind, detail)),), size, steps, instances)


# -- the NumPy reference of each workload: one step as the code means it --------------------
REFERENCE_DOC = (
    '"""Step `step` from `state` in NumPy: its inputs, output per reading, state after."""'
)


def _clip(runtime) -> str:
    from bench.measured.workloads.clip.spec import INC_STEP, MAX_LIMIT

    (x,) = runtime.make_inputs(1, 0, small=True)
    return f"""
def reference(state, step):
    {REFERENCE_DOC}
    x = np.random.default_rng(step - 1).standard_normal((SIZE, *{x.shape[1:]}), dtype=np.float32)
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

    def forward(s):  # gamma = 1, beta = 0
        sigma_b = np.sqrt(var + {eps!r})
        sigma = np.sqrt(s["moving_var"].astype(np.float64) + {eps!r})
        r = np.clip(sigma_b / sigma, 1.0 / s["r_max"][0], s["r_max"][0])
        d = np.clip((mean - s["moving_mean"]) / sigma, -s["d_max"][0], s["d_max"][0])
        xhat = (x64 - mean[:, None, None]) / sigma_b[:, None, None] * r[:, None, None]
        return (xhat + d[:, None, None]).astype(np.float32)

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
    from bench.measured.workloads.ema.spec import DECAY

    return f"""
WEIGHTS = initial(shapes_for(SIZE))[0]  # the weights the cell is built with (never written)


def reference(state, step):
    {REFERENCE_DOC}
    x, d = np.zeros((1,), np.float32), np.float32({DECAY!r})
    new = {{f"ema{{i}}": (d * state[f"ema{{i}}"] + (np.float32(1) - d) * w.reshape(-1))
           for i, w in enumerate(WEIGHTS)}}
    return (x,), {{"{BEFORE}": x}}, {{k: v.astype(np.float32) for k, v in new.items()}}
"""


_EMA_SPEC = "bench.measured.workloads.ema.spec"
# workload -> (its reference, the suite's names the reference uses besides the variant's)
REFERENCES = {
    "clip": (_clip, ()),
    "brn": (_brn, ()),
    "kvcache": (_kvcache, ()),
    "ema": (_ema, ((_EMA_SPEC, "initial"), (_EMA_SPEC, "shapes_for"))),
}


# -- the driver: the gate's run and judgement, in short ----------------------------------------
DRIVER = '''

def close(a, b):
    return np.shape(a) == np.shape(b) and bool(np.allclose(a, b, RTOL, ATOL))


def show(a):
    a = np.asarray(a).reshape(-1)
    return f"{a[0]:.6g}" if a.size == 1 else f"mean {a.mean():.6g} over {a.size}"


def judge(out, reads, old, new, want, older):
    """The kinds of divergence one step shows (the suite's oracle, in short)."""
    kinds = [@WRITE_DROPPED@ if np.array_equal(new[n], old[n]) and not close(w, old[n])
             else @WRONG_VALUE@ for n, w in want.items() if not close(new[n], w)]
    if not close(out, reads[MEANING]):
        seen = next((r for r, o in reads.items() if close(out, o)), None)
        if seen == "@BEFORE@" or seen is None and any(close(out, o) for o in older):
            kinds.append(@STALE_READ@)  # the output of a read of the state from before a write
        else:
            kinds.append(@FUTURE_READ@ if seen == "@AFTER@" else @WRONG_OUTPUT@)
    return kinds
@SPAN@

def run():
    """The instances over the steps, as the suite's gate runs them: the outcome in its words."""
@SETUP@
    for instance in range(1, INSTANCES + 1):
        cell = @BUILD@
@PREPARE@        params = dict(cell.parameters_and_names())
        read = lambda: {  # noqa: E731  (the state, read from the cell's own Parameters)
            n: params[n].asnumpy().astype(np.float32).reshape(-1) for n in NAMES}
        state, history, found = read(), [], []
        for step in range(1, STEPS + 1):
            inputs, reads, want = reference(state, step)
            xs = tuple(Tensor(a) for a in inputs)
            out, new = @CALL@.asnumpy(), read()
            older = (reference(s, step)[1]["@BEFORE@"] for s in history[-16:])  # earlier states
            found.append(judge(out, reads, state, new, want, older))
            if step <= 8 or step == STEPS:
                print(f"instance {instance} step {step}, expected vs observed: "
                      + "; ".join(f"{n} {show(want[n])} vs {show(new[n])}" for n in want)
                      + f"; output: {', '.join(found[-1]) or 'as the code means'}")
            history, state = [*history, state], new
        kind = next((k for k in KINDS if any(k in f for f in found)), None)
        if kind:
            return @RESULT@
    return @WORKS@
'''
OUTCOME = """

def outcome():
    try:
        return run()
    except Exception as exc:  # an error is an outcome: its type is what is compared
        print(f"{type(exc).__name__}: {exc}")
        return f"@s:RAISES@: {type(exc).__name__}"


def same(got, recorded):
    return got == recorded or got.startswith((recorded + " ", recorded + ":"))
"""

SPAN = '''

def span(hits, total):
    """At which calls of an instance a kind shows, in the suite's words."""
    if hits == list(range(1, total + 1)):
        return "at every call"
    if hits == list(range(1, hits[-1] + 1)):
        return "at the first call only" if hits == [1] else f"at the first {hits[-1]} calls only"
    if hits == list(range(hits[0], total + 1)):
        return f"from call {hits[0]} on"
    return f"at calls {', '.join(map(str, hits))} of {total}"
'''
SPAN_RESULT = (
    'f"@s:INCORRECT@: {kind} " + (\n'
    "                span([i + 1 for i, f in enumerate(found) if kind in f], STEPS)\n"
    '                if instance == 1 else "@SECOND_ONLY@")'
)

CHILD_DRIVER = '''

def child(timeout):
    """The cell in a fresh child process (this script with --child): its outcome."""
    env = dict(os.environ, PYTHONFAULTHANDLER="1")  # a crash prints the native traceback
    try:
        done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"], env=env,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        for text in (exc.stdout, exc.stderr):
            print(text.decode(errors="replace") if isinstance(text, bytes) else text or "")
        return @TIMEOUT@
    print(done.stdout + done.stderr)
    if done.returncode < 0:
        return f"@s:CRASHED@: {signal.Signals(-done.returncode).name}"
    found = re.findall(r"^OUTCOME: (.*)$", done.stdout, re.M)
    return found[-1] if found else f"@s:CRASHED@: exit code {done.returncode}"
'''

VERDICT = """    print(f"recorded by the suite: {RECORDED}; observed: {got}")
    print(("REPRODUCED: " if same(got, RECORDED) else "NOT REPRODUCED: observed ") + got)
    return 0 if same(got, RECORDED) else 1
"""
MAIN = {
    ALONE: """

def main():
    try:
        got = run()
    except Exception as exc:  # an error is an outcome: its type is what is compared
        print(f"{type(exc).__name__}: {exc}")
        got = f"@s:RAISES@: {type(exc).__name__}"
    ok = got == RECORDED or got.startswith(RECORDED + " ")  # with the calls, when recorded
    print(f"recorded by the suite: {RECORDED}; observed: {got}")
    print(("REPRODUCED: " if ok else "NOT REPRODUCED: observed ") + got)
    return 0 if ok else 1
""",
    CHILD: """

def main():
    if "--child" in sys.argv:
        faulthandler.dump_traceback_later(TIMEOUT + 25)  # where a hang hangs, before it is killed
        print(f"OUTCOME: {outcome()}", flush=True)
        return 0
    got = child(TIMEOUT + 30)  # the suite's time for the cell, and MindSpore's import
"""
    + VERDICT,
    MANY: """

def main():
    if "--child" in sys.argv:
        print(f"OUTCOME: {outcome()}", flush=True)
        return 0
    seen = []
    for process in range(1, PROCESSES + 1):
        print(f"---- process {process} of {PROCESSES}")
        seen.append(child(TIMEOUT + 30))  # the suite's time for the cell, and MindSpore's import
        print(f"process {process}: {seen[-1]}")
    matched = [[r for r in RECORDED if same(s, r)] for s in seen]
    ok = len(set(seen)) > 1 and all(matched) and {m[0] for m in matched} == set(RECORDED)
    print(f"recorded by the suite in different processes: {' / '.join(RECORDED)}")
    print(("REPRODUCED: " if ok else "NOT REPRODUCED: observed ") + " / ".join(seen))
    return 0 if ok else 1
""",
}

TAIL = """

if __name__ == "__main__":
    sys.exit(main())
"""


def _fill(text: str, **parts: str) -> str:
    """The template with ``@NAME@`` filled: the parts, then the owners' words (a kind or a
    status as a literal; ``@s:NAME@`` as bare text inside a string)."""
    for key, value in parts.items():
        text = text.replace(f"@{key}@", value)
    for k in Kind:
        text = text.replace(f"@{k.name}@", repr(str(k)))
    for s in Status:
        text = text.replace(f"@s:{s.name}@", str(s)).replace(f"@{s.name}@", repr(str(s)))
    return text.replace("@SECOND_ONLY@", SECOND_ONLY)


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
    w = want(row, work, timeout)
    code = split_variant(variant)
    reference, extra = REFERENCES[work.name]
    suite = list(dict.fromkeys([*code.suite, *extra]))
    hooks = _hooks(code)
    call = "cell.after_step(cell(*xs), xs[0] if len(xs) == 1 else xs)" if hooks else "cell(*xs)"
    setup = ['    ms.set_device("CPU")', f"    ms.set_context(mode=ms.{mode.context_mode})"]
    if mode.blocking:
        setup.append("    ms.runtime.launch_blocking()  # every op runs synchronously")
    prepare = ""
    if mode.capture_mode:
        prepare = (
            f"        cell.construct = ms.jit(cell.construct, capture_mode={mode.capture_mode!r})\n"
        )
    builds_with_size = type(work).build is not Runtime.build
    driver = _fill(
        DRIVER,
        SPAN=SPAN if w.qualified or w.how == MANY else "",
        RESULT=SPAN_RESULT if w.qualified or w.how == MANY else 'f"@s:INCORRECT@: {kind}"',
        SETUP="\n".join(setup),
        BUILD="Variant(SIZE)" if builds_with_size else "Variant()",
        PREPARE=prepare,
        CALL=call,
        BEFORE=BEFORE,
        AFTER=AFTER,
    )
    tail = _fill((OUTCOME + CHILD_DRIVER if w.how != ALONE else "") + MAIN[w.how] + TAIL)
    ref_text = reference(work)
    local = "\n".join(code.blocks)
    found = inline.collect(suite)
    keep = inline.attributes("\n".join([local, driver, tail, ref_text, *found.blocks]))
    if not hooks:
        keep.discard("after_step")  # host-side work: none here, so it is not called
    local = "\n\n\n".join(inline.prune(b, keep, docstrings=False) for b in code.blocks)
    overridden = inline.overrides(code.blocks)
    state_blocks = [inline.prune(b, keep, overridden=overridden) for b in found.blocks]
    rest = "\n".join([local, ref_text, driver, tail])
    script_names = set(inline._namespace(ast.parse(rest))[0]) | set(SCRIPT_NAMES)
    clash = set(found.defined) & script_names
    # Under bytecode capture the module a class is defined in changes what is captured: the
    # suite's code goes into a module of its own there (and wherever its names clash).
    if separate is None:
        separate = mode.capture_mode == "bytecode"
    separate = separate or bool(clash)
    head = ["os", "sys"] + (["pathlib", "tempfile"] if separate else [])
    if w.how != ALONE:
        head += ["faulthandler", "re", "signal", "subprocess"]
    bound = {k: v for line in COMMON for k, v in _bound(line).items()}
    own = [i for i in code.imports if any(bound.get(k) != v for k, v in _bound(i).items())]
    imports = [*COMMON, *own, *([] if separate else found.import_lines())]
    meaning = row.get("meaning") or work.intent
    reading = work.readings.get(meaning, "")
    state_module = f"{work.name}_state"
    if separate:
        state = [
            "# The suite's code the cell uses: a module of its own, as under bytecode capture the",
            "# module a class is defined in changes what is captured (removed at exit).",
            f"STATE = {_literal(inline.module_text(found.import_lines(), state_blocks))}",
            'FOLDER = tempfile.TemporaryDirectory(prefix="repro-")',
            f'pathlib.Path(FOLDER.name, "{state_module}.py").write_text(STATE)',
            "sys.path.insert(0, FOLDER.name)",
            f"from {state_module} import {', '.join(n for _, n in suite)}  # noqa: E402",
        ]
    else:
        state = ["# The suite's code the cell uses (the workload's state, the strategy's base):"]
        state += ["", ""]
        state.append(inline.module_text([], state_blocks, future=False).strip())
    future = not separate and inline.annotated("\n".join(state_blocks))
    lines = [
        f'"""{title}',
        "",
        f"MindSpore {version} (CPU). Recorded by the suite"
        + (f" (run {run_id})" if run_id else "")
        + f": {w.words}.",
        "`python THIS.py` prints expected (the code's meaning, eagerly) vs observed per step and",
        "exits 0 when it shows what was recorded, 1 when it does not.",
        '"""',
        *(["from __future__ import annotations", ""] if future else []),
        *(f"import {m}" for m in sorted(head)),
        "",
        f'os.environ.setdefault("OMP_NUM_THREADS", "{threads}")  # as the suite ran MindSpore',
        *merge_imports(imports),
        "",
        f"RECORDED = {(w.recorded if w.how == MANY else w.recorded[0])!r}",
        f"MEANING = {meaning!r}" + (f"  # the code's reads see {reading}" if reading else ""),
        f"SIZE, STEPS, INSTANCES = {w.size}, {w.steps}, {w.instances}"
        + ("  # a second instance runs after the first" if w.instances > 1 else ""),
        f"RTOL, ATOL, NAMES = {work.rtol!r}, {work.atol!r}, {tuple(work.state_names)!r}",
        f"KINDS = {tuple(str(k) for k in Kind if k is not Kind.DIFFERS)!r}",
        *(
            [f"TIMEOUT = {w.timeout!r}  # seconds the suite gave the cell"]
            if w.how != ALONE
            else []
        ),
        *([f"PROCESSES = {PROCESSES}"] if w.how == MANY else []),
        *(["faulthandler.enable()"] if w.how != ALONE else []),
        "",
        *state,
        "",
        "",
        local,
        "",
        ref_text.rstrip(),
        driver.rstrip(),
        tail.rstrip(),
    ]
    return "\n".join(lines) + "\n"

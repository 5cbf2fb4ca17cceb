"""The driver of a reproduction script: run the variant in one mode, judge every step as the gate
does (``bench.measured.oracle``), and say whether the run shows exactly what was recorded.

Exit code 0 and ``REPRODUCED`` only when the status and the kind (or the error) are the recorded
ones; anything else, an unexpected exception included, prints ``NOT REPRODUCED`` and exits 1.
"""

from __future__ import annotations

import mindspore as ms

from bench.core.schema import Status
from bench.measured.modes import MODES
from bench.measured.oracle import observe, signature


def reproduce(variant_class, runtime, mode: str, meaning: str, recorded: dict) -> int:
    ms.set_device("CPU")
    print(f"MindSpore {ms.__version__}, mode {mode}, workload {runtime.name}")
    reading = runtime.readings.get(meaning)
    if reading:
        print(f"the code's reads see {reading} (eager semantics)")
    try:
        found = observe(variant_class, runtime, MODES[mode], meaning)
    except Exception as exc:  # the harness itself failed: that reproduces nothing
        print(f"NOT REPRODUCED: the driver failed: {type(exc).__name__}: {exc}")
        return 1
    for step in found.steps:
        label = "as the code means" if not step["note"] else step["note"]
        print(f"  step {step['step']} ({runtime.size_symbol}={step['size']}): {label}")
    if found.status == Status.RAISES:
        print(f"  {found.detail}")
    got = signature(found.status, found.kind, found.detail)
    want = signature(recorded["status"], recorded.get("kind", ""), recorded.get("detail", ""))
    print(f"recorded: {want}")
    print(f"observed: {got}")
    if got == want:
        print(f"REPRODUCED: {got}")
        return 0
    print(f"NOT REPRODUCED: observed {got}, recorded {want}")
    return 1

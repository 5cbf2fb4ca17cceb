"""Findings in short: one phrase per verdict, failure classes, and the declarations to paste.

The gate's detail names the step and the values; a table cell needs one short phrase, and a
declaration needs a regex that matches every shape that fails the same way. Both come from the
*class* of a finding: the status plus what kind of wrong (``Parameter unchanged``, ``wrong
output``), or the exception type and the start of its message.
"""

from __future__ import annotations

import fnmatch
import re
from collections import Counter, defaultdict
from itertools import combinations

from bench.core.schema import Status, Verdict

_WHERE = re.compile(r"^(?:step \d+ at batch \d+|building the cell): ")
_SIGNAL = re.compile(r"died with (SIG\w+)|exited with code (-?\d+)")


def error_text(detail: str) -> str:
    """The error of a ``raises`` detail, without where it happened."""
    return _WHERE.sub("", detail or "")


def failure_class(v: Verdict) -> str:
    """What kind of failure, the same for every shape that fails the same way."""
    if v.status == Status.INCORRECT:
        for kind in ("Parameter unchanged", "Parameter wrong", "wrong output"):
            if v.detail.startswith(kind):
                return f"incorrect: {kind}"
        return "incorrect"
    if v.status == Status.RAISES:
        text = error_text(v.detail)
        kind, _, message = text.partition(": ")
        words = message.split()
        short = " ".join(words[:8])
        return f"raises: {kind}: {short}" if short else f"raises: {kind}"
    return str(v.status)


def phrase(v: Verdict) -> str:
    """One short phrase for a table cell."""
    if v.status == Status.WORKS:
        return "works"
    if v.status == Status.INCORRECT:
        return "SILENT: " + failure_class(v).split(": ", 1)[-1].replace("incorrect", "wrong")
    if v.status == Status.RAISES:
        return "raises " + error_text(v.detail).split(":", 1)[0]
    if v.status == Status.CRASHED:
        m = _SIGNAL.search(v.detail)
        return f"crashes ({m.group(1) or 'exit ' + m.group(2)})" if m else "crashes"
    return {"timeout": "hangs", "inexpressible": "n/a", "broken": "broken file"}.get(
        str(v.status), str(v.status)
    )


def cover(failing: set[str], every: set[str]) -> list[str]:
    """Few shape globs that match exactly the failing shapes among ``every`` (checked with
    fnmatch): ``*`` for all of them, else one or two values fixed, else the names themselves."""
    if failing == every:
        return ["*"]
    width = Counter(len(s.split("-")) for s in every).most_common(1)[0][0]
    regular = {s for s in failing if len(s.split("-")) == width}
    for size in (1, 2):
        for dims in combinations(range(width), size):
            globs = set()
            for s in regular:
                parts = s.split("-")
                globs.add("-".join(p if i in dims else "*" for i, p in enumerate(parts)))
            good = [g for g in sorted(globs) if set(fnmatch.filter(every, g)) <= failing]
            covered = set().union(*(fnmatch.filter(every, g) for g in good)) if good else set()
            if regular <= covered and len(good) < len(regular):
                return good + sorted(failing - covered)
    return sorted(failing)


def declarations(verdicts: list[Verdict]) -> dict[str, str]:
    """``EXPECTED_FAILURES`` that declares exactly the failures among ``verdicts`` (one strategy).

    Keys are ``workload/shape-glob/mode`` (``*`` for every shape or mode); values escape the
    finding so that pasted error text is taken literally."""
    out: dict[tuple[str, str, str], str] = {}
    by_mode = defaultdict(list)
    for v in verdicts:
        if v.status not in (Status.INEXPRESSIBLE, Status.BROKEN, Status.SKIPPED):
            by_mode[(v.workload, v.mode)].append(v)
    for (workload, mode), vs in by_mode.items():
        every = {v.shape for v in vs}
        classes = defaultdict(set)
        for v in vs:
            if v.status.failed:
                classes[failure_class(v)].add(v.shape)
        for cls, failing in classes.items():
            text = cls.split(": ", 1)[1] if cls.startswith("raises: ") else cls  # after "where"
            for glob in cover(failing, every):
                out[(workload, glob, mode)] = re.escape(text).replace("\\ ", " ")
    merged: dict[str, str] = {}  # the same declaration in every mode: one key
    modes = {m for _, m in by_mode}
    seen = defaultdict(set)
    for (workload, glob, mode), regex in out.items():
        seen[(workload, glob, regex)].add(mode)
    for (workload, glob, regex), ms in sorted(seen.items()):
        for mode in ["*"] if ms == modes and len(modes) > 1 else sorted(ms):
            merged[f"{workload}/{glob}/{mode}"] = regex
    return merged


def render_declarations(declared: dict[str, str]) -> str:
    if not declared:
        return "EXPECTED_FAILURES = {}"
    body = "".join(f"    {k!r}: {v!r},\n" for k, v in declared.items())
    return "EXPECTED_FAILURES = {\n" + body + "}"

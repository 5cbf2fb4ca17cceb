"""Expected verdicts per MindSpore release: a reviewed snapshot, not part of any strategy file.

What a strategy does in a mode is an observation of one MindSpore release; it changes with every
release and every new shape. So the verdicts the suite expects live in
``expected/mindspore-<version>.tsv``: one line per workload × strategy × shape × mode with the
verdict's signature (``works``, ``incorrect: write dropped``, ``raises: RuntimeError: ...``).
A run compares its final verdicts with the file of the release it ran on; ``--record`` rewrites
the lines of the cells it covered (the diff is what a reviewer reads). A cell recorded as
``incorrect: differs between processes`` accepts any works or silently-wrong outcome: it is known
to vary.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bench.core.io import write_text_atomic
from bench.core.paths import ROOT
from bench.core.schema import Kind, Status, Verdict, signature

EXPECTED_DIR = ROOT / "expected"
HEADER = ("workload", "strategy", "shape", "mode", "verdict")
NOT_RECORDED = (Status.INEXPRESSIBLE, Status.BROKEN, Status.SKIPPED, Status.MISSING)
VARIES = f"incorrect: {Kind.DIFFERS}"


def path_for(version: str, folder: Path = EXPECTED_DIR) -> Path:
    return Path(folder) / f"mindspore-{version}.tsv"


def read(path: Path) -> dict[tuple[str, str, str, str], str]:
    """{(workload, strategy, shape, mode): signature}; {} when the file does not exist."""
    if not Path(path).is_file():
        return {}
    out = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if tuple(parts) == HEADER or len(parts) != len(HEADER):
            continue
        out[tuple(parts[:4])] = parts[4]
    return out


def key(v: Verdict) -> tuple[str, str, str, str]:
    return (v.workload, v.strategy, v.shape, v.mode)


def accepts(recorded: str, observed: str) -> bool:
    if recorded == VARIES:
        return observed == Status.WORKS or observed.startswith(Status.INCORRECT)
    return recorded == observed


@dataclass(frozen=True)
class Difference:
    verdict: Verdict
    recorded: str | None  # None: no line for this cell
    observed: str

    @property
    def unrecorded(self) -> bool:
        return self.recorded is None


def compare(verdicts: list[Verdict], recorded: dict) -> list[Difference]:
    """The final verdicts that differ from the record: a changed verdict, or a failure with no
    line (a cell that works and has no line is new, not a difference)."""
    out = []
    for v in verdicts:
        if v.status in NOT_RECORDED:
            continue
        observed = signature(v.status, v.kind, v.detail)
        want = recorded.get(key(v))
        if want is None:
            if v.status != Status.WORKS:
                out.append(Difference(v, None, observed))
        elif not accepts(want, observed):
            out.append(Difference(v, want, observed))
    return out


def record(path: Path, verdicts: list[Verdict], version: str, varying: bool = False) -> int:
    """Write the lines of ``verdicts`` into the file at ``path`` (other lines kept); returns the
    number of lines that changed. ``varying``: keep every recorded line, and mark the cells whose
    verdict now differs from it as varying (a second run that saw them otherwise)."""
    lines = read(path)
    changed = 0
    for v in verdicts:
        if v.status in NOT_RECORDED:
            continue
        new = signature(v.status, v.kind, v.detail)
        old = lines.get(key(v))
        if varying:
            if old is None or accepts(old, new):
                continue
            new = VARIES
        if old != new:
            changed += 1
        lines[key(v)] = new
    head = [
        f"# Expected verdicts on MindSpore {version} (CPU): written by the gate with --record,",
        "# reviewed in the diff. One line per workload, strategy, code shape and mode.",
        "\t".join(HEADER),
    ]
    body = ["\t".join([*k, s]) for k, s in sorted(lines.items())]
    write_text_atomic(path, "\n".join([*head, *body]) + "\n")
    return changed

"""Expected verdicts per MindSpore release: a reviewed snapshot, not part of any strategy file.

What a strategy does in a mode is an observation of one MindSpore release; it changes with every
release and every new shape. So the verdicts the suite expects live in
``expected/mindspore-<version>.tsv``: one line per workload × strategy × shape × mode with the
verdict's signature (``works``, ``incorrect: write dropped``, ``raises: RuntimeError: ...``).
Releases whose verdicts are the same share one file, named by all of them
(``expected/mindspore-2.8.0+2.9.0+2.10.0.tsv``; ``merge`` makes it). A run compares its final
verdicts with the file of the release it ran on; ``--record`` rewrites the lines of the cells it
covered (the diff is what a reviewer reads); a release whose lines change is split out of the
file it shared into a file of its own first. A cell recorded as
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


def releases_of(path: Path) -> list[str]:
    """The releases an expected file holds for, from its name: ``mindspore-A+B+C.tsv``."""
    return Path(path).name.removeprefix("mindspore-").removesuffix(".tsv").split("+")


def _name(releases: list[str]) -> str:
    return "mindspore-" + "+".join(sorted(releases, key=_version)) + ".tsv"


def _version(v: str) -> tuple:
    return tuple(int(x) if x.isdigit() else x for x in v.split("."))


def path_for(version: str, folder: Path = EXPECTED_DIR) -> Path:
    """The file holding ``version``'s verdicts: the one whose name lists it, else (a release
    not recorded yet) ``mindspore-<version>.tsv``."""
    for path in sorted(Path(folder).glob("mindspore-*.tsv")):
        if version in releases_of(path):
            return path
    return Path(folder) / _name([version])


def read(path: Path) -> dict[tuple[str, str, str, str], str]:
    """{(workload, strategy, shape, mode): signature}; {} when the file does not exist."""
    if not Path(path).is_file():
        return {}
    return parse(Path(path).read_text(encoding="utf-8"))


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
    verdict now differs from it as varying (a second run that saw them otherwise). Where the file
    holds for other releases too and a line changes, ``version`` gets a file of its own
    (``mindspore-<version>.tsv``) and the shared file is renamed without it."""
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
    path = Path(path)
    shared = releases_of(path) if path.is_file() else [version]
    if changed and len(shared) > 1 and version in shared:
        rest = [r for r in shared if r != version]
        write(path.with_name(_name(rest)), read(path), rest)
        path.unlink()
        path, shared = path.with_name(_name([version])), [version]
    write(path, lines, shared)
    return changed


def parse(text: str) -> dict[tuple[str, str, str, str], str]:
    out = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if tuple(parts) == HEADER or len(parts) != len(HEADER):
            continue
        out[tuple(parts[:4])] = parts[4]
    return out


def write(path: Path, lines: dict, releases: list[str]) -> None:
    """An expected file: its header (the releases it holds for) and one line per cell."""
    names = sorted(releases, key=_version)
    which = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    head = [
        f"# Expected verdicts on MindSpore {which} (CPU): written by the gate with --record,",
        "# reviewed in the diff. One line per workload, strategy, code shape and mode.",
        "\t".join(HEADER),
    ]
    body = ["\t".join([*k, s]) for k, s in sorted(lines.items())]
    write_text_atomic(path, "\n".join([*head, *body]) + "\n")


def merge(folder: Path = EXPECTED_DIR) -> list[Path]:
    """Files of ``folder`` with the same lines become one file named by all their releases;
    returns the files written."""
    groups: dict[tuple, list[Path]] = {}
    for path in sorted(Path(folder).glob("mindspore-*.tsv")):
        groups.setdefault(tuple(sorted(read(path).items())), []).append(path)
    written = []
    for lines, files in groups.items():
        if len(files) < 2:
            continue
        releases = [r for f in files for r in releases_of(f)]
        out = Path(folder) / _name(releases)
        write(out, dict(lines), releases)
        for f in files:
            if f != out:
                f.unlink()
        written.append(out)
    return written


if __name__ == "__main__":  # python -m bench.core.expected: merge the files that agree
    for merged in merge():
        print(f"wrote {merged}")

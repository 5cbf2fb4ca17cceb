"""A committed run is one file: ``<results>/raw/<run-id>.tar.xz``, read through a local cache.

A run being written, or a user's own run, is a folder (``<results>/raw/<run-id>/``); committing
a run means packing it (``python -m bench.core.archive pack RUN_DIR``), which writes the archive
beside the folder. Packing is deterministic: members sorted, mtime 0, uid/gid 0, no owner names,
mode 0644 (0755 for folders), so packing the same data twice gives the same bytes. What is
regenerated from the run is left out (``variants/``, ``logs/``, ``report/``).

Reading: ``paths.runs`` and ``paths.find_run`` turn an archive into a folder, extracted on first
read into ``.cache/runs/<sha256 of the archive, 16 hex>/<run-id>/`` (git-ignored; a changed
archive has another hash, so it is extracted again). Extraction goes to a temporary folder
that is then renamed, so concurrent readers each see a whole run or none.

Reused gate verdicts as pointers: a run that reuses a verdict of identical code
(``bench.run.gate_cache``) writes a copy of it into ``gate/<mode>.r<N>.reused.jsonl``. In an
archive each copy that another committed run holds whole is one pointer line in
``gate/<mode>.r<N>.reused.jsonl.pointers`` instead (the file starts with the sha256 of the
file it stands for): the run holding the record, its gate file and line, and the ``reused`` and
``replica`` the copy carries (and ``"same": true`` where the line it names is the copy's own
line, read back without parsing). Extraction writes the file back, byte for byte (the hash is
checked); a pointer to a run that is not present is an error naming that run (``MissingRun``).

A run holds a record whole where it gated it, or where it keeps a whole copy of it: a verdict
reused from a run that was not committed (the clip references and back-to-back runs all reused
run 72d0's, which is not) is kept whole once, by the earliest committed run that copied it, and
the later runs point to that copy (2026-12-07: 0.13 MB of each back-to-back archive's 0.26 MB). A
pointer never names a later run's copy, and a copy another archive points to stays whole when its
run is packed again, so pointers never chain or go round.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import lzma
import os
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

SUFFIX = ".tar.xz"
POINTERS = ".pointers"  # gate/<mode>.r<N>.reused.jsonl.pointers
SKIPPED = ("variants", "logs", "report")  # regenerated from the run: never packed
PRESET = 9  # xz -9: 64 MiB window, so a run's copies of one record are stored once


class ArchiveError(ValueError):
    """An archive that cannot be read as a run."""


class MissingRun(ArchiveError):
    """A pointer names a run that is not present."""

    def __init__(self, run_id: str, archive: Path | str):
        self.run_id = run_id
        super().__init__(
            f"{Path(archive).name}: reused verdicts point to run {run_id}, which is not present "
            f"(neither results/**/raw/{run_id}/ nor results/**/raw/{run_id}{SUFFIX})"
        )


def cache_root() -> Path:
    from bench.core.paths import ROOT

    return Path(os.environ.get("BENCH_RUN_CACHE") or ROOT / ".cache" / "runs")


def is_archive(path: Path | str) -> bool:
    return Path(path).name.endswith(SUFFIX) and Path(path).is_file()


def run_id_of(archive: Path | str) -> str:
    return Path(archive).name[: -len(SUFFIX)]


def archive_of(run_dir: Path | str) -> Path:
    """Where ``pack`` writes a run folder's archive: beside it, ``<raw>/<run-id>.tar.xz``."""
    run_dir = Path(run_dir)
    return run_dir.parent / f"{run_dir.name}{SUFFIX}"


# --- reading -----------------------------------------------------------------------------------


_HASHES: dict[tuple, str] = {}


def _digest(path: Path) -> str:
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _HASHES:
        _HASHES[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return _HASHES[key]


def extracted(archive: Path | str) -> Path:
    """The run folder of ``archive``, extracted into the cache if it is not there yet."""
    archive = Path(archive)
    run_id = run_id_of(archive)
    home = cache_root() / _digest(archive)[:16]
    out = home / run_id
    if (out / "manifest.json").is_file():
        return out
    home.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{run_id}.", dir=home))
    try:
        _extract(archive, run_id, tmp)
        try:
            os.rename(tmp / run_id, out)
        except OSError:  # another reader finished first: theirs is the same run
            if not (out / "manifest.json").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def _members(archive: Path) -> dict[str, bytes]:
    """{path inside the run: bytes} of every file of the archive."""
    out = {}
    try:
        with tarfile.open(archive, "r:xz") as tar:
            for m in tar.getmembers():
                if not m.isfile():
                    continue
                top, _, rest = m.name.partition("/")
                if top != run_id_of(archive) or not rest or ".." in Path(rest).parts:
                    raise ArchiveError(f"{archive.name}: member {m.name!r} is outside the run")
                out[rest] = tar.extractfile(m).read()
    except (tarfile.TarError, lzma.LZMAError, EOFError) as err:
        raise ArchiveError(f"{archive.name}: not a readable run archive ({err})") from err
    if "manifest.json" not in out:
        raise ArchiveError(f"{archive.name}: no manifest.json")
    return out


def _extract(archive: Path, run_id: str, into: Path) -> None:
    files = _members(archive)
    resolved = resolve_pointers(files, archive)
    for rel, data in sorted(resolved.items()):
        target = into / run_id / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


@functools.lru_cache(maxsize=8)
def _held_in(path: str, size: int, mtime_ns: int) -> dict[str, list[str]]:
    return held_files(Path(path))


def _held(run: Path) -> dict[str, list[str]]:
    """``held_files`` of a run a pointer names, an archive read once a process while it is
    unchanged: most back-to-back runs point to one run's copy, and extracting every committed
    run read that run's 13 MB of verdicts once for each (20 s against 7.5 s from a cold cache,
    2026-12-07). Read only."""
    if not is_archive(run):
        return held_files(run)
    stat = run.stat()
    return _held_in(str(run.resolve()), stat.st_size, stat.st_mtime_ns)


def _pointer_lines(data: bytes) -> list[dict]:
    """A pointer file's lines: its head (the sha256), then one per copy."""
    return [json.loads(t) for t in data.decode().splitlines()]


def resolve_pointers(files: dict[str, bytes], archive: Path) -> dict[str, bytes]:
    """``files`` with each ``*.pointers`` file replaced by the copies it points to."""
    out = {k: v for k, v in files.items() if not k.endswith(POINTERS)}
    gated: dict[str, dict[str, list[str]]] = {}
    for rel in sorted(k for k in files if k.endswith(POINTERS)):
        head, *body = _pointer_lines(files[rel])
        lines = []
        for n, line in enumerate(body, 2):
            if "inline" in line:  # a copy no committed run holds
                lines.append(line["inline"])
                continue
            target = line["run"]
            if target not in gated:
                gated[target] = _held(_locate(target, archive))
            try:
                held = gated[target][line["file"]][line["line"]]
                record = None if line.get("same") else json.loads(held)
            except (KeyError, IndexError, ValueError):
                raise ArchiveError(
                    f"{archive.name}: {rel} line {n}: run {target} has no verdict at "
                    f"{line['file']} line {line['line'] + 1}"
                ) from None
            if record is None:  # the same line (the hash below still checks it)
                lines.append(held)
                continue
            lines.append(
                json.dumps({**record, "reused": line["reused"], "replica": line["replica"]})
            )
        text = "".join(t + "\n" for t in lines).encode()
        if hashlib.sha256(text).hexdigest() != head["sha256"]:
            runs = sorted({x["run"] for x in body if "run" in x})
            raise ArchiveError(
                f"{archive.name}: {rel}: the verdicts found in run(s) {', '.join(runs)} are not "
                "the ones this run reused (sha256 differs)"
            )
        out[rel[: -len(POINTERS)]] = text
    return out


def _locate(run_id: str, archive: Path) -> Path:
    """The folder or archive of run ``run_id``: beside ``archive`` first, then anywhere under
    ``results/``; ``MissingRun`` when it is in neither."""
    from bench.core.paths import RESULTS_DIR

    for raw in [archive.parent, *sorted(RESULTS_DIR.glob("**/raw"))]:
        if (raw / run_id / "manifest.json").is_file():
            return raw / run_id
        if (raw / f"{run_id}{SUFFIX}").is_file():
            return raw / f"{run_id}{SUFFIX}"
    raise MissingRun(run_id, archive)


def _is_held(rel: str) -> bool:
    """A gate file that holds its verdicts whole: gated in that run, or a whole copy of verdicts
    reused from another (not a file of pointers)."""
    return rel.startswith("gate/") and rel.endswith(".jsonl")


def is_copy(rel: str) -> bool:
    """A gate file of verdicts reused from another run (``bench.run.gate_cache``)."""
    return ".reused." in rel


def held_files(run: Path, files: dict[str, bytes] | None = None) -> dict[str, list[str]]:
    """{gate file: its lines} of the verdicts ``run`` (a folder or an archive; ``files``: its
    members, if read already) holds whole, gated files first; read without resolving its own
    pointers."""
    if files is not None:
        files = {k: v for k, v in files.items() if _is_held(k)}
    elif is_archive(run):
        files = {k: v for k, v in _members(run).items() if _is_held(k)}
    else:
        files = {
            p.relative_to(run).as_posix(): p.read_bytes()
            for p in sorted((run / "gate").glob("*.jsonl"))
        }
    order = sorted(files, key=lambda rel: (is_copy(rel), rel))
    return {k: files[k].decode(errors="replace").splitlines() for k in order}


def held_records(
    run: Path, files: dict[str, bytes] | None = None
) -> dict[tuple[str, int], tuple[str, int, dict, str]]:
    """{(cache key, replica): (gate file, line index, record, the line)} of what ``run`` holds
    whole (a record it gated, before a copy)."""
    out: dict[tuple[str, int], tuple[str, int, dict, str]] = {}
    for rel, lines in held_files(run, files).items():
        for n, text in enumerate(lines):
            try:
                record = json.loads(text)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("cache_key"):
                key = (record["cache_key"], record.get("replica", 0))
                out.setdefault(key, (rel, n, record, text))
    return out


# --- packing -----------------------------------------------------------------------------------


def _files(run_dir: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(run_dir.rglob("*")):
        rel = p.relative_to(run_dir).as_posix()
        if p.is_file() and rel.split("/")[0] not in SKIPPED and not rel.endswith(".partial.jsonl"):
            out[rel] = p.read_bytes()
    return out


def as_pointers(
    files: dict[str, bytes], targets: dict[str, dict], run_id: str = "", keep=frozenset()
) -> dict[str, bytes]:
    """``files`` (run ``run_id``'s) with every reused gate file written as pointers where one of
    ``targets`` ({run id: its ``held_records``}) holds the record the copy was made from (the
    origin the copy names first; another run's whole copy only if that run is earlier than
    ``run_id``): a first line with the sha256 of the file the pointers give back, then one line
    per copy, ``{"run", "file", "line", "reused", "replica"}``, or ``{"inline": the copy's
    line}`` where no target holds it. The files in ``keep`` (that other archives point to) stay
    whole."""
    out = dict(files)
    for rel in sorted(files):
        if not (rel.startswith("gate/") and rel.endswith(".reused.jsonl")) or rel in keep:
            continue
        texts = files[rel].decode(errors="replace").splitlines()
        if "".join(t + "\n" for t in texts).encode() != files[rel]:
            continue  # not whole lines (a torn last line): kept as it is
        lines, pointed = [], 0
        for text in texts:
            try:
                record = json.loads(text)
            except ValueError:
                record = {}
            key = (record.get("cache_key"), record.get("replica", 0))
            origin = record.get("reused")
            line = None
            for target in [origin, *sorted(t for t in targets if t != origin)]:
                found = targets.get(target, {}).get(key)
                if found is None or (is_copy(found[0]) and not (run_id and target < run_id)):
                    continue  # a later run's copy may be packed as pointers itself one day
                gate_file, n, held, raw = found
                if json.dumps({**held, "reused": origin, "replica": record.get("replica")}) == text:
                    line = {"run": target, "file": gate_file, "line": n, "reused": origin}
                    line["replica"] = record.get("replica")
                    if raw == text:  # a whole copy of the same line: read back as it is
                        line["same"] = True
                    pointed += 1
                    break
            lines.append(line if line is not None else {"inline": text})
        if pointed:
            del out[rel]
            head = {"sha256": hashlib.sha256(files[rel]).hexdigest()}
            out[rel + POINTERS] = "".join(json.dumps(x) + "\n" for x in [head, *lines]).encode()
    return out


def tar_bytes(run_id: str, files: dict[str, bytes]) -> bytes:
    """The xz-compressed tar of ``files`` under ``<run_id>/``: the same files, the same bytes."""
    buf = io.BytesIO()
    folders = {"/".join(r.split("/")[:i]) for r in files for i in range(1, r.count("/") + 1)}
    entries = {run_id: None, **{f"{run_id}/{d}": None for d in folders}}
    entries.update({f"{run_id}/{r}": data for r, data in files.items()})
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(entries):  # a folder sorts before what it holds
            info = tarfile.TarInfo(name)
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if entries[name] is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            else:
                info.size, info.mode = len(entries[name]), 0o644
                tar.addfile(info, io.BytesIO(entries[name]))
    return lzma.compress(
        buf.getvalue(), format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=PRESET
    )


def committed(exclude: str = "") -> tuple[dict[str, dict], set[tuple[str, str]]]:
    """Of every archived run under ``results/`` but ``exclude``: {run id: its held records}
    (what a pointer may name: a run that is committed), and the {(run id, gate file)} their
    pointers name."""
    from bench.core.paths import RESULTS_DIR

    targets, named = {}, set()
    for archive in sorted(RESULTS_DIR.glob(f"**/raw/*{SUFFIX}")):
        if run_id_of(archive) == exclude:
            continue
        files = _members(archive)
        targets[run_id_of(archive)] = held_records(archive, files)
        for rel in (k for k in files if k.endswith(POINTERS)):
            _, *body = _pointer_lines(files[rel])
            named.update((line["run"], line["file"]) for line in body if "run" in line)
    return targets, named


def pack(
    run_dir: Path | str,
    out: Path | str | None = None,
    targets: dict | None = None,
    keep: set[str] | None = None,
) -> Path:
    """Write the archive of the run folder ``run_dir`` (default beside it); reused verdicts
    that a committed run (``targets``, default every archive under ``results/``) holds whole
    become pointers, but the gate files other archives point to (``keep``; found in them when
    ``targets`` is the default, else none). Checks that the archive reads back as the folder
    did before returning it."""
    from bench.core.io import write_bytes_atomic

    run_dir = Path(run_dir)
    if not (run_dir / "manifest.json").is_file():
        raise ArchiveError(f"{run_dir}: not a run folder (no manifest.json)")
    files = _files(run_dir)
    if targets is None:
        targets, named = committed(exclude=run_dir.name)
        keep = {f for r, f in named if r == run_dir.name} if keep is None else keep
    packed = as_pointers(files, targets, run_dir.name, frozenset(keep or ()))
    data = tar_bytes(run_dir.name, packed)
    out = Path(out) if out is not None else archive_of(run_dir)
    check = Path(tempfile.mkdtemp(prefix=".pack."))
    try:
        (check / f"{run_dir.name}{SUFFIX}").write_bytes(data)
        back = _members(check / f"{run_dir.name}{SUFFIX}")
        if back != packed:
            raise ArchiveError(f"{run_dir}: the archive does not read back as packed")
    finally:
        shutil.rmtree(check, ignore_errors=True)
    write_bytes_atomic(out, data)
    return out


def main(argv=None) -> int:
    """``python -m bench.core.archive pack RUN_DIR...`` | ``extract ARCHIVE...`` (prints the
    folder) | ``check``: every archive under results/ reads, every pointer resolves."""
    from bench.core.args import UsageError

    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        if not argv or argv[0] not in ("pack", "extract", "check"):
            raise UsageError(
                "usage: python -m bench.core.archive pack RUN_DIR... | extract ARCHIVE... | check"
            )
        command, args = argv[0], argv[1:]
        if command == "pack":
            if not args:
                raise UsageError("pack: name at least one run folder")
            for run in args:
                print(pack(run))
        elif command == "extract":
            for archive in args:
                if not is_archive(archive):
                    raise UsageError(f"{archive}: not a run archive (*{SUFFIX})")
                print(extracted(archive))
        else:
            from bench.core.paths import RESULTS_DIR

            found = sorted(RESULTS_DIR.glob(f"**/raw/*{SUFFIX}"))
            for archive in found:
                extracted(archive)
            print(f"{len(found)} archives read, every pointer resolved")
    except (UsageError, ArchiveError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

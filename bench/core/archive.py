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
archive each copy that another committed run gated itself is one pointer line in
``gate/<mode>.r<N>.reused.jsonl.pointers`` instead (the file starts with the sha256 of the
file it stands for): the run holding the record, its gate file and line, and the ``reused`` and
``replica`` the copy carries. Extraction writes the file back, byte for byte (the hash is
checked); a pointer to a run that is
not present is an error naming that run (``MissingRun``). A copy no committed run holds (a
reference reusing a verdict from a run that was not committed) stays inline.
"""

from __future__ import annotations

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


def resolve_pointers(files: dict[str, bytes], archive: Path) -> dict[str, bytes]:
    """``files`` with each ``*.pointers`` file replaced by the copies it points to."""
    out = {k: v for k, v in files.items() if not k.endswith(POINTERS)}
    gated: dict[str, dict[str, list[str]]] = {}
    for rel in sorted(k for k in files if k.endswith(POINTERS)):
        head, *body = [json.loads(t) for t in files[rel].decode().splitlines()]
        lines = []
        for n, line in enumerate(body, 2):
            if "inline" in line:  # a copy no committed run holds
                lines.append(line["inline"])
                continue
            target = line["run"]
            if target not in gated:
                gated[target] = gated_files(_locate(target, archive))
            try:
                record = json.loads(gated[target][line["file"]][line["line"]])
            except (KeyError, IndexError, ValueError):
                raise ArchiveError(
                    f"{archive.name}: {rel} line {n}: run {target} has no verdict at "
                    f"{line['file']} line {line['line'] + 1}"
                ) from None
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


def _is_gated(rel: str) -> bool:
    """A gate file with verdicts gated in that run (not copies reused from another)."""
    return rel.startswith("gate/") and rel.endswith(".jsonl") and ".reused." not in rel


def gated_files(run: Path) -> dict[str, list[str]]:
    """{gate file: its lines} of the verdicts ``run`` (a folder or an archive) gated itself; read
    without resolving its own pointers (so two runs may point at each other)."""
    if is_archive(run):
        files = {k: v for k, v in _members(run).items() if _is_gated(k)}
    else:
        files = {
            p.relative_to(run).as_posix(): p.read_bytes()
            for p in sorted((run / "gate").glob("*.jsonl"))
            if _is_gated(p.relative_to(run).as_posix())
        }
    return {k: v.decode(errors="replace").splitlines() for k, v in sorted(files.items())}


def gated_records(run: Path) -> dict[tuple[str, int], tuple[str, int, dict]]:
    """{(cache key, replica): (gate file, line index, record)} of what ``run`` gated itself."""
    out: dict[tuple[str, int], tuple[str, int, dict]] = {}
    for rel, lines in gated_files(run).items():
        for n, text in enumerate(lines):
            try:
                record = json.loads(text)
            except ValueError:
                continue
            if isinstance(record, dict) and record.get("cache_key"):
                out.setdefault((record["cache_key"], record.get("replica", 0)), (rel, n, record))
    return out


# --- packing -----------------------------------------------------------------------------------


def _files(run_dir: Path) -> dict[str, bytes]:
    out = {}
    for p in sorted(run_dir.rglob("*")):
        rel = p.relative_to(run_dir).as_posix()
        if p.is_file() and rel.split("/")[0] not in SKIPPED and not rel.endswith(".partial.jsonl"):
            out[rel] = p.read_bytes()
    return out


def as_pointers(files: dict[str, bytes], targets: dict[str, dict]) -> dict[str, bytes]:
    """``files`` (a run's) with every reused gate file written as pointers where one of
    ``targets`` ({run id: its ``gated_records``}) holds the record the copy was made from (the
    origin the copy names first): a first line with the sha256 of the file the pointers give
    back, then one line per copy, ``{"run", "file", "line", "reused", "replica"}``, or
    ``{"inline": the copy's line}`` where no target holds it."""
    out = dict(files)
    for rel in sorted(files):
        if not (rel.startswith("gate/") and rel.endswith(".reused.jsonl")):
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
                if found is None:
                    continue
                gate_file, n, held = found
                if json.dumps({**held, "reused": origin, "replica": record.get("replica")}) == text:
                    line = {"run": target, "file": gate_file, "line": n, "reused": origin}
                    line["replica"] = record.get("replica")
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


def committed_targets(exclude: str = "") -> dict[str, dict[tuple[str, int], dict]]:
    """{run id: gated records} of every archived run under ``results/`` (what a pointer may
    name: a run that is committed), but ``exclude``."""
    from bench.core.paths import RESULTS_DIR

    out = {}
    for archive in sorted(RESULTS_DIR.glob(f"**/raw/*{SUFFIX}")):
        if run_id_of(archive) != exclude:
            out[run_id_of(archive)] = gated_records(archive)
    return out


def pack(run_dir: Path | str, out: Path | str | None = None, targets: dict | None = None) -> Path:
    """Write the archive of the run folder ``run_dir`` (default beside it); reused verdicts
    that a committed run (``targets``, default every archive under ``results/``) gated become
    pointers. Checks that the archive reads back as the folder did before returning it."""
    from bench.core.io import write_bytes_atomic

    run_dir = Path(run_dir)
    if not (run_dir / "manifest.json").is_file():
        raise ArchiveError(f"{run_dir}: not a run folder (no manifest.json)")
    files = _files(run_dir)
    if targets is None:
        targets = committed_targets(exclude=run_dir.name)
    packed = as_pointers(files, targets)
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

"""Files are written atomically (temporary file, fsync, rename) and read as data only (json).

Text is UTF-8 with ``\n`` line ends whatever the platform's default (Windows: a locale code page
and ``\r\n``): ``write_text`` / ``read_text`` here, ``encoding="utf-8"`` wherever else a file is
opened as text (tests/unit/test_platforms.py checks every call in ``bench``)."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

_STAGES: list[dict] = []  # the open ``staged()`` blocks, innermost last: {path: bytes}
_REMOVED = object()  # a staged removal


@contextlib.contextmanager
def staged():
    """Hold every ``write_*_atomic`` inside the block and make them only when it ends without an
    error: a report that fails half-way leaves every file as it was (written whole or not at
    all). A file whose bytes are unchanged is left alone (no new mtime, no churn). Nested blocks
    hand their writes to the enclosing one."""
    stage: dict = {}
    _STAGES.append(stage)
    try:
        yield stage
    except BaseException:
        _STAGES.pop()
        raise
    _STAGES.pop()
    if _STAGES:
        _STAGES[-1].update(stage)
        return
    for path, data in stage.items():
        if data is _REMOVED:
            Path(path).unlink(missing_ok=True)
        else:
            _write_now(path, data)


def _staged(path: Path | str):
    key = Path(path).resolve()
    for stage in reversed(_STAGES):
        if key in stage:
            return stage[key]
    return None


def exists(path: Path | str) -> bool:
    """A file on disk, or one an open ``staged()`` block will write (and not one it removes)."""
    held = _staged(path)
    return Path(path).is_file() if held is None else held is not _REMOVED


def remove(path: Path | str) -> None:
    """Remove a file (inside ``staged()``: when the block ends without an error)."""
    if _STAGES:
        _STAGES[-1][Path(path).resolve()] = _REMOVED
    else:
        Path(path).unlink(missing_ok=True)


def write_bytes_atomic(path: Path | str, data: bytes) -> Path:
    """Write ``data`` to ``path`` so a reader sees the old file or the whole new one, never half
    (inside ``staged()``: when the block ends). Unchanged bytes are not written again."""
    path = Path(path)
    if _STAGES:
        _STAGES[-1][path.resolve()] = bytes(data)
        return path
    return _write_now(path, data)


def _write_now(path: Path, data: bytes) -> Path:
    try:
        if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
            return path
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def write_text_atomic(path: Path | str, text: str) -> Path:
    """UTF-8, whatever the platform's default; line endings as given (``\n``)."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_text(path: Path | str, text: str) -> Path:
    """``text`` into ``path`` as UTF-8, ``\n`` kept as it is (not atomic)."""
    path = Path(path)
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    return path


def read_text(path: Path | str, errors: str = "strict") -> str:
    """A text file as the suite writes it (UTF-8)."""
    return Path(path).read_text(encoding="utf-8", errors=errors)


def write_json_atomic(path: Path | str, data) -> Path:
    return write_text_atomic(path, json.dumps(data, indent=1, default=str) + "\n")


def read_json(path: Path | str):
    """Parsed JSON; raises OSError or ValueError (json.JSONDecodeError) like ``json.loads``."""
    return json.loads(Path(path).read_text(encoding="utf-8"))

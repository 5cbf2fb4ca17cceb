"""Files are written atomically (temporary file, fsync, rename) and read as data only (json)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path


def write_bytes_atomic(path: Path | str, data: bytes) -> Path:
    """Write ``data`` to ``path`` so a reader sees the old file or the whole new one, never half."""
    path = Path(path)
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
    return write_bytes_atomic(path, text.encode())


def write_json_atomic(path: Path | str, data) -> Path:
    return write_text_atomic(path, json.dumps(data, indent=1, default=str) + "\n")


def read_json(path: Path | str):
    """Parsed JSON; raises OSError or ValueError (json.JSONDecodeError) like ``json.loads``."""
    return json.loads(Path(path).read_text())

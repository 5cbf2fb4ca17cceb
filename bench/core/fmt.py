"""Markdown and numbers: tables that render as a Git host renders them, one unit per table.

GitHub-flavoured Markdown ends a table cell at every unescaped ``|`` and a row at a newline, so
every cell is escaped here; ``tests/test_report.py`` parses each generated table with
markdown-it-py's GFM table rule and checks the cell counts.
"""

from __future__ import annotations

import math


def cell(value) -> str:
    """One table cell: pipes escaped, line breaks and surrounding space removed."""
    text = " ".join(str(value).split())
    return text.replace("\\|", "|").replace("|", "\\|")


def table(header: list, rows: list[list]) -> list[str]:
    """A GFM table as lines (followed by a blank line)."""
    width = len(header)
    for row in rows:
        if len(row) != width:
            raise ValueError(f"row has {len(row)} cells, header {width}: {row!r}")
    lines = ["| " + " | ".join(cell(h) for h in header) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return [*lines, ""]


def num(value: float) -> str:
    """Three significant digits (more above 1000), without scientific notation."""
    if value is None or not math.isfinite(value):
        return "–"
    digits = 0 if abs(value) >= 99.95 else 1 if abs(value) >= 9.995 else 2
    return f"{value:,.{digits}f}"


def ratio(r: float, low: float, high: float) -> str:
    """An overhead ratio with its interval, e.g. ``×1.02 [0.99, 1.05]``."""
    if not math.isfinite(r):
        return "–"
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"×{r:.2f}"
    return f"×{r:.2f} [{low:.2f}, {high:.2f}]"


def duration(seconds: float) -> str:
    """A time with its own unit: ns, µs, ms or s, three significant digits."""
    if seconds is None or not math.isfinite(seconds):
        return "–"
    size = abs(seconds)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if size >= scale:
            return f"{num(seconds / scale)} {unit}"
    return f"{num(seconds / 1e-9)} ns"


def signed(seconds: float, low: float = math.nan, high: float = math.nan) -> str:
    """Time added per step with its interval: ``+12 µs [+8, +15]`` (the interval in that unit)."""
    if not math.isfinite(seconds):
        return "–"
    size = max(abs(seconds), abs(low) if math.isfinite(low) else 0, 1e-9)
    unit, scale = next(
        ((u, s) for u, s in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)) if size >= s), ("ns", 1e-9)
    )
    text = f"{seconds / scale:+.{_digits(seconds / scale)}f} {unit}"
    if math.isfinite(low) and math.isfinite(high):
        d = _digits(max(abs(low), abs(high)) / scale)
        text += f" [{low / scale:+.{d}f}, {high / scale:+.{d}f}]"
    return text


def _digits(value: float) -> int:
    return 0 if abs(value) >= 99.95 else 1 if abs(value) >= 9.995 else 2


def code(text: str) -> str:
    return f"`{text}`"


def anchor(title: str) -> str:
    """The id GitHub gives a heading (lowercase, spaces to dashes, punctuation dropped)."""
    keep = "".join(ch for ch in title.lower() if ch.isalnum() or ch in " -_")
    return keep.replace(" ", "-")


def command(text: str) -> str:
    """A run's command as a page prints it: a folder given as an absolute path becomes ``DIR``
    (a page names no path of the machine that made the run; ``portable.command``)."""
    from bench.core import portable

    return portable.command(text)

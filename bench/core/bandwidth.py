"""The physical floor of an update: bytes moved at the memory bandwidth a run measured
(``bench.run.bandwidth`` measures it; the report only reads it)."""

from __future__ import annotations


def floor_seconds(bandwidth: dict, bytes_moved: int, kernel: str = "copy") -> float:
    """Seconds to move ``bytes_moved`` at the bandwidth measured for the nearest size above it."""
    points = sorted(bandwidth.get("points", []), key=lambda p: p["array_bytes"])
    if not points or not bytes_moved:
        return float("nan")
    at = next((p for p in points if p["array_bytes"] >= bytes_moved), points[-1])
    return bytes_moved / (at[f"{kernel}_GBs"] * 1e9)

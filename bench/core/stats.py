"""Statistics on raw timings (NumPy only, so the report needs no MindSpore).

The update overhead is the median of per-round ratios (strategy block / paired control block).
Its 95 % interval comes from a two-level (hierarchical) bootstrap: resample the worker processes,
then the rounds within each, so the interval covers between-process spread as well as
within-process noise (Davison & Hinkley 1997, ch. 3.8; see ../shared/DESIGN.md §4). Percentile
intervals; the resampling is vectorized over replicates (groups padded with NaN).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CONFIDENCE = 0.95
N_BOOTSTRAP = 2000
NOISY_IQR_FRACTION = 0.10  # torch.utils.benchmark flags IQR/median above 10 %


def _groups(groups: Sequence[Sequence[float]]) -> list[np.ndarray]:
    return [np.asarray(g, dtype=float) for g in groups if len(g)]


def _replicate_medians(groups: list[np.ndarray], n_boot: int, rng) -> np.ndarray:
    """Median of each of ``n_boot`` two-level resamples (processes, then rounds)."""
    sizes = np.array([len(g) for g in groups])
    padded = np.full((len(groups), sizes.max()), np.nan)
    for i, g in enumerate(groups):
        padded[i, : len(g)] = g
    slots = []
    for _ in range(len(groups)):  # each replicate draws as many processes as there are
        picked = rng.integers(len(groups), size=n_boot)
        n = sizes[picked][:, None]
        cols = np.arange(sizes.max())[None, :]
        draws = (rng.random((n_boot, sizes.max())) * n).astype(int)
        values = padded[picked[:, None], draws]
        slots.append(np.where(cols < n, values, np.nan))
    return np.nanmedian(np.concatenate(slots, axis=1), axis=1)


def _interval(estimates: np.ndarray, confidence: float) -> tuple[float, float]:
    alpha = (1 - confidence) / 2
    low, high = np.quantile(estimates, [alpha, 1 - alpha])
    return float(low), float(high)


def hierarchical_bootstrap(
    groups: Sequence[Sequence[float]],
    n_boot: int = N_BOOTSTRAP,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(median, low, high) of the pooled values of ``groups`` (one group per process)."""
    groups = _groups(groups)
    if not groups:
        return (np.nan, np.nan, np.nan)
    point = float(np.median(np.concatenate(groups)))
    rng = np.random.default_rng(seed)
    return (point, *_interval(_replicate_medians(groups, n_boot, rng), confidence))


def bootstrap_difference(
    a: Sequence[Sequence[float]],
    b: Sequence[Sequence[float]],
    n_boot: int = N_BOOTSTRAP,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Hierarchical-bootstrap interval of ``median(a) - median(b)`` (independent samples)."""
    a, b = _groups(a), _groups(b)
    if not a or not b:
        return (np.nan, np.nan, np.nan)
    rng = np.random.default_rng(seed)
    point = float(np.median(np.concatenate(a)) - np.median(np.concatenate(b)))
    diffs = _replicate_medians(a, n_boot, rng) - _replicate_medians(b, n_boot, rng)
    return (point, *_interval(diffs, confidence))


def iqr(values: Sequence[float]) -> float:
    q1, q3 = np.percentile(np.asarray(values, float), [25, 75])
    return float(q3 - q1)


def bootstrap_ratio(
    a: Sequence[Sequence[float]],
    b: Sequence[Sequence[float]],
    n_boot: int = N_BOOTSTRAP,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[float, float, float, float]:
    """``median(b) / median(a)`` with its interval and a two-sided bootstrap p-value.

    Processes are the unit (the two-level resampling), so rounds of one process are not counted
    as independent samples. The p-value is twice the smaller tail of the replicate ratios around
    1, at least 1 / n_boot."""
    a, b = _groups(a), _groups(b)
    if not a or not b:
        return (np.nan, np.nan, np.nan, np.nan)
    rng = np.random.default_rng(seed)
    point = float(np.median(np.concatenate(b)) / np.median(np.concatenate(a)))
    ratios = _replicate_medians(b, n_boot, rng) / _replicate_medians(a, n_boot, rng)
    low, high = _interval(ratios, confidence)
    tail = min(np.mean(ratios <= 1.0), np.mean(ratios >= 1.0))
    return point, low, high, float(min(1.0, max(2 * tail, 1.0 / n_boot)))

"""Statistics on raw timings (NumPy only, so the report needs no MindSpore).

The update overhead is the median of per-round ratios (strategy block / paired control block).
Its 95 % interval comes from a two-level (hierarchical) bootstrap: resample the worker processes,
then the rounds within each, so the interval covers between-process spread as well as
within-process noise (Davison & Hinkley 1997, ch. 3.8; see ../shared/DESIGN.md §4).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

CONFIDENCE = 0.95
N_BOOTSTRAP = 2000
NOISY_IQR_FRACTION = 0.10  # torch.utils.benchmark flags IQR/median above 10 %


def hierarchical_bootstrap(
    groups: Sequence[Sequence[float]],
    statistic=np.median,
    n_boot: int = N_BOOTSTRAP,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[float, float, float]:
    """(point estimate, low, high) of ``statistic`` over the pooled values of ``groups``."""
    groups = [np.asarray(g, dtype=float) for g in groups if len(g)]
    if not groups:
        return (np.nan, np.nan, np.nan)
    point = float(statistic(np.concatenate(groups)))
    rng = np.random.default_rng(seed)
    estimates = np.empty(n_boot)
    for b in range(n_boot):
        picked = rng.integers(len(groups), size=len(groups))
        sample = [rng.choice(groups[i], size=len(groups[i])) for i in picked]
        estimates[b] = statistic(np.concatenate(sample))
    alpha = (1 - confidence) / 2
    low, high = np.quantile(estimates, [alpha, 1 - alpha])
    return (point, float(low), float(high))


def bootstrap_difference(
    a: Sequence[Sequence[float]],
    b: Sequence[Sequence[float]],
    statistic=np.median,
    n_boot: int = N_BOOTSTRAP,
    confidence: float = CONFIDENCE,
    seed: int = 0,
) -> tuple[float, float, float]:
    """Hierarchical-bootstrap interval of ``statistic(a) - statistic(b)``."""
    rng = np.random.default_rng(seed)
    a = [np.asarray(g, float) for g in a if len(g)]
    b = [np.asarray(g, float) for g in b if len(g)]
    if not a or not b:
        return (np.nan, np.nan, np.nan)

    def resample(groups):
        picked = rng.integers(len(groups), size=len(groups))
        return statistic(np.concatenate([rng.choice(groups[i], len(groups[i])) for i in picked]))

    point = float(statistic(np.concatenate(a)) - statistic(np.concatenate(b)))
    diffs = np.array([resample(a) - resample(b) for _ in range(n_boot)])
    alpha = (1 - confidence) / 2
    low, high = np.quantile(diffs, [alpha, 1 - alpha])
    return (point, float(low), float(high))


def iqr(values: Sequence[float]) -> float:
    q1, q3 = np.percentile(np.asarray(values, float), [25, 75])
    return float(q3 - q1)

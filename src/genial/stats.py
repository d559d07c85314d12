"""Statistics the analyses share: Wilson intervals, Holm's correction, mean intervals.

>>> lo, hi = wilson_interval(50, 100)
>>> round(float(lo), 4), round(float(hi), 4)
(0.4038, 0.5962)
>>> holm([0.01, 0.04, 0.03]).round(3).tolist()
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["Z95", "holm", "mean_interval", "wilson_interval"]

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


def wilson_interval(
    successes: npt.ArrayLike, trials: npt.ArrayLike, z: float = Z95
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Wilson score interval for a binomial proportion (95% by default); exact at 0 and n
    (the interval always holds the observed proportion), NaN where there are no trials."""
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = np.where(n > 0, centre - half, np.nan)
    hi = np.where(n > 0, centre + half, np.nan)
    lo = np.where((k == 0) & (n > 0), 0.0, np.clip(lo, 0.0, 1.0))
    hi = np.where((k == n) & (n > 0), 1.0, np.clip(hi, 0.0, 1.0))
    return lo, hi


def holm(p_values: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Holm-Bonferroni adjusted p-values (step-down, monotone)."""
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.maximum.accumulate(adjusted)
    out = np.empty(m)
    out[order] = adjusted
    return out


def mean_interval(x: npt.NDArray[Any]) -> tuple[float, float, float]:
    """The mean with a 95% normal interval: ``(mean, lo, hi)`` (NaN bounds for n < 2)."""
    n = len(x)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = float(x.mean())
    half = Z95 * float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else math.nan
    return (mean, mean - half, mean + half)

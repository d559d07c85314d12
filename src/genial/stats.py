"""Statistics the analyses share: Wilson intervals, Holm's correction, mean intervals, and the
set of candidates that may be best (multiple comparisons with the best).

>>> lo, hi = wilson_interval(50, 100)
>>> round(float(lo), 4), round(float(hi), 4)
(0.4038, 0.5962)
>>> holm([0.01, 0.04, 0.03]).round(3).tolist()
[0.03, 0.06, 0.06]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = [
    "Z95",
    "Agreement",
    "BestSet",
    "best_set",
    "best_set_of_means",
    "holm",
    "kendall_tau",
    "mean_interval",
    "ranking_agreement",
    "wilson_interval",
]

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


@dataclass(frozen=True, eq=False)
class BestSet:
    """The candidates that may be best (``best_set``): ``mask[i]`` whether candidate ``i`` is
    in the set; ``lower[i]``/``upper[i]`` the simultaneous bounds on its mean minus the best
    of the others' (Hsu's MCB bounds: ``upper[i] < 0`` puts ``i`` out of the set,
    ``lower[i] > 0`` makes it the best alone, every other one out); ``confidence``;
    ``paired`` whether the differences were taken game by game."""

    mask: npt.NDArray[np.bool_]
    lower: npt.NDArray[np.float64]
    upper: npt.NDArray[np.float64]
    confidence: float
    paired: bool

    @property
    def size(self) -> int:
        """How many candidates may be best."""
        return int(self.mask.sum())

    def words(self, noun: str = "candidates") -> str:
        """The set in words, e.g. ``"3 of 164 classes are statistically tied for first (95%)"``."""
        share = f"{self.confidence:.0%}"
        if self.size == 1:
            return f"1 of {len(self.mask)} {noun} is best ({share}): no other may be"
        return f"{self.size} of {len(self.mask)} {noun} are statistically tied for first ({share})"


def best_set(
    samples: Sequence[npt.ArrayLike],
    *,
    confidence: float = 0.95,
    paired: bool = True,
    larger: bool = True,
) -> BestSet:
    """The candidates that may have the largest mean (the smallest with ``larger=False``),
    by multiple comparisons with the best (Hsu 1981; Hsu, *Multiple Comparisons*, 1996,
    ch. 4): candidate ``i`` stays unless, for some ``j``, the upper bound of mean(i) - mean(j)
    is below 0. The bounds are one-sided normal bounds at level ``(1 - confidence) / (k - 1)``
    (Bonferroni over the ``k - 1`` comparisons of each candidate, conservative against Hsu's
    Dunnett quantile), so **the best candidate is in the set with probability at least
    ``confidence``** (asymptotically in the games; with ties for best, every tied one).

    ``samples[i]`` holds candidate ``i``'s results (one per game). ``paired=True``: game ``g``
    of every candidate was played on the same random stream (common random numbers), so
    ``i`` and ``j`` are compared by the differences of their first ``min(n_i, n_j)`` games,
    whose spread is smaller when the games are alike; ``paired=False``: by Welch's standard
    error of two independent means. A comparison with fewer than 2 games cannot put anyone
    out.

    >>> rng = np.random.default_rng(1)
    >>> luck = rng.normal(size=400)  # what the candidates' games share
    >>> samples = [luck + 0.30, luck + 0.25, luck, luck - 0.2]
    >>> best_set([s + rng.normal(scale=0.1, size=400) for s in samples]).mask.tolist()
    [True, False, False, False]
    >>> result = best_set([s + rng.normal(scale=0.1, size=400) for s in samples], paired=False)
    >>> result.mask.tolist(), result.words("classes")
    ([True, True, False, False], '2 of 4 classes are statistically tied for first (95%)')
    """
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    data = [np.asarray(x, dtype=np.float64).ravel() for x in samples]
    k = len(data)
    if k == 0:
        raise ValueError("best_set needs at least one candidate")
    if not larger:
        data = [-x for x in data]
    if not paired:
        return best_set_of_means(
            [x.mean() if len(x) else math.nan for x in data],
            [x.var(ddof=1) if len(x) > 1 else math.inf for x in data],
            [len(x) for x in data],
            confidence=confidence,
        )
    lower = np.zeros(k)
    upper = np.zeros(k)
    if k > 1:
        t = NormalDist().inv_cdf(1.0 - (1.0 - float(confidence)) / (k - 1))
        diff, half = _paired_differences(data, t)
        upper, lower = _all_bounds(diff, half)
    mask = upper >= 0
    return BestSet(mask=mask, lower=lower, upper=upper, confidence=float(confidence), paired=paired)


def _paired_differences(
    data: Sequence[npt.NDArray[np.float64]], t: float
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``diff[i, j]``: the mean of ``data[i][g] - data[j][g]`` over their first
    ``m = min(n_i, n_j)`` games, and ``half[i, j]``: ``t`` times its standard error (NaN and
    inf where ``m`` is too small). By sums and products per common length (a few matrix
    products, not a loop over the pairs): a difference's sum of squares is
    ``sum a^2 + sum b^2 - 2 sum ab``."""
    k = len(data)
    counts = np.array([len(x) for x in data])
    common = np.minimum.outer(counts, counts)
    diff = np.full((k, k), np.nan)
    spread = np.full((k, k), np.nan)
    for length in np.unique(counts):
        if length == 0:
            continue
        rows = np.flatnonzero(counts >= length)
        block = np.stack([data[int(r)][:length] for r in rows])
        s1 = block.sum(axis=1)
        s2 = np.einsum("ij,ij->i", block, block)
        cross = block @ block.T
        mean = (s1[:, None] - s1[None, :]) / length
        squares = s2[:, None] + s2[None, :] - 2.0 * cross
        if length > 1:
            var = np.maximum(squares - length * mean * mean, 0.0) / (length - 1)
        else:
            var = np.full_like(mean, np.inf)
        here = common[np.ix_(rows, rows)] == length
        grid = np.ix_(rows, rows)
        diff[grid] = np.where(here, mean, diff[grid])
        spread[grid] = np.where(here, var, spread[grid])
    with np.errstate(divide="ignore", invalid="ignore"):
        half = np.where(common > 1, t * np.sqrt(spread / np.maximum(common, 1)), np.inf)
    return diff, half


def _all_bounds(
    diff: npt.NDArray[np.float64], half: npt.NDArray[np.float64]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Every candidate's MCB bounds from its differences to the others (``diff[i, j]``) and
    their half widths: ``(upper, lower)``, each the minimum over ``j != i`` (a NaN difference,
    no common game, bounds nothing)."""
    with np.errstate(invalid="ignore"):
        hi = np.where(np.isnan(diff), np.inf, diff + half)
        lo = np.where(np.isnan(diff), -np.inf, diff - half)
    np.fill_diagonal(hi, np.inf)
    np.fill_diagonal(lo, np.inf)
    return hi.min(axis=1), lo.min(axis=1)


def best_set_of_means(
    means: npt.ArrayLike,
    variances: npt.ArrayLike,
    counts: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    larger: bool = True,
) -> BestSet:
    """``best_set(..., paired=False)`` from each candidate's mean, sample variance and number
    of games (what a table of independent candidates keeps): candidate ``i`` is out when
    ``mean_i - mean_j + t * sqrt(var_i / n_i + var_j / n_j) < 0`` for some ``j``.

    >>> best_set_of_means([0.55, 0.52, 0.40], [0.25, 0.25, 0.24], [1000, 1000, 1000]).mask.tolist()
    [True, True, False]
    """
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}")
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    mean = np.asarray(means, dtype=np.float64).ravel()
    if not larger:
        mean = -mean
    spread = np.asarray(variances, dtype=np.float64).ravel()
    n = np.asarray(counts, dtype=np.float64).ravel()
    k = len(mean)
    if k == 0:
        raise ValueError("best_set needs at least one candidate")
    if len(spread) != k or len(n) != k:
        raise ValueError("means, variances and counts must have one value per candidate")
    lower = np.zeros(k)
    upper = np.zeros(k)
    if k > 1:
        t = NormalDist().inv_cdf(1.0 - (1.0 - float(confidence)) / (k - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where((n > 1) & np.isfinite(spread), spread / np.maximum(n, 1), np.inf)
            diff = mean[:, None] - mean[None, :]
            half = t * np.sqrt(share[:, None] + share[None, :])
        upper, lower = _all_bounds(diff, half)
    mask = upper >= 0
    return BestSet(mask=mask, lower=lower, upper=upper, confidence=float(confidence), paired=False)


def kendall_tau(x: npt.ArrayLike, y: npt.ArrayLike) -> float:
    """Kendall's tau-b between two score vectors (ties counted as neither agreeing nor
    disagreeing, tau-b's correction for ties); NaN when either vector is constant.

    >>> kendall_tau([1, 2, 3, 4], [1, 3, 2, 4])
    0.6666666666666666
    """
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"kendall_tau needs two vectors of one length, got {a.shape}, {b.shape}")
    i, j = np.triu_indices(len(a), k=1)
    da, db = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    ties_a, ties_b = float(np.count_nonzero(da)), float(np.count_nonzero(db))
    if ties_a == 0 or ties_b == 0:
        return math.nan
    return float((da * db).sum() / math.sqrt(ties_a * ties_b))


@dataclass(frozen=True)
class Agreement:
    """How far two rankings of the same candidates agree (``ranking_agreement``): Kendall's
    ``tau`` between their estimates and ``overlap``, how many of each one's ``top`` best are
    among the other's ``top`` best, each with its ``confidence`` interval (basic bootstrap,
    ``draws`` parametric replicates of both tables), and ``tau_same`` and ``overlap_same``,
    what the two would be on average at these sample sizes if the true rankings were the same:
    the most the noise lets the estimates show."""

    tau: float
    tau_lo: float
    tau_hi: float
    overlap: int
    overlap_lo: float
    overlap_hi: float
    tau_same: float
    overlap_same: float
    top: int
    candidates: int
    draws: int
    confidence: float

    def words(self) -> str:
        """The agreement in a sentence."""
        return (
            f"Kendall's tau {self.tau:.2f} [{self.tau_lo:.2f}, {self.tau_hi:.2f}] over "
            f"{self.candidates} candidates ({self.tau_same:.2f} if the true rankings were the "
            f"same); {self.overlap} of the top {self.top} shared [{self.overlap_lo:.0f}, "
            f"{self.overlap_hi:.0f}] ({self.overlap_same:.1f} if the same) ({self.confidence:.0%},"
            f" {self.draws:,} bootstrap draws)"
        )


def _top_overlap(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], top: int) -> int:
    """How many of ``a``'s ``top`` largest are among ``b``'s (ties broken by position)."""
    first = np.argsort(-a, kind="stable")[:top]
    second = np.argsort(-b, kind="stable")[:top]
    return len(np.intersect1d(first, second))


def ranking_agreement(
    mean_a: npt.ArrayLike,
    error_a: npt.ArrayLike,
    mean_b: npt.ArrayLike,
    error_b: npt.ArrayLike,
    *,
    top: int = 10,
    draws: int = 2000,
    seed: Any = 0,
    confidence: float = 0.95,
    games_a: npt.ArrayLike | None = None,
    games_b: npt.ArrayLike | None = None,
) -> Agreement:
    """The agreement of two tables' rankings of the same candidates (entry ``i`` of each the
    same candidate): Kendall's tau-b between the estimates ``mean_a`` and ``mean_b`` and the
    overlap of their ``top`` best, with percentile intervals from a parametric bootstrap:
    each replicate redraws every estimate of both tables from its sampling distribution
    (``games_a``/``games_b`` given: binomial, ``mean`` a proportion of that many games;
    otherwise normal with standard error ``error``) and recomputes both statistics.

    Noise in either table lowers both statistics, so the estimates understate the agreement of
    the true values: the intervals are basic bootstrap intervals (the replicates' spread
    around the estimate, reflected: ``2 * estimate - quantile``, clipped to the statistic's
    range), which undo that shift to first order, and ``tau_same``/``overlap_same`` are what
    the estimates would be on average if the true rankings were identical (replicates of ``b``'s
    values put in ``a``'s order): an estimate near them says the tables agree as far as their
    sample sizes can show.

    >>> found = ranking_agreement([0.5, 0.6, 0.7], [0.01] * 3, [0.52, 0.58, 0.71], [0.01] * 3,
    ...                           top=1, draws=200, seed=1)
    >>> found.tau, found.overlap
    (1.0, 1)
    """
    a, b = np.asarray(mean_a, dtype=np.float64), np.asarray(mean_b, dtype=np.float64)
    ea, eb = np.asarray(error_a, dtype=np.float64), np.asarray(error_b, dtype=np.float64)
    k = len(a)
    if a.ndim != 1 or k < 2 or not (a.shape == b.shape == ea.shape == eb.shape):
        raise ValueError("ranking_agreement needs four vectors of one length, at least 2")
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        raise ValueError("ranking_agreement: every estimate must be a finite number")
    if not (np.all(ea >= 0) and np.all(eb >= 0)):
        raise ValueError("ranking_agreement: the standard errors must be >= 0")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or not 1 <= top <= k:
        raise ValueError(f"top must be an int in 1..{k}, got {top!r}")
    if isinstance(draws, bool) or not isinstance(draws, (int, np.integer)) or draws < 10:
        raise ValueError(f"draws must be an int >= 10, got {draws!r}")
    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence!r}")
    counts: list[npt.NDArray[np.int64] | None] = []
    for mean, games in ((a, games_a), (b, games_b)):
        if games is None:
            counts.append(None)
            continue
        n = np.asarray(games)
        if n.shape != a.shape or not np.issubdtype(n.dtype, np.integer) or np.any(n < 1):
            raise ValueError("ranking_agreement: games must be positive whole numbers, one each")
        if np.any((mean < 0) | (mean > 1)):
            raise ValueError("ranking_agreement: with games, the estimates must be proportions")
        counts.append(n.astype(np.int64))
    rng = np.random.default_rng(seed)

    def redraw(mean: npt.NDArray[np.float64], error: npt.NDArray[np.float64],
               n: npt.NDArray[np.int64] | None) -> npt.NDArray[np.float64]:  # fmt: skip
        if n is None:
            return mean + error * rng.standard_normal(k)
        drawn: npt.NDArray[np.float64] = rng.binomial(n, mean) / n
        return drawn

    order = np.argsort(np.argsort(a, kind="stable"), kind="stable")  # a's ranks
    by_b = np.argsort(b, kind="stable")
    same_b, same_eb = b[by_b][order], eb[by_b][order]  # b's values in a's order
    same_n = None if counts[1] is None else counts[1][by_b][order]
    taus, overlaps = np.empty(draws), np.empty(draws)
    same_taus, same_overlaps = np.empty(draws), np.empty(draws)
    for d in range(draws):
        x, y = redraw(a, ea, counts[0]), redraw(b, eb, counts[1])
        taus[d] = kendall_tau(x, y)
        overlaps[d] = _top_overlap(x, y, int(top))
        z = redraw(same_b, same_eb, same_n)
        same_taus[d] = kendall_tau(x, z)
        same_overlaps[d] = _top_overlap(x, z, int(top))
    tail = (1.0 - float(confidence)) / 2.0
    tau, overlap = kendall_tau(a, b), _top_overlap(a, b, int(top))
    q_lo, q_hi = np.nanquantile(taus, [tail, 1.0 - tail])
    o_lo, o_hi = np.quantile(overlaps, [tail, 1.0 - tail])
    return Agreement(
        tau=tau,
        tau_lo=float(np.clip(2 * tau - q_hi, -1.0, 1.0)),
        tau_hi=float(np.clip(2 * tau - q_lo, -1.0, 1.0)),
        overlap=overlap,
        overlap_lo=float(np.clip(2 * overlap - o_hi, 0.0, top)),
        overlap_hi=float(np.clip(2 * overlap - o_lo, 0.0, top)),
        tau_same=float(np.nanmean(same_taus)),
        overlap_same=float(same_overlaps.mean()),
        top=int(top),
        candidates=k,
        draws=int(draws),
        confidence=float(confidence),
    )

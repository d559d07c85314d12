"""genial.stats: Wilson intervals against published values, Holm's correction by hand, and the
normal interval of a mean."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from genial import wilson_interval
from genial.stats import Z95, holm, kendall_tau, mean_interval, ranking_agreement

# -- Wilson intervals ------------------------------------------------------------------------------


def test_z95_is_the_normal_quantile() -> None:
    expected = statistics.NormalDist().inv_cdf(0.975)
    assert abs(Z95 - expected) < 1e-12


@pytest.mark.parametrize(
    ("successes", "trials", "lo", "hi"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion", Table I,
        # method 3 (Wilson score interval without continuity correction)
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # the textbook 50 of 100 and 0 (10) of 10
        (50, 100, 0.4038, 0.5962),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
    ],
)
def test_wilson_interval_matches_published_values(
    successes: int, trials: int, lo: float, hi: float
) -> None:
    got_lo, got_hi = wilson_interval(successes, trials)
    assert float(got_lo) == pytest.approx(lo, abs=5e-5)
    assert float(got_hi) == pytest.approx(hi, abs=5e-5)


def test_wilson_interval_holds_the_proportion_at_the_ends() -> None:
    lo, hi = wilson_interval(0, 3)
    assert float(lo) == 0.0
    lo, hi = wilson_interval(7, 7)
    assert float(hi) == 1.0


def test_wilson_interval_is_vectorised_symmetric_and_holds_the_proportion() -> None:
    n = 40
    k = np.arange(n + 1)
    lo, hi = wilson_interval(k, np.full(n + 1, n))
    assert lo.shape == hi.shape == (n + 1,)
    p = k / n
    assert np.all((lo <= p) & (p <= hi))
    assert np.all((lo >= 0) & (hi <= 1))
    np.testing.assert_allclose(lo, 1 - hi[::-1], atol=1e-12)  # k and n - k mirror
    assert np.all(np.diff(lo) > 0) and np.all(np.diff(hi) > 0)


def test_wilson_interval_narrows_with_more_trials() -> None:
    widths = [float(np.subtract(*wilson_interval(n // 2, n)[::-1])) for n in (10, 100, 1000)]
    assert widths[0] > widths[1] > widths[2] > 0


def test_wilson_interval_without_trials_is_nan() -> None:
    lo, hi = wilson_interval(0, 0)
    assert math.isnan(float(lo)) and math.isnan(float(hi))
    lo, hi = wilson_interval([0, 3], [0, 6])
    assert math.isnan(lo[0]) and math.isnan(hi[0])
    assert 0 < lo[1] < 0.5 < hi[1] < 1


def test_wilson_interval_with_another_z() -> None:
    """A wider z gives a wider interval around the same centre."""
    lo95, hi95 = wilson_interval(30, 100)
    lo99, hi99 = wilson_interval(30, 100, z=statistics.NormalDist().inv_cdf(0.995))
    assert lo99 < lo95 < 0.3 < hi95 < hi99


# -- Holm ------------------------------------------------------------------------------------------


def test_holm_by_hand_on_three_values() -> None:
    """Sorted 0.01, 0.02, 0.04 are multiplied by 3, 2, 1: 0.03, 0.04, 0.04, then put back in
    the input's order."""
    np.testing.assert_allclose(holm([0.02, 0.01, 0.04]), [0.04, 0.03, 0.04])


def test_holm_by_hand_is_monotone_and_capped_at_one() -> None:
    """Sorted 0.01, 0.5, 0.6 give 0.03, min(1, 1.0), 0.6; step-down keeps them monotone, so
    the last becomes 1.0 too."""
    np.testing.assert_allclose(holm([0.5, 0.6, 0.01]), [1.0, 1.0, 0.03])


def test_holm_by_hand_with_ties() -> None:
    np.testing.assert_allclose(holm([0.01, 0.01, 0.2]), [0.03, 0.03, 0.2])


def test_holm_of_one_value_and_of_none() -> None:
    np.testing.assert_allclose(holm([0.2]), [0.2])
    assert holm([]).shape == (0,)


def test_holm_properties_on_random_p_values() -> None:
    rng = np.random.default_rng(1)
    p = rng.uniform(0, 0.2, size=50)
    adjusted = holm(p)
    assert np.all(adjusted >= p)
    assert np.all(adjusted <= 1)
    order = np.argsort(p)
    assert np.all(np.diff(adjusted[order]) >= 0)  # monotone in p
    assert adjusted.min() == pytest.approx(min(1.0, 50 * p.min()))  # the smallest: Bonferroni


# -- mean intervals --------------------------------------------------------------------------------


def test_mean_interval_of_a_constant_array() -> None:
    mean, lo, hi = mean_interval(np.full(7, 3.5))
    assert (mean, lo, hi) == (3.5, 3.5, 3.5)


def test_mean_interval_by_hand() -> None:
    values = [1.0, 2.0, 3.0, 6.0]
    mean, lo, hi = mean_interval(np.array(values))
    half = statistics.NormalDist().inv_cdf(0.975) * statistics.stdev(values) / 2  # sqrt(4)
    assert mean == pytest.approx(3.0)
    assert lo == pytest.approx(3.0 - half)
    assert hi == pytest.approx(3.0 + half)


def test_mean_interval_of_integer_arrays() -> None:
    mean, lo, hi = mean_interval(np.array([2, 4, 4, 4, 5, 5, 7, 9], dtype=np.uint8))
    assert mean == 5.0
    assert lo < 5.0 < hi
    assert hi - 5.0 == pytest.approx(5.0 - lo)


def test_mean_interval_of_one_value_and_of_none() -> None:
    mean, lo, hi = mean_interval(np.array([4.0]))
    assert mean == 4.0 and math.isnan(lo) and math.isnan(hi)
    assert all(math.isnan(v) for v in mean_interval(np.array([])))


# -- the best set (multiple comparisons with the best) -----------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from genial.stats import best_set  # noqa: E402


def test_best_set_by_hand_on_two_paired_candidates() -> None:
    """Two candidates, paired: the difference of games 0..3 is (1, 1, 0, 2), mean 1, sample
    sd sqrt(2/3); with k - 1 = 1 comparison the bound is one-sided at 5%: z = 1.6449, half
    width z * sd / sqrt(4) = 0.6715, so 1 - 0.6715 > 0 and candidate 1 is out."""
    a = np.array([1.0, 1.0, 0.0, 2.0])
    b = np.zeros(4)
    result = best_set([a, b])
    half = statistics.NormalDist().inv_cdf(0.95) * math.sqrt(2 / 3) / 2
    assert result.mask.tolist() == [True, False]
    assert result.lower[0] == pytest.approx(1 - half)
    assert result.upper[1] == pytest.approx(-1 + half)
    assert result.words("moves") == "1 of 2 moves is best (95%): no other may be"


def test_best_set_unpaired_by_hand_uses_welch() -> None:
    a = np.array([1.0, 0.0, 1.0, 1.0])  # mean 0.75, var 0.25
    b = np.array([0.0, 1.0, 0.0, 0.0])  # mean 0.25, var 0.25
    result = best_set([a, b], paired=False)
    half = statistics.NormalDist().inv_cdf(0.95) * math.sqrt(0.25 / 4 + 0.25 / 4)
    assert result.upper[1] == pytest.approx(-0.5 + half)
    assert result.mask.tolist() == [True, True]  # 0.5 < half = 0.58: not told apart
    assert result.words() == "2 of 2 candidates are statistically tied for first (95%)"


def test_best_set_keeps_exact_ties_and_single_candidates() -> None:
    same = np.array([0.0, 1.0, 1.0, 0.0, 1.0])
    assert best_set([same, same, same]).mask.all()
    assert best_set([same]).mask.tolist() == [True]
    assert best_set([np.zeros(1), np.ones(1)]).mask.tolist() == [True, True]  # 1 game: no spread


def test_best_set_smallest_with_larger_false() -> None:
    rng = np.random.default_rng(3)
    low, high = rng.normal(0, 0.1, 500), rng.normal(1, 0.1, 500)
    assert best_set([low, high], larger=False).mask.tolist() == [True, False]
    assert best_set([low, high]).mask.tolist() == [False, True]


def test_best_set_pairing_narrows_the_set_on_common_random_numbers() -> None:
    """Candidates sharing each game's luck: paired differences cancel it, Welch's do not."""
    rng = np.random.default_rng(5)
    luck = rng.normal(0, 1, 1000)
    samples = [luck + shift + rng.normal(0, 0.05, 1000) for shift in (0.1, 0.0, -0.05, 0.05)]
    paired, unpaired = best_set(samples), best_set(samples, paired=False)
    assert paired.mask.tolist() == [True, False, False, False]
    assert unpaired.mask.tolist() == [True, False, False, True]  # 0.05 apart: within the luck


def test_best_set_holds_the_best_at_its_confidence() -> None:
    """Coverage by simulation: 6 candidates of win rates 0.55 (the best), 0.54, 0.53, 0.5,
    0.5, 0.45, 400 independent games each, 400 repetitions: the best is in the set in at least
    95% of them, less a binomial allowance (3 sd of 400 trials at 0.95: 3.3 points)."""
    rng = np.random.default_rng(11)
    rates = np.array([0.55, 0.54, 0.53, 0.5, 0.5, 0.45])
    held = 0
    sizes = []
    for _ in range(400):
        samples = [(rng.random(400) < p).astype(np.float64) for p in rates]
        result = best_set(samples, paired=False)
        held += bool(result.mask[0])
        sizes.append(result.size)
    assert held / 400 >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / 400)
    assert 1 < np.mean(sizes) < 6  # neither everyone nor a lone winner from such close rates


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(0, 1), min_size=1, max_size=30), min_size=1, max_size=6
    ).map(lambda rows: [np.array(r[: min(map(len, rows))], dtype=np.float64) for r in rows]),
    st.booleans(),
)
def test_best_set_always_holds_the_leader(samples: list[np.ndarray], paired: bool) -> None:
    """Whatever the data, the set is never empty: the candidate of the largest mean is in it
    (its every difference is >= 0), and the bounds are ordered."""
    result = best_set(samples, paired=paired)
    means = [float(x.mean()) for x in samples]
    assert result.mask[int(np.argmax(means))]
    assert np.all(result.lower <= result.upper)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"confidence": 1.0}, "confidence"), ({"confidence": True}, "confidence")],
)
def test_best_set_refuses_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        best_set([np.zeros(3)], **kwargs)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least one"):
        best_set([])


def _naive_paired_bounds(samples: list[np.ndarray], confidence: float = 0.95) -> tuple:
    """The MCB bounds pair by pair, as the definition reads (the reference of the vectorised
    computation)."""
    k = len(samples)
    t = statistics.NormalDist().inv_cdf(1 - (1 - confidence) / (k - 1))
    upper, lower = [], []
    for i in range(k):
        his, los = [], []
        for j in range(k):
            if j == i:
                continue
            m = min(len(samples[i]), len(samples[j]))
            d = samples[i][:m] - samples[j][:m]
            mean = d.mean() if m else math.nan
            half = t * math.sqrt(d.var(ddof=1) / m) if m > 1 else math.inf
            his.append(math.inf if math.isnan(mean) else mean + half)
            los.append(-math.inf if math.isnan(mean) else mean - half)
        upper.append(min(his))
        lower.append(min(los))
    return np.array(upper), np.array(lower)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 18), min_size=0, max_size=25), min_size=2, max_size=7)
)
def test_paired_bounds_match_the_pair_by_pair_definition(rows: list[list[int]]) -> None:
    """Unequal lengths (a race's stopped candidates): each pair on its common first games."""
    samples = [np.array(r, dtype=np.float64) for r in rows]
    result = best_set(samples)
    upper, lower = _naive_paired_bounds(samples)
    assert np.allclose(result.upper, upper, equal_nan=True, atol=1e-9)
    assert np.allclose(result.lower, lower, equal_nan=True, atol=1e-9)


# -- the agreement of two rankings (issue 41: the skill ladder) ------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 5)), min_size=2, max_size=30
    )
)
def test_kendall_tau_is_scipys_tau_b(pairs: list[tuple[int, int]]) -> None:
    """Against the well-kept implementation (scipy's tau-b, ties included)."""
    scipy_stats = pytest.importorskip("scipy.stats")
    x, y = (np.array(v, dtype=float) for v in zip(*pairs, strict=True))
    ours = kendall_tau(x, y)
    theirs = scipy_stats.kendalltau(x, y).statistic
    if math.isnan(theirs):
        assert math.isnan(ours)
    else:
        assert ours == pytest.approx(theirs, abs=1e-12)


def test_kendall_tau_by_hand() -> None:
    assert kendall_tau([1, 2, 3], [1, 2, 3]) == 1.0
    assert kendall_tau([1, 2, 3], [3, 2, 1]) == -1.0
    assert kendall_tau([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(4 / 6)  # 5 agree, 1 not
    assert math.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
    with pytest.raises(ValueError, match="one length"):
        kendall_tau([1, 2], [1, 2, 3])


def test_ranking_agreement_of_a_table_with_itself_and_with_noise() -> None:
    """A table against itself: tau 1 and the top shared, while the bootstrap (both tables
    redrawn) says how far another sample could move it; two tables whose true rates are
    equal agree only by chance (tau near 0), and the interval covers that, below what
    identical true rankings would show at these sizes (``tau_same``)."""
    p = np.linspace(0.40, 0.60, 40)
    games = np.full(40, 20_000)
    same = ranking_agreement(p, np.zeros(40), p, np.zeros(40), games_a=games, games_b=games,
                             top=10, draws=300, seed=1)  # fmt: skip
    assert (same.tau, same.overlap, same.candidates, same.top) == (1.0, 10, 40, 10)
    assert (same.tau_lo, same.tau_hi) == (1.0, 1.0)  # (the basic interval, clipped to [-1, 1])
    assert 0.9 < same.tau_same < 1.0 and 8 < same.overlap_same <= 10  # noise costs a little
    rng = np.random.default_rng(2)
    flat_a = rng.binomial(400, 0.5, 40) / 400
    flat_b = rng.binomial(400, 0.5, 40) / 400
    n = np.full(40, 400)
    noise = ranking_agreement(flat_a, np.zeros(40), flat_b, np.zeros(40), games_a=n,
                              games_b=n, draws=300, seed=1)  # fmt: skip
    assert noise.tau_lo < 0.1 and abs(noise.tau) < 0.35
    assert noise.tau_lo <= noise.tau <= noise.tau_hi
    # identical true rankings would show more at these sizes than these tables do
    assert noise.tau_hi < noise.tau_same + 0.1 and noise.tau < noise.tau_same
    assert "Kendall's tau" in noise.words() and "of the top 10 shared" in noise.words()
    again = ranking_agreement(flat_a, np.zeros(40), flat_b, np.zeros(40), games_a=n,
                              games_b=n, draws=300, seed=1)  # fmt: skip
    assert again == noise  # the seed decides


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"mean_b": [0.1, 0.2]}, "one length"),
        ({"mean_a": [0.1, math.nan, 0.3]}, "finite"),
        ({"error_a": [0.1, -1.0, 0.1]}, ">= 0"),
        ({"top": 0}, "top must be"),
        ({"top": 4}, "top must be"),
        ({"draws": 5}, "draws must be"),
        ({"confidence": 1.0}, "confidence"),
        ({"games_a": [10, 0, 10]}, "positive whole"),
        ({"games_a": [10, 10, 10], "mean_a": [0.1, 2.0, 0.3]}, "proportions"),
    ],
)
def test_ranking_agreement_refuses_bad_input(kwargs: dict, message: str) -> None:
    args = {"mean_a": [0.1, 0.2, 0.3], "error_a": [0.01] * 3, "mean_b": [0.1, 0.3, 0.2],
            "error_b": [0.01] * 3, "top": 2}  # fmt: skip
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        ranking_agreement(**args)

"""Pooled effects of the opening classes and the average of a raced table (issue 41, item 4):
an opening drawn uniformly from a group of classes, each class weighing the same whatever its
games, with the interval of a stratified mean."""

from __future__ import annotations

import math

import numpy as np
import pytest
from genial.openings import book

from genial.board.openings import _result, _stats, opening_classes
from genial.board.rules import Rules

Z = 1.959963984540054


def by_hand(rates: list[float], games: list[int]) -> tuple[float, float, float]:
    """The stratified mean of win rates and its 95% normal interval, written out."""
    k = len(rates)
    mean = sum(rates) / k
    variance = sum(p * (1 - p) / n for p, n in zip(rates, games, strict=True)) / k**2
    half = Z * math.sqrt(variance)
    return mean, mean - half, mean + half


def test_effects_of_the_shipped_2_player_book() -> None:
    result = book(2)
    t = result.table
    effects = result.effects()
    assert list(effects.columns) == ["feature", "value", "classes", "games", "estimate", "lo", "hi"]
    for feature in ("points", "touching", "symbol_halves", "rim"):
        rows = effects[effects["feature"] == feature]
        assert rows["classes"].sum() == len(t) == 164  # every class in one group of each
        assert rows["games"].sum() == t["games"].sum()
        for _, row in rows.iterrows():
            group = t[t[feature] == row["value"]]
            rates = (group["wins"] / group["games"]).tolist()
            mean, lo, hi = by_hand(rates, group["games"].tolist())
            assert row["estimate"] == pytest.approx(mean, abs=1e-12)
            assert (row["lo"], row["hi"]) == pytest.approx((lo, hi), abs=1e-12)
    everything = effects[effects["feature"] == "all"].iloc[0]
    # every class played 1,600 games: the uniform draw is the pooled rate
    assert everything["estimate"] == pytest.approx(result.average, abs=1e-12)
    assert everything["classes"] == 164
    # the 2-player book's points effect (docs/openings.md): scoring openings win more
    points = effects[effects["feature"] == "points"].set_index("value")
    assert points.loc[0, "hi"] < points.loc[1, "lo"]


def _synthetic(raced: bool):  # type: ignore[no-untyped-def]
    """Twelve classes whose games were cut short as a race cuts them: the worse classes (a win
    rate of 0.3) stopped after 200 games, the better ones (0.6) played 2,000."""
    rng = np.random.default_rng(5)
    classes = opening_classes(2)[:12]
    stats = []
    for i in range(len(classes)):
        n, p = (200, 0.3) if i % 2 else (2000, 0.6)
        win = (rng.random(n) < p).astype(np.uint8)
        mine = rng.integers(5, 18, n).astype(np.uint8)
        stats.append(
            _stats({"win": win, "shared": np.zeros(n, np.uint8), "mine": mine, "others": mine})
        )
    race = {"games": 0, "uniform_games": 0, "in_race": 6} if raced else None
    return _result(
        classes, stats, Rules(2), race=race, seat=0, policy=("greedy",),
        games_per_opening=None, seed=None, reply_to=None,
    )  # fmt: skip


def test_a_raced_table_averages_its_classes_not_its_games() -> None:
    """The race gives the classes it stops fewer games: pooling the games would weigh the
    classes that stayed (the better ones) more and lift the average; each class weighs the
    same instead, and each class's test against the average uses that average."""
    raced = _synthetic(raced=True)
    t = raced.table
    pooled = t["wins"].sum() / t["games"].sum()
    rates = (t["wins"] / t["games"]).tolist()
    mean, lo, hi = by_hand(rates, t["games"].tolist())
    assert raced.average == pytest.approx(mean, abs=1e-12)
    assert (raced.average_lo, raced.average_hi) == pytest.approx((lo, hi), abs=1e-12)
    assert pooled > raced.average + 0.1  # the stopped classes were the worse ones
    z = (t["win_rate"] - mean) / np.sqrt(mean * (1 - mean) / t["games"])
    p = np.array([math.erfc(abs(v) / math.sqrt(2)) for v in z])
    np.testing.assert_allclose(t["p_value"], p, rtol=1e-9)
    everything = raced.effects().iloc[0]
    assert (everything["estimate"], everything["lo"], everything["hi"]) == pytest.approx(
        (raced.average, raced.average_lo, raced.average_hi), abs=1e-12
    )
    # the same classes, not raced: every game weighs the same (observe, a uniform analysis)
    plain = _synthetic(raced=False)
    assert plain.average == pytest.approx(pooled, abs=1e-12)

"""Pooled effects of the opening classes and the average of a raced table (issue 41, item 4):
an opening drawn uniformly from a group of classes, each class weighing the same whatever its
games, with the interval of a stratified mean."""

from __future__ import annotations

import math
from statistics import NormalDist

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


# -- replaying the confirmed classes on fresh games -----------------------------------------------


@pytest.fixture(scope="module")
def confirmed():  # type: ignore[no-untyped-def]
    from genial.openings import analyse

    return analyse(2, games_per_opening=64, seed=1, confirm=512, workers=2)


def test_a_replay_of_the_confirmed_classes(confirmed) -> None:  # type: ignore[no-untyped-def]
    """Fresh games of a confirmed class land where its confirmation said: the replay's rows
    recomputed by hand, every replayed class agreeing (Bonferroni over the rows), and the
    same seed giving the same replay."""
    t = confirmed.table
    members = t[t["confirm_games"] > 0]
    picked = [int(i) for i in members["class"][:4]]
    again = confirmed.replay(picked, games=2048, seed=77, workers=2)
    assert list(again["class"]) == picked and (again["games"] == 2048).all()
    z = NormalDist().inv_cdf(1 - 0.025 / 4)
    for _, row in again.iterrows():
        mine = members[members["class"] == row["class"]].iloc[0]
        assert row["confirmed"] == mine["confirmed"] and row["confirm_games"] == 512
        a, b = row["confirmed"], row["replayed"]
        assert row["inside"] == (mine["confirmed_lo"] <= b <= mine["confirmed_hi"])
        spread = math.sqrt(a * (1 - a) / 512 + b * (1 - b) / 2048)
        assert row["agrees"] == (abs(a - b) <= z * spread)
        assert row["replayed_lo"] <= b <= row["replayed_hi"]
    assert again["agrees"].all()  # greedy's classes are as the confirmation says
    same = confirmed.replay(picked, games=2048, seed=77, workers=1)
    assert same.equals(again)  # the seed decides, not the workers
    everything = confirmed.replay(games=16, seed=5, workers=2)
    assert len(everything) == len(members)


def test_a_replay_catches_a_wrong_confirmation(confirmed) -> None:  # type: ignore[no-untyped-def]
    """A table whose confirmed estimate is off by 15 points (as a winner's curse or a bug
    would leave it) fails the replay's check."""
    import dataclasses

    t = confirmed.table.copy()
    first = t.index[t["confirm_games"] > 0][0]
    for column in ("confirmed", "confirmed_lo", "confirmed_hi"):
        t.loc[first, column] = t.loc[first, column] + 0.15
    wrong = dataclasses.replace(confirmed, table=t)
    again = wrong.replay([int(t.loc[first, "class"])], games=2048, seed=77, workers=2)
    assert not again["agrees"].iloc[0] and not again["inside"].iloc[0]


def test_replay_errors(confirmed) -> None:  # type: ignore[no-untyped-def]
    from genial.errors import GenialError

    t = confirmed.table
    outside = int(t.loc[t["confirm_games"] == 0, "class"].iloc[0]) if (
        t["confirm_games"] == 0
    ).any() else 10_000
    for bad, message in [
        ([outside], "was not confirmed"),
        ("12", "sequence of class indices"),
        ([True], "class indices"),
    ]:
        with pytest.raises(GenialError, match=message):
            confirmed.replay(bad, games=8)
    with pytest.raises(GenialError, match="games"):
        confirmed.replay(games=0)
    with pytest.raises(GenialError, match="confirmed table"):
        book(2).replay(games=8)

"""Card-game matches (RULES §5.7 multi-round play): victory points are the sum of each player's
lowest marker over the rounds, checked against the reference's own match scoring."""

from __future__ import annotations

import numpy as np
import pytest

import genial

from ..reference.cards import match_ranks, match_victory_points


@pytest.mark.parametrize("players", [2, 3, 4])
def test_victory_points_and_ranks_agree_with_the_reference(players: int) -> None:
    result = genial.match(300, rounds=4, players=players, policy="greedy", seed=players)
    games = result.games
    for m in range(len(result)):
        rounds = [games.scores[m * 4 + r].tolist() for r in range(4)]
        vp = match_victory_points(rounds)
        assert result.victory_points[m].tolist() == vp
        assert result.ranks[m].tolist() == match_ranks(vp)
        best = [s for s, rank in enumerate(match_ranks(vp)) if rank == 0]
        assert result.winner[m] == (best[0] if len(best) == 1 else -1)
    rates = result.win_rates()
    assert len(rates) == players and all(lo <= rate <= hi for rate, lo, hi in rates)


def test_one_round_match_is_the_game() -> None:
    """With one round, victory points are the lowest markers of the game (RULES §5.7)."""
    result = genial.match(50, rounds=1, players=3, seed=1)
    assert (result.victory_points == result.games.lowest).all()


def test_bad_match_arguments() -> None:
    for kwargs in ({"rounds": 0}, {"players": 5}, {"n_matches": -1}):
        with pytest.raises(genial.GenialError):
            genial.match(**{"n_matches": 5, **kwargs})  # type: ignore[arg-type]
    assert np.asarray(genial.match(0, seed=1).victory_points).shape == (0, 3)

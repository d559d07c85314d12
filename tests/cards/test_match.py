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
    assert len(rates) == players and all(w.lo <= w.rate <= w.hi for w in rates)


def test_one_round_match_is_the_game() -> None:
    """With one round, victory points are the lowest markers of the game (RULES §5.7)."""
    result = genial.match(50, rounds=1, players=3, seed=1)
    assert (result.victory_points == result.games.lowest).all()


def test_bad_match_arguments() -> None:
    for kwargs in ({"rounds": 0}, {"players": 5}, {"n_matches": -1}):
        with pytest.raises(genial.GenialError):
            genial.match(**{"n_matches": 5, **kwargs})  # type: ignore[arg-type]
    assert np.asarray(genial.match(0, seed=1).victory_points).shape == (0, 3)


def test_match_text_and_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    """`genial cards match` prints the library's match summary: the same matches for the same
    seed whatever the workers, each seat's wins and mean victory points."""
    from genial.cli import main

    result = genial.match(400, rounds=3, players=3, policy=["greedy", "random", "random"], seed=5)
    text = str(result)
    assert text.splitlines()[0] == "400 matches of 3 rounds, 3 players (greedy, random, random)"
    wins = [int((result.winner == seat).sum()) for seat in range(3)]
    for seat in range(3):
        line = text.splitlines()[2 + seat].split()
        assert int(line[0]) == seat
        assert line[1] == f"{100 * wins[seat] / 400:.1f}%"
        assert float(line[-1]) == pytest.approx(result.victory_points[:, seat].mean(), abs=0.005)
    shared = 100 * float((result.winner < 0).mean())
    assert text.splitlines()[-1] == f"shared first place: {shared:.1f}%"
    argv = ["cards", "match", "--matches", "400", "--rounds", "3", "--players", "3"]
    argv += ["--policy", "greedy", "random", "random", "--seed", "5", "--no-progress"]
    for workers in ("1", "2"):
        assert main([*argv, "--workers", workers]) == 0
        assert capsys.readouterr().out == text + "\n"


def test_match_rejects_bad_arguments() -> None:
    with pytest.raises(genial.GenialError, match="rounds"):
        genial.match(10, rounds=0)
    with pytest.raises(genial.GenialError, match="n_matches"):
        genial.match(-1)
    with pytest.raises(genial.GenialError, match="policy"):
        genial.match(10, policy="clever")

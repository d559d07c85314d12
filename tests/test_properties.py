"""Property tests (hypothesis): notation and undo restore the exact state, illegal moves change
nothing, legal moves always play (RULES §3 as a whole)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genial import ACTION_SIZE, Game, IllegalMoveError, Move

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games(draw: st.DrawFn) -> Game:
    """A game after a random number of random legal moves (possibly over)."""
    players = draw(st.sampled_from([2, 3, 4]))
    seed = draw(st.integers(0, 2**32 - 1))
    steps = draw(st.integers(0, 120))
    game = Game(players, seed=seed)
    pick = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over:
            break
        moves = game.legal_moves()
        game.play(moves[pick.integers(len(moves))])
    return game


@SETTINGS
@given(games())
def test_text_round_trip(game: Game) -> None:
    text = game.to_text()
    again = Game.from_text(text)
    assert again.to_text() == text
    assert again.legal_actions().tolist() == game.legal_actions().tolist()
    assert (again.scores == game.scores).all()
    assert again.free_pairs == game.free_pairs
    assert eval(repr(game), {"Game": Game}) == game


@SETTINGS
@given(games())
def test_record_round_trip(game: Game) -> None:
    record = json.loads(json.dumps(game.to_record()))
    again = Game.from_record(record)
    assert again.to_text() == game.to_text()
    assert again.to_record() == record


@SETTINGS
@given(games(), st.integers(1, 10))
def test_undo_restores_exact_state(game: Game, back: int) -> None:
    texts, played = [], []
    for i in range(back):
        if game.is_over:
            break
        texts.append(game.to_text())
        moves = game.legal_moves()
        played.append(moves[i * 7919 % len(moves)])
        game.play(played[-1])
    after = game.to_text()
    for text, move in zip(reversed(texts), reversed(played), strict=True):
        assert game.undo() == move
        assert game.to_text() == text
    # the random state is restored too: the same moves draw the same tiles again
    for move in played:
        game.play(move)
    assert game.to_text() == after


@SETTINGS
@given(games(), st.integers(0, ACTION_SIZE - 1))
def test_illegal_moves_change_nothing(game: Game, action: int) -> None:
    before = game.to_text()
    record = game.to_record()
    if action in set(game.legal_actions().tolist()):
        return
    with pytest.raises(IllegalMoveError, match=r"\w"):
        game.play(action)
    assert game.to_text() == before
    assert game.to_record() == record


@SETTINGS
@given(games(), st.data())
def test_legal_moves_always_play(game: Game, data: st.DataObject) -> None:
    moves = game.legal_moves()
    assert [m.action for m in moves] == game.legal_actions().tolist()
    assert game.action_mask().sum() == len(moves)
    if game.is_over:
        assert moves == []
        return
    move = data.draw(st.sampled_from(moves))
    assert game.is_legal(move)
    assert Move.parse(str(move)) == move
    assert Move.from_action(move.action, game.players) == move
    game.play(move)


@SETTINGS
@given(games())
def test_invariants(game: Game) -> None:
    """Counters stay in 0..18; racks + bag + covered halves are the whole set (RULES §2)."""
    scores = game.scores
    assert scores.min() >= 0 and scores.max() <= 18
    tiles = sum(len(game.rack(p)) for p in range(game.players)) + game.bag_size
    assert tiles + len(game.board) // 2 == 120
    halves = np.zeros(6, dtype=int)
    for cell_colour in game.board.values():
        halves[cell_colour] += 1
    for p in range(game.players):
        for a, b in game.rack(p):
            halves[a] += 1
            halves[b] += 1
    for (a, b), n in game.bag().items():
        halves[a] += n
        halves[b] += n
    assert halves.tolist() == [40] * 6

"""The kernels' ``next_draw``: the pile each draw of the deal or of a move comes from, one draw
at a time (what ``genial.integrations.openspiel`` makes its chance nodes of), checked against
the draws the kernel makes when it plays the same action at once (RULES §3.1, §3.5, §3.6,
§5.2, §5.3)."""

from __future__ import annotations

import numpy as np
import pytest

import genial
from genial.cards import CardGame
from genial.errors import IllegalMoveError, RecordError


def _piles_agree(core_before, action, drawn):
    """Each prefix of ``drawn`` has a pile holding the next item; the whole of it is all."""
    for k, item in enumerate(drawn):
        counts = core_before.next_draw(action, drawn[:k])
        assert counts is not None and counts[item] > 0
    assert core_before.next_draw(action, drawn) is None


@pytest.mark.parametrize("make", [lambda s: genial.Game(2, seed=s), lambda s: genial.Game(
    "4t", seed=s), lambda s: CardGame(3, seed=s), lambda s: CardGame(2, seed=s)])
def test_next_draw_follows_whole_games(make):
    for seed in range(4):
        game = make(seed)
        rules = game.rules
        undealt = rules.core()
        first = undealt.next_draw(-1, [])
        assert sum(first) == (120 if isinstance(game, genial.Game) else 60)
        _piles_agree(undealt, -1, _deal_of(game))
        while not game.is_over:
            before = game._core.copy()
            move = game.choose("random")
            game.play(move)
            drawn = game._moves[-1][1]
            _piles_agree(before, move.action, list(drawn))
            if game.turn > 400:  # pragma: no cover - a card game's cap
                break


def _deal_of(game):
    """The deal's draws of a seeded game, as a record replays them."""
    rules = game.rules
    core = rules.core()
    return core.deal(np.random.PCG64(0))


def test_next_draw_leaves_the_state_and_says_what_is_wrong():
    game = genial.Game(2, seed=1)
    core = game._core
    snap = core.snapshot()
    action = int(game.legal_actions()[0])
    counts = core.next_draw(action, [])
    assert counts is None or sum(counts) == game.bag_size
    assert core.snapshot() == snap
    with pytest.raises(ValueError, match="illegal action"):
        core.next_draw(genial.moves.ACTION_KEEP, [])
    with pytest.raises(ValueError, match="already dealt"):
        core.next_draw(-1, [])
    with pytest.raises(ValueError, match="a script"):
        core.next_draw(action, None)
    assert core.snapshot() == snap
    undealt = game.rules.core()
    with pytest.raises(ValueError, match="not in the bag"):
        undealt.next_draw(-1, [0] * 6)  # five RR in the bag (RULES §3.1)
    cards = CardGame(3, seed=1)
    with pytest.raises(ValueError, match="already dealt"):
        cards._core.next_draw(-1, [])


def test_play_drawn_checks_and_keeps_the_game():
    game = genial.Game(2, seed=2)
    text = game.to_text()
    move = game.legal_moves()[0]
    with pytest.raises(IllegalMoveError):
        game._play_drawn("keep", [])
    with pytest.raises(RecordError, match="given to draw"):
        game._play_drawn(move, [0, 0, 0, 0, 0, 0, 0])
    assert game.to_text() == text

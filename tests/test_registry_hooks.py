"""The layers' hooks of the games' entries (``genial.registry.GameEntry``): pictures, replays,
position analyses and environments ask the registry, and a game with only the required fields
is refused by each layer with a short message (the game is registered for one test and
removed after it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from genial import Game, GenialError, RecordError
from genial.analysis import evaluate
from genial.cards import CardGame
from genial.registry import GameEntry, entry, entry_of, games, register, replay, unregister
from genial.render.svg import replay_picture, svg


def played(game: Any, moves: int) -> Any:
    for _ in range(moves):
        if game.is_over:
            break
        game.play(game.choose("greedy"))
    return game


@pytest.mark.parametrize("name", ["board", "cards"])
def test_each_game_has_every_hook(name: str) -> None:
    found = entry(name)
    assert found.noun.endswith("game") and found.svg and found.replay_picture
    assert found.analysis is not None and found.observer is not None and found.env is not None
    game = played(make(name), 4)
    assert svg(game) == found.svg(game)
    assert replay_picture(game).noun == found.noun
    again = replay(game.to_record())
    assert type(again) is found.game and again.to_text() == game.to_text()
    assert found.analysis.phases[0] == evaluate(game, playouts=2, seed=1, workers=1).phase


def make(name: str) -> Any:
    return Game(2, seed=5) if name == "board" else CardGame(3, seed=5)


def test_search_policies_are_the_board_games() -> None:
    assert entry("board").search and not entry("cards").search


def test_entry_of_a_text_goes_by_the_rules_token() -> None:
    assert entry_of(CardGame(2, seed=1).to_text()).name == "cards"
    assert entry_of(Game(3, seed=1).to_text()).name == "board"
    assert entry_of("  c4 whatever").name == "cards"
    assert entry_of("not a position").name == "board"  # the board game reads it, and refuses


def test_replay_refuses_what_is_not_a_record() -> None:
    with pytest.raises(RecordError, match="a record is a dict, got list"):
        replay([])
    with pytest.raises(RecordError, match=r"format is 'chess', expected 'genial-record' \(the"):
        replay({"format": "chess"})


def test_the_vector_environments() -> None:
    from genial.vector import VectorEnv

    from genial.cards.vector import CardVectorEnv

    board = entry("board").vector_env(3, 2, seed=1)
    cards = entry("cards").vector_env(3, 3, seed=1)
    assert isinstance(board, VectorEnv) and isinstance(cards, CardVectorEnv)
    assert board.n_envs == cards.n_envs == 3


def test_the_generic_environment_is_the_games_own() -> None:
    pz = pytest.importorskip("genial.integrations.pettingzoo")
    for name in ("board", "cards"):
        generic = pz.GameEnv(name)
        own = pz.raw_env(name)
        assert type(own) is not pz.GameEnv and isinstance(own, pz.GameEnv)
        assert generic.metadata["name"] == own.metadata["name"]
        generic.reset(seed=3)
        own.reset(seed=3)
        while own.agents:
            agent = own.agent_selection
            mine, theirs = generic.observe(agent), own.observe(agent)
            assert np.array_equal(mine["observation"], theirs["observation"])
            _, _, done, cut, _ = own.last()
            action = None if done or cut else own.choose("greedy")
            own.step(action)
            generic.step(action)
        assert generic.final_rewards == own.final_rewards


class Tiny:
    """A game with only an entry's required fields: no picture, analysis or environment."""

    def __init__(self, rules: Any = None, seed: Any = None) -> None:
        self.rules = rules


@pytest.fixture
def tiny() -> Iterator[GameEntry]:
    found = register(GameEntry("tiny", "a tiny game", Tiny, lambda spec=None: spec, None))
    try:
        yield found
    finally:
        unregister("tiny")
    assert "tiny" not in games()


def test_a_game_without_hooks_is_refused_by_each_layer(tiny: GameEntry) -> None:
    assert entry_of(Tiny()) is tiny
    with pytest.raises(GenialError, match="svg: the game 'tiny' has no picture"):
        svg(Tiny())
    with pytest.raises(GenialError, match="evaluate: the game 'tiny' has no position analysis"):
        evaluate(Tiny())
    pz = pytest.importorskip("genial.integrations.pettingzoo")
    with pytest.raises(GenialError, match="the game 'tiny' has no environment"):
        pz.raw_env("tiny")


def test_svg_of_what_is_no_game() -> None:
    with pytest.raises(GenialError, match="expected a genial Game or CardGame, got Rules"):
        svg(Game(2, seed=1).rules)

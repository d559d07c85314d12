"""genial.registry: the games by name, ``make``, aliases, unknown names, and ``simulate(game=...)``
(nothing is registered here: the registry is global)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import genial
from genial import Game, GenialError, Rules, simulate
from genial.registry import GameEntry, entry, register

ARRAYS = ("scores", "ranks", "winner", "placements", "turns", "bonus", "swaps", "opening", "game")
ALIASES = ("board", "ingenious", "genial")


def _future(game: Game) -> list[str]:
    texts = [game.to_text()]
    while not game.is_over:
        game.play(game.choose("random"))
        texts.append(game.to_text())
    return texts


def test_games_lists_the_board_game() -> None:
    names = genial.games()
    assert isinstance(names, tuple)
    assert "board" in names
    assert all(isinstance(n, str) for n in names)
    assert len(set(names)) == len(names)
    assert names == genial.games()  # a fresh, equal answer each time


def test_every_listed_game_has_an_entry() -> None:
    for name in genial.games():
        found = entry(name)
        assert isinstance(found, GameEntry)
        assert found.name == name
        assert found.title


def test_the_board_entry() -> None:
    board = entry("board")
    assert board.game is Game
    assert board.rules("2T") == Rules(2, tournament=True)
    assert board.rules(4, teams=True) == Rules(4, teams=True)
    assert board.adapter.name == "board"


@pytest.mark.parametrize("rules", ["1", "1v", "2", "2v", "2T", "2Tv", "3", "4", "4t"])
def test_make_is_the_game_class(rules: str) -> None:
    made = genial.make("board", rules, seed=1)
    game = Game(rules, seed=1)
    assert isinstance(made, Game)
    assert made == game
    assert made.rules == game.rules == Rules.parse(rules)
    assert _future(made) == _future(game)


def test_make_2t_equals_game_2t() -> None:
    assert genial.make("board", "2T", seed=1) == Game("2T", seed=1)
    assert genial.make("board", "2T", seed=1).rules == Rules(players=2, tournament=True)
    assert genial.make("board", "2T", seed=1) != Game("2", seed=2)


def test_make_passes_keywords_and_defaults() -> None:
    assert genial.make("board", 4, teams=True, seed=2) == Game(4, teams=True, seed=2)
    assert genial.make("board", rules="2Tv", seed=3) == Game(rules="2Tv", seed=3)
    assert genial.make(seed=5) == Game(seed=5)  # the default game is the board game
    assert genial.make(seed=5).rules == Rules(2)
    with pytest.raises(GenialError):
        genial.make("board", 5)
    with pytest.raises(GenialError):
        genial.make("board", 2, teams=True)


@pytest.mark.parametrize("name", ALIASES)
def test_aliases_name_the_board_game(name: str) -> None:
    assert entry(name) is entry("board")
    assert genial.make(name, "3", seed=4) == Game(3, seed=4)
    runs = simulate(20, game=name, seed=4)
    assert runs.spec.game == "board"
    assert np.array_equal(runs.scores, simulate(20, seed=4).scores)


@pytest.mark.parametrize("name", ["chess", "", "board ", "Board-game", "cards?", "x" * 500])
def test_unknown_names_raise(name: str) -> None:
    with pytest.raises(GenialError, match="unknown game"):
        entry(name)
    with pytest.raises(GenialError, match="unknown game"):
        genial.make(name, seed=1)
    with pytest.raises(GenialError, match="unknown game"):
        simulate(5, game=name, seed=1)


@pytest.mark.parametrize("name", [None, 5, ("board",), b"board"])
def test_names_that_are_not_strings_raise(name: Any) -> None:
    with pytest.raises(GenialError):
        entry(name)
    with pytest.raises(GenialError):
        genial.make(name)
    if name is None:  # simulate's game=None is its default: the game its rules name
        assert simulate(5, game=name).spec.game == "board"
        return
    with pytest.raises(GenialError):
        simulate(5, game=name)


def test_unknown_name_message_is_short_and_lists_the_games() -> None:
    with pytest.raises(GenialError) as info:
        entry("y" * 10_000)
    message = str(info.value)
    assert len(message) < 200
    assert "board" in message


def test_a_registered_name_cannot_be_registered_again() -> None:
    """(Raises before it changes anything: the registry stays as it was.)"""
    before = genial.games()
    board = entry("board")
    with pytest.raises(GenialError, match="already"):
        register(board)
    with pytest.raises(GenialError, match="already"):
        register(GameEntry("board", "another", Game, Rules.of, board.adapter))
    assert genial.games() == before
    assert entry("board") is board


def test_simulate_board_is_the_default_game() -> None:
    named = simulate(10, game="board", seed=1)
    plain = simulate(10, seed=1)
    assert named.rows.tobytes() == plain.rows.tobytes()
    for name in ARRAYS:
        assert np.array_equal(getattr(named, name), getattr(plain, name)), name
    assert named.spec == plain.spec
    assert named.replay(3).to_record() == plain.replay(3).to_record()


@pytest.mark.parametrize("rules", ["2T", "3", "4t", "1v"])
def test_simulate_board_with_every_rules(rules: str) -> None:
    named = simulate(30, rules, game="board", policy="greedy", seed=2)
    plain = simulate(30, rules, policy="greedy", seed=2)
    assert named.rows.tobytes() == plain.rows.tobytes()
    assert named.rules == Rules.parse(rules)
    assert named.records is None
    game = named.replay(5)
    assert isinstance(game, Game)
    assert game.scores.tolist() == named.scores[5].tolist()

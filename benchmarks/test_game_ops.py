"""Speed of the single-game API on a mid-game position (pytest-benchmark)."""

from __future__ import annotations

import pytest

from genial import Game


@pytest.fixture(scope="module")
def midgame() -> Game:
    """A 2-player game after 16 greedy placements (seed 1)."""
    game = Game(2, seed=1)
    while game.turn < 16:
        game.play(game.choose("greedy"))
    return game


def test_legal_moves(benchmark, midgame: Game) -> None:  # type: ignore[no-untyped-def]
    moves = benchmark(midgame.legal_moves)
    benchmark.extra_info["moves"] = len(moves)


def test_legal_actions(benchmark, midgame: Game) -> None:  # type: ignore[no-untyped-def]
    actions = benchmark(midgame.legal_actions)
    benchmark.extra_info["moves"] = len(actions)


def test_action_mask(benchmark, midgame: Game) -> None:  # type: ignore[no-untyped-def]
    benchmark(midgame.action_mask)


def test_play_and_undo(benchmark, midgame: Game) -> None:  # type: ignore[no-untyped-def]
    game = midgame.copy()
    move = game.legal_moves()[0]

    def play_undo() -> None:
        game.play(move)
        game.undo()

    benchmark(play_undo)


def test_copy(benchmark, midgame: Game) -> None:  # type: ignore[no-untyped-def]
    benchmark(midgame.copy)


def test_gains(benchmark, midgame: Game) -> None:  # type: ignore[no-untyped-def]
    move = midgame.legal_moves()[0]
    benchmark(midgame.gains, move)


def test_to_text(benchmark, midgame: Game) -> None:  # type: ignore[no-untyped-def]
    benchmark(midgame.to_text)


def test_full_game_through_python(benchmark) -> None:  # type: ignore[no-untyped-def]
    """A whole random game through Game.play (the Python path, for comparison with simulate)."""

    def play() -> int:
        game = Game(2, seed=3)
        n = 0
        while not game.is_over:
            game.play(game.choose("random"))
            n += 1
        return n

    moves = benchmark(play)
    benchmark.extra_info["moves"] = moves

"""genial's PettingZoo AEC environments (``genial.integrations.pettingzoo``), random legal
actions, one full game after another: the board game with 2 players and the card game with 3.
Compare ``test_momaland.py`` (another Ingenious environment, pure Python)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from genial.integrations.pettingzoo import raw_env


@pytest.mark.parametrize(("game", "players"), [("board", 2), ("cards", 3)])
def test_pettingzoo_random_games(benchmark, game: str, players: int) -> None:  # type: ignore[no-untyped-def]
    env = raw_env(game, players=players)
    rng = np.random.default_rng(1)
    games = 50 if game == "board" else 100

    def play() -> int:
        steps = 0
        for g in range(games):
            env.reset(seed=g)
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                legal = np.flatnonzero(obs["action_mask"].view(np.bool_))
                env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
        return steps

    began = time.perf_counter()
    steps = benchmark.pedantic(play, rounds=3, iterations=1)
    seconds = benchmark.stats.stats.min if benchmark.stats else time.perf_counter() - began
    benchmark.extra_info.update(
        players=f"{game} {players}",
        policy="random (PettingZoo AEC)",
        workers=1,
        games=games,
        games_per_s=round(games / seconds, 1),
        moves_per_s=round(steps / seconds),
    )

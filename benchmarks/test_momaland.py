"""Side by side: the Ingenious environment of momaland (pure Python, PettingZoo AEC API), random
legal moves for 2 players. Skipped unless momaland is installed (``pip install momaland``)."""

from __future__ import annotations

import time

import numpy as np
import pytest

ingenious = pytest.importorskip("momaland.envs.ingenious.ingenious")

pytestmark = pytest.mark.filterwarnings("ignore")


def test_momaland_random_games(benchmark) -> None:  # type: ignore[no-untyped-def]
    env = ingenious.env(num_agents=2)
    rng = np.random.default_rng(1)
    games = 20

    def play() -> int:
        moves = 0
        for _ in range(games):
            env.reset(seed=int(rng.integers(1 << 30)))
            for _agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
                moves += 1
        return moves

    began = time.perf_counter()
    moves = benchmark.pedantic(play, rounds=3, iterations=1)
    seconds = benchmark.stats.stats.min if benchmark.stats else time.perf_counter() - began
    benchmark.extra_info.update(
        players=2,
        policy="random",
        workers=1,
        games=games,
        games_per_s=round(games / seconds, 1),
        moves_per_s=round(moves / seconds),
    )

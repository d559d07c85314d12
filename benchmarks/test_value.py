"""Speed of the learned evaluation's policies (pytest-benchmark; ``python -m pytest
benchmarks/test_value.py``), docs/value.md's cost table.

Self-play of 2 players on one core (seed 3): ``value`` against greedy, and ``mc:200:value``
against ``mc:100``, each recording ms per game and µs per move in ``extra_info``; and one
evaluation of a fixed position (the features and the logistic, ``Game.evaluate``).
"""

from __future__ import annotations

import pytest

from genial import Game, Rules, simulate

GAMES = {"greedy": 4000, "value": 4000, "mc:100": 40, "mc:200:value": 40, "mcts:200:value": 20}


@pytest.mark.parametrize("policy", list(GAMES))
def test_self_play(benchmark, policy: str) -> None:  # type: ignore[no-untyped-def]
    n = GAMES[policy]
    runs = benchmark.pedantic(
        simulate,
        args=(n,),
        kwargs={"policy": policy, "seed": 3, "workers": 1, "rules": Rules(2)},
        rounds=3 if n > 100 else 1,
        iterations=1,
        warmup_rounds=1 if n > 100 else 0,
    )
    seconds = benchmark.stats.stats.min if benchmark.stats else runs.seconds
    moves = int(runs.placements.sum()) + int(runs.swaps.sum())
    benchmark.extra_info.update(
        policy=policy,
        games=n,
        seed=3,
        ms_per_game=round(1000 * seconds / n, 4),
        us_per_move=round(1e6 * seconds / moves, 3),
    )


def test_one_evaluation(benchmark) -> None:  # type: ignore[no-untyped-def]
    game = Game(2, seed=3)
    for _ in range(12):
        game.play(game.choose("greedy"))
    value = benchmark(game.evaluate)
    assert 0.0 < value < 1.0

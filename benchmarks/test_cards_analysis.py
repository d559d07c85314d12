"""Card-game position analysis speed: ``genial.analysis.evaluate`` on a ``CardGame`` in playouts/s
(pytest-benchmark; ``python -m pytest benchmarks/test_cards_analysis.py``).

Each case evaluates every legal decision of a fixed 3-player card position (``CardGame(3,
seed=3)`` after 12 greedy plays; seed 1) and records in ``extra_info``: ``playouts_per_s``,
and ``baseline_per_s``, the rate of the same policy's games from that position in one kernel
batch (``genial.cards.simulate(start=...)``), with their ratio.
"""

from __future__ import annotations

import pytest

from genial.analysis import evaluate
from genial.cards import CardGame, simulate

from .test_analysis import _rate

PLAYOUTS = {"random": 20_000, "greedy": 5_000}


def _position() -> CardGame:
    game = CardGame(3, seed=3)
    for _ in range(12):
        game.play(game.choose("greedy"))
    while game.phase == "swap":
        game.play("keep")
    return game


@pytest.mark.parametrize("workers", [1, 2])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_evaluate_cards(benchmark, policy: str, workers: int) -> None:  # type: ignore[no-untyped-def]
    game = _position()
    result = benchmark.pedantic(
        evaluate,
        args=(game,),
        kwargs={"playouts": PLAYOUTS[policy], "policy": policy, "seed": 1, "workers": workers},
        rounds=3,
        iterations=1,
        warmup_rounds=1,
    )
    seconds = benchmark.stats.stats.min if benchmark.stats else result.seconds
    rate = result.total_playouts / seconds
    n_base = result.total_playouts // 4
    baseline = _rate(
        lambda: len(
            simulate(n_base, game.rules, start=game, policy=policy, seed=2, workers=workers)
        )
    )
    benchmark.extra_info.update(
        players="c3",
        policy=policy,
        workers=workers,
        seed=1,
        moves=len(result.rows),
        playouts=result.total_playouts,
        playouts_per_s=round(rate),
        baseline_per_s=round(baseline),
        ratio_to_baseline=round(rate / baseline, 3),
    )

"""The card game's batch speed (pytest-benchmark; ``python -m pytest benchmarks/test_cards.py``).

Random, greedy and epsilon-greedy games on one core, seed 1; games/s and moves/s (plays and
swaps) land in ``extra_info`` (``benchmarks/table.py`` prints them).
"""

from __future__ import annotations

import pytest

from genial import simulate

GAMES = {"random": 200_000, "greedy": 100_000, "epsilon-greedy:0.1": 100_000}


@pytest.mark.parametrize(
    ("players", "policy"),
    [(p, policy) for policy in ("random", "greedy") for p in (2, 3, 4)]
    + [(3, "epsilon-greedy:0.1")],
)
def test_cards_one_core(benchmark, players: int, policy: str) -> None:  # type: ignore[no-untyped-def]
    n = GAMES[policy]
    runs = benchmark.pedantic(
        simulate,
        args=(n, players),
        kwargs={"game": "cards", "policy": policy, "seed": 1, "workers": 1},
        rounds=3,
        iterations=1,
        warmup_rounds=1,
    )
    seconds = benchmark.stats.stats.min if benchmark.stats else runs.seconds
    benchmark.extra_info.update(
        players=f"c{players}",
        policy=policy,
        workers=1,
        games=n,
        seed=1,
        games_per_s=round(n / seconds),
        moves_per_s=round(int(runs.column("plays").sum() + runs.swaps.sum()) / seconds),
    )

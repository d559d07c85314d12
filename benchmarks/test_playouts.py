"""Batch playout speed (pytest-benchmark; run ``python -m pytest benchmarks``).

Each case plays a fixed batch in the kernel and records games/s and moves/s in ``extra_info``
(``benchmarks/table.py`` turns a ``--benchmark-json`` file into the README's table). Seeds are
fixed: the same games are timed on every run.
"""

from __future__ import annotations

import os

import pytest

from genial import Rules, simulate

GAMES = {"random": 200_000, "greedy": 10_000, "epsilon-greedy": 10_000}


def _run(benchmark, rules: Rules, policy: str, workers: int) -> None:  # type: ignore[no-untyped-def]
    n = GAMES[policy] // (2 if rules.players == 4 else 1)
    n *= workers if workers > 0 else (os.cpu_count() or 1)
    runs = benchmark.pedantic(
        simulate,
        args=(n,),
        kwargs={"policy": policy, "seed": 1, "workers": workers, "rules": rules},
        rounds=3,
        iterations=1,
        warmup_rounds=1,
    )
    seconds = benchmark.stats.stats.min if benchmark.stats else runs.seconds  # disabled: one run
    moves = int(runs.placements.sum()) + int(runs.swaps.sum())
    benchmark.extra_info.update(
        players=str(rules),
        policy=policy,
        workers=workers,
        games=n,
        seed=1,
        games_per_s=round(n / seconds),
        moves_per_s=round(moves / seconds),
    )


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_one_core(benchmark, players: int, policy: str) -> None:  # type: ignore[no-untyped-def]
    _run(benchmark, Rules(players), policy, workers=1)


def test_epsilon_greedy(benchmark) -> None:  # type: ignore[no-untyped-def]
    _run(benchmark, Rules(2), "epsilon-greedy", workers=1)


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_all_cores(benchmark, players: int, policy: str) -> None:  # type: ignore[no-untyped-def]
    _run(benchmark, Rules(players), policy, workers=-1)


@pytest.mark.parametrize("token", ["1", "1v", "2T", "2v", "2Tv", "4t"])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_variants_one_core(benchmark, token: str, policy: str) -> None:  # type: ignore[no-untyped-def]
    _run(benchmark, Rules.parse(token), policy, workers=1)

"""Card-game vector environment throughput (pytest-benchmark;
``python -m pytest benchmarks/test_vector_cards.py``).

Each case steps a ``genial.cards.vector.CardVectorEnv`` with in-kernel sampled actions
(``env.step(env.sample_actions())``, or the fused ``env.step_sampled()``), observations and masks
written, and records env-steps/s in
``extra_info``; the Python baseline steps the same games as ``CardGame`` objects from a Python
loop: ``play`` of a uniformly random legal action, ``action_mask()`` and ``view()`` of the
mover (what the env writes). Seeds are fixed.
"""

from __future__ import annotations

import numpy as np
import pytest

from genial.cards import CardGame, CardRules
from genial.cards.vector import CardVectorEnv
from genial.seeds import as_seed_sequence, child_seed

from .vector_timing import time_env

PY_GAMES = 64
PY_STEPS = 60  # steps of each CardGame a round of the Python case


def _vector(  # type: ignore[no-untyped-def]
    benchmark, n: int, players: int, mask: str, fused: bool = False
) -> None:
    env = CardVectorEnv(n, CardRules(players), seed=1, mask=mask)  # type: ignore[arg-type]
    time_env(benchmark, env, fused, engine="CardVectorEnv", players=f"c{players}", mask=mask)


@pytest.mark.parametrize("n", [64, 1024, 8192])
def test_card_vector_env(benchmark, n: int) -> None:  # type: ignore[no-untyped-def]
    """3 players, bool masks, 64 / 1,024 / 8,192 environments."""
    _vector(benchmark, n, 3, "bool")


@pytest.mark.parametrize("n", [64, 1024])
def test_card_vector_env_fused(benchmark, n: int) -> None:  # type: ignore[no-untyped-def]
    """The same with the sampler fused into the step (``env.step_sampled()``)."""
    _vector(benchmark, n, 3, "bool", fused=True)


@pytest.mark.parametrize("mask", ["packed", "none"])
def test_card_vector_env_mask_modes(benchmark, mask: str) -> None:  # type: ignore[no-untyped-def]
    _vector(benchmark, 1024, 3, mask)


@pytest.mark.parametrize("players", [2, 4])
def test_card_vector_env_players(benchmark, players: int) -> None:  # type: ignore[no-untyped-def]
    _vector(benchmark, 1024, players, "bool")


def test_card_python_loop(benchmark) -> None:  # type: ignore[no-untyped-def]
    """64 CardGames from Python: play a random legal action, then action_mask() and view()."""
    root = as_seed_sequence(1)
    rng = np.random.default_rng(1)
    games = [CardGame(3, seed=child_seed(root, i, 0)) for i in range(PY_GAMES)]
    episodes = [0] * PY_GAMES

    def run() -> None:
        for _ in range(PY_STEPS):
            for i in range(PY_GAMES):
                game = games[i]
                legal = game.legal_actions()
                game.play(int(legal[rng.integers(len(legal))]))
                if game.is_over:
                    episodes[i] += 1
                    games[i] = game = CardGame(3, seed=child_seed(root, i, episodes[i]))
                game.action_mask()
                game.view(game.current_player)

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    seconds = benchmark.stats.stats.min if benchmark.stats else 1.0
    steps = PY_STEPS * PY_GAMES
    benchmark.extra_info.update(
        engine="CardGame loop (play + action_mask + view)",
        players="c3",
        envs=PY_GAMES,
        mask="bool",
        env_steps=steps,
        env_steps_per_s=round(steps / seconds),
    )

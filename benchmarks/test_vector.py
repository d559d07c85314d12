"""Vector environment throughput (pytest-benchmark; ``python -m pytest benchmarks/test_vector.py``).

Each case steps a ``genial.board.vector.VectorEnv`` with in-kernel sampled actions
(``env.step(env.sample_actions())``, or the fused ``env.step_sampled()``), observations and masks
written, and records env-steps/s in ``extra_info``; ``test_vector_env_kernel_ratio`` also records
the ratio of the env's steps/s to the kernel's own playout moves/s (``simulate``, issue 19); the
Python baselines step the same kind of games as ``Game`` objects from a Python loop: ``play`` of a
uniformly random legal action and ``action_mask()`` (and, in the ``_obs`` case, the same
observation arrays built from Game's API). Seeds are fixed.
"""

from __future__ import annotations

import numpy as np
import pytest

import genial
from genial import Game, Rules
from genial.board.geometry import SYMBOLS, area
from genial.board.moves import TILES
from genial.board.vector import VectorEnv
from genial.seeds import as_seed_sequence, child_seed

from .vector_timing import time_env

PY_GAMES = 64
PY_STEPS = 40  # steps of each Game a round of the Python cases


def _vector(  # type: ignore[no-untyped-def]
    benchmark, n: int, rules: Rules, mask: str, fused: bool = False
) -> float:
    env = VectorEnv(n, rules, seed=1, mask=mask)  # type: ignore[arg-type]
    return time_env(benchmark, env, fused, engine="VectorEnv", players=str(rules), mask=mask)


@pytest.mark.parametrize("n", [64, 1024, 8192])
def test_vector_env(benchmark, n: int) -> None:  # type: ignore[no-untyped-def]
    """The issue's cases: 2 players, bit-packed masks, 64 / 1,024 / 8,192 environments."""
    _vector(benchmark, n, Rules(2), "packed")


@pytest.mark.parametrize("n", [64, 1024, 8192])
def test_vector_env_fused(benchmark, n: int) -> None:  # type: ignore[no-untyped-def]
    """The same with the sampler fused into the step (``env.step_sampled()``)."""
    _vector(benchmark, n, Rules(2), "packed", fused=True)


def _kernel_moves_per_s(rounds: int = 3) -> float:
    """The kernel's own playout rate: (placements + swaps) / seconds of ``simulate(100_000,
    Rules(2), seed=1, workers=1)``, random policy, best of ``rounds``."""
    best = 0.0
    for _ in range(rounds):
        runs = genial.simulate(100_000, Rules(2), seed=1, workers=1)
        moves = int(np.asarray(runs.placements).sum() + np.asarray(runs.swaps).sum())
        best = max(best, moves / runs.seconds)
    return best


@pytest.mark.parametrize(
    ("mask", "fused"),
    [("packed", False), ("packed", True), ("factored", False), ("factored", True)],
)
def test_vector_env_kernel_ratio(benchmark, mask: str, fused: bool) -> None:  # type: ignore[no-untyped-def]
    """Issue 19's figure: ``VectorEnv(1024)``, 2 players, masks written (bit-packed, or factored:
    the allowed edges and the rack's pairs), its env-steps/s over the kernel's playout moves/s
    (both best of their rounds, measured back to back)."""
    kernel = _kernel_moves_per_s()
    steps = _vector(benchmark, 1024, Rules(2), mask, fused=fused)
    benchmark.extra_info.update(
        kernel_moves_per_s=round(kernel), ratio_to_kernel=round(steps / kernel, 3)
    )


@pytest.mark.parametrize("mask", ["bool", "factored", "none"])
def test_vector_env_mask_modes(benchmark, mask: str) -> None:  # type: ignore[no-untyped-def]
    _vector(benchmark, 1024, Rules(2), mask)


@pytest.mark.parametrize("token", ["1", "3", "4", "4t"])
def test_vector_env_variants(benchmark, token: str) -> None:  # type: ignore[no-untyped-def]
    _vector(benchmark, 1024, Rules.parse(token), "packed")


def _observe(game: Game, cells: dict[tuple[int, int], int]) -> dict[str, np.ndarray]:
    """The observation a VectorEnv writes, from Game's public API (the fair Python baseline)."""
    board = np.zeros((6, len(cells)), dtype=np.uint8)
    for cell, colour in game.board.items():
        board[colour, cells[cell]] = 1
    for colour, cell in enumerate(SYMBOLS):
        board[colour, cells[cell]] = 1
    seat = game.current_player
    rack = np.zeros(21, dtype=np.uint8)
    for tile in game.rack(seat):
        rack[TILES.index(tile)] += 1
    order = [(seat + j) % game.players for j in range(game.players)]
    return {"board": board, "rack": rack, "scores": game.scores[order]}


def _python(benchmark, observe: bool) -> None:  # type: ignore[no-untyped-def]
    root = as_seed_sequence(1)
    rng = np.random.default_rng(1)
    games = [Game(2, seed=child_seed(root, i, 0)) for i in range(PY_GAMES)]
    episodes = [0] * PY_GAMES
    cells = {cell: k for k, cell in enumerate(area(5))}

    def run() -> None:
        for _ in range(PY_STEPS):
            for i in range(PY_GAMES):
                game = games[i]
                legal = game.legal_actions()
                game.play(int(legal[rng.integers(len(legal))]))
                if game.is_over:
                    episodes[i] += 1
                    games[i] = game = Game(2, seed=child_seed(root, i, episodes[i]))
                game.action_mask()
                if observe:
                    _observe(game, cells)

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)
    seconds = benchmark.stats.stats.min if benchmark.stats else 1.0
    steps = PY_STEPS * PY_GAMES
    benchmark.extra_info.update(
        engine="Game loop" + (" + observations" if observe else ""),
        players="2",
        envs=PY_GAMES,
        mask="bool",
        env_steps=steps,
        env_steps_per_s=round(steps / seconds),
    )


def test_python_loop(benchmark) -> None:  # type: ignore[no-untyped-def]
    """64 Games from Python: play a random legal action, then action_mask()."""
    _python(benchmark, observe=False)


def test_python_loop_obs(benchmark) -> None:  # type: ignore[no-untyped-def]
    """The same, also building the observation arrays the VectorEnv writes."""
    _python(benchmark, observe=True)

"""Speed of the search policies (pytest-benchmark; ``python -m pytest benchmarks/test_search.py``).

From a fixed 2-player position 12 greedy moves into a game (seed 3), one decision of ``mc:N`` and
``mcts:N`` is timed: decisions/s and playouts (iterations)/s go into ``extra_info``, with the
rate of whole games played by the rollout policy in the kernel, scaled by the moves a playout
has left (whole-game games/s x moves per game / moves left), and the ratio of the two (the
playouts' overhead: determinisation, copies, values). Also 1 against 2 workers in ``simulate``
with an mc policy. Seeds are fixed: the same work is timed on every run.
"""

from __future__ import annotations

import math
import time

import numpy as np
import pytest

from genial import Game, Rules, _core, simulate
from genial.batch import CHUNK
from genial.board.notation import load
from genial.policies import kernel_policies, parse_policies


def _position() -> Game:
    game = Game(Rules(2), seed=3)
    for _ in range(12):
        game.play(game.choose("greedy"))
    return game


def _halving_playouts(n: int, budget: int) -> int:
    """The playouts ``mc`` makes among ``n`` candidates (sequential halving, at least one per
    survivor per round; ``_core.choose_mc``)."""
    rounds = math.ceil(math.log2(n)) if n > 1 else 0
    m, left, total = n, budget, 0
    for r in range(rounds):
        per = max(1, left // (rounds - r) // m)
        total += per * m
        left -= per * m
        m = (m + 1) // 2
    return total


def _rates(rollout: str, game: Game) -> dict[str, float]:
    """Whole games by ``rollout`` in the kernel (games/s, moves/game) and games from ``game``'s
    position determinised for its seat to move (games/s, moves left)."""
    codes, eps, _ = kernel_policies(*parse_policies(rollout, 2))
    n = 20_000 if rollout == "random" else 2_000
    out: dict[str, float] = {}
    for key, core, deal, seat in (
        ("whole", Rules(2).core(), True, -1),
        ("here", load(game.position), False, game.position.to_move),
    ):
        rows = np.zeros(n, dtype=_core.ROW_DTYPE)
        best = math.inf
        for _ in range(3):
            t = time.perf_counter()
            _core.run_chunk(
                core, np.random.PCG64(1), np.random.PCG64(2), deal, codes, eps, rows, view_seat=seat
            )
            best = min(best, time.perf_counter() - t)
        moves = rows["placements"].astype(float) - (0 if deal else game._core.placements)
        moves += rows["swaps"].sum(axis=1)
        out[f"{key}_games_per_s"] = n / best
        out[f"{key}_moves"] = float(moves.mean())
    return out


@pytest.mark.parametrize(("n", "rollout"), [(100, "greedy"), (400, "greedy"), (2000, "random")])
def test_mc_decision(benchmark, n: int, rollout: str) -> None:  # type: ignore[no-untyped-def]
    game = _position()
    core = game._core
    candidates = min(10, len(core.legal_actions()))
    benchmark.pedantic(
        core.choose,
        args=("mc", np.random.PCG64(5), 0.1, n, rollout, 10, 0.7),
        rounds=5,
        iterations=1,
        warmup_rounds=1,
    )
    seconds = benchmark.stats.stats.min
    playouts = _halving_playouts(candidates, n)
    rates = _rates(rollout, game)
    # a playout starts after the candidate: one move fewer than the games from the position
    scaled = rates["whole_games_per_s"] * rates["whole_moves"] / max(rates["here_moves"] - 1, 1)
    benchmark.extra_info.update(
        policy=f"mc:{n}:{rollout}",
        candidates=candidates,
        playouts_per_decision=playouts,
        decisions_per_s=round(1 / seconds, 1),
        playouts_per_s=round(playouts / seconds),
        whole_games_per_s=round(rates["whole_games_per_s"]),
        moves_per_game=round(rates["whole_moves"], 1),
        moves_left=round(rates["here_moves"], 1),
        scaled_rate=round(scaled),
        ratio=round(playouts / seconds / scaled, 3),
        here_games_per_s=round(rates["here_games_per_s"]),
        ratio_here=round(playouts / seconds / rates["here_games_per_s"], 3),
    )


@pytest.mark.parametrize(("n", "rollout"), [(100, "greedy"), (400, "greedy"), (2000, "random")])
def test_mcts_decision(benchmark, n: int, rollout: str) -> None:  # type: ignore[no-untyped-def]
    game = _position()
    core = game._core
    benchmark.pedantic(
        core.choose,
        args=("mcts", np.random.PCG64(5), 0.1, n, rollout, 10, 0.7),
        rounds=5,
        iterations=1,
        warmup_rounds=1,
    )
    seconds = benchmark.stats.stats.min
    rates = _rates(rollout, game)
    scaled = rates["whole_games_per_s"] * rates["whole_moves"] / max(rates["here_moves"] - 1, 1)
    benchmark.extra_info.update(
        policy=f"mcts:{n}:{rollout}",
        decisions_per_s=round(1 / seconds, 1),
        iterations_per_s=round(n / seconds),
        scaled_rate=round(scaled),
        ratio=round(n / seconds / scaled, 3),
    )


@pytest.mark.parametrize("workers", [1, 2])
def test_mc_games_scaling(benchmark, workers: int) -> None:  # type: ignore[no-untyped-def]
    """Whole 2-player games of mc:20 (random rollouts) against greedy, 1 or 2 workers."""
    n = 2 * CHUNK * workers  # two chunks per worker: the work is shared out by chunks
    benchmark.pedantic(
        simulate,
        args=(n,),
        kwargs={"policy": ("mc:20:random", "greedy"), "seed": 1, "workers": workers},
        rounds=3,
        iterations=1,
        warmup_rounds=1,
    )
    benchmark.extra_info.update(
        policy="mc:20:random vs greedy",
        workers=workers,
        games=n,
        games_per_s=round(n / benchmark.stats.stats.min, 1),
    )

"""Multi-round card-game matches (docs/rules.md §5.7): each player earns victory points equal to
its lowest marker in every round; after the rounds the most victory points win.

>>> result = match(200, rounds=3, players=3, policy="greedy", seed=1)
>>> result.victory_points.shape, result.rounds
((200, 3), 3)
>>> bool((result.victory_points == result.round_points.sum(axis=1)).all())
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..batch import Playouts, simulate
from ..errors import checked_int
from ..stats import wilson_interval
from .rules import CardRules

__all__ = ["MatchResult", "match"]


@dataclass(frozen=True, eq=False)
class MatchResult:
    """``n`` matches of ``rounds`` card games each. ``round_points`` (n, rounds, players): each
    player's lowest marker per round; ``victory_points`` (n, players): their sums; ``ranks``:
    competition ranks on victory points (0 best, ties share); ``winner``: the seat first alone,
    -1 if shared. ``games`` are the underlying games, round ``r`` of match ``m`` in row
    ``m * rounds + r``."""

    rounds: int
    round_points: npt.NDArray[np.int64]
    victory_points: npt.NDArray[np.int64]
    ranks: npt.NDArray[np.int64]
    winner: npt.NDArray[np.int64]
    games: Playouts

    def __len__(self) -> int:
        return len(self.winner)

    def win_rates(self) -> list[tuple[float, float, float]]:
        """Each seat's outright match wins: ``(rate, lo, hi)`` with a 95% Wilson interval."""
        n = len(self)
        out = []
        for seat in range(self.victory_points.shape[1]):
            wins = int((self.winner == seat).sum())
            lo, hi = wilson_interval(wins, n)
            out.append((wins / n if n else float("nan"), float(lo), float(hi)))
        return out

    def __str__(self) -> str:
        """Each seat's outright match wins with their interval, and its mean victory points.

        >>> print(match(100, rounds=2, players=2, seed=3))  # doctest: +ELLIPSIS
        100 matches of 2 rounds, 2 players (random, random)
        seat  match wins [95% interval]  mean victory points
           0  ...
           1  ...
        shared first place: ...
        """
        policies = ", ".join(self.games.policies)
        players = self.victory_points.shape[1]
        lines = [
            f"{len(self):,} matches of {self.rounds} rounds, {players} players ({policies})",
            "seat  match wins [95% interval]  mean victory points",
        ]
        means = self.victory_points.mean(axis=0) if len(self) else np.full(players, np.nan)
        for seat, (rate, lo, hi) in enumerate(self.win_rates()):
            lines.append(
                f"{seat:>4}  {100 * rate:5.1f}% [{100 * lo:4.1f}, {100 * hi:4.1f}]"
                f"{means[seat]:>22.2f}"
            )
        shared = float((self.winner < 0).mean()) if len(self) else float("nan")
        lines.append(f"shared first place: {100 * shared:.1f}%")
        return "\n".join(lines)


def match(
    n_matches: int,
    *,
    rounds: int = 3,
    players: int = 3,
    policy: str | Sequence[str] = "random",
    seed: Any = None,
    workers: int = 1,
    turn_cap: int = 1000,
    epsilon: float = 0.1,
    progress: bool = False,
) -> MatchResult:
    """Play ``n_matches`` matches of ``rounds`` card games (seats fixed across the rounds) and
    score them by victory points (RULES §5.7)."""
    n = checked_int(n_matches, "n_matches", 0, 10**9)
    r = checked_int(rounds, "rounds", 1, 1000)
    rules = CardRules(players, turn_cap=turn_cap)
    games = simulate(
        n * r,
        rules,
        policy=policy,
        options={"epsilon": epsilon},
        seed=seed,
        workers=workers,
        progress=progress,
    )
    points = games.lowest.astype(np.int64).reshape(n, r, rules.players)
    vp = points.sum(axis=1)
    better = (vp[:, None, :] > vp[:, :, None]).sum(axis=2)  # seats strictly ahead of each seat
    first = better == 0
    winner = np.where(first.sum(axis=1) == 1, first.argmax(axis=1), -1)
    return MatchResult(r, points, vp, better.astype(np.int64), winner.astype(np.int64), games)

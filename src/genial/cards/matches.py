"""Multi-round card-game matches (docs/rules.md §5.7): each player earns victory points equal to
its lowest marker in every round; after the rounds the most victory points win.

>>> result = match(200, rounds=3, players=3, policy="greedy", seed=1)
>>> result.victory_points.shape, result.rounds
((200, 3), 3)
>>> bool((result.victory_points == result.round_points.sum(axis=1)).all())
True
>>> best = result.win_rates()[0]
>>> best.seat, best.policy, best.lo <= best.rate <= best.hi
(0, 'greedy', True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ..batch import Playouts, simulate
from ..errors import checked_int
from ..stats import wilson_interval
from .rules import CardRules

__all__ = ["MatchResult", "WinRate", "match"]

REPR_LIMIT = 5000
"""A ``MatchResult``'s ``repr`` stays below this many characters (``str`` and the HTML view
are the tables; the arrays are its fields)."""


class WinRate(NamedTuple):
    """One seat's outright match wins (``MatchResult.win_rates``): ``rate`` with its 95%
    Wilson interval ``lo``/``hi`` (NaN without matches)."""

    seat: int
    policy: str
    wins: int
    rate: float
    lo: float
    hi: float


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

    @property
    def players(self) -> int:
        return int(self.victory_points.shape[1])

    def win_rates(self) -> list[WinRate]:
        """Each seat's outright match wins, by seat: a ``WinRate`` (``seat``, ``policy``,
        ``wins``, ``rate``, ``lo``, ``hi``), the interval a 95% Wilson one."""
        n = len(self)
        policies = tuple(self.games.policies)
        out = []
        for seat in range(self.players):
            wins = int((self.winner == seat).sum())
            lo, hi = wilson_interval(wins, n)
            policy = str(policies[seat]) if seat < len(policies) else ""
            rate = wins / n if n else float("nan")
            out.append(WinRate(seat, policy, wins, rate, float(lo), float(hi)))
        return out

    def __repr__(self) -> str:
        """Short: the matches' size, policies and each seat's wins (not the arrays)."""
        n = len(self)
        shared = int((self.winner < 0).sum())
        wins = [w.wins for w in self.win_rates()]
        text = (
            f"MatchResult(matches={n}, rounds={self.rounds}, players={self.players}, "
            f"policies={tuple(self.games.policies)!r}, wins={wins!r}, shared={shared})"
        )
        if len(text) < REPR_LIMIT:
            return text
        return (  # very long policy names
            f"MatchResult(matches={n}, rounds={self.rounds}, players={self.players}, "
            f"wins={wins!r}, shared={shared})"
        )

    def _repr_html_(self) -> str:
        """A table: each seat's policy, outright match wins with their rate and 95% Wilson
        interval, and mean victory points; shared first places in the foot."""
        from ..render.kit import _num, _pct, _table

        n = len(self)
        players = self.players
        means = self.victory_points.mean(axis=0) if n else np.full(players, np.nan)
        caption = f"Card-game matches: {n:,} matches of {self.rounds} rounds, {players} players"
        head = ["seat", "policy", "match wins", "win rate", "95% interval", "mean victory points"]
        body = [
            [
                str(w.seat),
                w.policy,
                f"{w.wins:,}",
                _pct(w.rate),
                f"[{_pct(w.lo)}, {_pct(w.hi)}]",
                _num(float(means[w.seat])),
            ]
            for w in self.win_rates()
        ]
        shared = int((self.winner < 0).sum())
        foot = (
            f"shared first place: {shared:,} matches ({_pct(shared / n if n else float('nan'))}),"
            " a win for no seat; 95% Wilson intervals; victory points: each round's lowest "
            "marker, summed"
        )
        return _table(caption, head, body, foot, left=(0, 1))

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
        for w in self.win_rates():
            lines.append(
                f"{w.seat:>4}  {100 * w.rate:5.1f}% [{100 * w.lo:4.1f}, {100 * w.hi:4.1f}]"
                f"{means[w.seat]:>22.2f}"
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

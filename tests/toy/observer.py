"""What an agent of the toy game sees, as the flat int8 vector of a PettingZoo environment: the
toy's part of the environment (an *observer*, the protocol of the board and card games' own),
ready for a ``GameEntry`` hook that builds a generic environment from it.

Pig hides nothing: every seat sees the banked points, the turn total, its own seat and the seat
to move (points and total capped at 127, the largest int8).

>>> watch = ToyObserver(3)
>>> game = watch.start(np.random.SeedSequence(1), "pig3 | 12 7 0 | seat 1 | total 5 | move 9")
>>> watch.observation(game, 0).tolist()
[12, 7, 0, 5, 1, 0, 0, 0, 1, 0]
>>> watch.fields
[('points', 3), ('total', 1), ('seat', 3), ('to_move', 3)]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from genial.errors import GenialError, excerpt

from .game import ToyGame
from .moves import ACTION_SIZE
from .position import ToyPosition
from .rules import ToyRules, toy_rules

__all__ = ["ToyObserver"]

_CAP = 127


class ToyObserver:
    """The toy game in an environment: how a game starts (``start``), what a seat sees
    (``observation``, its ``fields`` and their bounds ``high``), when a game is cut short
    (``truncated``: after ``max_turns`` moves, if given) and its rewards (``final``)."""

    name = "genial_toy_v0"
    action_size = ACTION_SIZE

    def __init__(
        self,
        players: Any = 2,
        *,
        rules: ToyRules | str | None = None,
        max_turns: int | None = None,
    ) -> None:
        if max_turns is not None and (
            isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1
        ):
            raise GenialError(f"max_turns must be an int >= 1 or None, got {excerpt(max_turns)}")
        self.rules = toy_rules(players, rules=rules)
        self.max_turns = max_turns
        n = self.rules.players
        self.fields: list[tuple[str, int]] = [
            ("points", n),
            ("total", 1),
            ("seat", n),
            ("to_move", n),
        ]

    def high(self, lay: dict[str, slice], size: int) -> npt.NDArray[np.int8]:
        """The observation's upper bounds (``lay``: the fields' slices)."""
        high = np.ones(size, dtype=np.int8)
        high[lay["points"]] = _CAP
        high[lay["total"]] = _CAP
        return high

    def start(self, seed: np.random.SeedSequence, position: Any) -> ToyGame:
        """A new game of these rules, or from ``position`` (a text or a ``ToyPosition``)."""
        if position is None:
            return ToyGame(self.rules, seed=seed)
        pos = ToyPosition.parse(position) if isinstance(position, str) else position
        if not isinstance(pos, ToyPosition):
            raise GenialError(
                f"options['position'] must be a toy position text or a ToyPosition, "
                f"got {excerpt(position)}"
            )
        if pos.rules != self.rules:
            raise GenialError(
                f"the position is a {pos.rules} game, this environment plays {self.rules}"
            )
        return ToyGame.from_position(pos, seed=seed)

    def played(self, game: ToyGame, action: int) -> None:
        """Called after each action the environment plays (nothing to follow here)."""

    def truncated(self, game: ToyGame) -> bool:
        """Whether the game stopped short: the move cap, or ``max_turns`` moves."""
        moves = game.position.moves
        return bool(game.truncated) or (self.max_turns is not None and moves >= self.max_turns)

    def observation(self, game: ToyGame, seat: int) -> npt.NDArray[np.int8]:
        """What ``seat`` sees (the fields in layout order)."""
        n = self.rules.players
        p = game.position
        me, to_move = [0] * n, [0] * n
        me[seat] = 1
        to_move[p.current] = 1
        values = [min(v, _CAP) for v in (*p.scores, p.total)] + me + to_move
        return np.array(values, dtype=np.int8)

    def final(self, game: ToyGame, rewards: Any) -> list[float]:
        """The seats' rewards of a finished (or cut) game: ``rewards(ranks)``."""
        result: list[float] = rewards(game.ranks().tolist())
        return result

"""The toy game's moves: ``roll`` (action 0) and ``hold`` (action 1).

>>> ToyMove.parse("hold").action, str(ToyMove.from_action(0))
(1, 'roll')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from genial.errors import IllegalMoveError, excerpt

__all__ = ["ACTION_SIZE", "HOLD", "MOVES", "ROLL", "ToyMove", "move_of"]

_KINDS = ("roll", "hold")
ACTION_SIZE = len(_KINDS)
"""The fixed action space: ids 0 (roll) and 1 (hold)."""


@dataclass(frozen=True)
class ToyMove:
    """A move of the toy game; its text is its kind, its action id its index."""

    kind: str

    def __post_init__(self) -> None:
        if self.kind not in _KINDS:
            raise IllegalMoveError(f"a toy move is 'roll' or 'hold', got {excerpt(self.kind)}")

    @property
    def action(self) -> int:
        return _KINDS.index(self.kind)

    def __str__(self) -> str:
        return self.kind

    def __reduce__(self) -> tuple[Any, ...]:
        return (ToyMove.from_action, (self.action,))  # unpickled: the move of MOVES

    @classmethod
    def parse(cls, text: str) -> ToyMove:
        if not isinstance(text, str) or text not in _KINDS:
            raise IllegalMoveError(f"a toy move is 'roll' or 'hold', got {excerpt(text)}")
        return MOVES[_KINDS.index(text)]

    @classmethod
    def from_action(cls, action: int) -> ToyMove:
        if not 0 <= action < ACTION_SIZE:
            raise IllegalMoveError(f"a toy action is 0 or 1, got {excerpt(action)}")
        return MOVES[action]


MOVES = (ToyMove("roll"), ToyMove("hold"))
ROLL, HOLD = MOVES


def move_of(value: Any) -> ToyMove:
    """The move a move object, its text or its action id (an int, not a bool) stands for;
    ``IllegalMoveError`` for anything else."""
    if isinstance(value, ToyMove):
        return MOVES[value.action]
    if isinstance(value, str):
        return ToyMove.parse(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
        return ToyMove.from_action(int(value))
    raise IllegalMoveError(f"a toy move, its text or its action id, got {excerpt(value)}")

"""The toy game's positions and their one-line text.

A position is the rules, every seat's banked score, the seat to move, its turn total and the
moves played so far (the move cap ends a game): ``"pig2 | 12 7 | seat 1 | total 5 | move 23"``.
The dice are not part of a position (as the bag is not part of a board position): a game read
from a text rolls from its own seed.

>>> p = ToyPosition.parse("pig2 | 12 7 | seat 1 | total 5 | move 23")
>>> p.scores, p.current, p.ranks(), p.is_over
((12, 7), 1, (0, 1), False)
>>> ToyPosition.start(ToyRules(3)).to_text()
'pig3 | 0 0 0 | seat 0 | total 0 | move 0'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from genial.errors import GenialError, PositionError, excerpt

from .rules import MOVE_CAP, ToyRules

__all__ = ["ToyPosition"]

_TEXT = re.compile(
    r"(\S+) \| ([0-9]+(?: [0-9]+){1,3}) \| seat ([0-3]) \| total ([0-9]+) \| move ([0-9]+)"
)
_MAX_POINTS = 9999


@dataclass(frozen=True)
class ToyPosition:
    """One position of the toy game (immutable; ``parse`` checks it is possible)."""

    rules: ToyRules
    scores: tuple[int, ...]
    current: int
    total: int
    moves: int

    @classmethod
    def start(cls, rules: ToyRules) -> ToyPosition:
        return cls(rules, (0,) * rules.players, 0, 0, 0)

    @property
    def winner(self) -> int | None:
        """The seat that banked the target, if one did."""
        won = [s for s, v in enumerate(self.scores) if v >= self.rules.target]
        return won[0] if won else None

    @property
    def truncated(self) -> bool:
        return self.winner is None and self.moves >= MOVE_CAP

    @property
    def is_over(self) -> bool:
        return self.winner is not None or self.moves >= MOVE_CAP

    def ranks(self) -> tuple[int, ...]:
        """Competition ranks by banked score (0 = best; equal scores share a rank)."""
        return tuple(sum(w > v for w in self.scores) for v in self.scores)

    def to_text(self) -> str:
        scores = " ".join(str(v) for v in self.scores)
        return (
            f"{self.rules} | {scores} | seat {self.current} | total {self.total} | "
            f"move {self.moves}"
        )

    @classmethod
    def parse(cls, text: str) -> ToyPosition:
        """The position a text describes (``PositionError`` for a text that is not one)."""
        match = _TEXT.fullmatch(text) if isinstance(text, str) and len(text) < 200 else None
        if match is None:
            raise PositionError(f"not a toy position: {excerpt(text)}")
        try:
            rules = ToyRules.parse(match[1])
        except GenialError as exc:
            raise PositionError(f"a toy position: {exc}") from None
        scores = tuple(int(v) for v in match[2].split())
        position = cls(rules, scores, int(match[3]), int(match[4]), int(match[5]))
        if position.to_text() != text:
            raise PositionError(f"not a toy position's canonical text: {excerpt(text)}")
        if len(scores) != rules.players or position.current >= rules.players:
            raise PositionError(f"{excerpt(text)}: not {rules.players} seats")
        if max(scores) > _MAX_POINTS or position.total > _MAX_POINTS:
            raise PositionError(f"{excerpt(text)}: more than {_MAX_POINTS} points")
        if sum(v >= rules.target for v in scores) > 1 or position.moves > MOVE_CAP:
            raise PositionError(f"{excerpt(text)}: an impossible position")
        if position.winner is not None and position.total:
            raise PositionError(f"{excerpt(text)}: a won game has no turn total")
        return position

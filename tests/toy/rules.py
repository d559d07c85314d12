"""The toy game's rules: Pig, a dice race for 2 to 4 players.

On your turn you roll a die as often as you like: each roll adds its pips to your turn total,
until you *hold* (the turn total is banked into your score and the turn passes) or roll a 1 (the
turn total is lost and the turn passes). The first to bank ``target`` points wins. A game stops
after ``MOVE_CAP`` moves (then it is *truncated*, ranked by the scores banked).

>>> ToyRules.parse("pig3-50")
ToyRules(players=3, target=50)
>>> str(ToyRules(2))
'pig2'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from genial.errors import RulesError, excerpt

__all__ = ["DEFAULT_TARGET", "MAX_SEATS", "MOVE_CAP", "ToyRules", "toy_rules"]

MAX_SEATS = 4
"""The most players (the batch rows hold this many seats)."""

DEFAULT_TARGET = 30
"""Points to bank to win, unless the rules say otherwise."""

MOVE_CAP = 400
"""Moves after which a game stops, truncated (the batch logs hold this many moves)."""

_TOKEN = re.compile(r"pig([2-4])(?:-([1-9][0-9]{0,2}))?")


@dataclass(frozen=True)
class ToyRules:
    """``players`` (2 to 4) race to ``target`` points (1 to 999); the token ``"pig2"`` or
    ``"pig3-50"`` names them (``str`` and ``parse``)."""

    players: int = 2
    target: int = DEFAULT_TARGET

    def __post_init__(self) -> None:
        for name, value, lo, hi in (
            ("players", self.players, 2, 4),
            ("target", self.target, 1, 999),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise RulesError(f"{name} must be an int from {lo} to {hi}, got {excerpt(value)}")

    def __str__(self) -> str:
        tail = "" if self.target == DEFAULT_TARGET else f"-{self.target}"
        return f"pig{self.players}{tail}"

    @classmethod
    def parse(cls, token: str) -> ToyRules:
        """The rules a token names (``RulesError`` for anything else)."""
        match = _TOKEN.fullmatch(token) if isinstance(token, str) else None
        if match is None:
            raise RulesError(f"toy rules are 'pig2' to 'pig4' or 'pig3-50', got {excerpt(token)}")
        target = int(match[2]) if match[2] else DEFAULT_TARGET
        return cls(int(match[1]), target)

    @classmethod
    def of(cls, spec: Any = None) -> ToyRules:
        """Rules from ``None`` (the default, 2 players), a player count, a token or rules."""
        if spec is None:
            return cls()
        if isinstance(spec, ToyRules):
            return spec
        if isinstance(spec, str):
            return cls.parse(spec)
        if isinstance(spec, int) and not isinstance(spec, bool):
            return cls(spec)
        raise RulesError(f"toy rules: a player count, a token or ToyRules, got {excerpt(spec)}")


def toy_rules(players: Any = None, *, rules: Any = None) -> ToyRules:
    """The registry's rules namer (``GameEntry.rules``): ``None`` (the default), a player
    count, a token or a ``ToyRules``, positionally or as ``rules=``.

    >>> toy_rules(3), toy_rules(rules="pig4-20")
    (ToyRules(players=3, target=30), ToyRules(players=4, target=20))
    """
    if players is not None and rules is not None and ToyRules.of(players) != ToyRules.of(rules):
        raise RulesError(f"players {excerpt(players)} and rules {excerpt(rules)} disagree")
    return ToyRules.of(rules if rules is not None else players)

"""The rules of a card game (RULES §5) as one immutable object: the player count and the turn cap.

>>> CardRules(players=2)
CardRules(players=2)
>>> CardRules(2).display_size, CardRules(4).display_size
(2, 1)
>>> str(CardRules(3)), str(CardRules(3, turn_cap=50))
('c3', 'c3:50')
>>> CardRules.parse("c3:50") == CardRules.of("c3:50") == CardRules(3, turn_cap=50)
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..errors import RulesError, excerpt, is_int
from . import _kernel

__all__ = ["DEFAULT_TURN_CAP", "MAX_TURN_CAP", "CardRules"]

DEFAULT_TURN_CAP = 1000
"""Turns after which a game stops, reported as truncated (RULES §5.7 Decision)."""
MAX_TURN_CAP = 32000
"""The largest turn cap (the kernel counts turns in 16 bits)."""

# "c", the player count, then an optional ":" and the turn cap (ASCII digits, no leading zero)
_TOKEN = re.compile(r"c([2-4])(?::([1-9][0-9]{0,4}))?")
_MAX_TOKEN = 8



@dataclass(frozen=True)
class CardRules:
    """Which card game is played: ``players`` (2, 3 or 4, RULES §5.2) and ``turn_cap``, the
    number of turns after which a game stops and is reported as truncated (RULES §5.7
    Decision; 1 to 32,000, default 1,000). Everything else follows from the player count: two
    display cards each with two players, else one (RULES §5.8).
    """

    players: int = 3
    turn_cap: int = DEFAULT_TURN_CAP

    def __post_init__(self) -> None:
        p, cap = self.players, self.turn_cap
        if not is_int(p) or not 2 <= p <= 4:
            raise RulesError(
                f"the card game is for 2, 3 or 4 players (docs/rules.md §5.2), got {excerpt(p)}"
            )
        if not is_int(cap) or not 1 <= cap <= MAX_TURN_CAP:
            raise RulesError(
                f"turn_cap must be an int in 1..{MAX_TURN_CAP} (docs/rules.md §5.7), "
                f"got {excerpt(cap)}"
            )
        object.__setattr__(self, "players", int(p))
        object.__setattr__(self, "turn_cap", int(cap))

    # -- what the rules imply -------------------------------------------------------------------
    @property
    def display_size(self) -> int:
        """Display cards in front of each player: 2 with two players (RULES §5.8), else 1."""
        return 2 if self.players == 2 else 1

    @property
    def cap(self) -> int:
        """A marker's last column (RULES §5.1)."""
        return 10

    @property
    def teams(self) -> bool:
        """The card game has no teams (for the batch layer's summaries)."""
        return False

    @property
    def counter_sets(self) -> int:
        """Sets of markers: one per player."""
        return self.players

    def team_of(self, seat: int) -> int:
        """The marker set a seat scores on: its own."""
        return seat

    def core(self) -> _kernel.Cards:
        """A kernel state under these rules: every card in the deck, nobody dealt."""
        return _kernel.Cards(
            players=self.players, display_size=self.display_size, turn_cap=self.turn_cap
        )

    # -- notation -----------------------------------------------------------------------------
    def __str__(self) -> str:
        """The token: ``c`` and the player count, then ``:`` and the turn cap if it is not the
        default (``'c3'``, ``'c2:50'``)."""
        cap = "" if self.turn_cap == DEFAULT_TURN_CAP else f":{self.turn_cap}"
        return f"c{self.players}{cap}"

    def __repr__(self) -> str:
        cap = "" if self.turn_cap == DEFAULT_TURN_CAP else f", turn_cap={self.turn_cap}"
        return f"CardRules(players={self.players}{cap})"

    @classmethod
    def parse(cls, text: str) -> CardRules:
        """Read a token written by ``str()``: ``'c2'``, ``'c3'``, ``'c4'``, ``'c3:50'``."""
        match = (
            _TOKEN.fullmatch(text) if isinstance(text, str) and len(text) <= _MAX_TOKEN else None
        )
        if match is None:
            raise RulesError(
                f"card rules {excerpt(text)}: expected 'c' and the player count 2-4, then "
                "optionally ':' and the turn cap, like 'c3' or 'c2:50'"
            )
        cap = match.group(2)
        return cls(int(match.group(1)), DEFAULT_TURN_CAP if cap is None else int(cap))

    @classmethod
    def of(
        cls,
        players: int | str | CardRules = 3,
        *,
        turn_cap: int = DEFAULT_TURN_CAP,
        rules: CardRules | str | None = None,
    ) -> CardRules:
        """The rules named in any of the accepted ways: a ``CardRules``, its token (``"c2:50"``),
        or the player count with ``turn_cap``. ``rules=`` takes a ``CardRules`` or a token
        instead of ``players``; a ``CardRules`` or a token already names the turn cap, so
        ``turn_cap`` must then stay at its default.

        >>> CardRules.of(2, turn_cap=50) == CardRules.of("c2:50") == CardRules.of(rules="c2:50")
        True
        """
        if rules is not None:
            if not (is_int(players) and players == 3):
                raise RulesError("give either rules= or players=, not both")
            players = rules
        if isinstance(players, (CardRules, str)):
            if not (is_int(turn_cap) and turn_cap == DEFAULT_TURN_CAP):
                raise RulesError(
                    f"rules {excerpt(str(players))} already name the turn cap: drop turn_cap= "
                    "(a token carries it: 'c3:50')"
                )
            return players if isinstance(players, CardRules) else cls.parse(players)
        if not is_int(players):
            raise RulesError(
                "players must be a count 2-4, a card rules token like 'c3' or a CardRules, "
                f"got {excerpt(players)}"
            )
        return cls(int(players), turn_cap)

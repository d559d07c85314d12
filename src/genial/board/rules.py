"""The rules of a game: the base game (RULES §3) and its variants (RULES §2.2, §4), as one
immutable object.

>>> Rules(players=2)
Rules(players=2)
>>> solo = Rules(players=1)
>>> solo.rack_size, solo.cap, solo.crossing, solo.bonus, solo.swap
(1, 36, 18, 'none', False)
>>> Rules.parse("4t") == Rules(players=4, teams=True) == Rules.of("4t")
True
>>> str(Rules(players=2, tournament=True, tiles="travel"))
'2Tv'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .. import _core
from ..errors import RulesError, excerpt

__all__ = ["Rules", "RulesError"]


_TOKEN = re.compile(r"([1-4])(t?)(T?)(v?)")


@dataclass(frozen=True)
class Rules:
    """Which game is played. The variants are chosen by keyword; everything else follows:

    - ``players=1``: the solo game (RULES §4.1): no rack (the drawn tile is placed at once),
      counters to 36 with the crossing at 18 (excess lost), no bonus plays, no swap.
    - ``teams=True`` (4 players): seats 0 and 2 against 1 and 3, shared counters to 36 with the
      crossing at 18, bonus plays at 18 and 36 (RULES §4.2).
    - ``tournament=True`` (2 players): at most one bonus play per placement, and a first
      placement must touch a symbol or a tile (RULES §4.3).
    - ``tiles="travel"`` (1 or 2 players): the 57-tile travel set (RULES §2.2); the bag can run
      out (RULES §3.6).
    """

    players: int = 2
    teams: bool = False
    tournament: bool = False
    tiles: Literal["standard", "travel"] = "standard"

    def __post_init__(self) -> None:
        p = self.players
        if isinstance(p, bool) or not isinstance(p, int) or not 1 <= p <= 4:
            raise RulesError(
                f"players must be 1, 2, 3 or 4 (docs/rules.md §3, §4.1), got {excerpt(p)}"
            )
        if not isinstance(self.teams, bool) or not isinstance(self.tournament, bool):
            raise RulesError("teams and tournament are True or False")
        if self.teams and p != 4:
            raise RulesError(f"the team game is for 4 players (docs/rules.md §4.2), not {p}")
        if self.tournament and p != 2:
            raise RulesError(
                f"tournament rules are an option of the 2-player game (docs/rules.md §4.3), not {p}"
            )
        if self.tiles not in ("standard", "travel"):
            raise RulesError(f"tiles must be 'standard' or 'travel', got {excerpt(self.tiles)}")
        if self.tiles == "travel" and p > 2:
            raise RulesError(f"the travel set is for 1 or 2 players (docs/rules.md §2.2), not {p}")

    # -- what the variant implies -------------------------------------------------------------
    @property
    def radius(self) -> int:
        """The area: cells at distance <= radius (RULES §1.3; solo plays on the 2-player area)."""
        return {1: 5, 2: 5, 3: 6, 4: 7}[self.players]

    @property
    def rack_size(self) -> int:
        """Tiles a rack is refilled to: 6, or 1 in solo, where the tile just drawn is the rack
        (RULES §4.1). This is what the kernel holds."""
        return 1 if self.players == 1 else 6

    @property
    def double_counters(self) -> bool:
        """Counters run to 36 with a crossing at 18 (solo and teams)."""
        return self.players == 1 or self.teams

    @property
    def cap(self) -> int:
        """A counter's maximum."""
        return 36 if self.double_counters else 18

    @property
    def crossing(self) -> int:
        """Reaching this from below stops a counter there: the excess is lost."""
        return 18

    @property
    def bonus(self) -> Literal["each", "one", "none"]:
        """Bonus plays: one per counter reaching 18 (and 36 in teams), at most one per
        placement (tournament), or none (solo)."""
        if self.players == 1:
            return "none"
        return "one" if self.tournament else "each"

    @property
    def first_round(self) -> Literal["new-symbol", "symbol-or-tile"]:
        """The first-round rule: touch a symbol no earlier first placement touched (RULES §3.2),
        or touch a symbol or a tile (tournament, §4.3)."""
        return "symbol-or-tile" if self.tournament else "new-symbol"

    @property
    def swap(self) -> bool:
        """Whether the rack swap of RULES §3.5 exists (not in solo)."""
        return self.players > 1

    @property
    def counter_sets(self) -> int:
        """Sets of counters: one per team, or one per player."""
        return 2 if self.teams else self.players

    def team_of(self, seat: int) -> int:
        """The counter set (team) a seat scores on."""
        return seat % 2 if self.teams else seat

    @property
    def tile_counts(self) -> tuple[int, ...]:
        """Tiles of each type in the set, in tile type order (RR, RG, ..., PP)."""
        counts: tuple[int, ...] = _core.TILE_SETS[self.tiles]
        return counts

    @property
    def tile_total(self) -> int:
        return sum(self.tile_counts)

    @property
    def halves_per_colour(self) -> int:
        """Tile halves of each colour in the set: 40 standard, 19 travel."""
        return sum(
            n * ((a == 0) + (b == 0))
            for n, (a, b) in zip(self.tile_counts, _core.TILES, strict=True)
        )

    def core(self) -> _core.Core:
        """A kernel state under these rules: empty board, full bag, nobody dealt."""
        return _core.Core(
            players=self.players,
            radius=self.radius,
            rack_size=self.rack_size,
            cap=self.cap,
            cross=self.crossing,
            bonus={"none": 0, "each": 1, "one": 2}[self.bonus],
            first={"new-symbol": 1, "symbol-or-tile": 2}[self.first_round],
            swap=self.swap,
            teams=self.teams,
            tile_counts=self.tile_counts,
        )

    # -- notation -----------------------------------------------------------------------------
    def __str__(self) -> str:
        """The rules field of the position text: the player count, then ``t`` (teams), ``T``
        (tournament), ``v`` (travel set)."""
        return (
            f"{self.players}{'t' if self.teams else ''}{'T' if self.tournament else ''}"
            f"{'v' if self.tiles == 'travel' else ''}"
        )

    def __repr__(self) -> str:
        parts = [f"players={self.players}"]
        if self.teams:
            parts.append("teams=True")
        if self.tournament:
            parts.append("tournament=True")
        if self.tiles != "standard":
            parts.append(f"tiles={self.tiles!r}")
        return f"Rules({', '.join(parts)})"

    @classmethod
    def parse(cls, text: str) -> Rules:
        """Read the rules field of a position text (``'2'``, ``'1v'``, ``'4t'``, ``'2Tv'`` ...)."""
        match = _TOKEN.fullmatch(text) if isinstance(text, str) and len(text) <= 4 else None
        if match is None:
            raise RulesError(
                f"rules {excerpt(text)}: expected the player count 1-4, then t (teams), "
                "T (tournament), v (travel set), like '2', '4t' or '2Tv'"
            )
        return cls(
            players=int(match.group(1)),
            teams=bool(match.group(2)),
            tournament=bool(match.group(3)),
            tiles="travel" if match.group(4) else "standard",
        )

    @classmethod
    def of(
        cls,
        players: int | str | Rules = 2,
        *,
        teams: bool = False,
        tournament: bool = False,
        tiles: Literal["standard", "travel"] = "standard",
        rules: Rules | str | None = None,
    ) -> Rules:
        """The rules named in any of the accepted ways: a ``Rules``, its token (``"4t"``), or the
        player count with the variant keywords (``4, teams=True``). ``rules=`` takes a ``Rules``
        or a token instead of ``players``; the keywords then must stay at their defaults.

        >>> Rules.of(4, teams=True) == Rules.of("4t") == Rules.of(rules="4t")
        True
        """
        for flag, name in ((teams, "teams"), (tournament, "tournament")):
            if not isinstance(flag, (bool, np.bool_)):
                raise RulesError(f"{name} must be True or False, got {excerpt(flag)}")
        if not isinstance(tiles, str):
            raise RulesError(f"tiles must be 'standard' or 'travel', got {excerpt(tiles)}")
        teams, tournament = bool(teams), bool(tournament)
        named = teams or tournament or tiles != "standard"
        if rules is not None:
            if not (isinstance(players, int) and players == 2) or named:
                raise RulesError(
                    "give either rules= or the players/teams/tournament/tiles keywords"
                )
            players = rules
        if isinstance(players, (Rules, str)):
            if named:
                raise RulesError(
                    f"rules {excerpt(str(players))} already name the variant: "
                    "drop teams/tournament/tiles"
                )
            return players if isinstance(players, Rules) else cls.parse(players)
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
            raise RulesError(
                f"players must be a count 1-4, a rules token like '4t' or a genial.Rules, "
                f"got {excerpt(players)}"
            )
        return cls(int(players), teams, tournament, tiles)

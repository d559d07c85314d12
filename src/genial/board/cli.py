"""The board game's part of the ``genial`` command line, named by its registry entry
(``genial.board.entry``): its verbs, its options and the rules they name.

``genial.cli`` builds every verb once and asks the game of ``--game`` (here the default,
``board``) for its options. The argument types come from ``genial.cli`` (``types``), so that
every game's options say what is wrong the same way.

>>> from genial.cli import build_parser
>>> rules(build_parser().parse_args(["simulate", "--players", "4", "--teams"]))
Rules(players=4, teams=True)
"""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import excerpt
from .rules import Rules, RulesError

__all__ = [
    "HIDDEN",
    "VERBS",
    "add_options",
    "advantage",
    "advantage_text",
    "openings",
    "players_list",
    "rules",
]

VERBS = ("play", "simulate", "openings", "advantage", "analyse", "arena", "replay", "learn")
"""The verbs of ``genial`` the board game has."""

HIDDEN = "racks"
"""What ``analyse --view omniscient`` reads that a player cannot see."""

_RULES_VERBS = frozenset({"play", "simulate", "openings", "arena"})


def add_options(parser: argparse.ArgumentParser, verb: str, types: Any) -> None:
    """Add the board game's options of ``verb`` (its rules: ``--players``, ``--teams``,
    ``--tournament``, ``--tiles``) to ``parser``; ``types`` has ``genial.cli``'s argument
    types (``one_of``)."""
    if verb not in _RULES_VERBS and verb != "advantage":
        return
    players: tuple[int, ...] = (1, 2, 3, 4)
    tiles = ("standard", "travel")
    if verb == "advantage":
        parser.add_argument(
            "--players",
            action="extend",
            nargs="+",
            type=players_list,
            default=None,
            metavar="N",
            help="player counts 2, 3, 4 or rules tokens such as 4t, 2T, 2v; repeated or a comma "
            "list (--players 2,3 4t) (default: 2 3 4, those the --teams, --tournament, "
            "--tiles options allow)",
        )
    else:
        parser.add_argument(
            "--players",
            type=types.one_of(players),
            default=2,
            metavar="{1,2,3,4}",
            help="players; 1 plays the solo game",
        )
    parser.add_argument("--teams", action="store_true", help="4 players in two teams")
    parser.add_argument("--tournament", action="store_true", help="tournament rules (2 players)")
    parser.add_argument(
        "--tiles",
        type=types.one_of(tiles),
        default="standard",
        metavar="{standard,travel}",
        help="tile set",
    )


def players_list(text: str) -> list[int | str]:
    """``advantage --players``: a comma list of player counts (2, 3, 4; as ints, so that
    ``--teams`` and the other variant options apply to them) or rules tokens (``4t``).

    >>> players_list("2,3,4t")
    [2, 3, '4t']
    """
    found: list[int | str] = []
    for item in text.split(","):
        item = item.strip()
        try:
            named = Rules.parse(item)
        except RulesError:
            named = None
        if named is None or named.players == 1:
            raise argparse.ArgumentTypeError(
                f"expected player counts 2, 3, 4 or rules tokens such as 4t, 2T, 2v (a comma "
                f"list), got {excerpt(item)}"
            )
        found.append(int(item) if item.isdigit() else item)
    return found


def rules(options: argparse.Namespace) -> Rules:
    """The ``Rules`` that the parsed options of ``add_options`` name (a ``RulesError`` for a
    combination the game does not have, such as ``--teams`` with 2 players)."""
    return Rules(
        options.players, teams=options.teams, tournament=options.tournament, tiles=options.tiles
    )


def advantage(**keywords: Any) -> Any:
    """``genial advantage``: ``genial.board.advantage.first_player_advantage(**keywords)``."""
    from . import advantage as module

    return module.first_player_advantage(**keywords)


def advantage_text(table: Any) -> str:
    """``genial advantage``'s text: ``genial.board.advantage.advantage_text(table)``."""
    from . import advantage as module

    return module.advantage_text(table)


def openings(**keywords: Any) -> Any:
    """``genial openings``: ``genial.board.openings.analyse(**keywords)``."""
    from . import openings as module

    return module.analyse(**keywords)

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

from .rules import Rules

__all__ = ["HIDDEN", "VERBS", "add_options", "openings", "rules"]

VERBS = ("play", "simulate", "openings", "analyse", "arena", "replay", "learn")
"""The verbs of ``genial`` the board game has."""

HIDDEN = "racks"
"""What ``analyse --view omniscient`` reads that a player cannot see."""

_RULES_VERBS = frozenset({"play", "simulate", "openings", "arena"})


def add_options(parser: argparse.ArgumentParser, verb: str, types: Any) -> None:
    """Add the board game's options of ``verb`` (its rules: ``--players``, ``--teams``,
    ``--tournament``, ``--tiles``) to ``parser``; ``types`` has ``genial.cli``'s argument
    types (``one_of``)."""
    if verb not in _RULES_VERBS:
        return
    players: tuple[int, ...] = (1, 2, 3, 4)
    tiles = ("standard", "travel")
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


def rules(options: argparse.Namespace) -> Rules:
    """The ``Rules`` that the parsed options of ``add_options`` name (a ``RulesError`` for a
    combination the game does not have, such as ``--teams`` with 2 players)."""
    return Rules(
        options.players, teams=options.teams, tournament=options.tournament, tiles=options.tiles
    )


def openings(**keywords: Any) -> Any:
    """``genial openings``: ``genial.board.openings.analyse(**keywords)``."""
    from . import openings as module

    return module.analyse(**keywords)

"""The card game's part of the ``genial`` command line, named by its registry entry
(``genial.cards.entry``): its verbs, its options and the rules they name.

``genial simulate --game cards ...`` (or its alias ``genial cards simulate ...``) plays the card
game; ``genial.cli`` builds the verbs and asks this module for the card game's options.

>>> from genial.cli import build_parser
>>> rules(build_parser().parse_args(["cards", "simulate", "--players", "2", "--turn-cap", "50"]))
CardRules(players=2, turn_cap=50)
"""

from __future__ import annotations

import argparse
from typing import Any

from .rules import CardRules

__all__ = ["HIDDEN", "VERBS", "add_options", "match", "rules"]

VERBS = ("play", "simulate", "match", "analyse", "arena", "replay")
"""The verbs of ``genial`` the card game has."""

HIDDEN = "hands, deck and discard pile"
"""What ``analyse --view omniscient`` reads that a player cannot see."""

_RULES_VERBS = frozenset({"play", "simulate", "match", "arena"})


def add_options(parser: argparse.ArgumentParser, verb: str, types: Any) -> None:
    """Add the card game's options of ``verb`` (its rules: ``--players``, ``--turn-cap``) to
    ``parser``; ``types`` has ``genial.cli``'s argument types (``one_of``, ``integer``),
    ``None`` for argparse's own."""
    if verb not in _RULES_VERBS:
        return
    players: tuple[int, ...] = (2, 3, 4)
    parser.add_argument(
        "--players",
        type=types.one_of(players),
        default=3,
        metavar="{2,3,4}",
        help="players (two play with two display cards each)",
    )
    parser.add_argument(
        "--turn-cap",
        type=types.integer(1, 32000),
        default=1000,
        metavar="N",
        help="turns after which a game stops, reported as truncated",
    )


def rules(options: argparse.Namespace) -> CardRules:
    """The ``CardRules`` that the parsed options of ``add_options`` name."""
    return CardRules(options.players, turn_cap=options.turn_cap)


def match(n_matches: int, *, rules: CardRules, **keywords: Any) -> Any:
    """``genial match --game cards``: ``genial.cards.matches.match`` with the players and turn
    cap of ``rules``."""
    from . import matches

    return matches.match(n_matches, players=rules.players, turn_cap=rules.turn_cap, **keywords)

"""The card game, *Einfach Genial: Das Kartenspiel* (docs/rules.md §5).

``CardGame`` plays one game with its history (the card-game twin of ``genial.Game``); moves are
``CardMove`` (a card in scoring order, ``'RG'``, or ``'swap'`` / ``'keep'``) over a fixed action
space of ``ACTION_SIZE == 32`` ids; ``CardRules`` names the player count and the turn cap;
``CardPosition`` is a position as data (``genial.cards.notation`` describes its text). The
compiled kernel, ``genial.cards._kernel``, plays every rule of §5.

>>> from genial.cards import CardGame
>>> game = CardGame(players=2, seed=1)
>>> while not game.is_over:
...     game.play(game.choose("greedy"))
>>> game.winner() in (0, 1), CardGame.from_record(game.to_record()) == game
(True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .game import CardGame, CardView
from .moves import ACTION_KEEP, ACTION_SIZE, ACTION_SWAP, CARDS, CardMove
from .notation import CardPosition
from .rules import CardRules

if TYPE_CHECKING:  # pragma: no cover
    from typing_extensions import Unpack

    from ..batch.results import Playouts
    from ..batch.run import RunArguments
    from .matches import MatchResult

__all__ = [
    "ACTION_KEEP",
    "ACTION_SIZE",
    "ACTION_SWAP",
    "CARDS",
    "CardGame",
    "CardMove",
    "CardPosition",
    "CardRules",
    "CardView",
    "match",
    "simulate",
]


def simulate(
    n_games: int, rules: int | str | CardRules | None = None, **arguments: Unpack[RunArguments]
) -> Playouts:
    """``genial.simulate(n_games, rules, game="cards", **arguments)``: card games in the kernel
    (``rules``: a player count, a token such as ``"c3:50"`` or a ``CardRules``; default 3
    players).

    >>> runs = simulate(500, 3, policy="greedy", seed=1)
    >>> runs.rules, runs.scores.shape
    (CardRules(players=3), (500, 3, 6))
    """
    from ..batch import simulate as run

    if "game" in arguments:
        raise TypeError("genial.cards.simulate() plays the card game: it takes no game=")
    arguments["game"] = "cards"
    return run(n_games, rules, **arguments)


def match(n_matches: int, **options: Any) -> MatchResult:
    """``genial.match``: multi-round card matches scored by victory points (RULES §5.7)."""
    from .matches import match as play

    return play(n_matches, **options)

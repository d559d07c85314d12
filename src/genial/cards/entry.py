"""The card game's entry in the registry (``genial.registry``): found through the
``genial.games`` entry point ``cards = "genial.cards.entry:GAME"``."""

from __future__ import annotations

from ..registry import GameEntry
from .adapter import CARDS_ADAPTER, card_rules
from .game import CardGame
from .moves import CardMove
from .notation import RECORDS, CardPosition
from .rules import CardRules

__all__ = ["GAME"]

GAME = GameEntry(
    name="cards",
    title="Einfach Genial: Das Kartenspiel, the card game",
    game=CardGame,
    rules=card_rules,
    adapter=CARDS_ADAPTER,
    rules_type=CardRules,
    position=CardPosition,
    move=CardMove,
    record_format=RECORDS.name,
    aliases=("card",),
    cli="genial.cards.cli",
)

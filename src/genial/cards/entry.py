"""The card game's entry in the registry (``genial.registry``): found through the
``genial.games`` entry point ``cards = "genial.cards.entry:GAME"``."""

from __future__ import annotations

from typing import Any

from ..kernel_adapter import gains_points
from ..registry import AnalysisHooks, GameEntry
from . import _kernel, notation, svg
from .adapter import CARDS_ADAPTER, card_rules
from .game import CardGame
from .moves import ACTION_SWAP, MOVES, CardMove
from .notation import RECORDS, CardPosition
from .observer import CardObserver
from .rules import CardRules
from .vector import CardVectorEnv

__all__ = ["GAME"]


def _env(*args: Any, **kwargs: Any) -> Any:
    from ..integrations.pettingzoo import CardEnv

    return CardEnv(*args, **kwargs)


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
    noun="card game",
    text_prefix="c",
    svg=svg.cards_svg,
    replay_picture=svg.replay_picture,
    analysis=AnalysisHooks(
        kernel=_kernel,
        load=notation.load,
        moves=MOVES,
        phases=notation.PHASES,
        points=gains_points(ACTION_SWAP),
    ),
    observer=CardObserver,
    env=_env,
    vector_env=CardVectorEnv,
    players=3,
    cli="genial.cards.cli",
)

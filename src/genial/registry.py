"""The games the library simulates, by name: each entry says how to name its rules, which class
plays it and how it plugs into the batch layer. A second game plugs in with one ``register``.

>>> games()
('board', 'cards')
>>> make("board", "2T", seed=1).rules
Rules(players=2, tournament=True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .adapter import BOARD
from .cards.adapter import CARDS_ADAPTER, card_rules
from .cards.game import CardGame
from .errors import GenialError, excerpt
from .game import Game
from .rules import Rules

__all__ = ["GameEntry", "entry", "games", "make", "register"]


@dataclass(frozen=True)
class GameEntry:
    """One game: its name and title, its game class, how its rules are named
    (``rules(players, teams=..., ..., rules=...)`` -> the rules object) and its batch adapter."""

    name: str
    title: str
    game: Callable[..., Any]
    rules: Callable[..., Any]
    adapter: Any


_ENTRIES: dict[str, GameEntry] = {}
_ALIASES = {"ingenious": "board", "genial": "board", "card": "cards"}


def register(game_entry: GameEntry) -> None:
    """Add a game (its name must be new)."""
    if game_entry.name in _ENTRIES:
        raise GenialError(f"a game named {game_entry.name!r} is registered already")
    _ENTRIES[game_entry.name] = game_entry


def games() -> tuple[str, ...]:
    """The names of the registered games."""
    return tuple(_ENTRIES)


def entry(name: str) -> GameEntry:
    """The entry of a game by name (``GenialError`` for an unknown one)."""
    key = _ALIASES.get(name, name) if isinstance(name, str) else name
    found = _ENTRIES.get(key) if isinstance(key, str) else None
    if found is None:
        raise GenialError(f"unknown game {excerpt(name)}: expected one of {', '.join(games())}")
    return found


def make(name: str = "board", *args: Any, **kwargs: Any) -> Any:
    """A new game of the named game: ``make("board", "2T", seed=1)`` is ``Game("2T", seed=1)``."""
    return entry(name).game(*args, **kwargs)


register(GameEntry("board", "Ingenious, the board game", Game, Rules.of, BOARD))
register(
    GameEntry(
        "cards",
        "Einfach Genial: Das Kartenspiel, the card game",
        CardGame,
        card_rules,
        CARDS_ADAPTER,
    )
)

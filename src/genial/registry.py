"""The games the library plays, by name: each game describes itself in one ``GameEntry`` and
registers it.

The registry knows no game by name. The games of this distribution, and any game of another
distribution, are found through the entry-point group ``genial.games`` (the way pytest finds its
plug-ins): an entry point names a ``GameEntry`` (or a function returning one), loaded the first
time the registry is asked. A game of a script or a test registers with ``register(entry)``.
How to write one, step by step from the tests' toy game (``tests/toy``): ``docs/games.md``.

>>> games()
('board', 'cards')
>>> make("board", "2T", seed=1).rules
Rules(players=2, tournament=True)
>>> entry("cards").title
'Einfach Genial: Das Kartenspiel, the card game'
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import GenialError, RecordError, excerpt

__all__ = [
    "ENTRY_POINT_GROUP",
    "AnalysisHooks",
    "GameEntry",
    "entry",
    "entry_of",
    "games",
    "make",
    "register",
    "replay",
    "unregister",
]

ENTRY_POINT_GROUP = "genial.games"
"""The entry-point group through which distributions declare their games."""


@dataclass(frozen=True)
class AnalysisHooks:
    """What a position analysis (``genial.analysis.evaluate``) needs of a game's kernel.

    Attributes
    ----------
    kernel
        The compiled kernel module (``run_chunk``, ``ROW_DTYPE``).
    load
        ``load(position)``: the kernel state of a position (hidden racks or hands in canonical
        order).
    moves
        The game's moves by action id.
    phases
        The names of the kernel's phases 0, 1 and 2: the decision, the swap, over.
    points
        ``points(state, action)``: what a play scores now (0 for swap and keep).
    """

    kernel: Any
    load: Callable[[Any], Any]
    moves: Sequence[Any]
    phases: tuple[str, ...]
    points: Callable[[Any, int], int]


@dataclass(frozen=True)
class GameEntry:
    """Everything the layers need of one game. Only ``name``, ``title``, ``game``, ``rules``
    and ``adapter`` are required.

    Attributes
    ----------
    name, title
        The registry name (``"board"``) and a title for people.
    game
        The game class: ``game(rules, seed=...)`` deals a game; it has the verbs of the
        conformance contract (``legal_moves``, ``play``, ``undo``, ``to_text``/``from_text``,
        ``to_record``/``from_record``, ...).
    rules
        Names the game's rules: ``rules(spec)`` takes ``None`` (the game's default), a player
        count, a token or a rules object and returns the rules object (a ``RulesError`` for
        anything else).
    adapter
        The game in batches (``genial.batch.GameAdapter``: row and log dtypes, checks, start
        states, the kernel call, records, replay).
    rules_type, position, move
        The classes of the game's rules, positions (``parse(text)``) and moves.
    record_format
        The ``"format"`` of the game's JSON records (``entry_of(record)`` finds the game by it).
    aliases
        Other names the registry accepts for the game.
    noun
        What a sentence calls the game (``"board game"``).
    text_prefix
        How the game's position texts start, if they have a mark of their own (the card
        game's rules tokens ``c2`` to ``c4`` start with ``"c"``): ``entry_of(text)`` tells the
        games' texts apart by it (a text without a known prefix is the first such game's).
    search
        Whether the game's kernel has the search policies (``mc:``, ``mcts:``).
    svg, replay_picture
        Pictures (``genial.render.svg``): ``svg(game, **options)`` the game's SVG text,
        ``replay_picture(game)`` the parts of a replay page (``genial.render.kit.ReplayPicture``);
        without it the replay page shows each position's text (``render.kit.text_picture``).
    analysis
        What ``genial.analysis.evaluate`` needs of a kernel (``AnalysisHooks``); ``None``: the
        playouts are played through the game's verbs (``genial.analysis.PLAYOUT_VERBS``).
    observer
        The game's part of the PettingZoo environment (``genial.integrations.pettingzoo.GameEnv``):
        ``observer(players, rules=..., max_turns=...)`` gives what starts a game, encodes what a
        seat sees and ends it (``genial.board.observer.BoardObserver``).
    env
        Makes the game's own environment class (``BoardEnv``):
        ``env(players, rules=..., max_turns=..., render_mode=...)``; ``None``: a ``GameEnv``.
    vector_env
        The game's batched environment class: ``vector_env(n_envs, rules, seed)``
        (``genial.vector.VectorEnv``).
    players
        The default player count of the environments.
    cli
        The dotted name of the module holding the game's part of the ``genial`` command line
        (``genial.cli`` imports it when the command line is built): its ``VERBS`` (the verbs the
        game has), ``add_options(parser, verb, types)`` (the game's options of a verb, such as
        its rules), ``rules(options)`` (the rules object those options name), ``HIDDEN`` (what
        a player cannot see, for ``analyse --view``) and, for a verb only some games have
        (``openings``, ``match``), a function of that name calling the library. ``None``: the
        command line offers the game's default rules to ``play``, ``simulate``, ``analyse``,
        ``arena`` and ``replay``.
    """

    name: str
    title: str
    game: Any
    rules: Callable[..., Any]
    adapter: Any
    rules_type: Any = None
    position: Any = None
    move: Any = None
    record_format: str | None = None
    aliases: tuple[str, ...] = ()
    noun: str = "game"
    text_prefix: str | None = None
    search: bool = False
    svg: Callable[..., str] | None = None
    replay_picture: Callable[[Any], Any] | None = None
    analysis: AnalysisHooks | None = None
    observer: Callable[..., Any] | None = None
    env: Callable[..., Any] | None = None
    vector_env: Any = None
    players: int = 2
    cli: str | None = None

    def __repr__(self) -> str:
        return f"<GameEntry {self.name!r}: {self.title}>"

    def owns(self, value: object) -> bool:
        """Whether ``value`` is one of this game's games, positions, rules or moves."""
        kinds = tuple(k for k in (self.game, self.position, self.rules_type, self.move) if k)
        return isinstance(value, kinds)


_ENTRIES: dict[str, GameEntry] = {}
_ALIASES: dict[str, str] = {}
_LOCK = threading.RLock()
_LOADED = False
_LOADING = False


def register(game_entry: GameEntry) -> GameEntry:
    """Add a game (its name and aliases must be new); returns the entry.

    >>> register(entry("board"))
    Traceback (most recent call last):
    ...
    genial.errors.GenialError: a game named 'board' is registered already
    """
    if not isinstance(game_entry, GameEntry):
        raise GenialError(f"register: expected a GameEntry, got {excerpt(game_entry)}")
    with _LOCK:
        if not _LOADING:
            _load()
        names = (game_entry.name, *game_entry.aliases)
        for name in names:
            if not isinstance(name, str) or not name.isidentifier():
                raise GenialError(f"a game's name is an identifier, got {excerpt(name)}")
            if name in _ENTRIES or name in _ALIASES:
                raise GenialError(f"a game named {name!r} is registered already")
        _ENTRIES[game_entry.name] = game_entry
        _ALIASES.update(dict.fromkeys(game_entry.aliases, game_entry.name))
    return game_entry


def unregister(name: str) -> None:
    """Remove a game registered with ``register`` (for tests and interactive sessions)."""
    with _LOCK:
        found = entry(name)
        del _ENTRIES[found.name]
        for alias in found.aliases:
            _ALIASES.pop(alias, None)


def _load() -> None:
    """Register the games of the ``genial.games`` entry points, once."""
    global _LOADED, _LOADING
    with _LOCK:
        if _LOADED or _LOADING:
            return
        _LOADING = True
        try:
            from importlib.metadata import entry_points

            points = sorted(entry_points(group=ENTRY_POINT_GROUP), key=_builtin_first)
            for point in points:
                if point.name in _ENTRIES:  # a distribution installed twice (editable + site)
                    continue
                try:
                    loaded = point.load()
                except Exception as exc:  # a broken plug-in must not break the others
                    import warnings

                    warnings.warn(
                        f"genial: the game {point.name!r} ({point.value}) failed to load: {exc}",
                        RuntimeWarning,
                        stacklevel=3,
                    )
                    continue
                game_entry = loaded() if callable(loaded) else loaded
                if isinstance(game_entry, GameEntry) and game_entry.name not in _ENTRIES:
                    register(game_entry)
            _LOADED = True
        finally:
            _LOADING = False


def _builtin_first(point: Any) -> tuple[int, str]:
    return (0 if point.value.startswith("genial.") else 1, point.name)


def games() -> tuple[str, ...]:
    """The names of the registered games."""
    _load()
    return tuple(_ENTRIES)


def entry(name: str) -> GameEntry:
    """The entry of a game by name or alias (``GenialError`` for an unknown one)."""
    _load()
    key = _ALIASES.get(name, name) if isinstance(name, str) else None
    found = _ENTRIES.get(key) if key is not None else None
    if found is None:
        known = ", ".join(games()) or "none (is genial installed? pip install genial-sim)"
        raise GenialError(f"unknown game {excerpt(name)}: expected one of {known}")
    return found


def entry_of(value: object) -> GameEntry:
    """The entry of the game that ``value`` (a game, position, rules or move object) belongs
    to, of the game a record's ``"format"`` names (``GenialError`` if none does), or of the
    game whose position texts look like ``value`` (a text: by the games' ``text_prefix``).

    >>> from genial.cards import CardRules
    >>> entry_of(CardRules(3)).name
    'cards'
    >>> entry_of("c2 ...").name, entry_of("2 ...").name
    ('cards', 'board')
    """
    _load()
    for found in _ENTRIES.values():
        if found.owns(value):
            return found
    if isinstance(value, str):
        text = value.lstrip()
        marked = [e for e in _ENTRIES.values() if e.text_prefix]
        for found in marked:
            if text.startswith(found.text_prefix or ""):
                return found
        for found in _ENTRIES.values():
            if found.text_prefix is None:
                return found
        raise GenialError(f"{excerpt(value)} is a position text of none of the games")
    if isinstance(value, Mapping):
        fmt = value.get("format")
        for found in _ENTRIES.values():
            if found.record_format is not None and fmt == found.record_format:
                return found
        formats = ", ".join(repr(e.record_format) for e in _ENTRIES.values() if e.record_format)
        raise GenialError(f"a record of format {excerpt(fmt)}: expected one of {formats}")
    raise GenialError(f"{excerpt(value)} belongs to none of the games ({', '.join(games())})")


def replay(record: object) -> Any:
    """The finished game a record of any registered game replays to (the game its
    ``"format"`` names; ``RecordError`` for what is not a record of one).

    >>> from genial import Game
    >>> game = Game(2, seed=3)
    >>> game.play(game.choose("greedy"))
    >>> replay(game.to_record()).moves == game.moves
    True
    >>> replay({"format": "chess"})
    Traceback (most recent call last):
    ...
    genial.errors.RecordError: not a genial record: format is 'chess', expected ... (the card game)
    """
    if not isinstance(record, Mapping):
        raise RecordError(f"a record is a dict, got {type(record).__name__}")
    _load()
    fmt = record.get("format")
    for found in _ENTRIES.values():
        if found.record_format is not None and fmt == found.record_format:
            return found.adapter.replay(dict(record))
    known = " or ".join(
        f"{e.record_format!r} (the {e.noun})" for e in _ENTRIES.values() if e.record_format
    )
    raise RecordError(f"not a genial record: format is {excerpt(fmt)}, expected {known}")


def make(name: str = "board", *args: Any, **kwargs: Any) -> Any:
    """A new game of the named game: ``make("board", "2T", seed=1)`` is ``Game("2T", seed=1)``."""
    return entry(name).game(*args, **kwargs)

"""The games the library plays, by name: each game describes itself in one ``GameEntry`` and
registers it.

The registry knows no game by name. The games of this distribution, and any game of another
distribution, are found through the entry-point group ``genial.games`` (the way pytest finds its
plug-ins): an entry point names a ``GameEntry`` (or a function returning one), loaded the first
time the registry is asked. A game of a script or a test registers with ``register(entry)``.
How to write one, step by step from the tests' toy game (``tests/toy``): ``docs/games.md``.

A plug-in cannot break the others: one that fails to import, whose function raises, that gives
something other than a ``GameEntry``, or whose entry is refused (a malformed field, a name, an
alias, a record format or a text prefix that another game has) is skipped with one
``RuntimeWarning`` naming it and its distribution. The library's own games (``own_games()``)
cannot be unregistered, and their position texts are theirs whatever a plug-in declares.

>>> games()
('board', 'cards')
>>> make("board", "2T", seed=1).rules
Rules(players=2, tournament=True)
>>> entry("cards").title
'Einfach Genial: Das Kartenspiel, the card game'
"""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import GenialError, RecordError, excerpt

__all__ = [
    "ENTRY_POINT_GROUP",
    "AnalysisHooks",
    "GameEntry",
    "distribution",
    "entry",
    "entry_of",
    "games",
    "make",
    "own_games",
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
        The registry name (``"board"``: a Python identifier of at most 40 characters) and a
        title for people (one printable line of at most 200 characters).
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
        Other names the registry accepts for the game (a tuple of identifiers).
    noun
        What a sentence calls the game (``"board game"``).
    text_prefix
        How the game's position texts start, if they have a mark of their own (the card
        game's rules tokens ``c2`` to ``c4`` start with ``"c"``): ``entry_of(text)`` tells the
        games' texts apart by it (a text without a known prefix is the first such game's). A
        prefix is a letter followed by at most 15 letters, digits or ``_`` (the board game's
        texts start with a digit), and no game's prefix starts another's.
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
        The default player count of the environments (1 to 4).
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
_OWN: set[str] = set()
"""The names of the library's own games (entry points of ``genial.``): never unregistered."""
_ORIGINS: dict[str, str] = {}
"""The distribution of each game loaded through an entry point."""
_LOCK = threading.RLock()
_LOADED = False
_LOADING = False

MAX_NAME = 40
"""The longest name or alias of a game."""
_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,15}")
_MODULE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_CALLABLE_FIELDS = ("svg", "replay_picture", "observer", "env", "vector_env")
_CLASS_FIELDS = ("rules_type", "position", "move")


def register(game_entry: GameEntry) -> GameEntry:
    """Add a game (its name and aliases must be new); returns the entry. A malformed entry, or
    one whose name, alias, record format or text prefix another game has, is refused with a
    ``GenialError`` and the registry is left as it was.

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
        _check(game_entry)
        _ENTRIES[game_entry.name] = game_entry
        _ALIASES.update(dict.fromkeys(game_entry.aliases, game_entry.name))
    return game_entry


def _check(game_entry: GameEntry) -> None:
    """Refuse (``GenialError``) an entry that is malformed or that clashes with a registered
    game; changes nothing."""
    _identifier(game_entry.name, "a game's name")
    names = (game_entry.name, *_aliases(game_entry))
    for name in names:
        if name in _ENTRIES or name in _ALIASES:
            raise GenialError(f"a game named {name!r} is registered already")
    if len(set(names)) != len(names):
        raise GenialError(f"the game {game_entry.name!r}: its name and aliases repeat a name")
    _check_fields(game_entry)
    fmt = game_entry.record_format
    for other in _ENTRIES.values():
        if fmt is not None and other.record_format == fmt:
            raise GenialError(
                f"the game {game_entry.name!r}: record format {fmt!r} is the game "
                f"{other.name!r}'s already"
            )
        prefix, theirs = game_entry.text_prefix, other.text_prefix
        if prefix is None or theirs is None:
            continue
        if prefix.startswith(theirs) or theirs.startswith(prefix):
            raise GenialError(
                f"the game {game_entry.name!r}: text prefix {prefix!r} and the game "
                f"{other.name!r}'s {theirs!r} would claim the same position texts"
            )


def _identifier(value: object, what: str) -> str:
    if type(value) is not str or not value.isidentifier() or len(value) > MAX_NAME:
        raise GenialError(
            f"{what} is an identifier of at most {MAX_NAME} characters, got {excerpt(value)}"
        )
    return value


def _aliases(game_entry: GameEntry) -> tuple[str, ...]:
    aliases = game_entry.aliases
    if type(aliases) is not tuple or len(aliases) > 16:
        raise GenialError(
            f"the game {game_entry.name!r}: aliases is a tuple of at most 16 names, "
            f"got {excerpt(aliases)}"
        )
    return tuple(_identifier(alias, f"the game {game_entry.name!r}: an alias") for alias in aliases)


def _line(value: object, what: str, limit: int) -> None:
    if type(value) is not str or not value or len(value) > limit or not value.isprintable():
        raise GenialError(
            f"{what} is one printable line of 1 to {limit} characters, got {excerpt(value)}"
        )


def _check_fields(game_entry: GameEntry) -> None:
    """The fields other than the names, each of the kind ``GameEntry`` documents."""
    who = f"the game {game_entry.name!r}"
    _line(game_entry.title, f"{who}: title", 200)
    _line(game_entry.noun, f"{who}: noun", 60)
    if not isinstance(game_entry.game, type) or game_entry.game.__module__ == "builtins":
        raise GenialError(f"{who}: game is the game's class, got {excerpt(game_entry.game)}")
    for name in _CLASS_FIELDS:
        kind = getattr(game_entry, name)
        if kind is not None and (not isinstance(kind, type) or kind.__module__ == "builtins"):
            raise GenialError(f"{who}: {name} is the game's own class or None, got {excerpt(kind)}")
    if not callable(game_entry.rules):
        raise GenialError(f"{who}: rules is a callable, got {excerpt(game_entry.rules)}")
    for name in _CALLABLE_FIELDS:
        hook = getattr(game_entry, name)
        if hook is not None and not callable(hook):
            raise GenialError(f"{who}: {name} is a callable or None, got {excerpt(hook)}")
    if game_entry.analysis is not None and not isinstance(game_entry.analysis, AnalysisHooks):
        raise GenialError(
            f"{who}: analysis is an AnalysisHooks or None, got {excerpt(game_entry.analysis)}"
        )
    if game_entry.record_format is not None:
        _line(game_entry.record_format, f"{who}: record_format", 100)
    prefix = game_entry.text_prefix
    if prefix is not None and (type(prefix) is not str or not _PREFIX.fullmatch(prefix)):
        raise GenialError(
            f"{who}: text_prefix is a letter and at most 15 more letters, digits or _ "
            f"(or None), got {excerpt(prefix)}"
        )
    if type(game_entry.search) is not bool:
        raise GenialError(f"{who}: search is True or False, got {excerpt(game_entry.search)}")
    players = game_entry.players
    if type(players) is not int or not 1 <= players <= 4:
        raise GenialError(f"{who}: players is a whole number from 1 to 4, got {excerpt(players)}")
    cli = game_entry.cli
    if cli is not None and (type(cli) is not str or len(cli) > 200 or not _MODULE.fullmatch(cli)):
        raise GenialError(f"{who}: cli is a dotted module name or None, got {excerpt(cli)}")


def unregister(name: str) -> None:
    """Remove a game registered with ``register`` or by a plug-in (for tests and interactive
    sessions), by its name. The library's own games (``own_games()``) cannot be removed, nor a
    game through one of its aliases (``GenialError``; the registry is left as it was).

    >>> unregister("ingenious")
    Traceback (most recent call last):
    ...
    genial.errors.GenialError: the game 'board' is one of genial's own games: it cannot be ...
    """
    with _LOCK:
        found = entry(name)
        if found.name in _OWN:
            raise GenialError(
                f"the game {found.name!r} is one of genial's own games: it cannot be unregistered"
            )
        if name != found.name:
            raise GenialError(
                f"{excerpt(name)} is an alias of the game {found.name!r}: unregister the game "
                f"by its name, {found.name!r}"
            )
        del _ENTRIES[found.name]
        _ORIGINS.pop(found.name, None)
        for alias in found.aliases:
            _ALIASES.pop(alias, None)


def _load() -> None:
    """Register the games of the ``genial.games`` entry points, once (the library's own
    first); a plug-in that fails is skipped with one ``RuntimeWarning``."""
    global _LOADED, _LOADING
    with _LOCK:
        if _LOADED or _LOADING:
            return
        _LOADING = True
        try:
            from importlib.metadata import entry_points

            points = sorted(entry_points(group=ENTRY_POINT_GROUP), key=_builtin_first)
            seen: set[tuple[str, str]] = set()
            for point in points:
                key = (str(point.name), str(point.value))
                if key in seen:  # a distribution installed twice (editable + site)
                    continue
                seen.add(key)
                try:
                    _load_one(point)
                except (Exception, SystemExit) as exc:  # a broken plug-in breaks no other
                    warnings.warn(_skipped(point, exc), RuntimeWarning, stacklevel=3)
            _LOADED = True
        finally:
            _LOADING = False


def _load_one(point: Any) -> None:
    """Register the game of one entry point (raises whatever its plug-in raises)."""
    loaded = point.load()
    made = loaded() if callable(loaded) and not isinstance(loaded, GameEntry) else loaded
    if not isinstance(made, GameEntry):
        raise GenialError(f"it gives {excerpt(made)}, not a GameEntry")
    if _ENTRIES.get(made.name) is made:  # the same entry under two entry points
        return
    register(made)
    source = _distribution_of(point)
    if source is not None:
        _ORIGINS[made.name] = source
    if _is_own(point):
        _OWN.add(made.name)


def _is_own(point: Any) -> bool:
    return str(point.value).startswith("genial.")


def _distribution_of(point: Any) -> str | None:
    """The name of the distribution of an entry point, if it says (cut to 100 characters)."""
    try:
        name = point.dist.name
    except Exception:  # no distribution, or its metadata unreadable
        return None
    return name[:100] if isinstance(name, str) and name else None


def _skipped(point: Any, exc: BaseException) -> str:
    """The warning of a plug-in that failed: which entry point, which distribution, why."""
    try:
        why = " ".join(str(exc).split())
    except Exception:  # an exception whose str fails
        why = ""
    why = why if len(why) <= 200 else why[:197] + "..."
    if not isinstance(exc, GenialError):
        why = f"{type(exc).__name__}: {why}" if why else type(exc).__name__
    source = _distribution_of(point)
    where = "an unknown distribution" if source is None else f"the distribution {source!r}"
    return (
        f"genial: skipped the game plug-in {excerpt(str(point.name))} "
        f"({excerpt(str(point.value), 80)}) of {where}: {why}"
    )


def _builtin_first(point: Any) -> tuple[int, str]:
    return (0 if point.value.startswith("genial.") else 1, point.name)


def games() -> tuple[str, ...]:
    """The names of the registered games."""
    _load()
    return tuple(_ENTRIES)


def own_games() -> tuple[str, ...]:
    """The names of the library's own games (which ``unregister`` refuses).

    >>> own_games()
    ('board', 'cards')
    """
    _load()
    return tuple(name for name in _ENTRIES if name in _OWN)


def distribution(name: str) -> str | None:
    """The distribution whose entry point declared the game ``name`` (``"genial-sim"`` for the
    library's own games), ``None`` for one registered by ``register`` or whose distribution is
    unknown (``GenialError`` for an unknown game)."""
    return _ORIGINS.get(entry(name).name)


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

    A text that one of the library's own games reads is that game's, whatever prefix another
    game declares.
    """
    _load()
    for found in _ENTRIES.values():
        if found.owns(value):
            return found
    if isinstance(value, str):
        for found in _ENTRIES.values():
            if found.name in _OWN and found.position is not None:
                try:
                    found.position.parse(value)
                except ValueError:  # (GenialError): not this game's text
                    continue
                return found
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

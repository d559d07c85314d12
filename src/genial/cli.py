"""The ``genial`` command line. It only calls the library.

Every verb (``play``, ``simulate``, ``openings``, ``advantage``, ``analyse``, ``arena``, ``match``,
``replay``, ``learn``) is one command; ``--game NAME`` (default ``board``) chooses the game from
the registry (``genial.registry``), never by a name written here: the game's entry names the module
of its part of the command line (``GameEntry.cli``), which says which verbs the game has and adds
the game's own options (its rules) to each. ``genial VERB --game NAME --help`` shows that game's
options; ``genial cards VERB`` is another spelling of ``genial VERB --game cards`` (so for every
game but the default one). A verb the game has not, or an unknown game, is refused as a bad
argument.

Everything a run needs is checked before the first game is played: the arguments, the output
paths (their directory exists and is writable, their extension names a format) and the optional
packages those formats need. Results are written atomically: to a temporary file in the same
directory, then renamed over the path, so an interrupted or failed write never leaves half a file
(and never spoils the file that was there). Every error is one line on stderr,
``genial <command>: error: <message>``, never a traceback, with the exit status:

- 2: bad arguments or input (argparse errors, the library's ``ValueError``), refused output
  paths, a missing optional package;
- 1: an operating-system error during the run (disk full, permission, memory, stdout closed);
- 130: Ctrl-C, reported as ``genial <command>: interrupted``.

>>> main(["play", "--players", "2", "--seed", "1", "--quiet"])  # doctest: +ELLIPSIS
       r ...
game over after ... turns; ranks [...]
result: p... wins
0
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import decimal
import importlib
import json
import os
import re
import secrets
import shlex
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from ._version import __version__
from .batch.backends import CONNECT_TIMEOUT
from .errors import GenialError, excerpt
from .files import (
    MAX_NAME_BYTES,
    atomic_path,
    load_json,
    path_problem,
    read_bounded,
    read_json,
    temporary_prefix,
)
from .policies import POLICIES, PRESETS, SEARCH_POLICIES, parse_policy
from .registry import GameEntry, distribution, entry, entry_of, games, make, own_games
from .seeds import MAX_SEED_BITS

__all__ = [
    "DEFAULT_GAME",
    "EXIT_FAULT",
    "EXIT_INTERRUPTED",
    "EXIT_USAGE",
    "MAX_GAMES",
    "TYPES",
    "VERBS",
    "ArgumentTypes",
    "build_parser",
    "main",
]

EXIT_FAULT = 1
"""An operating-system error during the run (disk full, permission, memory)."""
EXIT_USAGE = 2
"""Bad arguments or input, refused before any work (or rejected by the library)."""
EXIT_INTERRUPTED = 130
"""Ctrl-C (128 + SIGINT)."""

MAX_GAMES = 10**12
"""The largest ``--games`` and ``--games-per-opening``."""


MESSAGE_LIMIT = 300
"""Error lines are cut to about this many characters."""
PATH_LIMIT = 100
"""Paths in messages are cut to about this many characters (other input to 40)."""

DISTRIBUTION = "genial-sim"


class CommandLineError(ValueError):
    """A refused argument or output path, found before any work (exit status 2)."""


class _ParseError(Exception):
    """argparse's error, raised instead of printed, so that ``main`` prints it as one line."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _ParseError(self.prog, message)


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Every option's help ends with its default: ``(default: ...)``, written out where the
    help says it in words, else added here (``off`` for flags, ``none`` for no value)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if "(default" in text or action.default is argparse.SUPPRESS or not action.option_strings:
            return text
        default = action.default
        if default is False or default is None:
            shown = "off" if default is False else "none"
        elif isinstance(default, (list, tuple)):
            shown = " ".join(map(str, default))
        else:
            shown = str(default)
        return f"{text} (default: {shown.replace('%', '%%')})".strip()


# -- argument types ----------------------------------------------------------------------------

_INTEGER = re.compile(r"[+-]?[0-9]+(?:_[0-9]+)*", re.ASCII)
_NUMBER = re.compile(
    r"[+-]?[0-9]+(?:_[0-9]+)*(?:\.[0-9]+(?:_[0-9]+)*)?(?:[eE][+-]?[0-9]+)?", re.ASCII
)


def _count(minimum: int, what: str) -> Callable[[str], int]:
    """A count of games: ``1000000``, ``1_000_000``, ``1e6`` or ``1.5e3`` (a whole number),
    from ``minimum`` to ``MAX_GAMES``."""

    def count(text: str) -> int:
        wrong = argparse.ArgumentTypeError(
            f"expected a whole number of {what} such as 1000000, 1_000_000 or 1e6, "
            f"got {excerpt(text)}"
        )
        if not _NUMBER.fullmatch(text.strip()):
            raise wrong
        try:
            value = decimal.Decimal(text.strip().replace("_", ""))
            if value > MAX_GAMES:
                raise argparse.ArgumentTypeError(
                    f"must be at most {MAX_GAMES:,} (1e12), got {excerpt(text)}"
                )
            if value < minimum:
                raise argparse.ArgumentTypeError(
                    f"must be at least {minimum:,}, got {excerpt(text)}"
                )
            if value != value.to_integral_value():
                raise wrong
            return int(value)
        except (ArithmeticError, ValueError):
            raise wrong from None

    count.__name__ = "count"
    return count


def _integer(
    minimum: int,
    maximum: int | None = None,
    *,
    what: str = "whole number",
    also: int | None = None,
) -> Callable[[str], int]:
    """A plain integer in ``minimum..maximum`` (or ``also``)."""
    span = f">= {minimum}" if maximum is None else f"from {minimum} to {maximum}"
    if also is not None:
        span += f", or {also}"

    def integer(text: str) -> int:
        wrong = argparse.ArgumentTypeError(f"expected a {what} {span}, got {excerpt(text)}")
        if not _INTEGER.fullmatch(text.strip()):
            raise wrong
        try:
            value = int(text.strip())
        except ValueError:  # more digits than Python converts
            raise wrong from None
        if value == also or (minimum <= value and (maximum is None or value <= maximum)):
            return value
        raise wrong

    integer.__name__ = "integer"
    return integer


def _seed(text: str) -> int:
    """A seed: a whole number from 0 to ``2**MAX_SEED_BITS - 1`` (``genial.seeds``)."""
    wrong = argparse.ArgumentTypeError(
        f"expected a whole number from 0 to 2**{MAX_SEED_BITS}-1, got {excerpt(text)}"
    )
    if not _INTEGER.fullmatch(text.strip()):
        raise wrong
    try:
        value = int(text.strip())
    except ValueError:  # more digits than Python converts
        raise wrong from None
    if value < 0 or value.bit_length() > MAX_SEED_BITS:
        raise wrong
    return value


def _one_of(options: Sequence[Any]) -> Callable[[str], Any]:
    """One of ``options``, compared as text."""
    by_text = {str(option): option for option in options}

    def choice(text: str) -> Any:
        if text in by_text:
            return by_text[text]
        raise argparse.ArgumentTypeError(
            f"expected one of {', '.join(by_text)}, got {excerpt(text)}"
        )

    choice.__name__ = "choice"
    return choice


def _probability(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:  # also refuses nan
        raise argparse.ArgumentTypeError(f"expected a number from 0 to 1, got {excerpt(text)}")
    return value


def _seconds(text: str) -> float:
    """A duration in seconds, more than 0 and at most a day."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value <= 86_400.0:  # also refuses nan
        raise argparse.ArgumentTypeError(
            f"expected a number of seconds more than 0, at most 86400, got {excerpt(text)}"
        )
    return value


def _policy_name(text: str) -> str:
    """``--policy``: a policy name (of every verb). A known policy given a wrong parameter
    (``mc:0``, ``epsilon-greedy:2``) is refused with the library's reason, which names it; an
    unknown name with the list of names."""
    try:
        parse_policy(text)
    except GenialError as exc:
        if text.partition(":")[0] in (*POLICIES, *SEARCH_POLICIES):
            raise argparse.ArgumentTypeError(str(exc).removeprefix("policy ")) from None
        raise argparse.ArgumentTypeError(
            f"unknown policy {excerpt(text)}: random, greedy, epsilon-greedy, "
            "epsilon-greedy:EPS (EPS from 0 to 1), mc:N or mcts:N (N at least 1; "
            "docs/search.md)"
        ) from None
    return text


# -- the games ---------------------------------------------------------------------------------

DEFAULT_GAME = "board"
"""The game of a command given no ``--game``."""

_PLAIN_VERBS = ("play", "simulate", "analyse", "arena", "replay")
"""The verbs of a game whose entry names no command-line module (its default rules)."""
_OWN_VERBS = frozenset({"openings", "advantage", "match"})
"""Verbs whose library function is the game's own (its command-line module's of that name)."""


@dataclass(frozen=True)
class ArgumentTypes:
    """The argument types the command line lends each game's ``add_options(parser, verb,
    types)`` (``genial.registry.GameEntry.cli``), so that every game's options say what is
    wrong the same way, on one line.

    >>> TYPES.one_of((2, 3, 4))("3")
    3
    >>> TYPES.integer(1, 32000)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a whole number from 1 to 32000, got '0'
    """

    one_of: Callable[[Sequence[Any]], Callable[[str], Any]]
    """``one_of(options)``: one of ``options``, compared as text."""
    integer: Callable[..., Callable[[str], int]]
    """``integer(minimum, maximum=None)``: a whole number in that range."""
    count: Callable[[int, str], Callable[[str], int]]
    """``count(minimum, what)``: a count such as ``1e6``, at most ``MAX_GAMES``."""


TYPES = ArgumentTypes(one_of=_one_of, integer=_integer, count=_count)
"""The ``types`` given to the games' ``add_options``."""


class _Commands:
    """A game's part of the command line: the module its entry's ``cli`` names, else the
    plain verbs with the game's default rules. A module that lacks what ``GameEntry.cli``
    documents is refused (``TypeError``) here, before any parser is built."""

    def __init__(self, game: GameEntry) -> None:
        self.entry = game
        self.module = importlib.import_module(game.cli) if game.cli else None
        named = _PLAIN_VERBS if self.module is None else getattr(self.module, "VERBS", None)
        if not isinstance(named, (tuple, list)) or not all(isinstance(v, str) for v in named):
            raise TypeError(f"its VERBS is a tuple of verb names, got {excerpt(named)}")
        hidden = getattr(self.module, "HIDDEN", "hidden state")
        if not isinstance(hidden, str):
            raise TypeError(f"its HIDDEN is a text, got {excerpt(hidden)}")
        if self.module is not None:
            for name in ("add_options", "rules"):
                if not callable(getattr(self.module, name, None)):
                    raise TypeError(f"it has no function {name}")
        self.verbs: tuple[str, ...] = tuple(
            v for v in named if v not in _OWN_VERBS or callable(getattr(self.module, v, None))
        )
        """The verbs the game has: those its module names (one of ``_OWN_VERBS`` only with
        the function that plays it)."""
        self.hidden = hidden

    def add_options(self, parser: argparse.ArgumentParser, verb: str) -> None:
        if self.module is not None:
            self.module.add_options(parser, verb, TYPES)

    def rules(self, args: argparse.Namespace) -> Any:
        return self.entry.rules() if self.module is None else self.module.rules(args)

    def call(self, verb: str) -> Callable[..., Any]:
        """The library function of a verb only some games have (``openings``, ``match``)."""
        function: Callable[..., Any] = getattr(self.module, verb)
        return function

    def tried(self) -> _Commands:
        """``self``, once the parser of each of its verbs was built and its help written (a
        plug-in's options that argparse refuses, or whose ``add_options`` fails, raise here)."""
        for verb in self.verbs:
            if verb in _VERBS:
                parser = _Parser(prog=f"genial {verb}", formatter_class=_HelpFormatter)
                _add_verb(parser, verb, self)
                parser.format_help()
        return self


def _all_commands() -> dict[str, _Commands]:
    """Every registered game's part of the command line, by name, the default game first.
    A game whose command-line module does not import or is malformed is left out, with one
    ``RuntimeWarning`` naming it and its distribution: the other games keep working."""
    found: dict[str, _Commands] = {}
    own = own_games()
    for name in sorted(games(), key=lambda name: name != DEFAULT_GAME):
        try:
            commands = _Commands(entry(name))
            found[name] = commands if name in own else commands.tried()
        except (Exception, SystemExit) as exc:  # a broken plug-in must not break the others
            import warnings

            warnings.warn(_skipped(name, exc), RuntimeWarning, stacklevel=2)
    return found


def _skipped(name: str, exc: BaseException) -> str:
    """The warning of a game whose command line failed: the game, its module, its
    distribution, why."""
    try:
        why = _one_line(str(exc), 200)
    except Exception:  # an exception whose str fails
        why = ""
    if not isinstance(exc, (GenialError, TypeError)) or not why:
        why = f"{type(exc).__name__}: {why}" if why else type(exc).__name__
    try:
        module = excerpt(entry(name).cli, 80)
        source = distribution(name)
    except GenialError:
        module, source = "?", None
    where = f"the distribution {source!r}" if source else "a register() call"
    return (
        f"genial: skipped the command line of the game {name!r} (module {module}) of {where}: "
        f"{why}"
    )


def _commands(args: argparse.Namespace) -> _Commands:
    """The part of the command line of the game a command plays."""
    return _Commands(entry(args.game))


# -- output files ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Format:
    name: str
    modules: tuple[str, ...] = ()
    extra: str = ""


TABLES = {
    ".parquet": _Format("Parquet", ("pandas", "pyarrow"), "parquet"),
    ".csv": _Format("CSV", ("pandas",), "pandas"),
}
"""Table files; ``simulate --out DIRECTORY/`` (a trailing ``/``) writes a Parquet dataset."""
PICTURES = {
    ".png": _Format("PNG", ("matplotlib",), "plot"),
    ".svg": _Format("SVG", ("matplotlib",), "plot"),
    ".pdf": _Format("PDF", ("matplotlib",), "plot"),
}
RECORDS = {".json": _Format("JSON")}
SVG = {".svg": _Format("SVG")}
HTML = {".html": _Format("HTML")}


@dataclass
class _Output:
    """An output path, checked; ``target`` is where it is written (symbolic links followed)."""

    flag: str
    path: str
    extension: str
    format: _Format
    target: str
    written: bool = False

    @property
    def shown(self) -> str:
        return excerpt(self.path, PATH_LIMIT)


def _check_name(flag: str, path: str) -> None:
    """Refuse (``CommandLineError``) a path no file system takes (``files.path_problem``)."""
    problem = path_problem(path)
    if problem is not None:
        raise CommandLineError(f"{flag} {excerpt(path, PATH_LIMIT)}: {problem}")


def _name_limit(directory: str) -> int:
    """The most bytes of a file name in ``directory`` (its file system's, else the usual)."""
    try:
        return min(MAX_NAME_BYTES, int(os.pathconf(directory, "PC_NAME_MAX")))
    except (OSError, ValueError, AttributeError, TypeError):
        return MAX_NAME_BYTES


def _output(flag: str, path: str, formats: dict[str, _Format]) -> _Output:
    """``path`` checked for ``flag``: a name a file system takes, a known extension, an
    existing writable directory (where the temporary file the write goes through can be made),
    not a directory itself. Raises ``CommandLineError``."""
    accepted = ", ".join(formats)
    shown = excerpt(path, PATH_LIMIT)
    if not path.strip():
        raise CommandLineError(f"{flag}: empty path (accepted extensions: {accepted})")
    _check_name(flag, path)
    try:
        target = os.path.realpath(path)
        if os.path.isdir(target):
            raise CommandLineError(f"{flag} {shown}: is a directory, not a file")
        extension = os.path.splitext(path)[1].lower()
        if extension not in formats:
            got = f"unsupported extension {excerpt(extension)}" if extension else "no extension"
            raise CommandLineError(f"{flag} {shown}: {got} (accepted: {accepted})")
        if os.path.lexists(target) and not stat.S_ISREG(os.stat(target).st_mode):
            raise CommandLineError(f"{flag} {shown}: exists and is not a regular file")
        directory, name = os.path.split(target)
        if not os.path.isdir(directory):
            where = excerpt(os.path.dirname(path) or ".", PATH_LIMIT)
            raise CommandLineError(f"{flag} {shown}: directory {where} does not exist")
        limit = _name_limit(directory)
        if len(os.fsencode(name)) > limit:
            raise CommandLineError(
                f"{flag} {shown}: the file name is too long ({len(os.fsencode(name)):,} bytes, "
                f"at most {limit} there)"
            )
        # a probe named as the temporary file of the write will be (genial.files.atomic_path)
        fd, probe = tempfile.mkstemp(dir=directory, prefix=temporary_prefix(name), suffix=extension)
    except OSError as exc:
        raise CommandLineError(
            f"{flag} {shown}: cannot write there ({exc.strerror or type(exc).__name__})"
        ) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    return _Output(flag, path, extension, formats[extension], target)


def _require(modules: Sequence[str], extra: str, purpose: str) -> None:
    """Import ``modules`` now, so that a missing one stops the command before any work."""
    for module in modules:
        try:
            importlib.import_module(module)
        except Exception as exc:  # ImportError, or a broken installation
            why = "is not installed" if isinstance(exc, ImportError) else "cannot be imported"
            raise CommandLineError(
                f"{purpose} needs {module}, which {why}: pip install '{DISTRIBUTION}[{extra}]'"
            ) from None


def _require_formats(outputs: Sequence[_Output]) -> None:
    for out in outputs:
        _require(
            out.format.modules, out.format.extra, f"{out.flag} {out.shown} ({out.format.name})"
        )


def _write_atomically(out: _Output, write: Callable[[str], object]) -> None:
    """``write(temporary path)`` in ``out``'s directory, then the file renamed over ``out``
    (``genial.files.atomic_path``): the path holds the old file or the whole new one, never a
    part; the old file's permissions are kept, the temporary file removed on failure."""
    with atomic_path(out.target, out.extension) as temporary:
        write(temporary)
    out.written = True


class _WriteError(OSError):
    """Outputs that could not be written (exit status 1)."""


def _write_all(writes: Sequence[tuple[_Output, Callable[[str], object]]]) -> None:
    """Write every output, even when one fails (a full disk for the table may leave room for
    the plot); then raise ``_WriteError`` naming those that failed."""
    failed = []
    for out, write in writes:
        try:
            _write_atomically(out, write)
        except OSError as exc:
            failed.append(f"could not write {out.shown}: {exc.strerror or _one_line(str(exc))}")
    if failed:
        raise _WriteError("; ".join(failed) + " (nothing was written there)")


# -- a run -------------------------------------------------------------------------------------


@dataclass
class _Session:
    """What ``main`` needs to report a failure: the outputs, whether the results are complete
    (only the writing left), whether stdout was closed under us."""

    outputs: list[_Output] = field(default_factory=list)
    finished: bool = False
    stdout_closed: bool = False
    interrupted: str = ""
    """What Ctrl-C left, said after ``interrupted`` (``simulate --out DIRECTORY/``'s parts)."""

    def say(self, text: object = "") -> None:
        """Print to stdout; a closed stdout (``genial ... | head``) stops the printing, not the
        run, so the files are still written."""
        if self.stdout_closed:
            return
        try:
            print(text, flush=True)
        except BrokenPipeError:
            self.stdout_closed = True
            _silence_stdout()

    def unwritten(self) -> list[str]:
        return [out.shown for out in self.outputs if not out.written] if self.finished else []


def _silence_stdout() -> None:
    """Point stdout at the null device, so that the interpreter's last flush does not fail."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)


def _text_writer(text: str) -> Callable[[str], None]:
    def write(path: str) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)

    return write


def _play(args: argparse.Namespace, session: _Session) -> int:
    rules = _rules(args)
    players = int(rules.players)
    policies = args.policy or [DEFAULT_POLICY]
    if len(policies) == 1:
        policies = policies * players
    if len(policies) != players:
        raise CommandLineError(
            f"give one --policy, or one per player ({players}), not {len(policies)}"
        )
    record = _output("--record", args.record, RECORDS) if args.record is not None else None
    picture = _output("--svg", args.svg, SVG) if args.svg is not None else None
    session.outputs = [out for out in (record, picture) if out]
    game = make(args.game, rules=rules, seed=args.seed)
    step = 0
    while not game.is_over:
        player, turn = game.current_player, getattr(game, "turn", step)
        move = game.choose(policies[player], epsilon=args.epsilon)
        placing = getattr(move, "kind", None) in ("place", "play")
        bonus = placing and _bonus_owed(game) > 0
        gains = game.gains(move) if placing and hasattr(game, "gains") else None
        game.play(move)
        step += 1
        if not args.quiet:
            extra = f"  +{gains[0]}/+{gains[1]}" if gains else ""
            extra += "  (bonus)" if bonus else ""
            session.say(f"turn {turn:>3}  player {player} ({policies[player]}): {move}{extra}")
    session.finished = True
    writes: list[tuple[_Output, Callable[[str], object]]] = []
    if record:
        writes.append((record, _text_writer(json.dumps(game.to_record()))))
    if picture:
        from .render.svg import svg

        writes.append((picture, _text_writer(svg(game))))
    _write_all(writes)
    session.say(game)
    result = _result(game)
    if result:
        session.say(f"result: {result}")
    if record:
        session.say(f"record written to {args.record}")
    if picture:
        session.say(f"final position drawn in {args.svg}")
    return 0


def _bonus_owed(game: Any) -> int:
    """The bonus placements the player to move is owed (the board game's ``bonus_plays``, the
    card game's ``bonus_turns``): a placement played while one is owed is a bonus play."""
    for name in ("bonus_plays", "bonus_turns"):
        owed = getattr(game, name, None)
        if owed is not None:
            return int(owed)
    return 0


def _seats(seats: Sequence[int]) -> str:
    """``p0``, ``p0 and p2``, ``p0, p1 and p3``."""
    names = [f"p{seat}" for seat in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _result(game: Any) -> str:
    """Who won a finished game, in words: ``p0 wins``, ``p0 and p2 share first place``, in the
    team game ``seats 0 and 2 win``; the solo game's result ("" for a game that ranks no
    one)."""
    players = int(game.players)
    if players == 1:
        try:  # the board game's counters
            return f"solo game, lowest colour {int(min(game.scores[0]))}"
        except (AttributeError, TypeError, ValueError, IndexError):
            return "the solo game is over"
    ranking = getattr(game, "ranks", None)
    if ranking is None:
        return ""
    ranks = [int(rank) for rank in ranking()]
    if getattr(getattr(game, "rules", None), "teams", False):
        first = [team for team, rank in enumerate(ranks[:2]) if rank == 0]
        if len(first) == 1:
            return f"seats {first[0]} and {first[0] + 2} win (team {first[0]})"
        return "the two teams (seats 0 and 2, seats 1 and 3) share first place"
    winner = game.winner() if hasattr(game, "winner") else None  # (the card game's instant one)
    if winner is not None:
        return f"p{winner} wins"
    first = [seat for seat, rank in enumerate(ranks) if rank == 0]
    return f"{_seats(first)} wins" if len(first) == 1 else f"{_seats(first)} share first place"


def _is_directory_path(path: str) -> bool:
    """``--out runs/`` (a trailing separator), or an existing directory whose name has no
    extension, is a Parquet dataset directory (``runs.parquet`` is a file, refused if it is a
    directory)."""
    if path.endswith(("/", os.sep)):
        return True
    return os.path.isdir(path) and not os.path.splitext(os.path.basename(path))[1]


def _run_simulate(
    args: argparse.Namespace,
    rules: Any,
    *,
    out: Any = None,
    overwrite: bool = False,
    resume: bool = False,
    address: Any = None,
) -> Any:
    """The one call of ``genial.batch.simulate``."""
    from .batch import Output, simulate
    from .batch.run import scheduled

    options: dict[str, Any] = {}
    if "epsilon" in getattr(entry(args.game).adapter, "options", ()):
        options["epsilon"] = args.epsilon
    return simulate(
        args.games,
        rules,
        game=args.game,
        policy=_policy(args, DEFAULT_POLICY),
        seed=args.seed,
        workers=_workers(args),
        progress=_progress_on(args),
        options=options,
        backend=scheduled(args.backend, address),
        out=None if out is None else Output(out, overwrite=overwrite, resume=resume),
    )


def _simulate(args: argparse.Namespace, session: _Session) -> int:
    rules = _rules(args)
    dataset = args.out is not None and _is_directory_path(args.out)
    if args.overwrite and args.out is None:
        raise CommandLineError("--overwrite is for --out (a file or a DIRECTORY/ dataset)")
    if args.resume and not dataset:
        raise CommandLineError("--resume is for --out DIRECTORY/ (a dataset)")
    if args.overwrite and args.resume:
        raise CommandLineError(
            "give --overwrite (start anew) or --resume (finish the run), not both"
        )
    if dataset:
        _check_name("--out", args.out)
    out = _output("--out", args.out, TABLES) if args.out is not None and not dataset else None
    if out and os.path.lexists(out.target) and not args.overwrite:
        raise CommandLineError(_already_there(out.shown, "a file"))
    session.outputs = [out] if out else []
    _require_formats(session.outputs)  # (simulate checks that the results fit in memory)
    if dataset:
        _require(("pyarrow",), "parquet", f"--out {excerpt(args.out, PATH_LIMIT)} (dataset)")
    if dataset:  # checked before any game: a new or empty directory, or --overwrite/--resume
        from .batch.dataset import AnotherRunError, DatasetExistsError

        try:
            with _scheduler(args) as address:
                written = _run_simulate(
                    args,
                    rules,
                    out=args.out,
                    overwrite=args.overwrite,
                    resume=args.resume,
                    address=address,
                )
        except KeyboardInterrupt:
            session.interrupted = _kept_parts(args)
            raise
        except AnotherRunError as exc:
            raise CommandLineError(_another_run(exc, args)) from None
        except DatasetExistsError:
            shown = excerpt(args.out, PATH_LIMIT)
            raise CommandLineError(_already_there(shown, "a dataset")) from None
        except GenialError as exc:  # the library's words are Python's: say the flags
            raise CommandLineError(_in_flags(str(exc))) from None
        session.finished = True
        session.say(written.summary())
        session.say(
            f"{len(written):,} games written to {args.out} (a Parquet dataset, one row per "
            "game; genial.batch.open_dataset reads it)"
        )
        return 0
    with _scheduler(args) as address:
        runs = _run_simulate(args, rules, address=address)
    session.finished = True
    if out:
        if out.extension == ".csv":
            _write_all([(out, lambda path: runs.to_pandas().to_csv(path, index=False))])
        else:
            _write_all([(out, runs.to_parquet)])
    session.say(runs.summary())
    if out:
        session.say(
            f"{len(runs):,} games written to {args.out} as {out.format.name} "
            "(one row per game and seat)"
        )
    return 0


def _already_there(shown: str, what: str) -> str:
    """The refusal of an ``--out`` that holds ``what`` already (a file, a dataset)."""
    resume = " (or --resume to finish an interrupted run)" if what == "a dataset" else ""
    return f"--out {shown} already holds {what}: give --overwrite to replace it{resume}"


def _stored_header(directory: str) -> dict[str, Any] | None:
    """The header of the dataset in ``directory`` (its ``_genial.json``), if one reads."""
    from .batch.dataset import MAX_META_BYTES, META

    try:
        meta = read_json(os.path.join(directory, META), MAX_META_BYTES)
    except (GenialError, OSError, ValueError, TypeError):
        return None
    header = meta.get("header") if isinstance(meta, dict) else None
    return header if isinstance(header, dict) else None


def _seed_flag(seed: Any) -> str | None:
    """``--seed N`` for a stored seed the command line can give again, else ``None``."""
    if not isinstance(seed, dict) or seed.get("spawn_key") or seed.get("pool_size") != 4:
        return None
    entropy = seed.get("entropy")
    return f"--seed {entropy}" if isinstance(entropy, str) and entropy.isdigit() else None


def _resume_command(args: argparse.Namespace, header: dict[str, Any] | None) -> str:
    """The command that finishes the run of ``args``: the same with ``--resume`` (without
    ``--overwrite``, and with the seed the run drew when it was given none)."""
    argv = [a for a in args.argv if a not in ("--overwrite", "--resume")]
    if args.seed is None and header is not None:
        flag = _seed_flag(header.get("seed"))
        if flag is not None:
            argv += flag.split()
    return shlex.join(["genial", *argv, "--resume"])


def _kept_parts(args: argparse.Namespace) -> str:
    """What an interrupted ``simulate --out DIRECTORY/`` kept, and how to finish it."""
    header = _stored_header(args.out)
    shown = excerpt(args.out, PATH_LIMIT)
    if header is None:  # stopped before the dataset was begun
        return f"nothing was written to {shown}"
    drawn = " (and the seed this run drew)" if args.seed is None else ""
    return (
        f"the finished parts were kept in {shown}; running the same command with --resume"
        f"{drawn} completes the run: {_resume_command(args, header)}"
    )


_RUN_FLAGS = {
    "games": "--games",
    "rules": "rules (--players and the game's rules options)",
    "players": "--players",
    "game": "--game",
    "epsilons": "epsilons (--epsilon, epsilon-greedy:EPS)",
}


def _listed(value: Any) -> str:
    """A value of a dataset's header as the command line writes it: a list as ``a b``, a
    string without quotes, at most about 200 characters."""
    items = list(value[:17]) if isinstance(value, (list, tuple)) else [value]
    text = " ".join(v if isinstance(v, str) else excerpt(v) for v in items[:16])
    text += " ..." if len(items) > 16 else ""
    return text if len(text) <= 200 else text[:200] + "..."


def _another_run(exc: Any, args: argparse.Namespace) -> str:
    """``--resume`` of a dataset of another run (``AnotherRunError``), in the command line's
    words: which option differs (never the seed's internals)."""
    key, was, here = exc.key, exc.stored, exc.given
    if key == "seed":
        stored = _seed_flag(was)
        now = "no --seed (a fresh seed)" if args.seed is None else f"--seed {args.seed}"
        written = stored or "a seed the command line cannot give (genial.batch.simulate's)"
        what = f"it was written with {written}, this command gives {now}"
    elif key in ("policies", "policy_labels"):
        labels = (_stored_header(args.out) or {}).get("policy_labels")
        written = _listed(labels if isinstance(labels, list) else was)
        what = f"it was written with --policy {written}, this command plays {_listed(here)}"
    elif key in _RUN_FLAGS:
        what = f"its {_RUN_FLAGS[key]}: {_listed(was)}, here {_listed(here)}"
    else:
        what = f"it was written by another version of genial or with other options ({key})"
    return (
        f"--resume: the dataset in {excerpt(args.out, PATH_LIMIT)} is another run: {what}; "
        "resume it with the options of the interrupted command (or give --overwrite to replace it)"
    )


def _in_flags(message: str) -> str:
    """Any other message of ``genial.batch``'s datasets with the flags (``--overwrite``,
    ``--resume``) for ``Output``'s keywords."""
    for python, flag in (
        ("simulate(..., out=Output(path, resume=True))", "genial simulate ... --resume"),
        ("out=Output(path, resume=True)", "--resume"),
        ("out=Output(path, overwrite=True)", "--overwrite"),
        ("resume=True", "--resume"),
        ("overwrite=True", "--overwrite"),
    ):
        message = message.replace(python, flag)
    return re.sub(r"^(out|resume): ", lambda m: f"--{m.group(1)}: ", message)


def _openings(args: argparse.Namespace, session: _Session) -> int:
    analyse = _commands(args).call("openings")
    rules = _rules(args)
    race: dict[str, Any] = {}
    if args.adaptive:
        # --out is the race's directory (its steps, and the table as table.csv at the end)
        if args.out is not None and not args.out.strip():
            raise CommandLineError("--out: empty path (with --adaptive, a directory)")
        if args.out is not None:
            _check_name("--out", args.out)
        if args.out is not None and args.seed is None:  # drawn here, to say it on Ctrl-C
            args.seed = secrets.randbits(128)  # (as numpy.random.SeedSequence draws)
            args.argv = [*args.argv, "--seed", str(args.seed)]
        race = {"adaptive": True, "out": args.out, "resume": args.resume}
        race["confidence"] = args.confidence
        if args.batch is not None:
            race["batch"] = args.batch
        table = None
    else:
        if args.resume or args.batch is not None or args.confidence != 0.95:
            raise CommandLineError("--resume, --batch and --confidence need --adaptive")
        table = _output("--out", args.out, TABLES) if args.out is not None else None
    plot = _output("--plot", args.plot, PICTURES) if args.plot is not None else None
    session.outputs = [out for out in (table, plot) if out]
    _require(("pandas",), "pandas", "genial openings (its table)")
    _require_formats(session.outputs)
    try:
        with _scheduler(args) as address:
            result = _analyse_openings(analyse, args, rules, address, race)
    except KeyboardInterrupt:
        if args.adaptive and args.out is not None:
            again = [a for a in args.argv if a != "--resume"]
            session.interrupted = (
                f"every finished step is kept in {excerpt(args.out, PATH_LIMIT)}; the same "
                f"command with --resume goes on from there: "
                f"{shlex.join(['genial', *again, '--resume'])}"
            )
        raise
    session.finished = True
    writes: list[tuple[_Output, Callable[[str], object]]] = []
    if args.adaptive and args.out is not None:
        result.to_book(args.out, command=" ".join(["genial", *map(shlex.quote, args.argv)]))
        session.say(f"the race's steps and the book (table.csv, book.json) are in {args.out}")
    if table:
        writes.append((table, result.to_csv if table.extension == ".csv" else result.to_parquet))
    if plot:
        writes.append((plot, result.plot))
    _write_all(writes)
    session.say(result.summary(rows=args.rows))
    if table:
        session.say(f"{len(result.table)} opening classes written to {args.out}")
    if plot:
        session.say(f"plot written to {args.plot}")
    return 0


def _analyse_openings(
    analyse: Callable[..., Any],
    args: argparse.Namespace,
    rules: Any,
    address: Any,
    race: dict[str, Any],
) -> Any:
    """``genial openings``'s call of the game's opening analysis."""
    return analyse(
        rules=rules,
        games_per_opening=args.games_per_opening,
        policy=_policy(args, DEFAULT_POLICY),
        seed=args.seed,
        workers=_workers(args),
        backend=args.backend,
        address=address,
        reply_to=args.reply_to,
        progress=_progress_on(args),
        epsilon=args.epsilon,
        **race,
        **({"confirm": args.confirm} if args.confirm else {}),
        **({} if args.paired else {"paired": False}),
    )


def _match(args: argparse.Namespace, session: _Session) -> int:
    match = _commands(args).call("match")
    result = match(
        args.matches,
        rounds=args.rounds,
        rules=_rules(args),
        policy=_policy(args, DEFAULT_POLICY),
        epsilon=args.epsilon,
        seed=args.seed,
        workers=-1 if args.workers is None else args.workers,
        progress=_progress_on(args),
    )
    session.finished = True
    session.say(result)
    return 0


def _advantage(args: argparse.Namespace, session: _Session) -> int:
    """``genial advantage``: every seat's win rate per rules and policy (the game's
    ``advantage``, the board game's ``genial.board.advantage.first_player_advantage``)."""
    commands = _commands(args)
    advantage, words = commands.call("advantage"), commands.call("advantage_text")
    table = _output("--out", args.out, {".csv": TABLES[".csv"]}) if args.out is not None else None
    session.outputs = [table] if table else []
    _require(("pandas",), "pandas", "genial advantage (its table)")
    chosen: dict[str, Any] = {}
    if args.players is not None:
        chosen["players"] = [item for items in args.players for item in items]
    policies = [name for names in args.policy or [["random", "greedy"]] for name in names]
    result = advantage(
        **chosen,
        policies=policies,
        games=args.games,
        seed=args.seed,
        workers=_workers(args),
        teams=args.teams,
        tournament=args.tournament,
        tiles=args.tiles,
        progress=_progress_on(args),
    )
    session.finished = True
    if table:
        text = result.to_csv(index=False)
        _write_all([(table, _text_writer(text))])
    session.say(words(result))
    if table:
        session.say(f"{len(result)} rows written to {args.out}")
    return 0


MAX_RECORD_BYTES = 64 * 2**20
"""The largest record file ``genial replay`` reads (a whole game's record is under 100 KB)."""


def _read_record(path: str) -> Any:
    """The JSON record at ``path`` (a regular file of at most ``MAX_RECORD_BYTES``, JSON read as
    untrusted input: ``genial.files``); ``CommandLineError`` when it cannot be read as JSON."""
    where = f"record {excerpt(path, PATH_LIMIT)}"
    try:
        raw = read_bounded(path, MAX_RECORD_BYTES, where)
    except GenialError as exc:
        raise CommandLineError(str(exc)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise CommandLineError(f"{where}: not a JSON record (not UTF-8 JSON)") from None
    try:
        return load_json(text, where)
    except GenialError as exc:  # "<where>: <what> (<why>)": said in the command line's words
        said = str(exc).removeprefix(f"{where}: ")
        why = said[said.index("(") :] if "(" in said else f"({said})"
        raise CommandLineError(f"{where}: not a JSON record {why}") from None


def _replay(args: argparse.Namespace, session: _Session) -> int:
    from .render.html import replay_html
    from .render.svg import svg

    if args.html is None and args.svg is None:
        raise CommandLineError("give --html PATH.html and/or --svg PATH.svg to write")
    page = _output("--html", args.html, HTML) if args.html is not None else None
    picture = _output("--svg", args.svg, SVG) if args.svg is not None else None
    session.outputs = [out for out in (page, picture) if out]
    record = _read_record(args.record)
    shown = excerpt(args.record, PATH_LIMIT)
    try:  # RecordError names what does not replay; the message, which file
        game = _replayed(record, args.game, shown)
        html = replay_html(record) if page else ""
    except GenialError as exc:
        raise CommandLineError(f"record {shown}: {exc}") from None
    writes: list[tuple[_Output, Callable[[str], object]]] = []
    if page:
        writes.append((page, _text_writer(html)))
    if picture:
        writes.append((picture, _text_writer(svg(game))))
    session.finished = True
    _write_all(writes)
    moves = len(record.get("moves", ()))
    if page:
        session.say(f"replay of {moves} moves written to {args.html}")
    if picture:
        session.say(f"final position drawn in {args.svg}")
    return 0


def _replayed(record: Any, game: str | None, shown: str) -> Any:
    """The game ``record`` replays to: the game its ``"format"`` names (which ``--game``, if
    given, must be), else read as a record of ``--game`` (the default game's), whose reader
    says what is wrong with it."""
    try:
        found: GameEntry | None = entry_of(record) if isinstance(record, dict) else None
    except GenialError:
        found = None
    if found is None:
        found = entry(game or DEFAULT_GAME)
    elif game is not None and found.name != game:
        raise CommandLineError(
            f"record {shown}: a record of the game {found.name!r}, not of --game {game}"
        )
    return found.adapter.replay(record)


def _analyse(args: argparse.Namespace, session: _Session) -> int:
    """``genial analyse``: the position of the ``--game``'s game."""
    from .analysis import evaluate

    own = _commands(args).entry
    if (args.position is None) == (args.record is None):
        raise CommandLineError("give either POSITION or --record FILE --move N")
    if (args.record is None) != (args.move is None):
        raise CommandLineError("--record FILE and --move N go together")
    table = _output("--out", args.out, TABLES) if args.out is not None else None
    session.outputs = [table] if table else []
    if table:
        _require(("pandas",), "pandas", "genial analyse --out (its table)")
    _require_formats(session.outputs)
    position: Any = args.position
    if args.record is not None:
        position = _recorded_position(args.record, args.move, args.game)
    elif own.position is not None:
        try:
            position = own.position.parse(args.position)
        except GenialError as exc:
            _refuse_record(args.position)
            other = _reader_of(args.position, own)
            if other is None:
                raise exc from None
            raise CommandLineError(
                f"POSITION is a position of the game {other.name!r}: analyse it with "
                + _spelling("analyse", other.name)
            ) from None
    else:
        _refuse_record(args.position)
    result = evaluate(
        position,
        playouts=args.playouts,
        policy=_policy(args, DEFAULT_POLICY),
        seed=args.seed,
        workers=_workers(args),
        view=args.view,
        adaptive=args.adaptive,
        min_playouts=args.min_playouts,
        progress=_progress_on(args),
        epsilon=args.epsilon,
        paired=args.paired,
    )
    session.finished = True
    if table:
        frame = result.table
        write = frame.to_csv if table.extension == ".csv" else frame.to_parquet
        _write_all([(table, lambda path: write(path, index=False))])
    session.say(result.summary(rows=args.rows))
    if table:
        session.say(f"{len(result.rows)} moves written to {args.out}")
    return 0


def _recorded_position(path: str, move: int, game: str | None) -> Any:
    """The game of the record at ``path`` before its move ``move`` (counted from 0: the
    position after its first ``move`` moves), read by the guarded record reader and replayed
    by its game's reader."""
    record = _read_record(path)
    shown = excerpt(path, PATH_LIMIT)
    try:  # the whole record replayed first: its reader says what is wrong with it
        _replayed(record, game, shown)
        moves = record["moves"]
        if move > len(moves):
            raise CommandLineError(
                f"--move {move}: the record {shown} has {len(moves)} moves (--move 0 to "
                f"{len(moves)}: the position before that move)"
            )
        return _replayed({**record, "moves": moves[:move]}, game, shown)
    except GenialError as exc:
        raise CommandLineError(f"record {shown}: {exc}") from None


def _refuse_record(text: str) -> None:
    """A game record (a file, or its JSON) given as POSITION: refused, pointing to
    ``--record FILE --move N``."""
    what = None
    if text.lstrip().startswith("{") and '"moves"' in text:
        what = "a game record (JSON)"
    elif path_problem(text) is None:
        with contextlib.suppress(OSError, ValueError):
            if os.path.isfile(text):
                what = "a file (a game record?)"
    if what is not None:
        raise CommandLineError(
            f"POSITION {excerpt(text, PATH_LIMIT)} is {what}, not a position text: analyse a "
            "recorded game's position with --record FILE --move N (the position before move N, "
            "counted from 0)"
        )


def _reader_of(text: str, own: GameEntry) -> GameEntry | None:
    """The game other than ``own`` whose position ``text`` is, if any."""
    for name in games():
        other = entry(name)
        if other.name == own.name or other.position is None:
            continue
        try:
            other.position.parse(text)
        except Exception:  # (GenialError; or a plug-in's parse failing on a text not its own)
            continue
        return other
    return None


def _spelling(verb: str, game: str) -> str:
    """How to ask for ``verb`` of ``game``: ``genial analyse --game cards (or genial cards
    analyse)``."""
    if game == DEFAULT_GAME:
        return f"genial {verb}"
    alias = f" (or genial {game} {verb})" if game not in VERBS else ""
    return f"genial {verb} --game {game}{alias}"


def _learn(args: argparse.Namespace, session: _Session) -> int:
    from .learn import train

    if args.policy and len(args.policy) > 1:
        raise CommandLineError("learn plays every seat with one --policy")
    out = _output("--out", args.out, RECORDS)
    session.outputs = [out]
    policy = args.policy[0] if args.policy else DEFAULT_POLICY
    parse_policy(policy)
    model = train(args.games, holdout=args.holdout, policy=policy, seed=args.seed)
    session.finished = True
    _write_all([(out, _text_writer(model.to_json()))])
    for k, metric in sorted(model.metrics.items()):
        session.say(
            f"{k} counter set{'s' if k > 1 else ''}: held-out log loss {metric['log_loss']:.4f} "
            f"(constant estimate {metric['log_loss_constant']}), "
            f"{metric['train_positions']:,} training positions"
        )
    session.say(f"weights written to {args.out}")
    return 0


def _arena(args: argparse.Namespace, session: _Session) -> int:
    from .arena import arena

    rules = _rules(args)
    policies = args.policy or list(ARENA_POLICIES[: max(2, int(rules.players))])
    if len(policies) < 2:
        raise CommandLineError(
            "give at least two policies to compare: --policy A B ... (default: "
            f"{' '.join(ARENA_POLICIES[:2])})"
        )
    result = arena(
        policies,
        games=args.games,
        players=rules,
        seed=args.seed,
        workers=_workers(args),
        progress=_progress_on(args),
        epsilon=args.epsilon,
        game=args.game,
    )
    session.finished = True
    session.say(result)
    return 0


DEFAULT_POLICY = "greedy"
"""The policy of every command given no ``--policy`` (``play``, ``simulate``, ``openings``,
``analyse``'s playouts, ``match``, ``learn``): one default, the library's strongest fast one."""

ARENA_POLICIES = ("random", "greedy", "epsilon-greedy", "epsilon-greedy:0.5")
"""The policies ``genial arena`` rates when given none: the first two, one more for each seat
beyond two."""


def _policy(args: argparse.Namespace, default: str) -> str | list[str]:
    """One policy for every seat, or the list given once per seat."""
    policies: list[str] = args.policy or [default]
    return policies[0] if len(policies) == 1 else policies


def _rules(args: argparse.Namespace) -> Any:
    """The rules object the game's options name."""
    return _commands(args).rules(args)


# -- the parser --------------------------------------------------------------------------------


def _add_progress(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a progress bar on stderr (default: when stderr is a terminal)",
    )


def _progress(args: argparse.Namespace) -> bool:
    """``--progress``/``--no-progress``, else a bar only when stderr is a terminal."""
    if args.progress is not None:
        return bool(args.progress)
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


PROGRESS_EVERY = 5.0
"""Seconds between the plain progress lines printed when stderr is not a terminal."""


def _progress_lines(args: argparse.Namespace) -> bool:
    """Plain progress lines instead of a bar: neither ``--progress`` nor ``--no-progress``
    given, and stderr is not a terminal (a log, a pipe), where a long run would print
    nothing for minutes."""
    return getattr(args, "progress", False) is None and not _progress(args)


def _progress_on(args: argparse.Namespace) -> bool:
    """The library's ``progress``: a bar (``_progress``) or plain lines (``_progress_lines``)."""
    return _progress(args) or _progress_lines(args)


def _progress_context(args: argparse.Namespace) -> contextlib.AbstractContextManager[None]:
    """Where the command runs: the library's bars turned into plain lines, with
    ``_progress_lines``; else nothing changed."""
    if not _progress_lines(args):
        return contextlib.nullcontext()
    from .batch.progress import progress_lines

    return progress_lines(f"genial {args.verb}", interval=PROGRESS_EVERY)


def _add_seed(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        type=_seed,
        default=None,
        metavar="INT",
        help=f"numpy seed, a whole number from 0 to 2**{MAX_SEED_BITS}-1 (default: fresh entropy)",
    )


POLICY_NAMES = (
    "random, greedy, epsilon-greedy, epsilon-greedy:EPS; the board game's also strong (the preset "
    f"{PRESETS['strong']}), value, value:kK, mc:N, mcts:N and their options (mc:N:value, "
    "mcts:N:value, kK, dD, cX: docs/search.md)"
)


def _add_policy(parser: argparse.ArgumentParser, default: str, *, text: str | None = None) -> None:
    """``--policy`` (and ``--epsilon``); ``text`` says what the policies are for (else: one for
    every seat, or one per seat)."""
    parser.add_argument(
        "--policy",
        action="extend",
        nargs="+",
        type=_policy_name,
        metavar="POLICY",
        help=f"{POLICY_NAMES}; "
        + (text or "one for every seat, or one per seat in order (--policy greedy random)")
        + f" (default: {default})",
    )
    parser.add_argument(
        "--epsilon",
        type=_probability,
        default=0.1,
        metavar="EPS",
        help="epsilon of epsilon-greedy seats given without one",
    )


def _add_run(
    parser: argparse.ArgumentParser,
    *,
    policy: str,
    dask: bool = False,
    policy_text: str | None = None,
) -> None:
    """--policy, --epsilon, --workers and --seed; with ``dask``, --backend and --address too."""
    _add_policy(parser, policy, text=policy_text)
    parser.add_argument(
        "--workers",
        type=_integer(1, 1024, also=-1),
        default=None,
        metavar="N",
        help=(
            "threads (or local Dask worker processes), -1 for every core; the results do not "
            "depend on it (default: -1, every core; with --address, the cluster's own workers)"
            if dask
            else "threads, -1 for every core; the results do not depend on it (default: -1, "
            "every core)"
        ),
    )
    _add_seed(parser)
    if dask:
        _add_backend(parser)


def _add_backend(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--backend",
        type=_one_of(("threads", "dask")),
        default="threads",
        metavar="{threads,dask}",
        help="where the games run: threads here, or a Dask cluster (genial-sim[dask]; "
        "an embedded LocalCluster unless --address is given)",
    )
    parser.add_argument(
        "--address",
        metavar="URL",
        help="the Dask scheduler to use, like tcp://host:8786 (with --backend dask)",
    )
    parser.add_argument(
        "--connect-timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="give up on the scheduler at --address after this long "
        f"(default: {CONNECT_TIMEOUT:g})",
    )


@contextlib.contextmanager
def _scheduler(args: argparse.Namespace) -> Iterator[Any]:
    """The ``address`` to run on: with ``--backend dask --address URL``, a client of that
    scheduler, connected within ``--connect-timeout`` seconds (a ``GenialError`` naming the
    address if it does not answer) and closed after the run; else ``--address`` as it is (the
    library refuses it without ``--backend dask``)."""
    if args.connect_timeout is not None and args.address is None:
        raise CommandLineError("--connect-timeout is for the scheduler at --address")
    if args.backend != "dask" or args.address is None:
        yield args.address
        return
    from .batch.backends import checked_backend, connect

    checked_backend(args.backend, _workers(args), args.address)  # before waiting for it
    timeout = CONNECT_TIMEOUT if args.connect_timeout is None else args.connect_timeout
    client = connect(args.address, timeout)
    try:
        yield client
    finally:
        client.close()


def _workers(args: argparse.Namespace) -> int | None:
    """``--workers``, else every core (``None`` for a cluster at ``--address``)."""
    if args.workers is not None:
        return int(args.workers)
    return None if getattr(args, "address", None) is not None else -1


def _add_out(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--out",
        metavar="PATH",
        help="write the games: FILE.parquet (genial-sim[parquet]) or FILE.csv "
        "(genial-sim[pandas]), one row per game and seat; or DIRECTORY/, a partitioned Parquet "
        "dataset written as the games are played (for runs larger than memory)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace the file or the dataset already at --out (else refused)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="finish the interrupted run in --out DIRECTORY/ (the same arguments)",
    )


def _add_count(
    parser: argparse.ArgumentParser, flag: str, what: str, default: int, text: str
) -> None:
    """A count of ``what`` (``_count``: ``1e6``, ...), from 1."""
    parser.add_argument(flag, type=_count(1, what), default=default, metavar="N", help=text)


def _add_play(parser: argparse.ArgumentParser, game: _Commands) -> None:
    """``genial play``: one game between built-in policies."""
    _add_seed(parser)
    _add_policy(parser, DEFAULT_POLICY)
    parser.add_argument("--quiet", action="store_true", help="print only the final position")
    parser.add_argument("--record", metavar="PATH.json", help="write the game record (JSON) here")
    parser.add_argument(
        "--svg", metavar="PATH.svg", help="draw the final position into this SVG file"
    )


def _add_simulate(parser: argparse.ArgumentParser, game: _Commands) -> None:
    """``genial simulate``: ``genial.batch.simulate``."""
    _add_count(
        parser,
        "--games",
        "games",
        100_000,
        "games to play: 1000000, 1_000_000 or 1e6; at most 1e12",
    )
    _add_run(parser, policy=DEFAULT_POLICY, dask=True)
    _add_out(parser)
    _add_progress(parser)


def _add_openings(parser: argparse.ArgumentParser, game: _Commands) -> None:
    """``genial openings``: the game's ``openings`` (the board game's
    ``genial.board.openings.analyse``)."""
    _add_count(
        parser,
        "--games-per-opening",
        "games per opening",
        1000,
        "games per class of openings: 1000, 1_000 or 1e3; at most 1e12",
    )
    _add_run(parser, policy=DEFAULT_POLICY, dask=True)
    parser.add_argument(
        "--reply-to", metavar="MOVE", help="analyse the second player's replies to this opening"
    )
    parser.add_argument(
        "--paired",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="game j of every class on the same draws (common random numbers; default); "
        "--no-paired: every class on its own seed",
    )
    parser.add_argument(
        "--confirm",
        type=_integer(0),
        default=0,
        metavar="N",
        help="play each class that may be best N more times on fresh games, for estimates free "
        "of the selection's bias (docs/openings.md); default 0: none",
    )
    parser.add_argument(
        "--rows", type=_integer(0), default=10, metavar="N", help="best and worst rows to print"
    )
    parser.add_argument(
        "--out",
        metavar="PATH",
        help="write the table: .parquet (genial-sim[parquet]) or .csv; with --adaptive, a "
        "directory for the race's steps and its table.csv",
    )
    parser.add_argument(
        "--plot",
        metavar="PATH",
        help="write the heatmap and ranked chart: .png, .svg or .pdf (genial-sim[plot])",
    )
    parser.add_argument(
        "--adaptive",
        action="store_true",
        help="race the classes: stop playing those clearly below the best (docs/openings.md); "
        "--games-per-opening is then the most a class gets",
    )
    parser.add_argument(
        "--confidence",
        type=_probability,
        default=0.95,
        metavar="P",
        help="--adaptive: the chance that the best class is never stopped (default: %(default)s)",
    )
    parser.add_argument(
        "--batch",
        type=_integer(1),
        metavar="N",
        help="--adaptive: the games of the first round (a multiple of the chunk: 16 for search "
        "policies, 1024 otherwise; default 256 or 1024)",
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help="--adaptive: go on with the race in --out where it was stopped",
    )
    _add_progress(parser)


def _policy_names(text: str) -> list[str]:
    """``advantage --policy``: a comma list of policy names, each checked."""
    return [_policy_name(name.strip()) for name in text.split(",")]


def _add_advantage(parser: argparse.ArgumentParser, game: _Commands) -> None:
    """``genial advantage``: the game's ``advantage`` (the board game's
    ``genial.board.advantage.first_player_advantage``)."""
    _add_count(
        parser,
        "--games",
        "games",
        100_000,
        "games per rules and policy: 100000, 100_000 or 1e5; at most 1e12",
    )
    parser.add_argument(
        "--policy",
        action="extend",
        nargs="+",
        type=_policy_names,
        metavar="POLICY",
        help=f"{POLICY_NAMES}; each played at every seat, one table row each: repeated or a "
        "comma list (--policy random,greedy) (default: random greedy)",
    )
    parser.add_argument(
        "--workers",
        type=_integer(1, 1024, also=-1),
        default=None,
        metavar="N",
        help="threads, -1 for every core; the results do not depend on it (default: -1, "
        "every core)",
    )
    _add_seed(parser)
    parser.add_argument("--out", metavar="FILE.csv", help="write the table (CSV) here")
    _add_progress(parser)


def _add_analyse(parser: argparse.ArgumentParser, game: _Commands) -> None:
    """``genial analyse``: ``genial.analysis.evaluate``."""
    parser.add_argument(
        "position",
        metavar="POSITION",
        nargs="?",
        help="a position text (game.to_text(), quoted); or --record FILE --move N",
    )
    parser.add_argument(
        "--record", metavar="FILE", help="a game record (JSON): analyse its position at --move"
    )
    parser.add_argument(
        "--move",
        type=_integer(0),
        metavar="N",
        help="with --record: the position before move N (counted from 0; N = the record's "
        "length: its last position)",
    )
    parser.add_argument(
        "--out", metavar="FILE", help="write the table: .csv, or .parquet (genial-sim[parquet])"
    )
    _add_count(
        parser,
        "--playouts",
        "playouts",
        1000,
        "playouts per move (with --adaptive: for the moves that survive to the end)",
    )
    parser.add_argument(
        "--view",
        type=_one_of(("player", "omniscient")),
        default="player",
        metavar="{player,omniscient}",
        help="player: redeal what the mover cannot see in every playout; omniscient: the true "
        + game.hidden.replace("%", "%%"),
    )
    parser.add_argument(
        "--adaptive",
        action="store_true",
        help="successive elimination from --min-playouts: a move is dropped once its upper "
        "bound is below the best lower bound (95%% over the moves and rounds)",
    )
    parser.add_argument(
        "--paired",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="playout k of every move on the same draws (common random numbers; default); "
        "--no-paired: every move's playouts independent",
    )
    _add_count(
        parser,
        "--min-playouts",
        "playouts",
        32,
        "playouts per move in the first round of --adaptive",
    )
    parser.add_argument(
        "--rows", type=_integer(0), default=10, metavar="N", help="moves to print, best first"
    )
    _add_run(parser, policy=DEFAULT_POLICY)
    _add_progress(parser)


def _add_arena(parser: argparse.ArgumentParser, game: _Commands) -> None:
    """``genial arena``: ``genial.arena.arena``."""
    _add_count(
        parser,
        "--games",
        "deals",
        1000,
        "duplicate deals per table, each played from every seat rotation",
    )
    _add_run(
        parser,
        policy=" ".join(ARENA_POLICIES[:2]) + "; with 3 players, also "
        f"{ARENA_POLICIES[2]}; with 4, also {ARENA_POLICIES[3]}",
        policy_text="at least two distinct policies to rate against each other (at least one "
        "per seat), --policy A B ...",
    )
    _add_progress(parser)


def _add_match(parser: argparse.ArgumentParser, game: _Commands) -> None:
    """``genial match``: the game's ``match`` (the card game's ``genial.cards.matches.match``)."""
    _add_count(parser, "--matches", "matches", 10_000, "matches to play: 10000, 10_000 or 1e4")
    parser.add_argument(
        "--rounds", type=_integer(1, 1000), default=3, metavar="N", help="rounds per match"
    )
    _add_run(parser, policy=DEFAULT_POLICY)
    _add_progress(parser)


def _add_learn(parser: argparse.ArgumentParser, game: _Commands) -> None:
    """``genial learn``: ``genial.learn.train``, written by ``genial.learn.write_weights``."""
    _add_count(parser, "--games", "games", 20_000, "training games per model")
    _add_count(parser, "--holdout", "games", 3_000, "held-out games per model, to measure it")
    _add_seed(parser)
    _add_policy(parser, DEFAULT_POLICY)
    parser.add_argument(
        "--out",
        metavar="PATH.json",
        required=True,
        help="the weights file to write (the kernel reads genial/value_weights.json at import)",
    )


def _add_replay(parser: argparse.ArgumentParser, game: _Commands) -> None:
    """``genial replay``: a record as an HTML page or an SVG."""
    parser.add_argument("record", metavar="RECORD.json", help="a record written by play --record")
    parser.add_argument(
        "--html",
        metavar="PATH.html",
        help="write a page stepping through the game (buttons, keys, move list; no network)",
    )
    parser.add_argument("--svg", metavar="PATH.svg", help="draw the final position into this SVG")


@dataclass(frozen=True)
class _Verb:
    help: str
    add: Callable[[argparse.ArgumentParser, _Commands], None]
    run: Callable[[argparse.Namespace, _Session], int]


_VERBS = {
    "play": _Verb("play and print one game between built-in policies", _add_play, _play),
    "simulate": _Verb(
        "play many games in the compiled kernel and summarise them", _add_simulate, _simulate
    ),
    "openings": _Verb(
        "win rates of every class of first placements, with intervals", _add_openings, _openings
    ),
    "advantage": _Verb(
        "every seat's win rate per rules and policy: the first player's advantage, the best "
        "seats",
        _add_advantage,
        _advantage,
    ),
    "analyse": _Verb(
        "every legal decision of a position played out and ranked, with intervals",
        _add_analyse,
        _analyse,
    ),
    "arena": _Verb(
        "policies against each other on duplicate deals, with Elo ratings", _add_arena, _arena
    ),
    "match": _Verb(
        "multi-round matches scored by victory points (docs/rules.md §5.7)", _add_match, _match
    ),
    "replay": _Verb(
        "a recorded game as a self-contained HTML replay page or an SVG", _add_replay, _replay
    ),
    "learn": _Verb(
        "fit the learned evaluation of the value policy and write its weights file",
        _add_learn,
        _learn,
    ),
}

VERBS = tuple(_VERBS)
"""The verbs of ``genial``, each once: ``--game`` chooses the game (a game has some of them)."""


def _game_name(text: str) -> str:
    """``--game``: a registered game's name or alias, as its name."""
    try:
        return entry(text).name
    except GenialError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _add_verb(
    parser: argparse.ArgumentParser, verb: str, game: _Commands, *, choose: bool = True
) -> None:
    """Give ``parser`` the options of ``verb`` as ``game`` plays it: ``--game`` (with
    ``choose``; an alias such as ``genial cards VERB`` has none), the game's options, the
    verb's."""
    if choose:
        names = ", ".join(games())
        aliases = [alias for name in games() for alias in entry(name).aliases]
        if aliases:
            names += f" (or {', '.join(aliases)})"
        parser.add_argument(
            "--game",
            type=_game_name,
            default=None if verb == "replay" else DEFAULT_GAME,
            metavar="NAME",
            help=f"the game: {names}"
            + (" (default: the game the record names)" if verb == "replay" else ""),
        )
    else:
        parser.set_defaults(game=game.entry.name)
    game.add_options(parser, verb)
    _VERBS[verb].add(parser, game)
    parser.set_defaults(func=_VERBS[verb].run, verb=verb)


def _having(verb: str, commands: dict[str, _Commands]) -> list[str]:
    """The games that have ``verb``."""
    return [name for name, game in commands.items() if verb in game.verbs]


class _VerbParser(_Parser):
    """The parser of one verb, built with the options of the default game (or with ``--game``
    alone, for a verb the default game does not have); ``--game NAME`` hands the arguments to
    the parser of that game's options, built the first time it is asked for. Without ``verb``
    (the parser of a group such as ``genial cards``), a plain parser."""

    def __init__(
        self,
        *args: Any,
        verb: str | None = None,
        commands: dict[str, _Commands] | None = None,
        **kw: Any,
    ) -> None:
        self.verb, self.commands = verb or "", commands or {}
        if not self.verb:
            super().__init__(*args, **kw)
            return
        default = self.commands.get(DEFAULT_GAME)
        self.home = DEFAULT_GAME if default and self.verb in default.verbs else None
        others = [name for name in _having(self.verb, self.commands) if name != self.home]
        kw["epilog"] = _epilog(self.verb, self.home, others)
        super().__init__(*args, **kw)
        self._parsers: dict[str, argparse.ArgumentParser] = {}
        if self.home is not None:
            _add_verb(self, self.verb, self.commands[self.home])
        else:
            _add_verb_choice(self, self.verb, others)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        if not self.verb:
            return super().parse_known_args(args, namespace)
        argv = list(sys.argv[1:] if args is None else args)
        named = _named_game(argv)
        if named is None and self.home is None and not {"-h", "--help"} & set(argv):
            raise _ParseError(self.prog, self._lacking(DEFAULT_GAME, " (the default)"))
        if named is not None:
            name = self._chosen(named)
            if name != self.home:
                return self._parser(name).parse_known_args(argv, namespace)
        fresh = copy.copy(namespace)
        parsed, extra = super().parse_known_args(argv, namespace)
        chosen = getattr(parsed, "game", None)
        if chosen is not None and chosen != self.home:  # --game abbreviated (--gam cards)
            return self._parser(self._chosen(chosen)).parse_known_args(argv, fresh)
        return parsed, extra

    def _chosen(self, text: str) -> str:
        """The game named ``text``, which has this verb (else a ``_ParseError``)."""
        try:
            name = entry(text).name
        except GenialError as exc:
            raise _ParseError(self.prog, f"argument --game: {exc}") from None
        if name not in self.commands:
            raise _ParseError(
                self.prog,
                f"argument --game: the game {name!r} has no command line here (its module "
                "failed to load: see the warning above)",
            )
        if self.verb not in self.commands[name].verbs:
            raise _ParseError(self.prog, self._lacking(name))
        return name

    def _lacking(self, name: str, note: str = "") -> str:
        having = _having(self.verb, self.commands)
        return (
            f"argument --game: the game {name!r}{note} has no {self.verb}; "
            f"give --game {' or '.join(having)}"
        )

    def _parser(self, name: str) -> argparse.ArgumentParser:
        if name not in self._parsers:
            others = [n for n in _having(self.verb, self.commands) if n != name]
            parser = _Parser(
                prog=self.prog,
                description=self.description,
                epilog=_epilog(self.verb, name, others),
                formatter_class=_HelpFormatter,
            )
            _add_verb(parser, self.verb, self.commands[name])
            self._parsers[name] = parser
        return self._parsers[name]


def _add_verb_choice(parser: argparse.ArgumentParser, verb: str, having: list[str]) -> None:
    """The parser of a verb the default game has not: ``--game`` alone."""
    parser.add_argument(
        "--game",
        type=_game_name,
        default=DEFAULT_GAME,
        metavar="NAME",
        help=f"the game: {' or '.join(having)} (the default game, {DEFAULT_GAME}, has no {verb})",
    )


def _epilog(verb: str, game: str | None, others: list[str]) -> str:
    """Whose options the help shows, and how to see the other games'."""
    shown = (
        ""
        if game is None
        else f"The options shown are those of --game {game}"
        + (" (the default). " if game == DEFAULT_GAME else ". ")
    )
    if not others:
        return shown.strip()
    names = ", ".join(others)
    return shown + f"genial {verb} --game NAME --help shows those of game NAME ({names})."


def _named_game(argv: Sequence[str]) -> str | None:
    """The value of ``--game NAME`` or ``--game=NAME`` in ``argv`` (the last one), if any."""
    named = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--game" and i + 1 < len(argv):
            named = argv[i + 1]
        elif arg.startswith("--game="):
            named = arg.partition("=")[2]
    return named


def build_parser() -> argparse.ArgumentParser:
    """The parser of the command line: every verb once, its ``--game`` (default ``board``)
    choosing whose options it takes; ``genial cards VERB`` is an alias of ``genial VERB
    --game cards`` (likewise for every game but the default one).

    >>> args = build_parser().parse_args(["simulate", "--game", "cards", "--players", "4"])
    >>> (args.game, args.players, args.turn_cap)
    ('cards', 4, 1000)
    >>> alias = build_parser().parse_args(["cards", "simulate", "--players", "4"])
    >>> vars(alias) == {**vars(args), "command": "cards"}
    True
    """
    commands = _all_commands()
    parser = _Parser(
        prog="genial",
        description="Simulate Reiner Knizia's Ingenious (Einfach Genial) and its card game.",
        formatter_class=_HelpFormatter,
        epilog="Every command takes --game NAME (" + ", ".join(commands) + f"; default "
        f"{DEFAULT_GAME}): genial COMMAND --game NAME --help shows that game's options.",
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"genial {__version__}",
        help="show the version and exit",
    )
    verbs = [verb for verb in VERBS if _having(verb, commands)]
    aliases = [name for name in commands if name != DEFAULT_GAME and name not in VERBS]
    sub = parser.add_subparsers(
        dest="command",
        required=True,
        metavar="{" + ",".join(verbs + aliases) + "}",
        parser_class=_VerbParser,
    )
    for verb in verbs:
        having = _having(verb, commands)
        games_of = "" if len(having) == len(commands) else f" (--game {' or '.join(having)})"
        sub.add_parser(
            verb,
            help=_VERBS[verb].help + games_of,
            description=_VERBS[verb].help,
            formatter_class=_HelpFormatter,
            verb=verb,
            commands=commands,
        )
    for name in aliases:
        game = commands[name]
        own = [verb for verb in VERBS if verb in game.verbs]
        group = sub.add_parser(
            name,
            help=f"{game.entry.title.replace('%', '%%')}: genial {name} VERB is genial VERB "
            f"--game {name}",
            formatter_class=_HelpFormatter,
        )
        group_sub = group.add_subparsers(
            dest="verb", required=True, metavar="{" + ",".join(own) + "}"
        )
        for verb in own:
            alias = group_sub.add_parser(
                verb,
                help=_VERBS[verb].help,
                description=f"{_VERBS[verb].help} (genial {verb} --game {name})",
                formatter_class=_HelpFormatter,
            )
            _add_verb(alias, verb, game, choose=False)
    return parser


# -- main --------------------------------------------------------------------------------------


def _one_line(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` on one line, cut to about ``limit`` characters."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _tell(line: str) -> None:
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(line + "\n")
        sys.stderr.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0, 1, 2 or 130, see the module's help).
    Errors are printed as one line on stderr, never as a traceback."""
    parser = build_parser()
    try:
        args, unknown = parser.parse_known_args(argv)
        args.argv = list(sys.argv[1:] if argv is None else argv)
        if unknown:  # said by the command's parser, not by the top one
            prog = f"genial {args.command}"
            game = getattr(args, "game", None)
            whose = f" (not options of --game {game})" if game not in (None, DEFAULT_GAME) else ""
            raise _ParseError(prog, f"unrecognized arguments: {excerpt(' '.join(unknown))}{whose}")
    except _ParseError as exc:
        _tell(f"{exc.prog}: error: {_one_line(str(exc))}")
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        _tell("genial: interrupted")
        return EXIT_INTERRUPTED
    command = f"genial {args.command}"
    session = _Session()
    try:
        with _progress_context(args):
            code = int(args.func(args, session))
        if not session.stdout_closed:
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                session.stdout_closed = True
                _silence_stdout()
        if session.stdout_closed:
            code, message = EXIT_FAULT, "error: standard output was closed (broken pipe)"
        else:
            return code
    except KeyboardInterrupt:
        code, message = EXIT_INTERRUPTED, "interrupted"
        lost = session.unwritten()
        if lost:
            message += f"; nothing was written to {', '.join(lost)}"
        if session.interrupted:
            message += f"; {session.interrupted}"
    except (ValueError, ImportError) as exc:  # GenialError and its kin, CommandLineError
        code, message = EXIT_USAGE, f"error: {_one_line(str(exc))}"
    except MemoryError:
        code, message = EXIT_FAULT, "error: not enough memory"
        lost = session.unwritten()
        message += f"; nothing was written to {', '.join(lost)}" if lost else " (try fewer games)"
    except OSError as exc:
        text = str(exc) if isinstance(exc, _WriteError) else (exc.strerror or str(exc))
        if exc.filename and not isinstance(exc, _WriteError):
            text += f": {excerpt(str(exc.filename), PATH_LIMIT)}"
        code, message = EXIT_FAULT, f"error: {_one_line(text)}"
    except Exception as exc:  # a bug: still one line, never a traceback
        code = EXIT_FAULT
        message = f"error: internal error, please report it: {type(exc).__name__}: {exc}"
        message = _one_line(message)
    # the exception is gone here, and with it the frames holding a progress bar: tqdm closes
    # its line before ours is printed
    _tell(f"{command}: {message}")
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

"""A game-agnostic conformance contract, in the spirit of OpenSpiel's random simulation tests and
pgx's ``api_test``: random games are played through a game's public verbs and every step is
checked against the contract below. It knows nothing of Ingenious; a game is anything with these
verbs (duck-typed):

- ``legal_moves()``: a list of move objects, each with an int ``.action`` and a ``str()`` text;
- ``legal_actions()``: the legal action ids, a sorted 1-D ``int32`` numpy array;
- ``action_mask()``: a bool numpy array over the fixed action space (its length is the space);
- ``is_legal(x)`` and ``play(x)`` for ``x`` a move object, its text or its action id;
- ``undo()`` (returns the move taken back), ``copy()``, ``is_over``, ``current_player``,
  ``ranks()``;
- ``to_text()`` with the classmethod ``from_text(text)``, ``to_record()`` with the classmethod
  ``from_record(record)``, ``==`` (same position), ``str()``, ``repr()`` and pickling.

``make(seed)`` must return a fresh game (dealt from ``seed``); moves are chosen with
``random.Random``, so every run is reproducible. A failure raises ``ConformanceError`` (an
``AssertionError``) naming the game's seed, the step, the position and the moves played; one game
is replayed alone with ``check_game(make, seed)``.

What is checked, at every step of every game:

1. the legal moves, the action ids and the mask agree exactly (same ids, in the same order, the
   ids strictly increasing and inside the action space, the mask's size fixed for the game), the
   texts of the legal moves are distinct, and ``is_legal`` is ``True`` for every legal move, its
   text and its action id (also as a numpy integer); the game offers a move unless it is over;
   ``current_player`` is a seat of ``ranks()`` and the ranks are competition ranks (0 = best);
2. ``from_text(to_text())`` gives an equal game with the same text and the same legal ids, and
   ``str()`` / ``repr()`` are non-empty strings that equal games share;
3. ``copy()`` is an equal, separate game with the same record;
4. rejected inputs (a random sample of non-legal action ids and their neighbours, moves legal
   earlier in the game but not now, as move objects and as texts, and the ``bad_inputs``: garbage
   strings, out-of-range ints, ``None``, floats, bools, containers, a legal id as a float): each
   is ``is_legal(...) is False``, and ``play`` raises ``error`` (a ``ValueError`` subclass),
   leaving ``to_text()`` and ``to_record()`` as they were;
5. a legal move (chosen by ``choose``, uniformly by default; given as the move, its text, its id
   or a numpy id) is played, changes the
   position and leaves the copy untouched; ``undo()`` returns that move and restores the previous
   ``to_text()`` and ``to_record()`` exactly; replaying it gives the same position again (so
   ``undo`` restored the random state too); the same move played on the copy gives the same
   position (the copy has the same future, and no rejected input consumed randomness), and
   playing on the copy does not change the original;
6. once per game, at a random step, ``from_record(to_record())`` replays to an equal game.

At the end of a game: a finished game has no legal move, an all-False mask, and rejects its
last move (object, text and id) and the bad inputs, unchanged; ``to_record()`` survives a JSON
round trip and ``from_record`` replays it (also after JSON) to an equal game with the same record,
ranks and legal ids; ``undo()`` walks the whole game back through the same positions, then raises
``error`` with the game unchanged, and replaying the moves walks forward through the same
positions again (same draws); ``from_text`` and ``from_record`` reject garbage (and records with
a key missing or a garbled move) with ``error``.

Pickling (``pickling=True``, or ``check_pickling`` alone): at the start, at a random step and at
the end of each game, ``pickle.loads(pickle.dumps(game))`` for the default and the highest
protocol is a game of the same type, equal, with the same text, record and legal ids, whose
future is the same: both are continued with the same moves for a few steps, comparing
``to_text()`` and the legal ids at every step, then both are walked back with ``undo()``.
"""

from __future__ import annotations

import itertools
import json
import math
import pickle
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "DEFAULT_BAD_INPUTS",
    "ConformanceError",
    "Summary",
    "check_game",
    "check_pickling",
    "check_random_games",
]

Make = Callable[[int], Any]
Choose = Callable[[Any, list[Any], random.Random], Any]
"""``choose(game, legal_moves, rng)`` returns one of ``legal_moves`` (deterministic given ``rng``,
and without changing the game); ``None`` chooses uniformly with ``rng``."""

DEFAULT_BAD_INPUTS: tuple[Any, ...] = (
    # garbage strings
    "",
    " ",
    "\n",
    "garbage",
    "move",
    "swap swap",
    "keep,keep",
    "+",
    "++",
    "0",
    "-1",
    "\x00",
    "é",
    "None",
    "x" * 1000,
    # out-of-range ints (the action space's own bounds are added per game)
    -1,
    -2,
    -(2**31),
    2**31,
    2**63,
    -(2**63),
    10**30,
    np.int64(-1),
    # not a move at all
    None,
    0.0,
    1.5,
    -1.0,
    math.nan,
    math.inf,
    True,
    False,
    b"swap",
    bytearray(b"keep"),
    [],
    [0],
    (0, 1),
    {},
    {"move": 0},
    {0},
    1j,
    object(),
)
"""Inputs no game accepts as a move: ``is_legal`` is False for each, and ``play`` raises."""


class ConformanceError(AssertionError):
    """A game broke the contract; the message says where and how."""


@dataclass
class Summary:
    """What a run of ``check_random_games`` covered."""

    games: int = 0
    steps: int = 0
    finished: int = 0
    max_legal: int = 0
    rejected: int = 0
    pickled: int = 0
    seeds: list[int] = field(default_factory=list)

    def add(self, other: Summary) -> None:
        self.games += other.games
        self.steps += other.steps
        self.finished += other.finished
        self.max_legal = max(self.max_legal, other.max_legal)
        self.rejected += other.rejected
        self.pickled += other.pickled
        self.seeds += other.seeds


def _fail(message: str) -> None:
    raise ConformanceError(message)


def _ids(array: Any) -> list[int]:
    return [int(a) for a in array]


def _game_seeds(seed: int, games: int) -> list[int]:
    master = random.Random(seed)
    return [master.randrange(2**31) for _ in range(games)]


def check_random_games(
    make: Make,
    *,
    games: int,
    seed: int,
    max_steps: int | None = None,
    bad_inputs: Sequence[Any] = DEFAULT_BAD_INPUTS,
    error: type[BaseException] = ValueError,
    rejects_per_step: int = 12,
    pickling: bool = True,
    choose: Choose | None = None,
) -> Summary:
    """Play ``games`` random games from ``make`` and check the whole contract (module docstring)
    at every step; game ``i``'s seed is drawn from ``random.Random(seed)`` and is both ``make``'s
    seed and the seed of its move choices. ``max_steps`` cuts games short; ``error`` is the
    library's ``ValueError`` subclass that every rejection must raise; ``choose`` picks the moves
    (uniform by default; a score-seeking chooser reaches deeper rules). Returns a ``Summary``."""
    summary = Summary()
    for game_seed in _game_seeds(seed, games):
        summary.add(
            check_game(
                make,
                game_seed,
                max_steps=max_steps,
                bad_inputs=bad_inputs,
                error=error,
                rejects_per_step=rejects_per_step,
                pickling=pickling,
                choose=choose,
            )
        )
    return summary


def check_pickling(
    make: Make,
    *,
    games: int,
    seed: int,
    max_steps: int | None = None,
    future: int = 4,
) -> Summary:
    """Only the pickling part of the contract, on ``games`` random games (``make`` seeded as in
    ``check_random_games``, moves by ``random.Random(game_seed).choice``): at the start, at a
    random step and at the end of each game, the unpickled game equals the original and has the
    same future for ``future`` steps."""
    summary = Summary()
    for game_seed in _game_seeds(seed, games):
        rng = random.Random(game_seed)
        prng = random.Random(f"pickle:{game_seed}")
        game = make(game_seed)
        point = prng.randrange(1, 25)
        played: list[Any] = []
        with _Context(game, game_seed, lambda played=played: len(played)):
            _check_pickle(game, prng, future)
            summary.pickled += 1
            while not game.is_over and (max_steps is None or len(played) < max_steps):
                if len(played) == point:
                    _check_pickle(game, prng, future)
                    summary.pickled += 1
                move = rng.choice(game.legal_moves())
                game.play(move)
                played.append(move)
            _check_pickle(game, prng, future)
            summary.pickled += 1
        summary.games += 1
        summary.steps += len(played)
        summary.finished += bool(game.is_over)
        summary.seeds.append(game_seed)
    return summary


class _Context:
    """Re-raise any failure inside a game with its seed, step, position and moves."""

    def __init__(self, game: Any, seed: int, step: Callable[[], int]) -> None:
        self.game = game
        self.seed = seed
        self.step = step

    def __enter__(self) -> _Context:
        return self

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> None:
        if exc is None or not isinstance(exc, Exception):
            return
        try:
            text = self.game.to_text()
        except Exception as inner:  # pragma: no cover - only when to_text itself is broken
            text = f"<to_text() raised {inner!r}>"
        try:
            moves = [m["move"] for m in self.game.to_record()["moves"]]
        except Exception:  # pragma: no cover - a record of another shape
            moves = "<unavailable>"
        what = str(exc) if isinstance(exc, ConformanceError) else f"{type(exc).__name__}: {exc}"
        raise ConformanceError(
            f"game make({self.seed}), moves chosen by random.Random({self.seed}), step "
            f"{self.step()}: {what}\n  position: {text}\n  moves so far: {moves}\n"
            f"  reproduce: check_game(make, {self.seed})"
        ) from exc


def check_game(
    make: Make,
    seed: int,
    *,
    max_steps: int | None = None,
    bad_inputs: Sequence[Any] = DEFAULT_BAD_INPUTS,
    error: type[BaseException] = ValueError,
    rejects_per_step: int = 12,
    pickling: bool = True,
    choose: Choose | None = None,
) -> Summary:
    """Play and check one random game: ``make(seed)``, moves chosen by ``random.Random(seed)``."""
    rng = random.Random(seed)
    game = make(seed)
    checker = _Checker(game, rng, bad_inputs, error, rejects_per_step, choose)
    prng = random.Random(f"pickle:{seed}")
    pickle_at = prng.randrange(1, 25)
    summary = Summary(games=1, seeds=[seed])
    with _Context(game, seed, lambda: checker.step):
        checker.check_fresh()
        if pickling:
            _check_pickle(game, prng, 4)
            summary.pickled += 1
        record_at = rng.randrange(1, 40)
        while True:
            checker.check_position()
            if game.is_over or (max_steps is not None and checker.step >= max_steps):
                break
            if checker.step == record_at:
                _check_record(game, error)
            if pickling and checker.step == pickle_at:
                _check_pickle(game, prng, 4)
                summary.pickled += 1
            checker.check_move()
        checker.check_end()
        if pickling:
            _check_pickle(game, prng, 4)
            summary.pickled += 1
    summary.steps = checker.step
    summary.finished = int(bool(game.is_over))
    summary.max_legal = checker.max_legal
    summary.rejected = checker.rejected
    return summary


class _Checker:
    """The per-step checks of one game."""

    def __init__(
        self,
        game: Any,
        rng: random.Random,
        bad_inputs: Sequence[Any],
        error: type[BaseException],
        rejects_per_step: int,
        choose: Choose | None,
    ) -> None:
        self.game = game
        self.rng = rng
        self.error = error
        self.k = rejects_per_step
        self.choose = choose
        self.step = 0
        self.max_legal = 0
        self.rejected = 0
        self.size: int | None = None
        self.n_seats: int | None = None
        self.bad_inputs = list(bad_inputs)
        self.seen: dict[int, Any] = {}  # action id -> a move object once legal in this game
        self.texts: list[str] = []  # the position before each move
        self.played: list[Any] = []
        # refreshed by check_position
        self.moves: list[Any] = []
        self.actions: Any = None
        self.legal: set[int] = set()

    # -- the legal moves -------------------------------------------------------------------------
    def check_position(self) -> None:
        game = self.game
        moves = game.legal_moves()
        actions = game.legal_actions()
        mask = game.action_mask()
        if not isinstance(moves, list):
            _fail(f"legal_moves() returned a {type(moves).__name__}, not a list")
        if not isinstance(actions, np.ndarray) or actions.ndim != 1 or actions.dtype != np.int32:
            _fail(f"legal_actions() is not a 1-D int32 numpy array: {actions!r}")
        if not isinstance(mask, np.ndarray) or mask.ndim != 1 or mask.dtype != np.bool_:
            _fail(f"action_mask() is not a 1-D bool numpy array: {mask!r}")
        if self.size is None:
            self.size = len(mask)
            self.bad_inputs += [self.size, self.size + 1, np.int32(self.size)]
        if len(mask) != self.size:
            _fail(f"action_mask() has {len(mask)} entries, earlier {self.size}")
        ids = _ids(actions)
        if any(b <= a for a, b in itertools.pairwise(ids)):
            _fail(f"legal_actions() is not strictly increasing: {ids}")
        if ids and not (ids[0] >= 0 and ids[-1] < self.size):
            _fail(f"legal_actions() leaves the action space 0..{self.size - 1}: {ids}")
        from_mask = _ids(np.flatnonzero(mask))
        if from_mask != ids:
            _fail(
                f"action_mask() and legal_actions() disagree: only in the mask "
                f"{sorted(set(from_mask) - set(ids))[:10]}, only in the ids "
                f"{sorted(set(ids) - set(from_mask))[:10]}"
            )
        move_ids = []
        for m in moves:
            a = m.action
            if not isinstance(a, int) or isinstance(a, bool):
                _fail(f"move {m}'s .action is {a!r}, not an int")
            move_ids.append(a)
        if move_ids != ids:
            _fail(
                f"legal_moves() and legal_actions() disagree: moves give {move_ids[:10]}..., "
                f"ids {ids[:10]}... (lengths {len(move_ids)} and {len(ids)}; only in the moves "
                f"{sorted(set(move_ids) - set(ids))[:10]}, only in the ids "
                f"{sorted(set(ids) - set(move_ids))[:10]})"
            )
        texts = [str(m) for m in moves]
        if len(set(texts)) != len(texts):
            twice = sorted({t for t in texts if texts.count(t) > 1})[:5]
            _fail(f"two legal moves share a text: {twice}")
        for m, text in zip(moves, texts, strict=True):
            for form in (m, text, m.action):
                if game.is_legal(form) is not True:
                    _fail(f"legal move {text} (action {m.action}): is_legal({form!r}) is not True")
        for j in self._sample(range(len(ids)), 3):
            if game.is_legal(actions[j]) is not True:
                _fail(f"is_legal({actions[j]!r}) (a numpy id from legal_actions()) is not True")
        over = game.is_over
        if not isinstance(over, (bool, np.bool_)):
            _fail(f"is_over is {over!r}, not a bool")
        if bool(over) == bool(moves):
            _fail(
                "the game is over but has legal moves"
                if over
                else "the game is not over but offers no legal move"
            )
        self._check_seats()
        self._check_text()
        self.moves, self.actions, self.legal = moves, actions, set(ids)
        self.max_legal = max(self.max_legal, len(ids))
        for m in self._sample(moves, 8):
            self.seen.setdefault(m.action, m)

    def _check_seats(self) -> None:
        ranks = _ids(self.game.ranks())
        n = len(ranks)
        if self.n_seats is None:
            self.n_seats = n
        if n != self.n_seats or n < 1:
            _fail(f"ranks() has {n} entries, earlier {self.n_seats}")
        if min(ranks) != 0 or any(not 0 <= r < n for r in ranks):
            _fail(f"ranks() {ranks} are not competition ranks (0 = best, below {n})")
        for r in set(ranks):  # competition ranks: r counts the seats strictly ahead
            if sum(x < r for x in ranks) != r:
                _fail(f"ranks() {ranks}: rank {r} is not the number of seats ahead")
        player = self.game.current_player
        if not isinstance(player, (int, np.integer)) or isinstance(player, bool):
            _fail(f"current_player is {player!r}, not an int")
        if not 0 <= player < n:
            _fail(f"current_player {player} is not a seat (ranks() has {n})")

    def _check_text(self) -> None:
        game = self.game
        text = game.to_text()
        if not isinstance(text, str) or not text:
            _fail(f"to_text() returned {text!r}")
        other = type(game).from_text(text)
        if type(other) is not type(game):
            _fail(f"from_text() made a {type(other).__name__}")
        if other.to_text() != text:
            _fail(f"from_text(to_text()) does not round-trip:\n  {text}\n  {other.to_text()}")
        if not (other == game and game == other and game == game):
            _fail("from_text(to_text()) is not == to the game")
        if game == text or game == None:  # noqa: E711
            _fail("a game compares equal to a non-game")
        if _ids(other.legal_actions()) != _ids(game.legal_actions()):
            _fail("from_text(to_text()) has other legal moves")
        if other.is_over != game.is_over or other.current_player != game.current_player:
            _fail("from_text(to_text()) differs in is_over or current_player")
        for name, show in (("str", str), ("repr", repr)):
            shown = show(game)
            if not isinstance(shown, str) or not shown.strip():
                _fail(f"{name}(game) is {shown!r}")
            if show(other) != shown:
                _fail(f"{name}() differs between equal games:\n{shown}\n{show(other)}")

    # -- rejections ------------------------------------------------------------------------------
    def _sample(self, items: Sequence[Any] | range, k: int) -> list[Any]:
        return list(items) if len(items) <= k else self.rng.sample(items, k)

    def _non_legal_ids(self) -> list[int]:
        assert self.size is not None
        size, legal, rng = self.size, self.legal, self.rng
        out = set()
        for _ in range(self.k):
            a = rng.randrange(size)
            if a not in legal:
                out.add(a)
        for a in self._sample(sorted(legal), 3):
            out.update(b for b in (a - 1, a + 1) if 0 <= b < size and b not in legal)
        out.update(b for b in (0, size - 1) if b not in legal)
        return sorted(out)

    def _stale_moves(self) -> list[Any]:
        stale = [m for a, m in self.seen.items() if a not in self.legal]
        picked = self._sample(stale, self.k)
        return picked + [str(m) for m in picked]

    def reject(self, inputs: Iterable[Any], what: str) -> None:
        """Each input is not legal, and ``play`` raises ``error`` and changes nothing."""
        game = self.game
        text, record = game.to_text(), game.to_record()
        for x in inputs:
            try:
                legal = game.is_legal(x)
            except Exception as exc:
                _fail(f"is_legal({x!r}) ({what}) raised {type(exc).__name__}: {exc}")
            if legal is not False:
                _fail(f"is_legal({x!r}) ({what}) is {legal!r}, not False")
            try:
                game.play(x)
            except self.error as exc:
                if not isinstance(exc, ValueError):
                    _fail(f"play({x!r}) raised {type(exc).__name__}, not a ValueError")
            except Exception as exc:
                _fail(
                    f"play({x!r}) ({what}) raised {type(exc).__name__}: {exc}, "
                    f"not a {self.error.__name__}"
                )
            else:
                _fail(f"play({x!r}) ({what}) was accepted")
            if game.to_text() != text:
                _fail(
                    f"the rejected play({x!r}) ({what}) changed to_text():\n  {text}\n  "
                    f"{game.to_text()}"
                )
            self.rejected += 1
        if game.to_record() != record:
            _fail(f"rejected inputs ({what}) changed to_record()")

    def check_fresh(self) -> None:
        """A game with no history cannot be undone."""
        text = self.game.to_text()
        try:
            self.game.undo()
        except self.error:
            pass
        except Exception as exc:
            _fail(f"undo() of a fresh game raised {type(exc).__name__}: {exc}")
        else:
            _fail("undo() of a fresh game returned a move")
        if self.game.to_text() != text:
            _fail("the rejected undo() changed the game")

    # -- a move ------------------------------------------------------------------------------------
    def check_move(self) -> None:
        game, rng = self.game, self.rng
        before, record = game.to_text(), game.to_record()
        copy = game.copy()
        if copy is game or type(copy) is not type(game):
            _fail("copy() did not make a new game of the same type")
        if (copy == game) is not True or copy.to_text() != before or copy.to_record() != record:
            _fail("copy() is not equal to the game (text, record)")
        if _ids(copy.legal_actions()) != _ids(self.actions):
            _fail("copy() has other legal moves")

        bad = self.bad_inputs if self.step == 0 else self._sample(self.bad_inputs, self.k)
        bad = bad + [float(a) for a in self._sample(sorted(self.legal), 1)]
        self.reject(self._non_legal_ids(), "an action id not in legal_actions()")
        self.reject(self._stale_moves(), "a move legal earlier, not now")
        self.reject(bad, "a bad input")

        if self.choose is None:
            j = rng.randrange(len(self.moves))
        else:
            chosen = self.choose(game, list(self.moves), rng)
            ids = _ids(self.actions)
            if getattr(chosen, "action", None) not in self.legal:
                _fail(f"choose() returned {chosen!r}, not a legal move")
            if game.to_text() != before:
                _fail("choose() changed the game")
            j = ids.index(chosen.action)
        move = self.moves[j]
        form = rng.choice(("move", "text", "action", "numpy"))
        given = {"move": move, "text": str(move), "action": move.action, "numpy": self.actions[j]}
        x = given[form]
        game.play(x)
        after = game.to_text()
        if after == before:
            _fail(f"play({x!r}) did not change to_text()")
        if copy.to_text() != before:
            _fail(f"play({x!r}) on the game changed its copy")
        taken = game.undo()
        if not (taken == move and str(taken) == str(move) and taken.action == move.action):
            _fail(f"undo() after play({x!r}) returned {taken!r}, not {move!r}")
        if game.to_text() != before:
            _fail(
                f"undo() after play({x!r}) does not restore to_text():\n  {before}\n  "
                f"{game.to_text()}"
            )
        if game.to_record() != record:
            _fail(f"undo() after play({x!r}) does not restore to_record()")
        if _ids(game.legal_actions()) != _ids(self.actions):
            _fail(f"undo() after play({x!r}) does not restore the legal moves")
        game.play(x)
        if game.to_text() != after:
            _fail(
                f"play({x!r}), undo(), play({x!r}) gives another position (undo() did not "
                f"restore the random state?):\n  {after}\n  {game.to_text()}"
            )
        copy.play(move)
        if copy.to_text() != after:
            _fail(
                f"the same move {move} played on copy() gives another position: the copy has "
                f"another future, or a rejected input consumed randomness:\n  {after}\n  "
                f"{copy.to_text()}"
            )
        if game.to_text() != after:
            _fail("playing on the copy changed the original")
        if copy.to_record() != game.to_record():
            _fail("the copy's record differs after the same move")
        self.texts.append(before)
        self.played.append(move)
        self.step += 1

    # -- the end -----------------------------------------------------------------------------------
    def check_end(self) -> None:
        game = self.game
        if game.is_over:
            if game.legal_moves() or len(game.legal_actions()) or game.action_mask().any():
                _fail("a finished game offers legal moves")
            last = self.played[-1:]
            self.reject(
                [*last, *(str(m) for m in last), *(m.action for m in last)],
                "the last move, after the end",
            )
            self.reject(self._stale_moves(), "a move, after the end")
            self.reject(self.bad_inputs, "a bad input, after the end")
        _check_record(game, self.error)
        self._check_walk_back()
        _check_rejects_reading(game, self.error)

    def _check_walk_back(self) -> None:
        """Undo the whole game through the same positions, then replay it forward."""
        game = self.game
        end, record, ranks = game.to_text(), game.to_record(), _ids(game.ranks())
        for i in reversed(range(len(self.played))):
            taken = game.undo()
            if taken != self.played[i] or game.to_text() != self.texts[i]:
                _fail(f"undo() back to step {i} does not restore it (took back {taken!r})")
        self.check_fresh()
        for i, move in enumerate(self.played):
            if game.to_text() != self.texts[i]:
                _fail(f"replaying after undoing the whole game differs at step {i}")
            game.play(move)
        if game.to_text() != end or game.to_record() != record or _ids(game.ranks()) != ranks:
            _fail("undoing the whole game and replaying it does not give the same end")


def _check_record(game: Any, error: type[BaseException]) -> None:
    """``from_record(to_record())`` (also through JSON) replays to an equal game."""
    record = game.to_record()
    try:
        encoded = json.dumps(record)
    except (TypeError, ValueError) as exc:
        _fail(f"to_record() is not JSON-serialisable: {exc}")
    if json.loads(encoded) != record:
        _fail("to_record() does not survive a JSON round trip")
    for rec in (record, json.loads(encoded)):
        replay = type(game).from_record(rec)
        if type(replay) is not type(game):
            _fail(f"from_record() made a {type(replay).__name__}")
        if (replay == game) is not True or replay.to_text() != game.to_text():
            _fail(
                f"from_record(to_record()) is not equal:\n  {game.to_text()}\n  {replay.to_text()}"
            )
        if replay.to_record() != record:
            _fail("from_record(to_record()).to_record() differs")
        if _ids(replay.ranks()) != _ids(game.ranks()) or replay.is_over != game.is_over:
            _fail(
                f"from_record(to_record()) has ranks {_ids(replay.ranks())} "
                f"(is_over {replay.is_over}), not {_ids(game.ranks())} ({game.is_over})"
            )
        if _ids(replay.legal_actions()) != _ids(game.legal_actions()):
            _fail("from_record(to_record()) has other legal moves")


def _expect_error(error: type[BaseException], call: Callable[[], Any], what: str) -> None:
    try:
        call()
    except error as exc:
        if not isinstance(exc, ValueError):
            _fail(f"{what} raised {type(exc).__name__}, not a ValueError")
    except Exception as exc:
        _fail(f"{what} raised {type(exc).__name__}: {exc}, not a {error.__name__}")
    else:
        _fail(f"{what} was accepted")


def _check_rejects_reading(game: Any, error: type[BaseException]) -> None:
    """``from_text`` and ``from_record`` reject garbage, and a record missing a key or holding a
    garbled move, with ``error``; the game is unchanged."""
    cls = type(game)
    text, record = game.to_text(), game.to_record()
    for bad in (None, 0, b"bytes", "", "  ", "garbage", text + " junk", text[: len(text) // 2]):
        _expect_error(error, lambda bad=bad: cls.from_text(bad), f"from_text({bad!r})")
    for bad in (None, 0, "", text, [], {}, {"moves": []}):
        _expect_error(error, lambda bad=bad: cls.from_record(bad), f"from_record({bad!r})")
    if isinstance(record, dict):
        for key in record:
            cut = {k: v for k, v in record.items() if k != key}
            _expect_error(
                error,
                lambda cut=cut: cls.from_record(cut),
                f"from_record(a record without {key!r})",
            )
        moves = record.get("moves")
        if isinstance(moves, list) and moves and isinstance(moves[-1], dict):
            for garble in ("garbage", None, 7):
                bad = json.loads(json.dumps(record))
                bad["moves"][-1]["move"] = garble
                _expect_error(
                    error,
                    lambda bad=bad: cls.from_record(bad),
                    f"from_record(a record whose last move is {garble!r})",
                )
    if game.to_text() != text or game.to_record() != record:
        _fail("reading bad texts or records changed the game")


def _check_pickle(game: Any, rng: random.Random, future: int) -> None:
    """The unpickled game is equal and has the same future for ``future`` steps."""
    text, record, actions = game.to_text(), game.to_record(), _ids(game.legal_actions())
    for protocol in (None, pickle.HIGHEST_PROTOCOL):
        try:
            clone = pickle.loads(pickle.dumps(game, protocol=protocol))
        except Exception as exc:
            _fail(f"pickling (protocol {protocol}) raised {type(exc).__name__}: {exc}")
        if type(clone) is not type(game):
            _fail(f"unpickling made a {type(clone).__name__}")
        if (clone == game) is not True or clone.to_text() != text:
            _fail(f"the unpickled game is not equal:\n  {text}\n  {clone.to_text()}")
        if clone.to_record() != record:
            _fail("the unpickled game has another record")
        if _ids(clone.legal_actions()) != actions:
            _fail("the unpickled game has other legal moves")
        played = []
        for i in range(future):
            if game.is_over:
                break
            move = rng.choice(game.legal_moves())
            game.play(move)
            clone.play(move)
            played.append(move)
            if clone.to_text() != game.to_text():
                _fail(
                    f"the unpickled game (protocol {protocol}) has another future: after "
                    f"{[str(m) for m in played]} ({i + 1} steps)\n  original {game.to_text()}\n"
                    f"  unpickled {clone.to_text()}"
                )
            if _ids(clone.legal_actions()) != _ids(game.legal_actions()):
                _fail(f"the unpickled game's legal moves differ after {i + 1} steps")
        for move in reversed(played):
            if game.undo() != move or clone.undo() != move:
                _fail("undo() after the pickled future does not take back its moves")
        if game.to_text() != text or clone.to_text() != text or game.to_record() != record:
            _fail("undo() after the pickled future does not restore the position")

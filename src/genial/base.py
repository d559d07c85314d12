"""The base of every game of the library: ``GameBase``, what a game object is whatever the game.

A game holds a kernel state with its history (the undo stack and the moves with the draws after
each), a chance stream for the draws and a policy stream for the policies (made on first use, so
copies stay cheap), a re-entrant lock so that a game may be shared by threads, and exact copying
and pickling; and it has the methods every game shares: the players and the seat to move, the
scores' ranks and the winner, the legal moves, ``play``, ``undo`` and ``choose``, the position
text and the records. ``genial.Game`` and ``genial.cards.CardGame`` are its subclasses; each
names its move, position and rules types and its notation (class attributes), and says why a
move is illegal (``_check_legal``) and what the game alone has.

>>> from genial import Game
>>> from genial.cards import CardGame
>>> issubclass(Game, GameBase) and issubclass(CardGame, GameBase)
True
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Generic, Protocol, TypeVar

import numpy as np
import numpy.typing as npt

from .errors import GenialError, IllegalMoveError, PositionError, RecordError, excerpt, is_int
from .policies import parse_policy, search_spec
from .records import RecordFormat
from .seeds import (
    POLICY_STREAM,
    as_seed_sequence,
    bit_generator_from_state,
    child_seed,
    copy_bit_generator,
    stream,
)

__all__ = ["GameBase"]


class _Move(Protocol):
    @property
    def action(self) -> int: ...  # pragma: no cover - a protocol


G = TypeVar("G", bound="GameBase[Any, Any, Any]")
M = TypeVar("M", bound=_Move)  # the game's move type
P = TypeVar("P")  # the game's position type
R = TypeVar("R")  # the game's rules type


class GameBase(Generic[M, P, R]):
    """One game with its history, whatever the game: the kernel state, the undo stack, the
    chance and policy streams and the lock, and the methods every game shares (see the module).

    A subclass is one game: it names its kernel type (``_core_type``), move type
    (``_move_type``, every move by action id in ``_move_table``), position type
    (``_position_type``, named in errors as ``_position_name``), how a kernel state is read into
    a position and a position loaded into one (``_read``, ``_load``) and its records
    (``_records``); it says why a move is illegal (``_check_legal``) and adds what the game
    alone has.
    """

    __slots__ = (
        "_chance",
        "_core",
        "_history",
        "_lock",
        "_moves",
        "_policy",
        "_policy_state",
        "_root",
        "_rules",
        "_start",
    )

    _core_type: ClassVar[Any]  # the kernel state type (its from_snapshot reads a pickle)
    _move_type: ClassVar[Any]  # the move type: parse(text), from_action(id), .action
    _move_table: ClassVar[Sequence[Any]]  # every move, by action id
    _position_type: ClassVar[Any]  # the position type: parse(text), to_text()
    _position_name: ClassVar[str]  # the position type as errors name it
    _read: ClassVar[Callable[..., Any]]  # (kernel state, rules) -> position
    _load: ClassVar[Callable[..., Any]]  # position (and options) -> kernel state, checked
    _records: ClassVar[RecordFormat]
    _rules: Any
    _core: Any
    _chance: np.random.PCG64
    _policy: np.random.PCG64 | None  # made on first use, from _policy_state or else _root
    _policy_state: Any
    _root: np.random.SeedSequence
    _start: str
    _moves: list[tuple[Any, list[int]]]
    _history: list[tuple[bytes, Any]]
    _lock: threading.RLock  # every read and move is atomic: a game may be shared by threads

    def _init(self, rules: Any, core: Any, seed: Any) -> None:
        root = as_seed_sequence(seed)
        self._rules = rules
        self._core = core
        self._root = root
        self._chance = stream(root)
        self._policy = None
        self._policy_state = None
        self._lock = threading.RLock()
        self._start = ""
        self._moves = []
        self._history = []

    def _deal(self, rules: Any, seed: Any) -> None:
        """Start a new game of ``rules``: the kernel deals from the chance stream."""
        core = rules.core()
        self._init(rules, core, seed)
        core.deal(self._chance)
        self._start = self.to_text()

    # -- the subclass's part ---------------------------------------------------------------------
    def _check_seat(self, player: object) -> None:
        """``GenialError`` unless ``player`` is a seat of this game."""
        if not is_int(player):
            raise GenialError(f"a player is an int seat, got {excerpt(player)}")
        players = self._rules.players
        if not 0 <= player < players:  # type: ignore[operator]
            raise GenialError(
                f"player {excerpt(player)} is not a seat of this {players}-player game"
            )

    def _check_legal(self, move: Any) -> None:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _ranked_seats(self) -> int:
        """How many entries of ``ranks()`` the winner is read from (all seats unless teams)."""
        return int(self._rules.players)

    def _as_move(self, move: Any) -> M:
        """The move of a move, its text or its action id (``IllegalMoveError`` otherwise)."""
        kind = self._move_type
        if isinstance(move, kind):
            same: M = move
            return same
        if isinstance(move, str):
            return kind.parse(move)  # type: ignore[no-any-return]
        if isinstance(move, (int, np.integer)) and not isinstance(move, (bool, np.bool_)):
            table = self._move_table
            if 0 <= move < len(table):  # an area, if any, is checked with the move's legality
                return table[int(move)]  # type: ignore[no-any-return]
            return kind.from_action(int(move))  # type: ignore[no-any-return]  # says why not
        raise IllegalMoveError(
            f"expected a {kind.__name__}, a move text or an action id, got {excerpt(move)}"
        )

    # -- reading the position --------------------------------------------------------------------
    @property
    def rules(self) -> R:
        """The rules of this game (``players`` and the variant)."""
        rules: R = self._rules
        return rules

    @property
    def players(self) -> int:
        """Number of players (seats 0 .. players - 1)."""
        return int(self._core.players)

    @property
    def current_player(self) -> int:
        """The seat to move (0 moves first)."""
        return int(self._core.current)

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (the rules' end of the game, RULES §3.6 or §5.7)."""
        return bool(self._core.phase == 2)

    @property
    def position(self) -> P:
        """The position as data (the game's position type: ``genial.Position``,
        ``genial.cards.CardPosition``)."""
        with self._lock:
            position: P = self._read(self._core, self._rules)
            return position

    def ranks(self) -> npt.NDArray[np.int64]:
        """Rank of each player, 0 = best (RULES §3.7; the card game's instant winner first,
        §5.7): the scores sorted ascending compared lexicographically; players with identical
        vectors share a rank, and a rank counts the players strictly ahead (1, 1, 3 style).
        Defined at any time, final when over."""
        ranks: npt.NDArray[np.int64] = self._core.ranks()
        return ranks

    def winner(self) -> int | None:
        """The player ranked first alone once the game is over (in the team game: the team, 0
        for seats 0 and 2, 1 for seats 1 and 3); ``None`` while the game runs or if first place
        is shared."""
        if not self.is_over:
            return None
        best = np.flatnonzero(self.ranks()[: self._ranked_seats()] == 0)
        return int(best[0]) if len(best) == 1 else None

    # -- moves -----------------------------------------------------------------------------------
    def legal_actions(self) -> npt.NDArray[np.int32]:
        """The legal moves' ids, sorted (see the move type's ``action``)."""
        actions: npt.NDArray[np.int32] = self._core.legal_actions()
        return actions

    def action_mask(self) -> npt.NDArray[np.bool_]:
        """A bool array of length ``ACTION_SIZE`` (the game's), True at the legal moves' ids."""
        mask = np.zeros(len(self._move_table), dtype=np.bool_)
        mask[self._core.legal_actions()] = True
        return mask

    def legal_moves(self) -> list[M]:
        """The legal moves for the current decision, in action order (empty when over)."""
        table = self._move_table
        return [table[a] for a in self._core.legal_actions().tolist()]

    def is_legal(self, move: M | str | int) -> bool:
        """Whether ``move`` (a move, its text or its action id) is legal now; False for
        anything that is not a move."""
        try:
            return bool(self._core.is_legal(self._as_move(move).action))
        except GenialError:
            return False

    def play(self, move: M | str | int) -> None:
        """Play a move (a move object, its text, or its action id), checked.

        Raises ``IllegalMoveError``, saying why, and leaves the game unchanged if the move is
        malformed or not legal now.
        """
        m = self._as_move(move)
        with self._lock:
            if not self._core.is_legal(m.action):
                self._check_legal(m)
            snapshot = self._snapshot()
            draws = self._core.apply(m.action, self._chance)
            self._history.append(snapshot)
            self._moves.append((m, draws))

    def undo(self) -> M:
        """Take back the last ``play()``: the position (scores, what is on the table, in the
        hands or racks and still to draw) and the chance stream are exactly as before it (the
        policy stream, the chooser's, runs on). Returns the move taken back."""
        with self._lock:
            if not self._history:
                raise IllegalMoveError("there is no move to undo")
            state, chance = self._history.pop()
            self._core.restore(state)
            self._chance.state = chance
            move: M = self._moves.pop()[0]
        return move

    @property
    def moves(self) -> list[M]:
        """The moves played since the start of the record (``to_record()['start']``)."""
        return [move for move, _ in self._moves]

    def choose(self, policy: str = "random", *, epsilon: float = 0.1) -> M:
        """The move a built-in policy picks here, drawn from the game's policy stream (never
        from the chance stream that deals): ``'random'``, ``'greedy'``, ``'epsilon-greedy'``
        (``'epsilon-greedy:0.2'``, default 0.1), and where the game has them the searches
        (``'mc:200'``, ``'mcts:500'``, see docs/search.md). ``genial.policies`` defines them for
        each game."""
        move: M = self._move_table[self._choose(policy, epsilon)]
        return move

    # -- the streams, replays and the kernel's policies -----------------------------------------
    def _snapshot(self) -> tuple[bytes, Any]:
        return (self._core.snapshot(), self._chance.state)

    def _policy_stream(self) -> np.random.PCG64:
        if self._policy is None:
            if self._policy_state is None:
                self._policy = stream(child_seed(self._root, POLICY_STREAM))
            else:
                self._policy = bit_generator_from_state(self._policy_state)
        return self._policy

    def _policy_snapshot(self) -> Any:
        return self._policy_state if self._policy is None else self._policy.state

    def _replay(self, moves: Sequence[tuple[str, list[int]]]) -> None:
        """Play a record's moves with their scripted draws (``RecordError`` names the move)."""
        for i, (text, draws) in enumerate(moves):
            try:
                self._play_drawn(text, draws)
            except ValueError as exc:
                raise RecordError(f"move {i} ({excerpt(text)}): {exc}") from None

    # -- draws one at a time (genial.integrations.openspiel: every draw a chance node) ----------
    @staticmethod
    def _next_deal_draw(rules: Any, drawn: Sequence[int]) -> list[int] | None:
        """What the deal's next draw comes from once ``drawn`` (item type ids) is dealt: the
        count of each item type, or ``None`` when ``drawn`` is the whole deal."""
        counts: list[int] | None = rules.core().next_draw(-1, list(drawn))
        return counts

    @classmethod
    def _dealt(cls: type[G], rules: Any, drawn: Sequence[int], seed: Any) -> G:
        """A new game of ``rules`` whose deal drew ``drawn`` (the whole deal, in draw order)."""
        core = rules.core()
        core.deal(None, list(drawn))
        return cls._from_core(core, rules, seed)

    def _next_draw(self, action: int, drawn: Sequence[int]) -> list[int] | None:
        """What the next draw of playing ``action`` (legal now) comes from once ``drawn`` is
        drawn: the count of each item type, or ``None`` if ``drawn`` is all it draws."""
        with self._lock:
            counts: list[int] | None = self._core.next_draw(action, list(drawn))
            return counts

    def _play_drawn(self, move: Any, drawn: Sequence[int]) -> None:
        """Play ``move`` (checked) with exactly the draws ``drawn`` instead of the chance
        stream's (``RecordError`` if they are not what it draws; the game is then unchanged)."""
        m = self._as_move(move)
        with self._lock:
            self._check_legal(m)
            snapshot = self._snapshot()
            try:
                got = self._core.apply(m.action, None, list(drawn))
            except ValueError as exc:  # the kernel checks the draws before it plays
                raise RecordError(f"draws: {exc}") from None
            self._history.append(snapshot)
            self._moves.append((m, got))

    def _determinised(self: G, seat: int, bit_generator: np.random.BitGenerator) -> G:
        """A new game at this position in which what ``seat`` cannot see (the other racks or
        hands and the bag, deck or discard pile) is dealt again from ``bit_generator``, every
        rack or hand keeping its size (the kernel's ``redeal``); its history starts there."""
        self._check_seat(seat)
        with self._lock:
            core = self._core.copy()
        core.redeal(seat, bit_generator)
        return type(self)._from_core(core, self._rules, self._root)

    def _choose(
        self, policy: str, epsilon: float, bit_generator: np.random.BitGenerator | None = None
    ) -> int:
        """The action id a kernel policy picks here, from the policy stream (or from
        ``bit_generator``; a search policy only if the kernel has it: ``search_policies``)."""
        name, eps = parse_policy(policy, epsilon)
        spec = search_spec(name)
        if spec is not None and spec.kind not in getattr(self._core, "search_policies", ()):
            raise GenialError(
                f"policy {excerpt(policy)}: mc, mcts and value are the board game's policies"
            )
        with self._lock:
            if self._core.phase == 2:
                raise IllegalMoveError("there is no legal move to choose from: the game is over")
            if spec is None:
                stream = self._policy_stream() if bit_generator is None else bit_generator
                action: int = self._core.choose(name, stream, eps)
            else:
                action = self._core.choose(
                    spec.kind,
                    self._policy_stream() if bit_generator is None else bit_generator,
                    eps,
                    spec.iterations,
                    spec.rollout,
                    spec.top_k,
                    spec.explore,
                    spec.turns(self._core.players),
                )
        if action < 0:
            raise IllegalMoveError("there is no legal move to choose from")
        return action

    def _record_moves(self) -> list[tuple[str, list[int]]]:
        with self._lock:
            return [(str(m), draws) for m, draws in self._moves]

    # -- copies and pickling ---------------------------------------------------------------------
    def copy(self: G) -> G:
        """An independent copy with the same position, history and random streams (cheap; no
        OS entropy is drawn)."""
        other = object.__new__(type(self))
        with self._lock:
            other._rules = self._rules
            other._core = self._core.copy()
            other._root = self._root
            other._chance = copy_bit_generator(self._chance)
            other._policy = None
            other._policy_state = self._policy_snapshot()
            other._start = self._start
            other._moves = list(self._moves)
            other._history = list(self._history)
        other._lock = threading.RLock()
        return other

    def __copy__(self: G) -> G:
        return self.copy()

    def __deepcopy__(self: G, memo: dict[int, Any]) -> G:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        with self._lock:
            return {
                "rules": self._rules,
                "core": self._core.snapshot(),
                "root": self._root,
                "chance": self._chance.state,
                "policy": self._policy_snapshot(),
                "start": self._start,
                "moves": list(self._moves),
                "history": list(self._history),
            }

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._rules = state["rules"]
        self._core = self._core_type.from_snapshot(state["core"])
        self._root = state["root"]
        self._chance = bit_generator_from_state(state["chance"])
        self._policy = None
        self._policy_state = state["policy"]
        self._lock = threading.RLock()
        self._start = state["start"]
        self._moves = list(state["moves"])
        self._history = list(state["history"])

    # -- equality and the position text -----------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        """Games are equal when their positions are (``to_text()``), whatever their history."""
        if not isinstance(other, GameBase):
            return False
        if not (isinstance(other, type(self)) or isinstance(self, type(other))):
            return False  # not the same game
        return other.to_text() == self.to_text()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}.from_text({self.to_text()!r})"

    def to_text(self) -> str:
        """The whole position as one line (the game's notation describes the fields: the
        docs/guide.md, "Notations", ``genial.cards.notation``).

        >>> from genial import Game
        >>> from genial.cards import CardGame
        >>> Game(players=2, seed=3).to_text().split()[0]
        '2'
        >>> CardGame(players=2, seed=3).to_text().split()[0]
        'c2'
        """
        with self._lock:
            text: str = self._read(self._core, self._rules).to_text()
            return text

    @classmethod
    def _from_text(cls: type[G], text: str, seed: Any, **options: Any) -> G:
        return cls._from_position(cls._position_type.parse(text), seed, **options)

    @classmethod
    def _from_position(cls: type[G], position: Any, seed: Any, **options: Any) -> G:
        if not isinstance(position, cls._position_type):
            raise PositionError(f"expected a {cls._position_name}, got {type(position).__name__}")
        game = object.__new__(cls)
        game._init(position.rules, cls._load(position, **options), seed)
        game._start = game.to_text()
        return game

    @classmethod
    def _from_core(cls: type[G], core: Any, rules: Any, seed: Any) -> G:
        """A game at a kernel state's position (checked as any position is)."""
        return cls._from_position(cls._read(core, rules), seed)

    # -- records ---------------------------------------------------------------------------------
    def to_record(self) -> dict[str, Any]:
        """A JSON-serialisable record (the game's format, ``'genial-record'`` or
        ``'genial-cards-record'``, version 1): the start position (what is in the hands or
        racks and still to draw included), then every move with what was drawn right after it.
        ``from_record`` replays it exactly."""
        return self._records.make(self._start, self._record_moves())

    @classmethod
    def _from_record(cls: type[G], record: Any, seed: Any, **options: Any) -> G:
        start, moves = cls._records.read(record)
        try:
            game = cls._from_text(start, seed, **options)
        except PositionError as exc:
            raise RecordError(f"bad start position: {exc}") from None
        game._replay(moves)
        return game

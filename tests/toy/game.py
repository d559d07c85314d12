"""The toy game: ``ToyGame``, Pig played move by move, with undo, texts, records and pickling.

Chance is a die: roll ``k`` of a game (``k = 0, 1, ...``) is a hash of the game's seed and
``k``, so a copy or an unpickled game has the same future, and ``undo`` restores the dice by
counting back. A record holds every roll, so it replays without the seed.

>>> game = ToyGame(2, seed=1)
>>> game.legal_moves()
[ToyMove(kind='roll')]
>>> game.play("roll"); game.to_text()
'pig2 | 0 0 | seat 0 | total 3 | move 1'
>>> game.play("hold"); game.to_text()
'pig2 | 3 0 | seat 1 | total 0 | move 2'
>>> game.undo()
ToyMove(kind='hold')
>>> ToyGame.from_record(game.to_record()) == game
True
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from genial.errors import GenialError, IllegalMoveError, PositionError, RecordError, excerpt
from genial.records import RecordFormat
from genial.seeds import POLICY_STREAM, as_seed_sequence, child_seed, stream

from .moves import ACTION_SIZE, HOLD, ROLL, ToyMove, move_of
from .policies import choose
from .position import ToyPosition
from .rules import ToyRules

__all__ = ["RECORDS", "RECORD_FORMAT", "ToyGame", "record_of"]

RECORD_FORMAT = "genial-toy-record"
"""The ``"format"`` of the toy game's JSON records."""


def _die(key: bytes, draw: int) -> int:
    """Roll ``draw`` of the dice keyed ``key``: 1 to 6."""
    digest = hashlib.blake2b(draw.to_bytes(8, "little"), key=key, digest_size=8).digest()
    return int.from_bytes(digest, "little") % 6 + 1


def _after(position: ToyPosition, move: ToyMove, roll: int) -> ToyPosition:
    """The position after ``move`` (``roll``: the die, for a roll)."""
    seat, total, scores = position.current, position.total, list(position.scores)
    passes = move == HOLD or roll == 1
    if move == HOLD:
        scores[seat] += total
    total = 0 if passes else total + roll
    nxt = (seat + 1) % position.rules.players if passes else seat
    return ToyPosition(position.rules, tuple(scores), nxt, total, position.moves + 1)


def _roll_id(text: Any) -> int:
    """A roll's pips from its text in a record, ``"1"`` to ``"6"`` (``ValueError`` else)."""
    if not isinstance(text, str) or text not in ("1", "2", "3", "4", "5", "6"):
        raise ValueError(f"a roll is '1' to '6', got {excerpt(text)}")
    return int(text)


RECORDS = RecordFormat(RECORD_FORMAT, 1, "genial toy-game record", "roll", 1, str, _roll_id)
"""The toy's records, in the shape every game's records share (``genial.records``): the start
position text, then every move's text with what chance gave right after it (a roll's pips)."""


def record_of(start: str, steps: Sequence[int]) -> dict[str, Any]:
    """The record of a game from ``start`` whose moves are ``steps``: 0 for a hold, else the
    roll's pips (the batch logs hold exactly this)."""
    return RECORDS.make(start, [("hold", []) if s == 0 else ("roll", [int(s)]) for s in steps])


class ToyGame:
    """A game of Pig (``ToyRules``): ``ToyGame(rules_or_players, seed=...)``."""

    def __init__(self, rules: Any = None, *, seed: Any = None) -> None:
        self._init(ToyPosition.start(ToyRules.of(rules)), seed)

    def _init(self, position: ToyPosition, seed: Any) -> None:
        self._position = position
        self._start = position
        root = as_seed_sequence(seed)
        self._key = root.generate_state(4).tobytes()
        self._policy = np.random.Generator(stream(child_seed(root, POLICY_STREAM)))
        self._draws = 0
        self._history: list[tuple[ToyMove, int, ToyPosition]] = []

    # -- reading -----------------------------------------------------------------------------
    @classmethod
    def from_position(cls, position: ToyPosition, *, seed: Any = None) -> ToyGame:
        if not isinstance(position, ToyPosition):
            raise PositionError(f"a ToyPosition, got {excerpt(position)}")
        game = cls.__new__(cls)
        game._init(position, seed)
        return game

    @classmethod
    def from_text(cls, text: str, *, seed: Any = None) -> ToyGame:
        return cls.from_position(ToyPosition.parse(text), seed=seed)

    @classmethod
    def from_record(cls, record: Mapping[str, Any], *, seed: Any = None) -> ToyGame:
        """Replay a record (``RecordError`` if it is not one of a legal game)."""
        start, moves = RECORDS.read(record)
        try:
            game = cls.from_text(start, seed=seed)
        except GenialError as exc:
            raise RecordError(f"a toy record's start: {exc}") from None
        for i, (text, draws) in enumerate(moves):
            try:
                move = ToyMove.parse(text)
            except GenialError as exc:
                raise RecordError(f"move {i} of the record: {exc}") from None
            if len(draws) != (move == ROLL):
                raise RecordError(f"move {i} of the record: {move} with the rolls {draws}")
            if not game.is_legal(move):
                raise RecordError(f"move {i} of the record, {move}, is not legal")
            game._apply(move, draws[0] if draws else 0)
        return game

    # -- the position ------------------------------------------------------------------------
    @property
    def rules(self) -> ToyRules:
        return self._position.rules

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def position(self) -> ToyPosition:
        return self._position

    @property
    def current_player(self) -> int:
        return self._position.current

    @property
    def is_over(self) -> bool:
        return self._position.is_over

    @property
    def truncated(self) -> bool:
        return self._position.truncated

    @property
    def scores(self) -> npt.NDArray[np.int16]:
        """Banked points per seat."""
        return np.array(self._position.scores, dtype=np.int16)

    @property
    def turn_total(self) -> int:
        return self._position.total

    def ranks(self) -> npt.NDArray[np.int8]:
        return np.array(self._position.ranks(), dtype=np.int8)

    @property
    def moves(self) -> list[ToyMove]:
        """The moves played (since the start or the position read)."""
        return [move for move, _, _ in self._history]

    # -- moves -------------------------------------------------------------------------------
    def legal_moves(self) -> list[ToyMove]:
        if self.is_over:
            return []
        return [ROLL, HOLD] if self._position.total else [ROLL]

    def legal_actions(self) -> npt.NDArray[np.int32]:
        return np.array([m.action for m in self.legal_moves()], dtype=np.int32)

    def action_mask(self) -> npt.NDArray[np.bool_]:
        mask = np.zeros(ACTION_SIZE, dtype=np.bool_)
        mask[self.legal_actions()] = True
        return mask

    def is_legal(self, move: Any) -> bool:
        try:
            return move_of(move) in self.legal_moves()
        except GenialError:
            return False

    def play(self, move: Any) -> None:
        """Play a move (object, text or action id); ``IllegalMoveError``, the game unchanged,
        for anything not legal."""
        chosen = move_of(move)
        if chosen not in self.legal_moves():
            raise IllegalMoveError(f"{chosen} is not legal in {self.to_text()}")
        self._apply(chosen, _die(self._key, self._draws) if chosen == ROLL else 0)

    def _apply(self, move: ToyMove, roll: int) -> None:
        self._history.append((move, roll, self._position))
        self._draws += move == ROLL
        self._position = _after(self._position, move, roll)

    def undo(self) -> ToyMove:
        """Take back the last move (and its roll); ``IllegalMoveError`` if there is none."""
        if not self._history:
            raise IllegalMoveError("no move to undo")
        move, _, self._position = self._history.pop()
        self._draws -= move == ROLL
        return move

    def choose(self, policy: str = "greedy", *, epsilon: float = 0.1, rng: Any = None) -> ToyMove:
        """The move ``policy`` (``"random"``, ``"greedy"``, ``"epsilon-greedy"``) picks, its
        draws from ``rng`` (a ``numpy.random.Generator`` or a seed), else from the game's own
        policy stream (the seed's ``POLICY_STREAM`` child, as in the library's games)."""
        if self.is_over:
            raise IllegalMoveError("the game is over: there is no move to choose")
        generator = self._policy if rng is None else np.random.default_rng(rng)
        return choose(self._position, self.legal_moves(), policy, epsilon, generator)

    def copy(self) -> ToyGame:
        game = ToyGame.__new__(ToyGame)
        game.__dict__.update(self.__dict__)
        game._history = list(self._history)
        game._policy = copy.deepcopy(self._policy)
        return game

    # -- texts and records -------------------------------------------------------------------
    def to_text(self) -> str:
        return self._position.to_text()

    def to_record(self) -> dict[str, Any]:
        steps = [0 if move == HOLD else roll for move, roll, _ in self._history]
        return record_of(self._start.to_text(), steps)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToyGame):
            return NotImplemented
        return self._position == other._position

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ToyGame.from_text({self.to_text()!r})"

    def __str__(self) -> str:
        p = self._position
        lines = [f"Pig {p.rules}: race to {p.rules.target}, move {p.moves}"]
        for seat, score in enumerate(p.scores):
            mark = f"  <- to move, turn total {p.total}" if seat == p.current else ""
            lines.append(f"seat {seat}: {score}{mark}")
        if p.is_over:
            lines.append("truncated" if p.truncated else f"seat {p.winner} wins")
        return "\n".join(lines)

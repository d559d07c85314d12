"""What every game object of the library has, whatever the game: a kernel state with its
history (the undo stack and the moves with the draws after each), a chance stream for the draws
and a policy stream for the policies (made on first use, so copies stay cheap), a re-entrant lock
so that a game may be shared by threads, and exact copying and pickling. ``genial.Game`` and
``genial.cards.CardGame`` are its subclasses; each says how to read a move (``_as_move``), why
one is illegal (``_check_legal``) and which kernel type it holds (``_core_type``).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, ClassVar, TypeVar

import numpy as np

from .errors import GenialError, IllegalMoveError, RecordError, excerpt, is_int
from .policies import parse_policy, search_spec
from .seeds import (
    POLICY_STREAM,
    as_seed_sequence,
    bit_generator_from_state,
    child_seed,
    copy_bit_generator,
    stream,
)

__all__ = ["History"]

H = TypeVar("H", bound="History")


class History:
    """The kernel state, history, random streams and lock of a game (see the module)."""

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

    def _as_move(self, move: Any) -> Any:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def _check_legal(self, move: Any) -> None:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    # -- moves -----------------------------------------------------------------------------------
    def _play(self, move: Any) -> None:
        """Play a move given in any accepted form, checked; unchanged if it raises."""
        m = self._as_move(move)
        with self._lock:
            if not self._core.is_legal(m.action):
                self._check_legal(m)
            snapshot = self._snapshot()
            draws = self._core.apply(m.action, self._chance)
            self._history.append(snapshot)
            self._moves.append((m, draws))

    def _undo(self) -> Any:
        with self._lock:
            if not self._history:
                raise IllegalMoveError("there is no move to undo")
            state, chance = self._history.pop()
            self._core.restore(state)
            self._chance.state = chance
            move, _ = self._moves.pop()
        return move

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
                m = self._as_move(text)
                self._check_legal(m)
                snapshot = self._snapshot()
                drawn = self._core.apply(m.action, None, draws)
            except ValueError as exc:
                raise RecordError(f"move {i} ({excerpt(text)}): {exc}") from None
            self._history.append(snapshot)
            self._moves.append((m, drawn))

    def _choose(self, policy: str, epsilon: float) -> int:
        """The action id a kernel policy picks here, from the policy stream (a search policy
        only if the kernel has it: ``search_policies``)."""
        name, eps = parse_policy(policy, epsilon)
        spec = search_spec(name)
        if spec is not None and spec.kind not in getattr(self._core, "search_policies", ()):
            raise GenialError(f"policy {excerpt(policy)}: this game has no search policies")
        with self._lock:
            if self._core.phase == 2:
                raise IllegalMoveError("there is no legal move to choose from: the game is over")
            if spec is None:
                action: int = self._core.choose(name, self._policy_stream(), eps)
            else:
                action = self._core.choose(
                    spec.kind,
                    self._policy_stream(),
                    eps,
                    spec.iterations,
                    spec.rollout,
                    spec.top_k,
                    spec.explore,
                )
        if action < 0:
            raise IllegalMoveError("there is no legal move to choose from")
        return action

    def _record_moves(self) -> list[tuple[str, list[int]]]:
        with self._lock:
            return [(str(m), draws) for m, draws in self._moves]

    # -- copies and pickling ---------------------------------------------------------------------
    def copy(self: H) -> H:
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

    def __copy__(self: H) -> H:
        return self.copy()

    def __deepcopy__(self: H, memo: dict[int, Any]) -> H:
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

"""What the moves of every game share: ``MoveBase``, a decision of a fixed action space.

A move is an immutable object with an integer id, ``action``, in its game's action space; it
has a ``kind`` (``'swap'``, ``'keep'`` or the game's play) and ``colours`` (a play's two colours,
``None`` otherwise), compares and hashes by its id, and pickles as its id (so a move unpickles
as the very object of its game's move table). Each game's move type (``genial.Move``,
``genial.cards.CardMove``) adds what its plays hold, how they are written and read, and the
table of every move by id.

>>> from genial import Move
>>> m = Move.parse("swap")
>>> isinstance(m, MoveBase), m.kind, m.colours, m.action == Move.swap().action
(True, 'swap', None, True)
>>> m.kind = "keep"
Traceback (most recent call last):
...
AttributeError: Move is immutable
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from .errors import IllegalMoveError, excerpt, is_int

__all__ = ["MoveBase"]

T = TypeVar("T", bound="MoveBase")


class MoveBase:
    """A decision of a game with a fixed action space (see the module).

    A subclass names its constructors (``_constructors``, for the error of ``Move()``), the
    function pickles call with the id (``_rebuild``), its action space (``_action_size``) and
    the swap and keep moves (``_swap``, ``_keep``, set once its table is built).
    """

    __slots__ = ("_action", "colours", "kind")

    kind: str
    colours: tuple[int, int] | None
    _action: int
    _constructors: ClassVar[tuple[str, ...]]
    _rebuild: ClassVar[Callable[..., Any]]  # action id -> the move
    _action_size: ClassVar[int]
    _max_text: ClassVar[int]
    _swap: ClassVar[Any]
    _keep: ClassVar[Any]

    def __init__(self) -> None:
        name = type(self).__name__
        *first, last = (f"{name}.{c}()" for c in self._constructors)
        raise TypeError(f"use {', '.join(first)} or {last}")

    @classmethod
    def _new(cls: type[T], kind: str, colours: tuple[int, int] | None, action: int) -> T:
        """A new move (only while the game's table of every move is built)."""
        move = object.__new__(cls)
        object.__setattr__(move, "kind", kind)
        object.__setattr__(move, "colours", colours)
        object.__setattr__(move, "_action", action)
        return move

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    @classmethod
    def swap(cls: type[T]) -> T:
        """Swap the rack or hand, the swap decision's yes (RULES §3.5; the card game, §5.5)."""
        move: T = cls._swap
        return move

    @classmethod
    def keep(cls: type[T]) -> T:
        """Decline the swap: the rack or hand is refilled."""
        move: T = cls._keep
        return move

    @classmethod
    def _read_word(cls, text: object) -> tuple[str, Any]:
        """The start of every ``parse``: ``text`` checked to be a str of at most the game's
        ``MAX_MOVE_TEXT`` characters, stripped of spaces, with the swap or keep move it names
        (``None`` if it names neither)."""
        if not isinstance(text, str):
            raise IllegalMoveError(f"a move text must be a str, got {type(text).__name__}")
        if len(text) > cls._max_text:
            raise IllegalMoveError(
                f"move text {excerpt(text)} is too long (at most {cls._max_text} characters)"
            )
        word = text.strip(" ")
        lowered = word.lower()
        return word, cls._swap if lowered == "swap" else cls._keep if lowered == "keep" else None

    @classmethod
    def _action_id(cls, action: object) -> int:
        """``action`` checked to be an action id of the game (``IllegalMoveError`` if not)."""
        if not is_int(action):
            raise IllegalMoveError(f"an action id must be an int, got {excerpt(action)}")
        value: int = action  # type: ignore[assignment]  # an int or a numpy int
        if not 0 <= value < cls._action_size:
            raise IllegalMoveError(f"action {excerpt(value)} is outside 0..{cls._action_size - 1}")
        return int(value)

    @property
    def action(self) -> int:
        """The integer id of this move in the fixed action space (``0 <= action < ACTION_SIZE``)."""
        return self._action

    def __repr__(self) -> str:
        return f"{type(self).__name__}.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self)) and other._action == self._action

    def __hash__(self) -> int:
        return hash(self._action)

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return (self._rebuild, (self._action,))

"""What the position texts of every game share: one line of space-separated fields, players'
entries joined by ``/``, and the readers and writers of the fields both games have (six numbers
per seat, two-letter items per seat, a seat).

Each game's notation (``genial.board.notation``, ``genial.cards.notation``) says which fields its
text has and what they mean; these functions only frame them, and raise ``PositionError``
naming the field that is malformed.

>>> split_fields("c2 a b", 100, ("rules", "x", "y"))
['c2', 'a', 'b']
>>> split_fields("c2 a", 100, ("rules", "x", "y"))
Traceback (most recent call last):
...
genial.errors.PositionError: a position has 3 fields (rules x y), got 2
>>> numbers_text([(1, 2), (3, 4)]), items_text([((0, 1),), ()], str)
('1,2/3,4', '(0, 1)/-')
>>> read_numbers("1,2,3,4,5,6/0,0,0,0,0,0", "scores", 2, 18)
((1, 2, 3, 4, 5, 6), (0, 0, 0, 0, 0, 0))
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from .errors import PositionError, excerpt

__all__ = [
    "DECIMAL",
    "PHASE_CODES",
    "items_text",
    "numbers_text",
    "phase_letters",
    "read_int",
    "read_items",
    "read_numbers",
    "read_seat",
    "split_fields",
]

T = TypeVar("T")

DECIMAL = re.compile(r"[0-9]{1,5}")
"""A count or a number field: ASCII digits only (``str.isdigit`` accepts '²'), at most five."""
_SMALL = re.compile(r"[0-9]{1,2}")  # a score or a marker
PHASE_CODES = "psx"
"""The phase field's letters, by the kernels' phase code: a move is due (``p``), the swap
decision (``s``), the game is over (``x``)."""


def phase_letters(phases: Sequence[T]) -> tuple[dict[T, str], dict[str, T]]:
    """A game's phase names (by the kernels' phase code) -> their letters, and back.

    >>> phase_letters(("place", "swap", "over"))[1]
    {'p': 'place', 's': 'swap', 'x': 'over'}
    """
    letters = dict(zip(phases, PHASE_CODES, strict=True))
    return letters, {letter: phase for phase, letter in letters.items()}


def split_fields(
    text: object, limit: int, names: Sequence[str], what: str = "a position"
) -> list[str]:
    """The fields of a position text: ``text`` a str of at most ``limit`` characters with one
    field per name of ``names`` (``PositionError`` otherwise; ``what`` names the text)."""
    if not isinstance(text, str):
        raise PositionError(f"a position is a str, got {type(text).__name__}")
    if len(text) > limit:
        raise PositionError(f"a position text has at most {limit} characters, got {len(text)}")
    fields = text.split()
    if len(fields) != len(names):
        raise PositionError(
            f"{what} has {len(names)} fields ({' '.join(names)}), got {len(fields)}"
        )
    return fields


def numbers_text(rows: Iterable[Iterable[int]]) -> str:
    """Each seat's numbers joined by ``,``, the seats joined by ``/``."""
    return "/".join(",".join(str(v) for v in row) for row in rows)


def items_text(rows: Iterable[Iterable[T]], text: Callable[[T], str]) -> str:
    """Each seat's items written by ``text`` and concatenated (``-`` for none), the seats
    joined by ``/``."""
    return "/".join("".join(text(item) for item in row) or "-" for row in rows)


def _seat_rows(field: str, what: str, players: int) -> list[str]:
    rows = field.split("/")
    if len(rows) != players:
        raise PositionError(f"{what}: {len(rows)} players, expected {players}")
    return rows


def read_numbers(field: str, what: str, players: int, cap: int) -> tuple[tuple[int, ...], ...]:
    """Six small ints per seat (``numbers_text``); ``what`` names the field, ``cap`` the
    highest value (said in errors; ``load`` checks it)."""
    out = []
    for p, line in enumerate(_seat_rows(field, what, players)):
        values = line.split(",")
        if len(values) != 6 or not all(_SMALL.fullmatch(v) for v in values):
            raise PositionError(f"{what} of player {p}: {excerpt(line)} is not six ints 0..{cap}")
        out.append(tuple(int(v) for v in values))
    return tuple(out)


def read_items(
    field: str,
    what: str,
    players: int,
    most: int,
    parse: Callable[[str], T],
    unit: str,
    hint: str = "",
) -> tuple[tuple[T, ...], ...]:
    """At most ``most`` two-letter items per seat, read by ``parse`` (``items_text``); ``what``
    names one seat's entry (``"rack"``), ``unit`` the items (``"tiles"``), ``hint`` ends the
    error of a malformed entry."""
    out: list[tuple[T, ...]] = []
    for p, line in enumerate(_seat_rows(field, f"{what}s", players)):
        if line == "-":
            out.append(())
            continue
        if len(line) % 2 or len(line) > 2 * most:
            raise PositionError(
                f"{what} of player {p}: {excerpt(line)} is not at most {most} {unit} of two "
                f"letters{hint}"
            )
        try:
            out.append(tuple(parse(line[i : i + 2]) for i in range(0, len(line), 2)))
        except ValueError as exc:
            raise PositionError(f"{what} of player {p}: {exc}") from None
    return tuple(out)


def read_seat(field: str, what: str, players: int) -> int:
    """A seat ``0..players - 1``; ``what`` names the field."""
    if not DECIMAL.fullmatch(field) or int(field) >= players:
        raise PositionError(f"{what}: {excerpt(field)} is not a seat 0..{players - 1}")
    return int(field)


def read_int(field: str, what: str, lo: int, hi: int) -> int:
    """An int ``lo..hi``; ``what`` names the field."""
    if not DECIMAL.fullmatch(field) or not lo <= int(field) <= hi:
        raise PositionError(f"{what}: {excerpt(field)} is not an int in {lo}..{hi}")
    return int(field)

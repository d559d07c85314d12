"""genial's exceptions: every one is a ``ValueError`` that says what is wrong.

Messages quote what they reject through :func:`excerpt`, so a huge input never makes a huge message.
Rule citations (``§3.2``) refer to the sections of ``docs/rules.md`` in the repository.
"""

from __future__ import annotations

import reprlib

import numpy as np

__all__ = [
    "GenialError",
    "IllegalMoveError",
    "PositionError",
    "RecordError",
    "RulesError",
    "checked_flag",
    "checked_int",
    "checked_real",
    "excerpt",
    "is_int",
]


class GenialError(ValueError):
    """Base class of genial's errors; also raised for out-of-range arguments."""


class IllegalMoveError(GenialError):
    """A move that is malformed or not legal in the position (the game is left unchanged)."""


class PositionError(GenialError):
    """A position text that cannot be read or describes an impossible position."""


class RecordError(GenialError):
    """A game record that cannot be read or does not replay."""


class RulesError(GenialError):
    """Rules that do not describe a game of docs/rules.md (e.g. teams with 3 players)."""


_REPR = reprlib.Repr()
_REPR.maxlevel = 2
_REPR.maxstring = 40
_REPR.maxother = 40
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = _REPR.maxfrozenset = 4
_REPR.maxarray = 4


def excerpt(value: object, limit: int = 40) -> str:
    """A short, safe ``repr`` of ``value`` for error messages: at most about ``limit``
    characters whatever the value (huge strings and ints, deep nesting, objects whose ``repr``
    fails or is enormous).

    >>> excerpt("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (100 characters)"
    >>> excerpt(12), excerpt(10**5000)
    ('12', '<int of 5001 digits>')
    >>> excerpt([[[[1]]]])
    '[[[...]]]'
    """
    try:
        if isinstance(value, bool) or value is None:
            return repr(value)
        if isinstance(value, int):
            if value.bit_length() > 128:
                digits = int(value.bit_length() * 0.30103) + 1
                return f"<int of {digits} digits>"
            return repr(value)
        if isinstance(value, str):
            if len(value) > limit:
                return f"{_cut(repr(value[: limit - 3]), limit)}... ({len(value)} characters)"
            return _cut(repr(value), limit + 10)
        return _cut(_REPR.repr(value), limit + 10)
    except Exception:  # a repr that fails: name the type only
        return f"<{type(value).__name__}>"


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def is_int(value: object) -> bool:
    """Whether ``value`` is an int (a numpy int too, never a bool).

    >>> is_int(3), is_int(True), is_int(3.0)
    (True, False, False)
    """
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def checked_int(value: object, what: str, lo: int, hi: int) -> int:
    """``value`` as an int in ``lo..hi`` (numpy ints too, never bools); ``GenialError`` saying
    what is wrong otherwise.

    >>> checked_int(3, "players", 1, 4)
    3
    """
    if not is_int(value):
        raise GenialError(f"{what} must be an int, got {excerpt(value)}")
    assert isinstance(value, (int, np.integer))
    if not lo <= value <= hi:
        raise GenialError(f"{what} must be in {lo}..{hi:,}, got {excerpt(int(value))}")
    return int(value)


def checked_real(value: object, what: str, lo: float, hi: float) -> float:
    """``value`` as a float in ``[lo, hi]`` (ints and numpy numbers too, never bools; NaN and
    numbers too large for a double refused); ``GenialError`` saying what is wrong otherwise.

    >>> checked_real(0.25, "epsilon", 0, 1)
    0.25
    >>> checked_real(float("nan"), "l2", 0, 1e6)
    Traceback (most recent call last):
    ...
    genial.errors.GenialError: l2 must be in [0, 1e+06], got nan
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise GenialError(f"{what} must be a number in [{lo:g}, {hi:g}], got {excerpt(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise GenialError(
            f"{what} must be a number in [{lo:g}, {hi:g}], got {excerpt(value)}"
        ) from None
    if not lo <= number <= hi:  # (NaN fails too)
        raise GenialError(f"{what} must be in [{lo:g}, {hi:g}], got {number!r}")
    return number


def checked_flag(value: object, what: str) -> bool:
    """``value`` as True or False (numpy bools too); ``GenialError`` otherwise."""
    if not isinstance(value, (bool, np.bool_)):
        raise GenialError(f"{what} must be True or False, got {excerpt(value)}")
    return bool(value)

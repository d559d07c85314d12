"""genial's exceptions: every one is a ``ValueError`` that says what is wrong.

Messages quote what they reject through :func:`excerpt`, so a huge input never makes a huge message.
Rule citations (``§3.2``) refer to the sections of ``docs/rules.md`` in the repository.
"""

from __future__ import annotations

__all__ = [
    "GenialError",
    "IllegalMoveError",
    "PositionError",
    "RecordError",
    "RulesError",
    "excerpt",
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


def excerpt(value: object, limit: int = 40) -> str:
    """``repr(value)``, cut to about ``limit`` characters for error messages.

    >>> excerpt("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'... (100 characters)"
    >>> excerpt(12)
    '12'
    """
    if isinstance(value, str) and len(value) > limit:
        return f"{value[: limit - 3]!r}... ({len(value)} characters)"
    text = repr(value) if not isinstance(value, (list, dict, tuple)) or len(value) < 16 else None
    if text is None:
        return f"<{type(value).__name__} of {len(value)} items>"  # type: ignore[arg-type]
    return text if len(text) <= limit + 10 else text[:limit] + "..."

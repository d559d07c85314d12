"""genial's exceptions: every one is a ``ValueError`` that says what is wrong."""

__all__ = ["GenialError", "IllegalMoveError", "PositionError", "RecordError", "RulesError"]


class GenialError(ValueError):
    """Base class of genial's errors; also raised for out-of-range arguments."""


class IllegalMoveError(GenialError):
    """A move that is malformed or not legal in the position (the game is left unchanged)."""


class PositionError(GenialError):
    """A position text that cannot be read or describes an impossible position."""


class RecordError(GenialError):
    """A game record that cannot be read or does not replay."""


class RulesError(GenialError):
    """Rules that do not describe a game of RULES.md (e.g. teams with 3 players)."""

"""Typed stub of the compiled card-game vector kernel ``genial.cards._vector`` (see
``_vector.pyx``)."""

from .._vector import _EnvBatch  # (the same class body, compiled into this module too)
from ._kernel import Cards

POLICY_KEY: int
ENV_FIELDS: dict[str, int]
EMPTY_SLOT: int
ENV_BYTES: int

class Kernel(_EnvBatch[Cards]):
    """``n`` card games stepped together; outputs in ``arrays`` (written in place)."""

    def __init__(self, base: Cards, n: int, mode: int, max_turns: int) -> None: ...

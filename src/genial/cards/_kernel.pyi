"""Typed stub of the card game's kernel ``genial.cards._kernel`` (see ``_kernel.pyx``)."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._core import _RunChunk, _State  # (the same bodies, compiled into this module too)

CARDS: tuple[tuple[int, int], ...]
ACTION_SIZE: int
ACTION_SWAP: int
ACTION_KEEP: int
PHASES: tuple[str, str, str]
POLICIES: dict[str, int]
MAX_PLAYERS: int
ROW_DTYPE: np.dtype[np.void]
STATE_DTYPE: np.dtype[np.void]
LOG_DTYPE: np.dtype[np.void]

class Cards(_State):
    def __init__(self, *, players: int, display_size: int, turn_cap: int) -> None: ...
    def copy(self) -> Cards: ...
    @property
    def players(self) -> int: ...
    @property
    def turns(self) -> int: ...
    @property
    def turn_cap(self) -> int: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def winner(self) -> int | None: ...
    @property
    def deck_n(self) -> int: ...
    @property
    def discard_n(self) -> int: ...
    def markers(self) -> npt.NDArray[np.int64]: ...
    def hand(self, p: int) -> list[int]: ...
    def display(self, p: int) -> list[int]: ...
    def deck_counts(self) -> list[int]: ...
    def discard_counts(self) -> list[int]: ...
    def stats(self) -> dict[str, Any]: ...
    def ranks(self) -> npt.NDArray[np.int64]: ...
    def gains(self, action: int) -> tuple[int, int]: ...
    def deal(
        self,
        bit_generator: np.random.BitGenerator | None = None,
        script: Sequence[int] | None = None,
    ) -> list[int]: ...
    def choose(self, policy: str, bit_generator: Any, epsilon: float = 0.1) -> int: ...
    def redeal(self, view_seat: int, bit_generator: np.random.BitGenerator) -> None:
        """Determinise in place for ``view_seat``: every other hand, the deck and the discard
        pile are gathered and dealt again at random, each keeping its size (a seat at its swap
        decision from the cards showing none of its lowest colours, as it is known to hold);
        markers, displays, turn, phase, bonus and ``view_seat``'s hand stay."""
    def set_position(
        self,
        markers: Sequence[Sequence[int]],
        hands: Sequence[Sequence[int]],
        displays: Sequence[Sequence[int]],
        deck: Sequence[int],
        discard: Sequence[int],
        current: int,
        phase: int,
        bonus: int,
        turns: int,
        winner: int | None,
        truncated: bool,
        stats: Any = None,
    ) -> None: ...

run_chunk: _RunChunk[Cards]  # (the board kernel's batch engine, compiled here: _batch.pxi)

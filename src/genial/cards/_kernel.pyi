"""Typed stub of the card game's kernel ``genial.cards._kernel`` (see ``_kernel.pyx``)."""

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

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

class Cards:
    def __init__(self, *, players: int, display_size: int, turn_cap: int) -> None: ...
    def copy(self) -> Cards: ...
    def snapshot(self) -> bytes: ...
    def restore(self, data: bytes) -> None: ...
    @staticmethod
    def from_snapshot(data: bytes) -> Cards: ...
    def __reduce__(self) -> tuple[Any, tuple[bytes]]: ...
    @property
    def players(self) -> int: ...
    @property
    def current(self) -> int: ...
    @property
    def phase(self) -> int: ...
    @property
    def bonus(self) -> int: ...
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
    def swap_allowed(self) -> bool: ...
    def legal_actions(self) -> npt.NDArray[np.int32]: ...
    def is_legal(self, action: int) -> bool: ...
    def gains(self, action: int) -> tuple[int, int]: ...
    def deal(
        self,
        bit_generator: np.random.BitGenerator | None = None,
        script: Sequence[int] | None = None,
    ) -> list[int]: ...
    def apply(
        self,
        action: int,
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

def run_chunk(
    start: Cards,
    chance: np.random.BitGenerator,
    policy: np.random.BitGenerator,
    deal: bool,
    policies: npt.NDArray[np.uint8],
    epsilons: npt.NDArray[np.float64],
    rows: npt.NDArray[Any],
    logs: npt.NDArray[Any] | None = None,
    forced_seats: npt.NDArray[np.int16] | None = None,
    forced_actions: npt.NDArray[np.int16] | None = None,
    view_seat: int = -1,
    search: None = None,
    forced_each: npt.NDArray[np.int16] | None = None,
) -> None:
    """Play ``len(rows)`` games from ``start`` without the GIL, one result row each (the batch
    engine of ``genial/_batch.pxi``, the board kernel's too: the same arguments and checks;
    ``search`` must be ``None``, the card game has no search policies).

    ``forced_seats``/``forced_actions``: actions every game makes, each at the next decision of
    its seat of its kind (a play, or swap/keep at a swap decision); ``ValueError`` if one is not
    legal then. ``view_seat >= 0`` determinises every game for that seat first (as
    ``Cards.redeal``, from the ``chance`` stream); forced actions may then only be that seat's,
    and ``logs`` must be ``None``. ``forced_each``: with one forced seat, game ``g`` forces
    ``forced_each[g]`` (the games of one call per run of equal actions on the same streams).
    """

"""Typed stub of the compiled kernel ``genial._core`` (see ``_core.pyx``)."""

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

PHASES: tuple[Literal["place"], Literal["swap"], Literal["over"]]
ACTION_SIZE: int
ACTION_SWAP: int
ACTION_KEEP: int
N_EDGES: int
N_TILE_TYPES: int
MAX_BAG: int
MAX_PLAYERS: int
POLICIES: dict[str, int]
SEARCH_POLICIES: tuple[str, ...]
ROLLOUTS: tuple[str, ...]
MAX_SEARCH_ITERATIONS: int
MAX_TOP_K: int
ILLEGAL: dict[int, str]
SYMBOLS: tuple[tuple[int, int], ...]
COLOURS: str
STANDARD_COUNTS: tuple[int, ...]
TRAVEL_COUNTS: tuple[int, ...]
TILE_SETS: dict[str, tuple[int, ...]]
ROW_DTYPE: np.dtype[np.void]
LOG_DTYPE: np.dtype[np.void]
SEARCH_DTYPE: np.dtype[np.void]
"""A search policy's parameters, one per seat for ``run_chunk(search=...)``: ``iterations``
(int32), ``top_k`` (uint16), ``rollout`` (uint8, a ``POLICIES`` code: random or greedy) and
``explore`` (float64); ``genial.policies.kernel_policies`` builds them from policy names."""
STATE_DTYPE: np.dtype[np.void]
"""A ``Core.snapshot``'s fields by name (the kernel's ``State`` struct)."""
TILES: tuple[tuple[int, int], ...]
EDGES: tuple[tuple[tuple[int, int], tuple[int, int]], ...]

def index_of(q: int, r: int) -> int: ...
def coords_of(idx: int) -> tuple[int, int]: ...

class Core:
    """A kernel game state with checked entry points (nobody dealt); every rule is given."""

    search_policies: tuple[str, ...]

    def __init__(
        self,
        *,
        players: int,
        radius: int,
        rack_size: int,
        cap: int,
        cross: int,
        bonus: int,
        first: int,
        swap: bool,
        teams: bool,
        tile_counts: Sequence[int],
    ) -> None: ...
    def copy(self) -> Core: ...
    def __copy__(self) -> Core: ...
    def __deepcopy__(self, memo: Any) -> Core: ...
    def snapshot(self) -> bytes: ...
    def restore(self, data: bytes) -> None: ...
    @staticmethod
    def from_snapshot(data: bytes) -> Core: ...
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
    def turn(self) -> int: ...
    @property
    def placements(self) -> int: ...
    @property
    def n_free(self) -> int: ...
    @property
    def bag_n(self) -> int: ...
    @property
    def radius(self) -> int: ...
    @property
    def cap(self) -> int: ...
    @property
    def rack_size(self) -> int: ...
    def scores(self) -> npt.NDArray[np.int64]: ...
    def rack(self, p: int) -> list[int]: ...
    def bag_counts(self) -> list[int]: ...
    def board(self) -> bytes: ...
    def first_symbols(self) -> list[int]: ...
    def ranks(self) -> npt.NDArray[np.int64]: ...
    def legal_actions(self) -> npt.NDArray[np.int32]: ...
    def action_mask(self) -> npt.NDArray[np.bool_]: ...
    def is_legal(self, action: int) -> bool: ...
    def illegal_reason(self, action: int) -> str | None: ...
    def is_first_placement(self) -> bool: ...
    def first_round_ok(self, edge: int) -> bool: ...
    def swap_allowed(self) -> bool: ...
    def is_free_edge(self, edge: int) -> bool: ...
    def gains(self, action: int) -> tuple[int, int]:
        """Points each half of placement ``action`` would score now, before the cap (the tile
        need not be on the rack); ``ValueError`` unless ``0 <= action < ACTION_SWAP``."""
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
    def choose(
        self,
        policy: str,
        bit_generator: Any,
        epsilon: float = 0.1,
        iterations: int = 0,
        rollout: str = "greedy",
        top_k: int = 0,
        explore: float = 0.7,
    ) -> int:
        """The action of a ``POLICIES`` policy here, from ``bit_generator``; -1 if none. The
        search policies ``"mc"`` and ``"mcts"`` take ``iterations`` (1 to
        ``MAX_SEARCH_ITERATIONS``), ``rollout`` (one of ``ROLLOUTS``), ``top_k`` (0 to
        ``MAX_TOP_K``; 0: every legal placement) and ``explore`` (mcts's UCB constant, 0 to
        100); they never read the racks of the other seats (docs/search.md). ``ValueError`` for
        a bad parameter or a finished game."""
    def redeal(self, view_seat: int, bit_generator: np.random.BitGenerator) -> None:
        """Determinise in place for ``view_seat``: the other seats' racks go back to the bag,
        the bag is put in canonical order, and those seats (in seat order) draw as many tiles
        again from ``bit_generator``. The board, counters, ``view_seat``'s rack and every rack's
        size are unchanged; only the tiles ``view_seat`` cannot see are redrawn. A seat at its
        swap decision is known to hold none of its lowest colours (RULES §3.5): its rack is
        drawn first, from the unseen tiles that show none of them."""
    def give(self, seat: int, tile: int) -> None: ...
    def set_position(
        self,
        cells: dict[int, int],
        scores: Sequence[Sequence[int]],
        racks: Sequence[Sequence[int]],
        bag_counts: Sequence[int],
        current: int,
        phase: int,
        bonus: int,
        first_symbols: Sequence[int],
        turn: int,
    ) -> None: ...

def run_chunk(
    start: Core,
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
    search: npt.NDArray[Any] | None = None,
    forced_each: npt.NDArray[np.int16] | None = None,
) -> None:
    """Play ``len(rows)`` games from ``start`` without the GIL, one result row each (the batch
    engine of ``genial/_batch.pxi``, the card kernel's too: the same arguments and checks).

    ``forced_seats``/``forced_actions``: actions every game makes, each at the next decision of
    its seat of its kind (a placement, or swap/keep at a swap decision); ``ValueError`` if one
    is not legal then. ``view_seat >= 0`` determinises every game for that seat before it is
    played (after the deal, if ``deal``): as ``Core.redeal``, from the ``chance`` stream, so the
    games depend only on what that seat knows (its rack, the board, the counters, the rack
    sizes) and the streams. With it, ``logs`` must be ``None`` and forced placements may only be
    ``view_seat``'s; ``ValueError`` otherwise, or for a seat outside the game.

    ``policies`` holds a ``POLICIES`` code per seat; a seat whose code is ``"mc"`` or
    ``"mcts"`` reads its parameters from ``search`` (``SEARCH_DTYPE``, one entry per seat),
    which is then required.

    ``forced_each`` (one action per row, with one forced seat): game ``g`` forces
    ``forced_each[g]`` in place of ``forced_actions[0]``; the games are those of one call per
    run of equal actions on the same streams.
    """

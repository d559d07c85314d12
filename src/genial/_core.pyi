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
POLICIES: dict[str, int]
SYMBOLS: tuple[tuple[int, int], ...]
COLOURS: str
STANDARD_COUNTS: tuple[int, ...]
TRAVEL_COUNTS: tuple[int, ...]
TILES: tuple[tuple[int, int], ...]
EDGES: tuple[tuple[tuple[int, int], tuple[int, int]], ...]

def index_of(q: int, r: int) -> int: ...
def coords_of(idx: int) -> tuple[int, int]: ...

class Core:
    """A kernel game state with checked entry points (2-4 players, nobody dealt)."""

    def __init__(
        self,
        players: int,
        *,
        radius: int | None = None,
        rack_size: int = 6,
        cap: int = 18,
        cross: int = 18,
        bonus: int = 1,
        first: int = 1,
        swap: bool = True,
        teams: bool = False,
        tiles: str = "standard",
    ) -> None: ...
    def copy(self) -> Core: ...
    def snapshot(self) -> bytes: ...
    def restore(self, data: bytes) -> None: ...
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
    def is_legal(self, action: int) -> bool: ...
    def is_first_placement(self) -> bool: ...
    def first_round_ok(self, edge: int) -> bool: ...
    def swap_allowed(self) -> bool: ...
    def is_free_edge(self, edge: int) -> bool: ...
    def gains(self, edge: int, c0: int, c1: int) -> tuple[int, int]: ...
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
        self, policy: str = "random", bit_generator: Any = None, epsilon: float = 0.1
    ) -> int: ...
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

MAX_LOG_MOVES: int
MAX_LOG_DRAWS: int

def run_chunk(
    start: Core,
    bit_generator: np.random.BitGenerator,
    deal: bool,
    policies: npt.NDArray[np.uint8],
    epsilons: npt.NDArray[np.float64],
    scores: npt.NDArray[np.uint8],
    ranks_out: npt.NDArray[np.int8],
    winner: npt.NDArray[np.int8],
    placements: npt.NDArray[np.int16],
    turns: npt.NDArray[np.int16],
    bonus: npt.NDArray[np.int16],
    swaps: npt.NDArray[np.int16],
    opening: npt.NDArray[np.int16],
    log_moves: npt.NDArray[np.int16] | None = None,
    log_counts: npt.NDArray[np.uint8] | None = None,
    log_draws: npt.NDArray[np.uint8] | None = None,
    log_n: npt.NDArray[np.int16] | None = None,
    log_n_draws: npt.NDArray[np.int16] | None = None,
    forced_seats: npt.NDArray[np.int16] | None = None,
    forced_actions: npt.NDArray[np.int16] | None = None,
) -> None: ...

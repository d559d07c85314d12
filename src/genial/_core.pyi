"""Typed stub of the compiled kernel ``genial._core`` (see ``_core.pyx``)."""

from collections.abc import Sequence
from typing import Any, Literal, Protocol, TypeVar

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
MAX_ROLLOUT_DEPTH: int
MAX_TOP_K: int
N_FEATURES: int
value_error: str | None

def value_weights_error() -> str | None: ...
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
(int32), ``top_k`` (uint16), ``rollout`` (uint8, a ``POLICIES`` code: random, greedy or value),
``depth`` (uint8: a value rollout's turns before the evaluation) and ``explore`` (float64);
``genial.policies.kernel_policies`` builds them from policy names."""
STATE_DTYPE: np.dtype[np.void]
"""A ``Core.snapshot``'s fields by name (the kernel's ``State`` struct)."""
TILES: tuple[tuple[int, int], ...]
EDGES: tuple[tuple[tuple[int, int], tuple[int, int]], ...]

def index_of(q: int, r: int) -> int: ...
def coords_of(idx: int) -> tuple[int, int]: ...

T = TypeVar("T", bound="_State")

class _State:
    """What both kernels' state classes share (``genial/_state.pxi``, compiled into each
    kernel: ``genial.cards._kernel`` has its own copy of this class)."""

    def __copy__(self: T) -> T: ...
    def __deepcopy__(self: T, memo: Any) -> T: ...
    def snapshot(self) -> bytes: ...
    def restore(self, data: bytes) -> None: ...
    @classmethod
    def from_snapshot(cls: type[T], data: bytes) -> T: ...
    def __reduce__(self) -> tuple[Any, tuple[bytes]]: ...
    def legal_actions(self) -> npt.NDArray[np.int32]: ...
    def is_legal(self, action: int) -> bool: ...
    def swap_allowed(self) -> bool: ...
    def apply(
        self,
        action: int,
        bit_generator: np.random.BitGenerator | None = None,
        script: Sequence[int] | None = None,
    ) -> list[int]: ...
    def next_draw(self, action: int, script: Sequence[int]) -> list[int] | None:
        """The pile the next draw of dealing (``action=-1``, before the deal) or of playing
        ``action`` comes from once ``script`` is drawn: the count of each item type, or
        ``None`` if ``script`` is all the action draws. ``ValueError`` for an illegal action or
        a script that cannot be drawn; the state is unchanged."""
    @property
    def current(self) -> int: ...
    @property
    def phase(self) -> int: ...
    @property
    def bonus(self) -> int: ...

class Core(_State):
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
    @property
    def players(self) -> int: ...
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
    def action_mask(self) -> npt.NDArray[np.bool_]: ...
    def illegal_reason(self, action: int) -> str | None: ...
    def is_first_placement(self) -> bool: ...
    def first_round_ok(self, edge: int) -> bool: ...
    def is_free_edge(self, edge: int) -> bool: ...
    def gains(self, action: int) -> tuple[int, int]:
        """Points each half of placement ``action`` would score now, before the cap (the tile
        need not be on the rack); ``ValueError`` unless ``0 <= action < ACTION_SWAP``."""
    def deal(
        self,
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
        depth: int = 0,
    ) -> int:
        """The action of a ``POLICIES`` policy here, from ``bit_generator``; -1 if none.
        ``"value"`` takes ``top_k`` (its candidates). The search policies ``"mc"`` and
        ``"mcts"`` take ``iterations`` (1 to ``MAX_SEARCH_ITERATIONS``), ``rollout`` (one of
        ``ROLLOUTS``; ``"value"``: greedy for ``depth`` turns, 0 to ``MAX_ROLLOUT_DEPTH``, then
        the learned evaluation), ``top_k`` (0 to ``MAX_TOP_K``; 0: every legal placement) and
        ``explore`` (mcts's UCB constant, 0 to 100); they never read the racks of the other seats
        (docs/search.md). ``ValueError`` for a bad parameter or a finished game."""
    def value_features(self, seat: int, fresh: bool = False) -> npt.NDArray[np.float64]:
        """The learned evaluation's features of this position for ``seat`` (docs/value.md;
        ``fresh``: as if its rack were swapped for a new one); only what ``seat`` can see."""
    def value(self, seat: int, fresh: bool = False) -> float:
        """The learned evaluation of this position for ``seat`` (its estimated share of first
        place; solo: lowest counter over the cap), exact once the game is over."""
    def draw_values(self, seat: int) -> tuple[npt.NDArray[np.float64], float]:
        """The luck adjustment's terms of ``seat``'s next draw: the learned evaluation for
        ``seat`` just after it draws a tile of each type (NaN for a type not in the bag), and
        their expectation over the bag; ``ValueError`` unless it has room and the bag a tile."""
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

S = TypeVar("S", contravariant=True)

class _RunChunk(Protocol[S]):
    """The type of ``run_chunk``: one batch engine (``genial/_batch.pxi``) compiled into both
    kernels, with the same arguments and checks; ``S`` is the kernel's state class."""

    def __call__(
        self,
        start: S,
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
        game_prefix: npt.NDArray[np.uint32] | None = None,
        pool_size: int = 4,
        first_game: int = 0,
        luck: npt.NDArray[np.float64] | None = None,
    ) -> None:
        """Play ``len(rows)`` games from ``start`` without the GIL, one result row each.

        ``forced_seats``/``forced_actions``: actions every game makes, each at the next decision
        of its seat of its kind (a move, or swap/keep at a swap decision); ``ValueError`` if one
        is not legal then. ``view_seat >= 0`` determinises every game for that seat before it
        is played (after the deal, if ``deal``): as the state's ``redeal``, from the ``chance``
        stream, so the games depend only on what that seat knows and the streams. With it,
        ``logs`` must be ``None`` and forced actions may only be ``view_seat``'s; ``ValueError``
        otherwise, or for a seat outside the game.

        ``policies`` holds a ``POLICIES`` code per seat; a board seat whose code is ``"mc"`` or
        ``"mcts"`` reads its parameters from ``search`` (``SEARCH_DTYPE``, one entry per seat),
        which is then required (the card game has no search: ``search`` must be ``None``).

        ``forced_each`` (one action per row, with one forced seat): game ``g`` forces
        ``forced_each[g]`` in place of ``forced_actions[0]``; the games are those of one call
        per run of equal actions on the same streams.

        ``game_prefix`` (paired games): game ``g`` draws from its own streams,
        ``PCG64(child_seed(root, first_game + g, 0))`` for chance and ``(first_game + g, 1)``
        for the policies, ``root`` the seed whose words before a child's key are
        ``game_prefix`` (``genial.seeds.seed_prefix``, pool ``pool_size``); ``chance`` and
        ``policy`` are then not used.

        ``luck`` (float64, ``(len(rows), seats)``): each game's luck in the draws per seat
        (the board game's, from the learned evaluation; the card game raises ``ValueError``),
        the games unchanged.
        """

run_chunk: _RunChunk[Core]

def value_samples(
    start: Core,
    chance: np.random.BitGenerator,
    policy: np.random.BitGenerator,
    policies: npt.NDArray[np.uint8],
    epsilons: npt.NDArray[np.float64],
    search: npt.NDArray[np.void] | None,
    features: npt.NDArray[np.float32],
    seats: npt.NDArray[np.int16],
    targets: npt.NDArray[np.float32],
    games: int,
) -> tuple[int, int]:
    """Training positions for the learned evaluation (docs/value.md): after every placement
    that does not end the game, the features for the seat that placed, that seat, and its
    final result; ``(games played, rows written)``."""
def _parse_value_weights(text: str) -> list[list[float]]:
    """The four weight vectors of a weights file's text, checked (format, finite numbers,
    SHA-256); ``ValueError`` saying what is wrong."""

"""The board game's adapter to the game-agnostic batch layer: its result dtype, the kernel state
every game of a batch starts from, the kernel call, and records from the kernel's logs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _core
from ..errors import GenialError, checked_flag, excerpt
from ..kernel_adapter import KernelAdapter
from ..policies import DEFAULT_EPSILON, parse_policies
from .game import Game
from .moves import ACTION_KEEP, MOVES, Move, move_of, tile_id
from .notation import RECORDS, Position, load, read
from .rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    from ..batch.spec import BatchSpec

__all__ = ["BOARD"]


class BoardAdapter(KernelAdapter):
    """The board game (``genial.Game``) in batches."""

    name = "board"
    kernel = _core
    game = Game
    record_format = RECORDS
    moves = MOVES
    read = staticmethod(read)
    search = True
    row_dtype: np.dtype[Any] = _core.ROW_DTYPE
    log_dtype: np.dtype[Any] = _core.LOG_DTYPE
    per_seat: frozenset[str] = frozenset({"scores", "ranks", "bonus", "swaps", "opening"})
    """The row columns with a seat axis (``Playouts.column`` cuts them to the seats)."""
    options: Mapping[str, Any] = MappingProxyType(
        {"epsilon": DEFAULT_EPSILON, "openings": (), "luck": False}
    )
    """``simulate(..., options=...)`` of the board game: ``epsilon``, the epsilon of
    ``"epsilon-greedy"`` seats without a parameter of their own; ``openings``, the first
    placements every game makes (``openings[i]``: seat ``i``'s; its tile is put on the seat's
    rack before the deal; not with ``start``); ``luck``, measure each game's luck in the
    draws (``Playouts.luck``; the games are the same)."""

    # -- checking a batch's arguments ------------------------------------------------------------
    def check(
        self,
        rules: Rules,
        *,
        policy: str | Sequence[str],
        start: str | None,
        epsilon: float,
        openings: Sequence[Move | str | int],
        luck: bool = False,
    ) -> dict[str, Any]:
        """A batch's game-specific arguments, checked (``start``: the checked position text, or
        None): the ``BatchSpec`` fields they give."""
        names, epsilons = parse_policies(policy, rules.players, epsilon)
        forced = _check_openings(openings, rules, start)
        measured = checked_flag(luck, "luck")
        if measured:
            reason = _core.value_weights_error()
            if reason is not None:
                raise GenialError(f"luck needs the learned evaluation: {reason}")
        return {
            "policies": names,
            "epsilons": epsilons,
            "openings": forced,
            "luck": bool(measured),
        }

    # -- playing ---------------------------------------------------------------------------------
    def start(self, spec: BatchSpec) -> tuple[_core.Core, bool]:
        """The kernel state every game starts from, and whether it still has to be dealt."""
        if spec.start is not None:  # checked when the batch was made (a Game's own may be
            return load(Position.parse(spec.start), pair_tiles=False), False  # a scoring study)
        core = spec.rules.core()
        for seat, action in enumerate(spec.openings):
            tile = move_of(action).tile
            assert tile is not None
            core.give(seat, tile_id(tile))
        return core, True

    def forced(self, spec: BatchSpec) -> tuple[Any, Any]:
        """The seats and actions of the forced first placements (``options["openings"]``)."""
        return (
            np.arange(len(spec.openings), dtype=np.int16),
            np.array(spec.openings, dtype=np.int16),
        )

    def dealt(self, spec: BatchSpec, core: Any) -> int:
        players = spec.rules.players
        return int(core.rack_size * players - sum(len(core.rack(p)) for p in range(players)))

    def replay(self, record: dict[str, Any]) -> Game:
        return Game.from_record(record, pair_tiles=False)


def _check_openings(
    openings: Sequence[Move | str | int], rules: Rules, start: str | None
) -> tuple[int, ...]:
    """Check that the forced first placements are legal one after the other (their legality
    depends on the board only: the tiles are given); return their action ids."""
    if isinstance(openings, (str, Move)):
        openings = [openings]
    if not isinstance(openings, (list, tuple)):
        raise GenialError(f"openings: a sequence of moves, got {excerpt(openings)}")
    if not openings:
        return ()
    if start is not None:
        raise GenialError("openings and start cannot be combined")
    players = rules.players
    if len(openings) > players:
        raise GenialError(f"openings: at most one per seat ({players}), got {len(openings)}")
    core = rules.core()
    moves = []
    for seat, item in enumerate(openings):
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            move = Move.from_action(int(item), rules)
        elif isinstance(item, str):
            move = Move.parse(item)
        elif isinstance(item, Move):
            move = item
        else:
            raise GenialError(f"openings[{seat}]: expected a move, got {excerpt(item)}")
        if move.tile is None:
            raise GenialError(f"openings[{seat}]: {move} is not a placement")
        moves.append(move)
        core.give(seat, tile_id(move.tile))
    core.deal(np.random.PCG64(0))
    for seat, move in enumerate(moves):
        while core.phase == 1:  # a swap decision first: keeping changes no board
            core.apply(ACTION_KEEP, np.random.PCG64(0))
        if core.current != seat or not core.is_legal(move.action):
            raise GenialError(
                f"openings[{seat}]: {move} is not a legal first placement for seat {seat} "
                "after the openings before it (docs/rules.md §3.2)"
            )
        core.apply(move.action, np.random.PCG64(0))
    return tuple(m.action for m in moves)


BOARD = BoardAdapter()

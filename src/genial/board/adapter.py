"""The board game's adapter to the game-agnostic batch layer: its result dtype, the kernel state
every game of a batch starts from, the kernel call, and records from the kernel's logs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .. import _core
from ..errors import GenialError, excerpt
from ..policies import kernel_policies, parse_policies
from .game import Game
from .moves import ACTION_KEEP, Move, move_of, tile_id
from .notation import RECORDS, Position, load, read
from .rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    from ..batch.spec import BatchSpec

__all__ = ["BOARD"]


class BoardAdapter:
    """The board game (``genial.Game``) in batches."""

    name = "board"
    row_dtype: np.dtype[Any] = _core.ROW_DTYPE
    log_dtype: np.dtype[Any] = _core.LOG_DTYPE

    # -- checking a batch's arguments ------------------------------------------------------------
    def check(
        self,
        rules: Rules,
        *,
        policy: str | Sequence[str],
        epsilon: float,
        start: Game | str | None,
        openings: Sequence[Move | str | int],
    ) -> dict[str, Any]:
        """A batch's game-specific arguments, checked: the ``BatchSpec`` fields they give."""
        names, epsilons = parse_policies(policy, rules.players, epsilon)
        start_text = _check_start(start, rules)
        forced = _check_openings(openings, rules, start_text)
        return {"policies": names, "epsilons": epsilons, "start": start_text, "openings": forced}

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

    def play(
        self,
        spec: BatchSpec,
        chance: np.random.BitGenerator,
        policy: np.random.BitGenerator,
        size: int,
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any] | None]:
        core, deal = self.start(spec)
        codes, eps, search = kernel_policies(spec.policies, spec.epsilons)
        rows = np.zeros(size, dtype=self.row_dtype)
        logs = np.zeros(size, dtype=self.log_dtype) if spec.records else None
        _core.run_chunk(
            core,
            chance,
            policy,
            deal,
            codes,
            eps,
            rows,
            logs,
            np.arange(len(spec.openings), dtype=np.int16),
            np.array(spec.openings, dtype=np.int16),
            search=search,
        )
        return rows, logs

    # -- records ---------------------------------------------------------------------------------
    def records(self, spec: BatchSpec, logs: npt.NDArray[Any]) -> list[dict[str, Any]]:
        core, deal = self.start(spec)
        players = spec.rules.players
        dealt = core.rack_size * players - sum(len(core.rack(p)) for p in range(players))
        return RECORDS.from_logs(
            logs,
            lambda action: str(move_of(action)),
            start=None if deal else spec.start,
            core=core,
            dealt=dealt,
            text=lambda begin: read(begin, spec.rules).to_text(),
        )

    def replay(self, record: dict[str, Any]) -> Game:
        return Game.from_record(record, pair_tiles=False)


def _check_start(start: Game | str | None, rules: Rules) -> str | None:
    if start is None:
        return None
    if isinstance(start, Game):
        game = start
    elif isinstance(start, str):
        game = Game.from_text(start)
    else:
        raise GenialError(f"start: a Game or a position text, got {excerpt(start)}")
    if game.rules != rules:
        raise GenialError(f"start is a position of {game.rules!r}, not of {rules!r}")
    if game.is_over:
        raise GenialError("start: the game is already over")
    return game.to_text()


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

"""What the batch adapters of the games with a compiled kernel share (``genial.batch``'s
``GameAdapter`` protocol): a chunk played by the kernel's ``run_chunk``, the records of its
logs, and replays. Each game's adapter (``genial.board.adapter``, ``genial.cards.adapter``)
names its kernel, game class, record format, moves and notation reader, and supplies what
differs: its ``check`` of a batch's arguments, the kernel state a batch ``start``s from, the
moves it forces (``forced``) and how many items a deal hands out (``dealt``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
import numpy.typing as npt

from .policies import kernel_policies
from .records import RecordFormat
from .seeds import seed_prefix

if TYPE_CHECKING:  # pragma: no cover
    from .batch.spec import BatchSpec

__all__ = ["KernelAdapter", "gains_points"]


class KernelAdapter:
    """The shared part of a compiled game's batch adapter (see the module)."""

    name: str
    kernel: Any
    """The kernel module: ``run_chunk``, ``ROW_DTYPE``, ``LOG_DTYPE``."""
    game: ClassVar[Any]
    """The game class (``from_record`` replays a record)."""
    record_format: ClassVar[RecordFormat]
    moves: ClassVar[Sequence[Any]]
    """The game's moves by action id (``str`` of one is its text in records)."""
    read: ClassVar[Any]
    """``read(kernel_state, rules)``: the position of a kernel state."""
    search: ClassVar[bool] = False
    """Whether the kernel plays the search policies (``mc:``, ``mcts:``)."""
    colours: str = "RGBOYP"
    """The letters of the colours of the ``scores`` column's last axis (a seat's result is its
    lowest colour, RULES §3.7 and §5)."""

    def start(self, spec: BatchSpec) -> tuple[Any, bool]:  # pragma: no cover - each game's own
        """The kernel state every game starts from, and whether it still has to be dealt."""
        raise NotImplementedError

    def forced(self, spec: BatchSpec) -> tuple[Any, Any]:
        """The seats and actions of the moves every game of ``spec`` is forced to make first
        (``None, None``: none)."""
        return None, None

    def dealt(self, spec: BatchSpec, core: Any) -> int:  # pragma: no cover - each game's own
        """How many items the deal of a fresh ``core`` draws."""
        raise NotImplementedError

    def play(
        self,
        spec: BatchSpec,
        chance: np.random.BitGenerator,
        policy: np.random.BitGenerator,
        size: int,
        first_game: int = 0,
        luck: npt.NDArray[np.float64] | None = None,
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any] | None]:
        """Play ``size`` games of ``spec`` on the ``chance`` and ``policy`` streams; a paired
        spec (``BatchSpec.paired``) plays game ``first_game + g`` of the batch on that game's
        own streams instead (the kernel's ``game_prefix``). ``luck`` (``(size, seats)``
        float64): filled with each game's luck per seat (the kernel's ``luck``)."""
        core, deal = self.start(spec)
        paired: dict[str, Any] = {}
        if spec.paired:
            paired = {
                "game_prefix": seed_prefix(spec.seed),
                "pool_size": spec.seed.pool_size,
                "first_game": int(first_game),
            }
        codes, eps, search = kernel_policies(spec.policies, spec.epsilons)
        rows = np.zeros(size, dtype=self.kernel.ROW_DTYPE)
        logs = np.zeros(size, dtype=self.kernel.LOG_DTYPE) if spec.records else None
        seats, actions = self.forced(spec)
        self.kernel.run_chunk(
            core,
            chance,
            policy,
            deal,
            codes,
            eps,
            rows,
            logs,
            seats,
            actions,
            search=search if self.search else None,
            **paired,
            **({} if luck is None else {"luck": luck}),
        )
        return rows, logs

    def records(self, spec: BatchSpec, logs: npt.NDArray[Any]) -> list[dict[str, Any]]:
        core, deal = self.start(spec)
        moves, read = self.moves, type(self).read
        return self.record_format.from_logs(
            logs,
            lambda action: str(moves[action]),
            start=None if deal else spec.start,
            core=core,
            dealt=self.dealt(spec, core),
            text=lambda begin: read(begin, spec.rules).to_text(),
        )

    def replay(self, record: dict[str, Any]) -> Any:
        return self.game.from_record(record)


def gains_points(first_swap: int) -> Callable[[Any, int], int]:
    """The ``points`` of a compiled game's analysis hooks (``genial.registry.AnalysisHooks``):
    what an action scores now, the two gains of the kernel's ``gains(action)`` added (before
    the cap); 0 for the swap and keep decisions, the actions from ``first_swap`` on.

    >>> from genial import Game
    >>> from genial.board.moves import ACTION_SWAP
    >>> game = Game(2, seed=1)
    >>> move = game.legal_moves()[0]
    >>> gains_points(ACTION_SWAP)(game._core, move.action) == sum(game.gains(move))
    True
    """

    def points(state: Any, action: int) -> int:
        if action >= first_swap:
            return 0
        first, second = state.gains(action)
        return int(first) + int(second)

    return points

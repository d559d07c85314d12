"""The card game's adapter to the game-agnostic batch layer: its result and log dtypes, the
kernel state every game of a batch starts from, the kernel call, and records from the logs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..errors import GenialError, excerpt
from ..policies import kernel_codes, parse_policies
from . import _kernel
from .game import CardGame
from .moves import MOVES
from .notation import RECORDS, CardPosition, load, read
from .rules import CardRules

if TYPE_CHECKING:  # pragma: no cover
    from ..batch.spec import BatchSpec

__all__ = ["CARDS_ADAPTER"]


class CardAdapter:
    """The card game (``genial.cards.CardGame``) in batches."""

    name = "cards"
    row_dtype: np.dtype[Any] = _kernel.ROW_DTYPE
    log_dtype: np.dtype[Any] = _kernel.LOG_DTYPE

    def check(
        self,
        rules: CardRules,
        *,
        policy: str | Sequence[str],
        epsilon: float,
        start: CardGame | str | None,
        openings: Sequence[Any],
    ) -> dict[str, Any]:
        """A batch's card-game arguments, checked: the ``BatchSpec`` fields they give."""
        if openings:
            raise GenialError("openings: forced first placements are a board-game option")
        names, epsilons = parse_policies(policy, rules.players, epsilon, search=False)
        return {
            "policies": names,
            "epsilons": epsilons,
            "start": _check_start(start, rules),
            "openings": (),
        }

    def start(self, spec: BatchSpec) -> tuple[_kernel.Cards, bool]:
        if spec.start is not None:
            return load(CardPosition.parse(spec.start)), False
        return spec.rules.core(), True

    def play(
        self,
        spec: BatchSpec,
        chance: np.random.BitGenerator,
        policy: np.random.BitGenerator,
        size: int,
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any] | None]:
        core, deal = self.start(spec)
        codes, eps = kernel_codes(spec.policies, spec.epsilons)
        rows = np.zeros(size, dtype=self.row_dtype)
        logs = np.zeros(size, dtype=self.log_dtype) if spec.records else None
        _kernel.run_chunk(core, chance, policy, deal, codes, eps, rows, logs)
        return rows, logs

    def records(self, spec: BatchSpec, logs: npt.NDArray[Any]) -> list[dict[str, Any]]:
        core, deal = self.start(spec)
        dealt = spec.rules.players * (6 + spec.rules.display_size)
        return RECORDS.from_logs(
            logs,
            lambda action: str(MOVES[action]),
            start=None if deal else spec.start,
            core=core,
            dealt=dealt,
            text=lambda begin: read(begin, spec.rules).to_text(),
        )

    def replay(self, record: dict[str, Any]) -> CardGame:
        return CardGame.from_record(record)


def _check_start(start: CardGame | str | None, rules: CardRules) -> str | None:
    if start is None:
        return None
    if isinstance(start, CardGame):
        game = start
    elif isinstance(start, str):
        game = CardGame.from_text(start)
    else:
        raise GenialError(f"start: a CardGame or a position text, got {excerpt(start)}")
    if game.rules != rules:
        raise GenialError(f"start is a position of {game.rules!r}, not of {rules!r}")
    if game.is_over:
        raise GenialError("start: the game is already over")
    return game.to_text()


def card_rules(
    players: Any = 3,
    *,
    teams: bool = False,
    tournament: bool = False,
    tiles: str = "standard",
    rules: Any = None,
) -> CardRules:
    """The registry's rules namer for the card game (the board-game variants do not apply)."""
    if teams or tournament or tiles != "standard":
        raise GenialError("teams, tournament and tiles are board-game options")
    return CardRules.of(players, rules=rules)


CARDS_ADAPTER = CardAdapter()

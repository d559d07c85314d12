"""The card game's adapter to the game-agnostic batch layer: its result and log dtypes, the
kernel state every game of a batch starts from, the kernel call, and records from the logs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from ..kernel_adapter import KernelAdapter
from ..policies import DEFAULT_EPSILON, parse_policies
from . import _kernel
from .game import CardGame
from .moves import MOVES
from .notation import RECORDS, CardPosition, load, read
from .rules import CardRules

if TYPE_CHECKING:  # pragma: no cover
    from ..batch.spec import BatchSpec

__all__ = ["CARDS_ADAPTER"]


class CardAdapter(KernelAdapter):
    """The card game (``genial.cards.CardGame``) in batches."""

    name = "cards"
    kernel = _kernel
    game = CardGame
    record_format = RECORDS
    moves = MOVES
    read = staticmethod(read)
    row_dtype: np.dtype[Any] = _kernel.ROW_DTYPE
    log_dtype: np.dtype[Any] = _kernel.LOG_DTYPE
    per_seat: frozenset[str] = frozenset({"scores", "ranks", "plays", "bonus", "swaps"})
    """The row columns with a seat axis (``Playouts.column`` cuts them to the seats)."""
    options: Mapping[str, Any] = MappingProxyType({"epsilon": DEFAULT_EPSILON})
    """``simulate(..., options=...)`` of the card game: ``epsilon``, the epsilon of
    ``"epsilon-greedy"`` seats without a parameter of their own."""

    def check(
        self,
        rules: CardRules,
        *,
        policy: str | Sequence[str],
        start: str | None,
        epsilon: float,
    ) -> dict[str, Any]:
        """A batch's card-game arguments, checked (``start``: the checked position text, or
        None): the ``BatchSpec`` fields they give (no forced openings in this game)."""
        names, epsilons = parse_policies(policy, rules.players, epsilon, search=False)
        return {"policies": names, "epsilons": epsilons, "openings": ()}

    def start(self, spec: BatchSpec) -> tuple[_kernel.Cards, bool]:
        if spec.start is not None:
            return load(CardPosition.parse(spec.start)), False
        return spec.rules.core(), True

    def dealt(self, spec: BatchSpec, core: Any) -> int:
        return int(spec.rules.players * (6 + spec.rules.display_size))


def card_rules(players: Any = 3, *, rules: Any = None) -> CardRules:
    """The registry's rules namer for the card game: ``CardRules.of`` (a player count, a token
    such as ``"c3:50"``, or a ``CardRules``)."""
    return CardRules.of(players, rules=rules)


CARDS_ADAPTER = CardAdapter()

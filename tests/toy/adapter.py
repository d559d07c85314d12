"""The toy game in batches (``genial.batch.GameAdapter``): its result rows and logs, the check
of ``simulate``'s arguments, the chunk loop (pure Python: the toy needs no kernel), records and
replay.

Game ``i`` of a chunk takes its dice seed from the chunk's chance stream (one 64-bit draw) and
its policies' choices from the chunk's policy stream, so a batch is the same whatever the
workers and the backend.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from genial.policies import DEFAULT_EPSILON, parse_policies

from .game import ToyGame, record_of
from .policies import choose
from .position import ToyPosition
from .rules import MAX_SEATS, MOVE_CAP, ToyRules

if TYPE_CHECKING:  # pragma: no cover
    from genial.batch import BatchSpec

__all__ = ["TOY_ADAPTER", "ToyAdapter"]


class ToyAdapter:
    """Pig in batches: one row per game, and with records one log per game (its moves: 0 for
    a hold, else the roll's pips)."""

    name = "toy"
    row_dtype: np.dtype[Any] = np.dtype(
        [
            ("points", "<i2", (MAX_SEATS,)),  # banked points per seat
            ("ranks", "i1", (MAX_SEATS,)),
            ("winner", "i1"),  # the seat ranked first alone, else -1
            ("moves", "<i2"),
            ("turns", "<i2"),
            ("rolls", "<i2"),
            ("truncated", "?"),
        ]
    )
    log_dtype: np.dtype[Any] = np.dtype([("steps", "u1", (MOVE_CAP,)), ("length", "<i2")])

    per_seat: frozenset[str] = frozenset({"points", "ranks"})
    """The row columns with a seat axis (``Playouts.column`` cuts them to the seats)."""
    colours = ""
    """The toy's points have no colours: its batch summary gives win rates and lengths."""
    options: Mapping[str, Any] = MappingProxyType({"epsilon": DEFAULT_EPSILON})
    """The toy's own options of a batch, with their defaults: ``epsilon``, the epsilon of
    ``"epsilon-greedy"`` seats without a parameter of their own."""

    def check(
        self,
        rules: ToyRules,
        *,
        policy: str | Sequence[str],
        start: str | None,
        epsilon: float = DEFAULT_EPSILON,
    ) -> dict[str, Any]:
        """A batch's toy-game arguments, checked (``start``: the checked text of the position
        every game continues from, or None; ``epsilon``: the toy's one option): the
        ``BatchSpec`` fields they give (the toy forces no first moves)."""
        names, epsilons = parse_policies(policy, rules.players, epsilon, search=False)
        return {"policies": names, "epsilons": epsilons, "openings": ()}

    def _start(self, spec: BatchSpec) -> str:
        return spec.start or ToyPosition.start(spec.rules).to_text()

    def play(
        self,
        spec: BatchSpec,
        chance: np.random.BitGenerator,
        policy: np.random.BitGenerator,
        size: int,
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any] | None]:
        start = self._start(spec)
        choices = np.random.Generator(policy)
        rows = np.zeros(size, dtype=self.row_dtype)
        logs = np.zeros(size, dtype=self.log_dtype) if spec.records else None
        pairs = list(zip(spec.policies, spec.epsilons, strict=True))
        for i in range(size):
            game = ToyGame.from_text(start, seed=int(chance.random_raw()))
            while not game.is_over:
                name, epsilon = pairs[game.current_player]
                game.play(choose(game.position, game.legal_moves(), name, epsilon, choices))
            steps = [int(m["draws"][0]) if m["draws"] else 0 for m in game.to_record()["moves"]]
            _fill(rows[i], game, steps)
            if logs is not None:
                logs[i]["steps"][: len(steps)] = steps
                logs[i]["length"] = len(steps)
        return rows, logs

    def records(self, spec: BatchSpec, logs: npt.NDArray[Any]) -> list[dict[str, Any]]:
        start = self._start(spec)
        return [record_of(start, log["steps"][: log["length"]].tolist()) for log in logs]

    def replay(self, record: dict[str, Any]) -> ToyGame:
        return ToyGame.from_record(record)


def _fill(row: Any, game: ToyGame, steps: list[int]) -> None:
    players = game.players
    ranks = game.ranks()
    row["points"][:players] = game.scores
    row["ranks"][:players] = ranks
    row["winner"] = int(np.flatnonzero(ranks == 0)[0]) if (ranks == 0).sum() == 1 else -1
    row["moves"] = len(steps)
    ends = sum(s in (0, 1) for s in steps)
    row["turns"] = ends + (bool(steps) and steps[-1] not in (0, 1))
    row["rolls"] = sum(s != 0 for s in steps)
    row["truncated"] = game.truncated


TOY_ADAPTER = ToyAdapter()

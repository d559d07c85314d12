"""What determines a batch: a frozen, picklable ``BatchSpec`` that results keep, and the adapter
protocol through which each game plugs into the batch layer."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ..policies import SEARCH_POLICIES
from ..seeds import POLICY_STREAM, child_seed, stream

__all__ = ["CHUNK", "SEARCH_CHUNK", "BatchSpec", "Chunk", "GameAdapter"]

CHUNK = 1024
"""Games per seed chunk: chunk ``c`` holds games ``c * CHUNK`` to ``(c + 1) * CHUNK - 1``."""

SEARCH_CHUNK = 16
"""Games per seed chunk when a seat plays a search policy (``mc:N``, ``mcts:N``): such games
take milliseconds to seconds each, so small chunks keep every worker busy (a batch of 32 games
already runs on two) and Ctrl-C prompt."""


@dataclass(frozen=True)
class BatchSpec:
    """Everything that determines a batch's games but their number: enough to play any chunk
    again, in any process. ``seed`` is the root; chunk ``c`` plays from its ``c``-th child."""

    game: str
    rules: Any
    policies: tuple[str, ...]
    epsilons: tuple[float, ...]
    seed: np.random.SeedSequence = field(compare=False)
    start: str | None = None  # position text every game continues from, or None for a deal
    openings: tuple[int, ...] = ()  # forced first placements, seat 0, 1, ... in turn
    records: bool = False  # whether chunks also return their games' logs

    @property
    def chunk_games(self) -> int:
        """Games per chunk of this batch: ``CHUNK``, or ``SEARCH_CHUNK`` when a seat plays a
        search policy. It depends on the spec only, so the games never depend on the workers."""
        if any(name.partition(":")[0] in SEARCH_POLICIES for name in self.policies):
            return SEARCH_CHUNK
        return CHUNK

    def chunks(self, n: int) -> list[tuple[int, int]]:
        """``(chunk index, games)`` of ``n`` games of this batch."""
        return chunks(n, self.chunk_games)

    def chunk_seed(self, chunk: int) -> np.random.SeedSequence:
        """The seed of chunk ``chunk``'s chance stream (its policy stream is that seed's
        ``POLICY_STREAM`` child)."""
        return child_seed(self.seed, chunk)

    def chunk_streams(self, chunk: int) -> tuple[np.random.PCG64, np.random.PCG64]:
        """The chance and policy bit generators of chunk ``chunk``."""
        seed = self.chunk_seed(chunk)
        return stream(seed), stream(child_seed(seed, POLICY_STREAM))

    def with_records(self, records: bool = True) -> BatchSpec:
        return replace(self, records=records)

    @property
    def seed_key(self) -> tuple[Any, tuple[int, ...]]:
        """``(entropy, spawn_key)`` of the root seed: what two equal specs share."""
        return (self.seed.entropy, tuple(self.seed.spawn_key))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BatchSpec):
            return NotImplemented
        return (self.game, self.rules, self.policies, self.epsilons, self.start, self.openings) == (
            other.game,
            other.rules,
            other.policies,
            other.epsilons,
            other.start,
            other.openings,
        ) and self.seed_key == other.seed_key

    def __hash__(self) -> int:
        return hash((self.game, self.rules, self.policies, self.start, self.openings))


def chunks(n: int, size: int = CHUNK) -> list[tuple[int, int]]:
    """``(chunk index, games)`` of a batch of ``n`` games."""
    return [(c, min(size, n - c * size)) for c in range(math.ceil(n / size))]


@dataclass(frozen=True)
class Chunk:
    """What one chunk returns: its result rows and, for records, its games' logs."""

    index: int
    rows: npt.NDArray[Any]
    logs: npt.NDArray[Any] | None = None


class GameAdapter(Protocol):
    """How a game plugs into the batch layer (one small object per game, in its registry entry)."""

    name: str
    row_dtype: np.dtype[Any]
    log_dtype: np.dtype[Any]

    def play(
        self,
        spec: BatchSpec,
        chance: np.random.BitGenerator,
        policy: np.random.BitGenerator,
        size: int,
    ) -> tuple[npt.NDArray[Any], npt.NDArray[Any] | None]:
        """Play ``size`` games of ``spec``, chance from ``chance`` and the policies' choices
        from ``policy``: their result rows and, if ``spec.records``, their logs."""
        ...

    def check(self, rules: Any, **arguments: Any) -> dict[str, Any]:
        """The game-specific arguments of ``simulate`` checked: the ``BatchSpec`` fields
        ``policies``, ``epsilons``, ``start`` and ``openings``."""
        ...

    def records(self, spec: BatchSpec, logs: npt.NDArray[Any]) -> list[dict[str, Any]]:
        """The game records of a chunk's logs."""
        ...

    def replay(self, record: dict[str, Any]) -> Any:
        """The finished game a record describes."""
        ...

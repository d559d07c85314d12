"""What determines a batch: a frozen, picklable ``BatchSpec`` that results keep, and the adapter
protocol through which each game plugs into the batch layer."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol, overload

import numpy as np
import numpy.typing as npt

from ..errors import GenialError, excerpt
from ..policies import SEARCH_POLICIES
from ..seeds import POLICY_STREAM, child_seed, stream

if TYPE_CHECKING:  # pragma: no cover
    from ..registry import GameEntry

__all__ = ["CHUNK", "SEARCH_CHUNK", "BatchSpec", "Chunk", "GameAdapter", "Plan", "check_fields"]

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
    paired: bool = False
    """Paired games (common random numbers): game ``j`` of the batch draws from its own
    streams, ``child_seed(seed, j, 0)`` for chance and ``(j, 1)`` for the policies, so that
    game ``j`` of two batches of one seed (two openings, two moves) is played on the same
    draws as far as their games allow, whatever the games before it consumed; else chunk
    ``c`` plays its games one after another on ``chunk_streams(c)``."""
    luck: bool = False
    """Whether each game also measures its draws' luck per seat (``Playouts.luck``; the board
    game's ``options={"luck": True}``); the games are the same either way."""

    @property
    def chunk_games(self) -> int:
        """Games per chunk of this batch: ``CHUNK``, or ``SEARCH_CHUNK`` when a seat plays a
        search policy. It depends on the spec only, so the games never depend on the workers."""
        if any(name.partition(":")[0] in SEARCH_POLICIES for name in self.policies):
            return SEARCH_CHUNK
        return CHUNK

    def chunks(self, n: int) -> Plan:
        """The chunks of ``n`` games of this batch: a lazy ``Plan`` of ``(chunk index, games)``."""
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
        return (
            self.game,
            self.rules,
            self.policies,
            self.epsilons,
            self.start,
            self.openings,
            self.paired,
            self.luck,
        ) == (
            other.game,
            other.rules,
            other.policies,
            other.epsilons,
            other.start,
            other.openings,
            other.paired,
            other.luck,
        ) and self.seed_key == other.seed_key

    def __hash__(self) -> int:
        return hash((self.game, self.rules, self.policies, self.start, self.openings))


def chunks(n: int, size: int = CHUNK) -> Plan:
    """The chunks of a batch of ``n`` games: a lazy ``Plan`` of ``(chunk index, games)``."""
    return Plan(n, size)


class Plan(Sequence[tuple[int, int]]):
    """The chunks of a batch, lazily: ``(chunk index, games)`` for the chunks ``spans`` (every
    chunk by default) of a batch of ``games`` games cut in chunks of ``size`` (chunk ``c`` holds
    games ``c * size`` .. ``min((c + 1) * size, games) - 1``). Its memory is that of a few ints
    (one range a span) whatever the batch: nothing is listed, a chunk is computed when asked.
    Immutable, hashable, picklable.

    >>> plan = Plan(2500, 1024)
    >>> len(plan), plan[0], plan[-1], list(plan)
    (3, (0, 1024), (2, 452), [(0, 1024), (1, 1024), (2, 452)])
    >>> huge = Plan(2**40, 1024)
    >>> len(huge), huge[-1], huge.part(3, 64)[0], huge.games_held
    (1073741824, (1073741823, 1024), (192, 1024), 1099511627776)
    >>> rest = plan.without_parts({1}, 1)  # the plan but part 1 (parts of one chunk)
    >>> rest, list(rest), rest.games_held, list(rest.indices)
    (Plan(2500, 1024, (range(0, 1), range(2, 3))), [(0, 1024), (2, 452)], 1476, [0, 2])
    """

    __slots__ = ("_ends", "games", "size", "spans")

    games: int
    size: int
    spans: tuple[range, ...]
    _ends: tuple[int, ...]

    def __init__(self, games: int, size: int, spans: Sequence[range] | None = None) -> None:
        """``games`` of the whole batch in chunks of ``size``; ``spans``: the chunks held,
        increasing disjoint non-empty ranges of step 1 (default: every chunk)."""
        if games < 0 or size < 1:
            raise ValueError(f"a plan of {games} games in chunks of {size}")
        n = -(-games // size)
        spans = ((range(n),) if n else ()) if spans is None else tuple(spans)
        ends, end, last = [], 0, 0
        for span in spans:
            if span.step != 1 or not span or span.start < last or span.stop > n:
                raise ValueError(f"{span} is not a span of chunks from {last} of a batch of {n}")
            last = span.stop
            end += len(span)
            ends.append(end)
        for name, value in (("games", games), ("size", size), ("spans", spans)):
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_ends", tuple(ends))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Plan is immutable (cannot set {name})")

    def __reduce__(self) -> tuple[Any, ...]:
        return (Plan, (self.games, self.size, self.spans))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Plan):
            return NotImplemented
        return (self.games, self.size, self.spans) == (other.games, other.size, other.spans)

    def __hash__(self) -> int:
        return hash((self.games, self.size, self.spans))

    def __repr__(self) -> str:
        if self.spans == Plan(self.games, self.size).spans:
            return f"Plan({self.games}, {self.size})"
        return f"Plan({self.games}, {self.size}, {self.spans})"

    @property
    def chunks(self) -> int:
        """Chunks of the whole batch."""
        return -(-self.games // self.size)

    def games_of(self, chunk: int) -> int:
        """Games of chunk ``chunk`` of the batch."""
        if not 0 <= chunk < self.chunks:
            raise IndexError(f"chunk {chunk} of a batch of {self.chunks} chunks")
        return min(self.size, self.games - chunk * self.size)

    @property
    def games_held(self) -> int:
        """Games of the chunks this plan holds."""
        total = len(self) * self.size
        if self.spans and self.spans[-1][-1] == self.chunks - 1:  # the short last chunk
            total -= self.size - self.games_of(self.chunks - 1)
        return total

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    @overload
    def __getitem__(self, index: int) -> tuple[int, int]: ...

    @overload
    def __getitem__(self, index: slice) -> Plan: ...

    def __getitem__(self, index: int | slice) -> tuple[int, int] | Plan:
        n = len(self)
        if isinstance(index, slice):
            lo, hi, step = index.indices(n)
            if step != 1:
                raise ValueError("a plan is sliced with step 1")
            kept = []
            for span, end in zip(self.spans, self._ends, strict=True):
                begin = end - len(span)
                if cut := span[max(lo - begin, 0) : max(hi - begin, 0)]:
                    kept.append(cut)
            return Plan(self.games, self.size, kept)
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError(f"chunk {index} of a plan of {n}")
        k = bisect_right(self._ends, i)
        chunk = self.spans[k][i - (self._ends[k] - len(self.spans[k]))]
        return chunk, self.games_of(chunk)

    def __iter__(self) -> Iterator[tuple[int, int]]:
        for span in self.spans:
            for chunk in span:
                yield chunk, self.games_of(chunk)

    def __contains__(self, item: object) -> bool:
        if not (isinstance(item, tuple) and len(item) == 2):
            return False
        chunk, games = item
        return any(chunk in span for span in self.spans) and games == self.games_of(chunk)

    def part(self, part: int, part_chunks: int) -> Plan:
        """The chunks of part ``part`` of the batch (parts of ``part_chunks`` chunks) that this
        plan holds."""
        lo, hi = part * part_chunks, (part + 1) * part_chunks
        kept = [s for span in self.spans if (s := range(max(span.start, lo), min(span.stop, hi)))]
        return Plan(self.games, self.size, kept)

    def parts(self, part_chunks: int) -> int:
        """Parts of ``part_chunks`` chunks of the whole batch."""
        return -(-self.chunks // part_chunks)

    def without_parts(self, parts: Collection[int], part_chunks: int) -> Plan:
        """This plan but the chunks of ``parts`` (parts of ``part_chunks`` chunks): as many
        spans as there are gaps between them, whatever the batch."""
        k = part_chunks
        cuts = sorted(p for p in set(parts) if 0 <= p < self.parts(k))
        kept: list[range] = []
        first = 0  # the first cut that may still meet a span (spans and cuts both in order)
        for span in self.spans:
            lo = span.start
            while first < len(cuts) and (cuts[first] + 1) * k <= lo:
                first += 1
            i = first
            while i < len(cuts) and cuts[i] * k < span.stop:
                if cuts[i] * k > lo:
                    kept.append(range(lo, cuts[i] * k))
                lo = max(lo, (cuts[i] + 1) * k)
                i += 1
            if lo < span.stop:
                kept.append(range(lo, span.stop))
        return Plan(self.games, self.size, kept)

    @property
    def indices(self) -> Sequence[int]:
        """The chunk indices held, lazily (a sequence of ints)."""
        return _Indices(self)


class _Indices(Sequence[int]):
    """The chunk indices of a plan (a lazy sequence of ints)."""

    def __init__(self, plan: Plan) -> None:
        self._plan = plan

    def __len__(self) -> int:
        return len(self._plan)

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[int]: ...

    def __getitem__(self, index: int | slice) -> int | Sequence[int]:
        if isinstance(index, slice):
            return _Indices(self._plan[index])
        return self._plan[index][0]

    def __iter__(self) -> Iterator[int]:
        for span in self._plan.spans:
            yield from span

    def __contains__(self, value: object) -> bool:
        return any(value in span for span in self._plan.spans)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, _Indices):
            return self._plan.spans == other._plan.spans
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<chunks {', '.join(f'{s.start}..{s.stop - 1}' for s in self._plan.spans)}>"


@dataclass(frozen=True)
class Chunk:
    """What one chunk returns: its result rows and, for records, its games' logs."""

    index: int
    rows: npt.NDArray[Any]
    logs: npt.NDArray[Any] | None = None
    luck: npt.NDArray[np.float64] | None = None  # (games, seats), with ``BatchSpec.luck``


class GameAdapter(Protocol):
    """How a game plugs into the batch layer (one small object per game, in its registry entry)."""

    name: str
    row_dtype: np.dtype[Any]
    log_dtype: np.dtype[Any]
    options: Mapping[str, Any]
    """The game's own options of ``simulate(..., options={...})``, with their defaults (the
    board game: ``{"epsilon": 0.1, "openings": ()}``)."""
    per_seat: frozenset[str]
    """The row columns with a seat axis first (``Playouts.column`` cuts them to the seats);
    rows must have ``ranks`` (per seat), ``winner``, ``turns`` and ``truncated``."""
    colours: str
    """The letters of the colours of a ``scores`` column of shape (seats, colours), a seat's
    result being its lowest colour (the two Ingenious games); ``""``: the game has no such
    column, and ``Playouts.summary()`` gives win rates and game lengths only."""

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

    def check(
        self, rules: Any, *, policy: Any, start: str | None, **options: Any
    ) -> dict[str, Any]:
        """The game-specific arguments of ``simulate`` checked (``start``: the checked text of
        the position every game continues from, or None; ``options``: every one of
        ``self.options``, filled in by ``check_fields``): the ``BatchSpec`` fields
        ``policies``, ``epsilons`` and ``openings``."""
        ...

    def records(self, spec: BatchSpec, logs: npt.NDArray[Any]) -> list[dict[str, Any]]:
        """The game records of a chunk's logs."""
        ...

    def replay(self, record: dict[str, Any]) -> Any:
        """The finished game a record describes."""
        ...


def check_fields(
    game: GameEntry, rules: Any, *, policy: Any, start: Any, options: object
) -> dict[str, Any]:
    """A batch's policy, start and game options checked for the game of the registry entry
    ``game``, whose rules are ``rules``: its ``BatchSpec`` fields ``policies``, ``epsilons``,
    the game's own (the board game's ``openings`` and ``luck``) and ``start`` (``start``, a
    game or a position text, as the game's text).
    ``options`` is a mapping of the adapter's option names (those left out take their
    defaults); ``GenialError`` for options that are not a mapping or name no option of the game.

    >>> from genial.registry import entry
    >>> board = entry("board")
    >>> fields = check_fields(board, board.rules(2), policy="greedy", start=None,
    ...                       options={"openings": ["R1,-5+B2,-5"]})
    >>> fields["policies"], fields["openings"], fields["luck"], fields["start"]
    (('greedy', 'greedy'), (...,), False, None)
    >>> check_fields(board, board.rules(2), policy="greedy", start=None,
    ...              options={"opening": ()})
    Traceback (most recent call last):
    ...
    genial.errors.GenialError: options: 'opening' is not one of the board game's options (...)
    """
    adapter = game.adapter
    known = adapter.options
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise GenialError(f"options: a mapping of option names to values, got {excerpt(options)}")
    for name in options:
        if name not in known:
            names = ", ".join(sorted(known)) or "none"
            raise GenialError(
                f"options: {excerpt(name)} is not one of the {adapter.name} game's options "
                f"({names})"
            )
    text = _start_text(game, start, rules)
    fields: dict[str, Any] = adapter.check(rules, policy=policy, start=text, **{**known, **options})
    return {**fields, "start": text}


def _start_text(game: GameEntry, start: Any, rules: Any) -> str | None:
    """The text of the position every game of a batch continues from (``start``: a game of
    ``game`` or a position text; ``None``: none), checked: of these rules, not over."""
    if start is None:
        return None
    kind = game.game
    if isinstance(start, kind):
        position = start
    elif isinstance(start, str):
        position = kind.from_text(start)
    else:
        raise GenialError(f"start: a {kind.__name__} or a position text, got {excerpt(start)}")
    if position.rules != rules:
        raise GenialError(f"start is a position of {position.rules!r}, not of {rules!r}")
    if position.is_over:
        raise GenialError("start: the game is already over")
    text: str = position.to_text()
    return text

"""Running batches: the pure chunk function and ``simulate``.

Chunk ``c`` of a batch draws all its randomness from ``PCG64(child_seed(seed, c))``, so results
depend only on the spec and never on the number of workers or the backend. ``run_chunk`` is pure
(it returns its arrays), so threads, processes and clusters are only backends of one ``map``
(``genial.batch.backends``: serial, threads, a Dask cluster). With ``out=`` a batch goes to a
Parquet dataset on disk chunk by chunk instead of memory (``genial.batch.dataset``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from ..errors import GenialError, checked_flag, excerpt
from ..registry import entry
from ..seeds import as_seed_sequence
from .backends import backend_for, checked_backend
from .progress import progress_bar
from .results import Playouts
from .spec import BatchSpec, Chunk, Plan

if TYPE_CHECKING:  # pragma: no cover
    from .dataset import Dataset

__all__ = ["Work", "check_memory", "prepare", "run", "run_chunk", "run_many", "simulate"]

MAX_GAMES = 2**40


def physical_memory() -> int | None:
    """Bytes of memory of this machine, or None where the system does not say."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


def check_memory(n: int, adapter: Any, records: bool) -> None:
    """Refuse, before anything is allocated, a batch whose results cannot fit in memory: more
    than half of this machine's memory for ``n`` result rows (and logs, with records)."""
    per_game = adapter.row_dtype.itemsize + 8 + (adapter.log_dtype.itemsize if records else 0)
    need = n * per_game
    limit = physical_memory()
    if limit is not None and need > limit // 2:
        raise GenialError(
            f"{n:,} games need about {need / 2**30:,.1f} GiB for their results "
            f"({per_game:,} bytes a game{' with records' if records else ''}), more than half "
            f"of this machine's {limit / 2**30:,.1f} GiB: play fewer games per call"
        )


def run_chunk(spec: BatchSpec, chunk: int, size: int) -> Chunk:
    """Play the first ``size`` games of chunk ``chunk`` of ``spec`` and return their rows."""
    adapter = entry(spec.game).adapter
    rows, logs = adapter.play(spec, *spec.chunk_streams(chunk), size)
    return Chunk(chunk, rows, logs)


Item = tuple[int, BatchSpec, int, int]
"""A chunk to play: (job, spec, chunk index, games)."""


@dataclass(frozen=True)
class Work:
    """Chunks to play, lazily: ``(job, spec, plan)`` segments, whose items ``(job, spec, chunk
    index, games)`` come one by one as the backend takes them; ``len`` counts the chunks and
    ``games`` the games, without listing anything (a plan of 2**40 games is a few ints)."""

    segments: tuple[tuple[int, BatchSpec, Plan], ...]

    def __len__(self) -> int:
        return sum(len(plan) for _, _, plan in self.segments)

    def __iter__(self) -> Iterator[Item]:
        for job, spec, plan in self.segments:
            for chunk, size in plan:
                yield job, spec, chunk, size

    @property
    def games(self) -> int:
        return sum(plan.games_held for _, _, plan in self.segments)


def _play(item: Item) -> tuple[int, Chunk]:
    """The function every backend maps (module-level, so a cluster worker imports it)."""
    job, spec, chunk, size = item
    return job, run_chunk(spec, chunk, size)


def play_chunks(
    work: Work,
    on_chunk: Callable[[int, Chunk], None],
    *,
    workers: int | None,
    backend: str = "threads",
    address: Any = None,
    progress: bool = False,
) -> float:
    """Play ``work`` on a checked backend, calling ``on_chunk(job, chunk)`` for each chunk as
    it arrives (in any order on a cluster) and advancing the progress bar; the seconds taken.
    The backend takes the chunks as it goes (none is listed ahead). An error or a
    ``KeyboardInterrupt`` (from a chunk, ``on_chunk`` or the bar) stops the backend (queued
    chunks cancelled, a cluster started for the run closed) and propagates."""
    total = work.games
    bar = progress_bar(total, progress)
    began = time.perf_counter()
    results = backend_for(workers, len(work), backend, address).map(_play, work)
    try:
        for job, done in results:
            on_chunk(job, done)
            if bar:
                bar(len(done.rows))
    finally:
        results.close()
    if bar and total == 0:
        bar(0)
    return time.perf_counter() - began


def run(
    spec: BatchSpec,
    n: int,
    *,
    workers: int | None = None,
    progress: bool = False,
    backend: str = "threads",
    address: Any = None,
) -> Playouts:
    """Play ``n`` games of ``spec`` on the backend and gather the results (``run_many``)."""
    return run_many(
        [(spec, n)], workers=workers, progress=progress, backend=backend, address=address
    )[0]


def run_many(
    jobs: Sequence[tuple[BatchSpec, int]],
    *,
    workers: int | None = None,
    progress: bool = False,
    backend: str = "threads",
    address: Any = None,
) -> list[Playouts]:
    """Play several batches (``(spec, games)`` each) through one backend, their chunks side by
    side, and return one ``Playouts`` per batch. Results do not depend on ``workers`` or the
    backend (``"serial"``, ``"threads"``, or ``"dask"`` with ``address``, as for ``simulate``).
    A ``KeyboardInterrupt`` stops the run within about a chunk's time and propagates."""
    backend, n_workers = checked_backend(backend, workers, address)
    adapters = [entry(spec.game).adapter for spec, _ in jobs]
    rows = [np.zeros(n, dtype=a.row_dtype) for a, (_, n) in zip(adapters, jobs, strict=True)]
    logs = [
        np.zeros(n, dtype=a.log_dtype) if spec.records else None
        for a, (spec, n) in zip(adapters, jobs, strict=True)
    ]
    work = Work(tuple((j, spec, spec.chunks(n)) for j, (spec, n) in enumerate(jobs)))

    def place(j: int, done: Chunk) -> None:
        lo = done.index * jobs[j][0].chunk_games
        hi = lo + len(done.rows)
        rows[j][lo:hi] = done.rows
        job_logs = logs[j]
        if job_logs is not None and done.logs is not None:
            job_logs[lo:hi] = done.logs

    seconds = play_chunks(
        work, place, workers=n_workers, backend=backend, address=address, progress=progress
    )
    return [
        Playouts(spec, r, np.arange(n, dtype=np.int64), lg, seconds=seconds)
        for (spec, n), r, lg in zip(jobs, rows, logs, strict=True)
    ]


def prepare(
    n_games: int,
    players: Any = None,
    *,
    policy: str | Sequence[str] = "random",
    seed: Any = None,
    start: Any = None,
    openings: Sequence[Any] = (),
    records: bool = False,
    epsilon: float = 0.1,
    teams: bool = False,
    tournament: bool = False,
    tiles: Literal["standard", "travel"] = "standard",
    rules: Any = None,
    game: str = "board",
) -> BatchSpec:
    """The checked ``BatchSpec`` of a ``simulate`` call (every argument checked, nothing played,
    nothing allocated); ``simulate``'s parameters."""
    return _prepare(
        n_games,
        players,
        fits=True,
        policy=policy,
        seed=seed,
        start=start,
        openings=openings,
        records=records,
        epsilon=epsilon,
        teams=teams,
        tournament=tournament,
        tiles=tiles,
        rules=rules,
        game=game,
    )


def _prepare(
    n_games: int,
    players: Any,
    *,
    fits: bool,
    policy: str | Sequence[str],
    seed: Any,
    start: Any,
    openings: Sequence[Any],
    records: bool,
    epsilon: float,
    teams: bool,
    tournament: bool,
    tiles: Literal["standard", "travel"],
    rules: Any,
    game: str,
) -> BatchSpec:
    """``prepare``; ``fits``: refuse results that cannot fit in memory (not for a dataset on
    disk, which holds a few chunks at a time)."""
    if isinstance(n_games, (bool, np.bool_)) or not isinstance(n_games, (int, np.integer)):
        raise GenialError(f"n_games must be an int, got {excerpt(n_games)}")
    if n_games < 0:
        raise GenialError(f"n_games must be >= 0, got {excerpt(int(n_games))}")
    if n_games > MAX_GAMES:
        raise GenialError(f"n_games must be at most {MAX_GAMES:,}, got {excerpt(int(n_games))}")
    records = checked_flag(records, "records")
    game_entry = entry(game)
    if fits:
        check_memory(int(n_games), game_entry.adapter, bool(records))
    named = {} if players is None else {"players": players}  # else the game's own default
    game_rules = game_entry.rules(
        **named, teams=teams, tournament=tournament, tiles=tiles, rules=rules
    )
    checked = game_entry.adapter.check(
        game_rules, policy=policy, epsilon=epsilon, start=start, openings=openings
    )
    return BatchSpec(
        game_entry.name, game_rules, seed=as_seed_sequence(seed), records=bool(records), **checked
    )


@overload
def simulate(
    n_games: int,
    players: int | str | Any = None,
    *,
    policy: str | Sequence[str] = "random",
    seed: Any = None,
    workers: int | None = None,
    start: Any = None,
    openings: Sequence[Any] = (),
    records: bool = False,
    progress: bool = False,
    epsilon: float = 0.1,
    teams: bool = False,
    tournament: bool = False,
    tiles: Literal["standard", "travel"] = "standard",
    rules: Any = None,
    game: str = "board",
    backend: str = "threads",
    address: Any = None,
    out: None = None,
    overwrite: bool = False,
    resume: bool = False,
) -> Playouts: ...


@overload
def simulate(
    n_games: int,
    players: int | str | Any = None,
    *,
    policy: str | Sequence[str] = "random",
    seed: Any = None,
    workers: int | None = None,
    start: Any = None,
    openings: Sequence[Any] = (),
    records: bool = False,
    progress: bool = False,
    epsilon: float = 0.1,
    teams: bool = False,
    tournament: bool = False,
    tiles: Literal["standard", "travel"] = "standard",
    rules: Any = None,
    game: str = "board",
    backend: str = "threads",
    address: Any = None,
    out: str | os.PathLike[str],
    overwrite: bool = False,
    resume: bool = False,
) -> Dataset: ...


def simulate(
    n_games: int,
    players: int | str | Any = None,
    *,
    policy: str | Sequence[str] = "random",
    seed: Any = None,
    workers: int | None = None,
    start: Any = None,
    openings: Sequence[Any] = (),
    records: bool = False,
    progress: bool = False,
    epsilon: float = 0.1,
    teams: bool = False,
    tournament: bool = False,
    tiles: Literal["standard", "travel"] = "standard",
    rules: Any = None,
    game: str = "board",
    backend: str = "threads",
    address: Any = None,
    out: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    resume: bool = False,
) -> Playouts | Dataset:
    """Play ``n_games`` whole games inside the kernel and return their results.

    Parameters
    ----------
    n_games : int
        Games to play (>= 0).
    players : int, str or Rules, optional
        2, 3 or 4; 1 for the solo game; or the rules as a token (``"4t"``) or a ``Rules``.
        Default: the game's own (2 for the board game, 3 for the card game).
    policy : str or sequence of str
        ``"random"``, ``"greedy"``, ``"epsilon-greedy"`` or ``"epsilon-greedy:0.2"`` (defined in
        ``genial.policies``), or for the board game a search, ``"mc:N"`` / ``"mcts:N"``
        (docs/search.md); one name for every seat, or one per seat. A Python callable is not a
        policy here: ``genial.vector.VectorEnv`` runs those (docs/vector.md).
    seed : anything ``numpy.random.default_rng`` accepts
        The root of the run's randomness; the same seed gives identical arrays whatever
        ``workers`` and ``backend`` are.
    workers : int, optional
        Threads running kernel chunks without the GIL (default 1; ``-1`` for all cores); with
        ``backend="dask"`` and no ``address``, the worker processes of the local cluster
        (default: one per core).
    start : Game or position text, optional
        Continue every game from this position (racks as they are, the bag's draws random).
    openings : sequence of moves, optional
        First placements every game makes: ``openings[i]`` is seat ``i``'s first placement. Its
        tile is put on the seat's rack before the deal (the rest of the rack is random). Used
        by ``genial.openings``; not with ``start``.
    records : bool
        Keep every game's log, so that ``Playouts.records`` gives its record (about 1.8 KB per
        game in memory; JSON only when asked).
    progress : bool
        Show a progress bar (tqdm if installed, else a plain one on stderr).
    epsilon : float
        Epsilon of ``"epsilon-greedy"`` seats without a parameter of their own.
    teams, tournament, tiles, rules
        The variant, as for ``Game``. In the team game ``winner`` holds the winning team (0:
        seats 0 and 2, 1: seats 1 and 3).
    game : str
        The registry name of the game (``genial.games()``).
    backend : str
        Where the chunks run: ``"threads"`` (default; one thread is the serial loop),
        ``"serial"``, or ``"dask"``: a Dask cluster (``genial-sim[dask]``), a ``LocalCluster``
        of worker processes started for the run unless ``address`` is given. Same results.
    address : str, distributed.Client or cluster, optional
        With ``backend="dask"``: the scheduler to run on (``"tcp://host:8786"``; see
        ``docs/cluster.md``), or a client or cluster object of this process (left open).
    out : path, optional
        Write the games to this directory as a partitioned Parquet dataset, part by part as
        they are played (``genial-sim[parquet]``; layout in ``docs/cluster.md``), and return
        the ``genial.batch.Dataset`` instead of a ``Playouts``: runs larger than memory.
    overwrite : bool
        With ``out``: replace a dataset already there (else refused, before anything is played).
    resume : bool
        With ``out``: finish an interrupted run of the same arguments (same seed), playing only
        its missing parts.

    Examples
    --------
    >>> runs = simulate(3000, players=3, policy=("greedy", "random", "random"), seed=7)
    >>> runs.summary().win_rate[0] > 0.8
    np.True_
    >>> simulate(10, rules="4t", seed=1).rules
    Rules(players=4, teams=True)
    """
    backend, n_workers = checked_backend(backend, workers, address)
    progress = checked_flag(progress, "progress")
    overwrite = checked_flag(overwrite, "overwrite")
    resume = checked_flag(resume, "resume")
    if out is None and (overwrite or resume):
        raise GenialError("overwrite and resume are options of out= (a dataset on disk)")
    spec = _prepare(
        n_games,
        players,
        fits=out is None,
        policy=policy,
        seed=seed,
        start=start,
        openings=openings,
        records=records,
        epsilon=epsilon,
        teams=teams,
        tournament=tournament,
        tiles=tiles,
        rules=rules,
        game=game,
    )
    if out is None:
        return run(
            spec,
            int(n_games),
            workers=n_workers,
            progress=progress,
            backend=backend,
            address=address,
        )
    from .dataset import write

    return write(
        spec,
        int(n_games),
        out,
        overwrite=overwrite,
        resume=resume,
        workers=n_workers,
        backend=backend,
        address=address,
        progress=progress,
    )

"""Playing a batch's chunks: the pure chunk function, the lazy list of chunks a backend
takes, and the loop that plays them (``genial.batch.run``'s ``simulate`` and
``genial.batch.dataset``'s writer both play through it).

Chunk ``c`` of a batch draws all its randomness from ``PCG64(child_seed(seed, c))``, so results
depend only on the spec and never on the number of workers or the backend.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import GenialError
from ..kernel_adapter import KernelAdapter
from ..registry import entry
from .backends import backend_for, checked_backend
from .progress import progress_bar
from .results import Playouts
from .spec import BatchSpec, Chunk, Plan

__all__ = [
    "MAX_GAMES",
    "Item",
    "Work",
    "check_memory",
    "physical_memory",
    "play_chunks",
    "run",
    "run_chunk",
    "run_many",
]

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
    extra: dict[str, Any] = {}
    if (spec.paired or spec.luck) and not isinstance(adapter, KernelAdapter):
        what = "pair games" if spec.paired else "measure luck"
        raise GenialError(f"the game {spec.game!r} has no kernel: it cannot {what}")
    if spec.paired:  # (each game on its own streams: the kernels' game_prefix)
        extra["first_game"] = chunk * spec.chunk_games
    if spec.luck:
        extra["luck"] = np.zeros((size, spec.rules.players), dtype=np.float64)
    rows, logs = adapter.play(spec, *spec.chunk_streams(chunk), size, **extra)
    return Chunk(chunk, rows, logs, extra.get("luck"))


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
    first: Sequence[int] | None = None,
) -> list[Playouts]:
    """Play several batches (``(spec, games)`` each) through one backend, their chunks side by
    side, and return one ``Playouts`` per batch. Results do not depend on ``workers`` or the
    backend (``"serial"``, ``"threads"``, or ``"dask"`` with ``address``, as for ``simulate``).
    ``first`` (one per job, each a multiple of the spec's ``chunk_games``) plays games
    ``first[j]`` to ``first[j] + games - 1`` of batch ``j`` instead of its first ``games``: the
    same games as a run of more, so that a batch can grow in steps (the adaptive opening
    analysis). A ``KeyboardInterrupt`` stops the run within about a chunk's time and
    propagates."""
    backend, n_workers = checked_backend(backend, workers, address)
    adapters = [entry(spec.game).adapter for spec, _ in jobs]
    starts = [0] * len(jobs) if first is None else [int(f) for f in first]
    if len(starts) != len(jobs) or any(
        f < 0 or f % spec.chunk_games for f, (spec, _) in zip(starts, jobs, strict=True)
    ):
        raise ValueError("first: one start per job, each a multiple of its chunk_games")
    rows = [np.zeros(n, dtype=a.row_dtype) for a, (_, n) in zip(adapters, jobs, strict=True)]
    logs = [
        np.zeros(n, dtype=a.log_dtype) if spec.records else None
        for a, (spec, n) in zip(adapters, jobs, strict=True)
    ]
    lucks = [
        np.zeros((n, spec.rules.players), dtype=np.float64) if spec.luck else None
        for spec, n in jobs
    ]
    plans = []
    for (spec, n), f in zip(jobs, starts, strict=True):
        size = spec.chunk_games
        whole = Plan(f + n, size)
        plans.append(
            whole if f == 0 else Plan(f + n, size, [range(f // size, len(whole))] if n else [])
        )
    work = Work(
        tuple((j, spec, plan) for j, ((spec, _), plan) in enumerate(zip(jobs, plans, strict=True)))
    )

    def place(j: int, done: Chunk) -> None:
        lo = done.index * jobs[j][0].chunk_games - starts[j]
        hi = lo + len(done.rows)
        rows[j][lo:hi] = done.rows
        job_logs = logs[j]
        if job_logs is not None and done.logs is not None:
            job_logs[lo:hi] = done.logs
        job_luck = lucks[j]
        if job_luck is not None and done.luck is not None:
            job_luck[lo:hi] = done.luck

    seconds = play_chunks(
        work, place, workers=n_workers, backend=backend, address=address, progress=progress
    )
    return [
        Playouts(spec, r, np.arange(f, f + n, dtype=np.int64), lg, seconds=seconds, luck=lk)
        for (spec, n), f, r, lg, lk in zip(jobs, starts, rows, logs, lucks, strict=True)
    ]

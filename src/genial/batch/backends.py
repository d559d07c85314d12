"""Where chunks run: the serial backend and the thread pool (the kernel releases the GIL, so
threads use every core). Each backend maps a pure chunk function over chunk indices and yields
the results in order, as they arrive; the results never depend on the backend."""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Protocol, TypeVar

import numpy as np

from ..errors import GenialError, excerpt

__all__ = ["Backend", "Serial", "Threads", "backend_for", "worker_count"]

T = TypeVar("T")
R = TypeVar("R")


class Backend(Protocol):
    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]: ...


class Serial:
    """Chunks one after another in the calling thread."""

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        for item in items:
            yield fn(item)


class Threads:
    """Chunks on a pool of ``workers`` threads. At most two chunks per worker are queued at a
    time, so an interruption (Ctrl-C) or an error stops the run once the chunks already running
    finish (a chunk takes well under a second): the queued ones are cancelled."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        pool = ThreadPoolExecutor(max_workers=self.workers)
        pending: deque[Future[R]] = deque()
        try:
            for item in items:
                pending.append(pool.submit(fn, item))
                if len(pending) >= 2 * self.workers:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()
            pool.shutdown(wait=True, cancel_futures=True)


def worker_count(workers: object) -> int:
    """``workers`` checked: an int >= 1, or -1 for every core."""
    if isinstance(workers, (bool, np.bool_)) or not isinstance(workers, (int, np.integer)):
        raise GenialError(f"workers must be an int (-1 for all cores), got {excerpt(workers)}")
    if workers == -1:
        return os.cpu_count() or 1
    if not 1 <= workers <= 1024:
        raise GenialError(
            f"workers must be 1..1024, or -1 for all cores; got {excerpt(int(workers))}"
        )
    return int(workers)


def backend_for(workers: int, chunks: int) -> Backend:
    """The serial backend for one worker (or one chunk), else threads."""
    return Serial() if workers == 1 or chunks <= 1 else Threads(workers)

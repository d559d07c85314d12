"""Where chunks run: the serial backend, the thread pool (the kernel releases the GIL, so threads
use every core) and a Dask cluster (``distributed``: processes, or machines). Each backend maps a
pure chunk function over chunk indices and yields the results as they arrive: in order for the
serial and thread backends, in the order they finish on a cluster (every result names its
chunk). The results never depend on the backend."""

from __future__ import annotations

import contextlib
import importlib
import itertools
import math
import os
import socket
import time
import uuid
from collections import deque
from collections.abc import Callable, Generator, Iterable, Sequence, Sized
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

import numpy as np

from .._version import __version__
from ..errors import GenialError, excerpt

__all__ = [
    "BACKENDS",
    "CONNECT_TIMEOUT",
    "Backend",
    "Dask",
    "Serial",
    "Threads",
    "backend_for",
    "checked_backend",
    "connect",
    "worker_count",
]

T = TypeVar("T")
R = TypeVar("R")

BACKENDS = ("serial", "threads", "dask")
"""The backends by name (``simulate(..., backend=...)``)."""

DASK_EXTRA = "pip install 'genial-sim[dask]'"


class Backend(Protocol):
    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Generator[R, None, None]: ...


class Serial:
    """Chunks one after another in the calling thread."""

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Generator[R, None, None]:
        for item in items:
            yield fn(item)


class Threads:
    """Chunks on a pool of ``workers`` threads. At most two chunks per worker are queued at a
    time, so an interruption (Ctrl-C) or an error stops the run once the chunks already running
    finish (a chunk takes well under a second): the queued ones are cancelled."""

    def __init__(self, workers: int) -> None:
        self.workers = workers

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Generator[R, None, None]:
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


def _map_group(fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """One cluster task: ``fn`` over a group of items, in the worker."""
    return [fn(item) for item in items]


def _worker_version() -> str:
    """The genial version a worker imports (pickled by reference: a worker without genial
    fails to run it)."""
    from .. import _version

    return _version.__version__


def import_distributed() -> Any:
    """``distributed``, or an ImportError naming the extra that installs it."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise ImportError(f"backend='dask' needs dask.distributed: {DASK_EXTRA}") from None


def connect(address: Any, timeout: float | None = None) -> Any:
    """A new ``distributed.Client`` of the scheduler at ``address`` (``"tcp://host:8786"``, or a
    cluster object), for the caller to close; ``timeout``: the seconds to wait for the scheduler
    (``None``: ``CONNECT_TIMEOUT``, 10 s, the command line's default too).

    Any failure is a ``GenialError`` naming the address: a port outside 1..65535, nothing
    listening there (a ``tcp://`` or plain ``host:port`` address is probed with a plain socket
    first, so a refused connection fails at once), no scheduler answering in time, an address
    Dask cannot use (an unknown scheme, no port, TLS without its configuration). The client of
    a failed connection is closed here, at once: left to the garbage collector, it would try to
    close at exit on a stopped event loop, a minute's hang and a traceback."""
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not 0 < timeout <= MAX_CONNECT_TIMEOUT
    ):
        raise GenialError(
            f"connect timeout must be a number of seconds in (0, {MAX_CONNECT_TIMEOUT:g}], "
            f"got {excerpt(timeout)}"
        )
    seconds = CONNECT_TIMEOUT if timeout is None else float(timeout)
    distributed = import_distributed()
    target = getattr(address, "scheduler_address", address)  # a cluster object
    deadline = time.monotonic() + seconds
    endpoint = _tcp_endpoint(target)
    if endpoint is not None:
        _probe(target, *endpoint, seconds)
    options: dict[str, Any] = {
        "set_as_default": False,
        "timeout": round(max(deadline - time.monotonic(), 0.1), 1),  # what the probe left
    }
    # made in two steps so that a client whose __init__ fails is still at hand to be closed
    client = distributed.Client.__new__(distributed.Client)
    try:
        client.__init__(target, **options)
    except BaseException as error:
        _discard(client)
        if isinstance(error, OSError):  # refused, unreachable, timed out
            raise GenialError(
                f"address: no Dask scheduler answers at {excerpt(target)} ({_why(error)})"
            ) from error
        if isinstance(error, Exception):  # ValueError, TypeError, ImportError of a comm
            raise GenialError(
                f"address {excerpt(target)}: Dask cannot connect there ({_why(error)})"
            ) from error
        raise  # KeyboardInterrupt, SystemExit
    return client


CONNECT_TIMEOUT = 10.0
"""Seconds ``connect`` (and so ``simulate(..., backend="dask", address=...)``) and the command
line (``--connect-timeout``) wait for a Dask scheduler by default."""


def _tcp_endpoint(target: Any) -> tuple[str, int] | None:
    """The host and port of a ``"tcp://host:port"`` or ``"host:port"`` address (IPv6 hosts in
    brackets), the port checked to be 1..65535; None for anything else (another scheme, no
    port, a port that is not digits: left to Dask, which says why). Linear in the address."""
    if not isinstance(target, str):
        return None
    scheme, sep, location = target.strip().partition("://")
    if not sep:
        scheme, location = "tcp", scheme
    if scheme != "tcp":
        return None
    host, colon, port = location.rpartition(":")
    if not colon or not port.isascii() or not port.isdigit():
        return None
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    digits = port.lstrip("0") or "0"
    number = int(digits) if len(digits) <= 5 else 0
    if not 1 <= number <= 65535:
        raise GenialError(
            f"address {excerpt(target)}: the port must be 1..65535, got {excerpt(port)}"
        )
    return host, number


def _probe(target: str, host: str, port: int, seconds: float) -> None:
    """A plain TCP connection to ``host:port``, closed at once: a ``GenialError`` naming the
    address if it is refused or unreachable (at once, rather than after Dask's retries until
    the timeout), or does not open within ``seconds``."""
    try:
        socket.create_connection((host, port), timeout=seconds).close()
    except TimeoutError as error:
        raise GenialError(
            f"address: no Dask scheduler answers at {excerpt(target)} (no connection after "
            f"{seconds:g} s)"
        ) from error
    except OSError as error:  # refused, unreachable, an unknown host
        raise GenialError(
            f"address: nothing listens at {excerpt(target)} ({_why(error)})"
        ) from error


MAX_CONNECT_TIMEOUT = 86_400.0
"""The longest connect timeout (a day)."""


def _why(error: BaseException) -> str:
    """An exception as a short line."""
    text = " ".join(str(error).split()) or type(error).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def _discard(client: Any) -> None:
    """Close a client whose connection failed (a no-op for one that never started)."""
    with contextlib.suppress(Exception):
        client.close(timeout=5)


class Dask:
    """Chunks on a Dask cluster (``distributed``).

    ``address`` is the scheduler's (``"tcp://host:8786"``), a ``distributed.Client`` (used as it
    is and left open) or a cluster object (``LocalCluster``, ...); ``None`` starts a
    ``LocalCluster`` of ``workers`` single-threaded worker processes for the run and closes it
    after. Each task plays a group of up to ``chunks_per_task`` chunks in its worker (over a
    hundred thousand games; smaller groups when the run is short, so that every worker thread
    gets about ``tasks_per_thread`` tasks), so the scheduler handles a few tasks a second; at
    most ``in_flight`` tasks per worker thread are out, and results stream back as they finish,
    fetched from the workers directly unless the client is set not to
    (``direct_to_workers=False``). A
    worker that dies has its tasks recomputed elsewhere (chunks are pure: the results are the
    same). On an error or an interruption the outstanding tasks are cancelled and a cluster
    started here is closed. ``connect_timeout``: the seconds to wait for the scheduler at a
    ``"tcp://..."`` address (``connect``; ``None``: ``CONNECT_TIMEOUT``, 10 s).
    """

    def __init__(
        self,
        address: Any = None,
        workers: int | None = None,
        chunks_per_task: int = 128,
        tasks_per_thread: int = 4,
        in_flight: int = 2,
        connect_timeout: float | None = None,
    ) -> None:
        self.address = address
        self.workers = workers
        self.chunks_per_task = chunks_per_task
        self.tasks_per_thread = tasks_per_thread
        self.in_flight = in_flight
        self.connect_timeout = connect_timeout

    def _connect(self, distributed: Any) -> tuple[Any, Any, bool]:
        """The client, the cluster started here (or None) and whether the client is ours."""
        address = self.address
        if address is None:
            workers = self.workers or os.cpu_count() or 1
            cluster = distributed.LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address="127.0.0.1:0",  # a free port: none taken, no warning
            )
            try:
                client = distributed.Client(cluster, set_as_default=False)
            except BaseException:
                cluster.close()
                raise
            return client, cluster, True
        if isinstance(address, distributed.Client):
            _check_workers(address)
            return address, None, False
        client = connect(address, self.connect_timeout)
        try:
            _check_workers(client)
        except BaseException:
            client.close()
            raise
        return client, None, True

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> Generator[R, None, None]:
        # a sized iterable (a lazy plan of chunks) is taken group by group as tasks go out,
        # never listed whole; anything else is listed to be counted
        todo = items if isinstance(items, Sized) else list(items)
        if not len(todo):
            return
        pending = iter(todo)
        distributed = import_distributed()
        client, cluster, owned = self._connect(distributed)
        in_flight: dict[str, Any] = {}
        try:
            threads = max(1, sum(client.nthreads().values()))
            per_task = max(
                1,
                min(self.chunks_per_task, math.ceil(len(todo) / (self.tasks_per_thread * threads))),
            )
            groups = itertools.count()
            run = uuid.uuid4().hex[:12]
            arrivals = distributed.as_completed(loop=client.loop)

            def submit() -> None:
                group = list(itertools.islice(pending, per_task))
                if not group:
                    return
                future = client.submit(
                    _map_group, fn, group, key=f"genial-chunks-{run}-{next(groups)}"
                )
                in_flight[future.key] = future
                arrivals.add(future)

            for _ in range(self.in_flight * threads):
                submit()
            # Results straight from the workers, not through the scheduler, unless the
            # client says it cannot reach them (distributed.client.direct-to-workers: false).
            direct = client.direct_to_workers is not False
            for future in arrivals:
                results = client.gather(future, direct=direct)
                del in_flight[future.key]
                submit()
                yield from results
        finally:
            if in_flight:
                client.cancel(list(in_flight.values()))
                in_flight.clear()
            if owned:
                client.close()
            if cluster is not None:
                cluster.close()


def _check_workers(client: Any) -> None:
    """Every worker of the cluster imports this version of genial (else chunks would fail, or
    worse, differ)."""
    try:
        versions = client.run(_worker_version)
    except Exception as error:
        raise GenialError(
            f"a Dask worker cannot import genial ({type(error).__name__}: {error}): install "
            f"genial-sim {__version__} on every worker"
        ) from error
    wrong = {w: v for w, v in versions.items() if v != __version__}
    if wrong:
        worker, version = next(iter(wrong.items()))
        raise GenialError(
            f"{len(wrong)} Dask worker(s) run genial {version} (e.g. {worker}), this process "
            f"{__version__}: install the same version everywhere"
        )


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


def checked_backend(
    backend: object, workers: object, address: object, default_workers: int = 1
) -> tuple[str, int | None]:
    """``backend``, ``workers`` and ``address`` checked together: the backend's name and its
    worker count (``None`` for a cluster at ``address``, which has its own workers).
    ``workers=None`` means ``default_workers`` threads (-1: every core), or every core for a
    local Dask cluster. Checks that ``distributed`` is installed for ``backend="dask"``."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise GenialError(
            f"backend must be one of {', '.join(map(repr, BACKENDS))}, got {excerpt(backend)}"
        )
    if backend != "dask":
        if address is not None:
            raise GenialError("address is a Dask scheduler's: pass backend='dask' with it")
        n = worker_count(default_workers if workers is None else workers)
        if backend == "serial" and n != 1:
            raise GenialError(
                f"backend='serial' plays in one thread: workers must be 1, got {excerpt(workers)}"
            )
        return backend, n
    distributed = import_distributed()
    if address is None:
        return backend, worker_count(-1 if workers is None else workers)
    if workers is not None:
        raise GenialError(
            "workers: the cluster at address has its own workers; leave workers unset"
        )
    if not (
        isinstance(address, (str, distributed.Client)) or hasattr(address, "scheduler_address")
    ):
        raise GenialError(
            "address: a scheduler address ('tcp://host:8786'), a distributed.Client or a "
            f"cluster, got {excerpt(address)}"
        )
    if isinstance(address, str) and not address.strip():
        raise GenialError("address: an empty scheduler address")
    return backend, None


def backend_for(
    workers: int | None, chunks: int, backend: str = "threads", address: Any = None
) -> Backend:
    """The backend of a checked ``checked_backend`` result: for threads, the serial backend
    for one worker (or one chunk), else the thread pool; for ``"dask"``, the cluster."""
    if backend == "dask":
        return Dask(address, workers)
    if backend == "serial" or workers == 1 or chunks <= 1:
        return Serial()
    assert workers is not None
    return Threads(workers)

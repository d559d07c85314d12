"""The Dask backend's overhead against the thread pool (pytest-benchmark): one million random
2-player games on every core, by threads in this process, by the worker processes of a running
``LocalCluster`` (the cluster's own cost: tasks, pickling, results sent back) and by the
embedded default (``backend="dask"`` without an address: a cluster started and closed by the
run, about a second more). Compare the means: ``python -m pytest benchmarks/test_dask.py``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from genial import simulate
from genial.batch import Scheduler

distributed = pytest.importorskip("distributed")

GAMES = 1_000_000
CORES = os.cpu_count() or 1


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    with distributed.LocalCluster(
        n_workers=CORES, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
    ) as local:
        yield local


def _run(benchmark: Any, label: str, **kwargs: Any) -> None:
    runs = benchmark.pedantic(
        simulate,
        args=(GAMES, 2),
        kwargs={"policy": "random", "seed": 1, **kwargs},
        rounds=3,
        iterations=1,
        warmup_rounds=1,
    )
    seconds = benchmark.stats.stats.min if benchmark.stats else runs.seconds
    benchmark.extra_info.update(
        players="2",
        policy="random",
        workers=CORES,
        backend=label,
        games=GAMES,
        seed=1,
        games_per_s=round(GAMES / seconds),
        moves_per_s=round((int(runs.placements.sum()) + int(runs.swaps.sum())) / seconds),
    )


def test_threads(benchmark: Any) -> None:
    _run(benchmark, "threads", workers=CORES)


def test_dask_running_cluster(benchmark: Any, cluster: Any) -> None:
    _run(benchmark, "dask (running LocalCluster)", backend=Scheduler(cluster.scheduler_address))


def test_dask_embedded_cluster(benchmark: Any) -> None:
    _run(benchmark, "dask (embedded LocalCluster)", backend="dask", workers=CORES)

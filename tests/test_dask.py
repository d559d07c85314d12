"""genial.batch on a Dask cluster (``backend="dask"``): worker processes of a LocalCluster, or the
scheduler at an address, give the same games as the serial loop for the same seed; a worker
killed mid-run has its chunks recomputed and the results are still the same."""

from __future__ import annotations

import importlib
import multiprocessing
import os
import re
import signal
import socket
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from genial import GenialError, Playouts, simulate
from genial.batch import CHUNK, Scheduler, open_dataset
from genial.errors import excerpt

distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")
RUN = importlib.import_module("genial.batch.chunks")  # the chunk loop simulate plays through
BACKENDS = importlib.import_module("genial.batch.backends")


def assert_same(a: Playouts, b: Playouts) -> None:
    """Every column of every row, and the game numbers and logs, identical."""
    assert a.rows.dtype == b.rows.dtype
    for name in a.rows.dtype.names or ():
        assert np.array_equal(a.rows[name], b.rows[name]), name
    assert np.array_equal(a.game, b.game)
    assert (a.logs is None) == (b.logs is None)
    if a.logs is not None and b.logs is not None:
        for name in a.logs.dtype.names or ():  # (not the padding: the kernel leaves it)
            assert np.array_equal(a.logs[name], b.logs[name]), name


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Two single-threaded worker processes (what the embedded default starts)."""
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
    ) as local:
        yield local


@pytest.fixture
def client(cluster: Any) -> Iterator[Any]:
    with distributed.Client(cluster, set_as_default=False) as c:
        yield c


def test_embedded_local_cluster_gives_the_serial_games() -> None:
    """address=None starts a LocalCluster of worker processes for the run (and closes it)."""
    n = 5 * CHUNK + 17
    serial = simulate(n, 2, policy="epsilon-greedy", seed=42, records=True, backend="serial")
    threads = simulate(n, 2, policy="epsilon-greedy", seed=42, records=True, workers=2)
    before = set(multiprocessing.active_children())
    dask = simulate(n, 2, policy="epsilon-greedy", seed=42, records=True, backend="dask", workers=2)
    assert_same(serial, threads)
    assert_same(serial, dask)
    assert [dask.record(i) for i in (0, 999, n - 1)] == [serial.record(i) for i in (0, 999, n - 1)]
    assert set(multiprocessing.active_children()) <= before  # the cluster is closed


@pytest.mark.parametrize(
    ("game", "rules", "policy"),
    [("board", "3", "greedy"), ("board", "4t", "random"), ("cards", "c3", "greedy")],
)
def test_cluster_at_an_address_gives_the_serial_games(
    cluster: Any, game: str, rules: str, policy: str
) -> None:
    n = 3 * CHUNK + 5
    serial = simulate(n, rules, game=game, policy=policy, seed=7, records=True)
    dask = simulate(
        n,
        rules,
        game=game,
        policy=policy,
        seed=7,
        records=True,
        backend=Scheduler(cluster.scheduler_address),
    )
    assert_same(serial, dask)
    assert [dask.record(i) for i in (0, n - 1)] == [serial.record(i) for i in (0, n - 1)]


def test_a_client_is_used_and_left_open(client: Any) -> None:
    a = simulate(2 * CHUNK, 2, seed=3, backend=Scheduler(client))
    assert client.status == "running"
    b = simulate(2 * CHUNK, 2, seed=3, backend=Scheduler(client))  # the same client again
    assert_same(a, b)
    assert_same(a, simulate(2 * CHUNK, 2, seed=3))


@pytest.mark.parametrize("direct", [True, False])
def test_rows_come_from_the_workers_or_through_the_scheduler(
    cluster: Any, monkeypatch: pytest.MonkeyPatch, direct: bool
) -> None:
    """The client fetches results from the workers unless it is set not to
    (``direct_to_workers=False``): then through the scheduler, with the same games."""
    asked: list[Any] = []
    with distributed.Client(cluster, set_as_default=False, direct_to_workers=direct) as c:
        gather = c.gather

        def spy(futures: Any, *args: Any, **kwargs: Any) -> Any:
            asked.append(kwargs.get("direct"))
            return gather(futures, *args, **kwargs)

        monkeypatch.setattr(c, "gather", spy)
        runs = simulate(3 * CHUNK, 2, seed=5, backend=Scheduler(c))
    assert asked and set(asked) == {direct}
    assert_same(runs, simulate(3 * CHUNK, 2, seed=5))


def test_openings_on_the_cluster_give_the_same_table(cluster: Any) -> None:
    from genial.board.openings import analyse

    local = analyse(2, games_per_opening=20, seed=1, workers=1)
    dask = analyse(
        2, games_per_opening=20, seed=1, backend="dask", address=cluster.scheduler_address
    )
    pd.testing.assert_frame_equal(local.table, dask.table)


@pytest.mark.slow
def test_the_adaptive_analysis_on_the_cluster_gives_the_same_table(
    cluster: Any, tmp_path: Any
) -> None:
    """The race's steps played on the cluster (chunks from a later game on, run_many(first=))
    give the threads' table, and its checkpoint resumes on the threads."""
    from genial.board.openings import analyse

    options = {"games_per_opening": 32, "seed": 2, "adaptive": True, "batch": 16,
               "policy": "mc:1:value:d0"}  # fmt: skip
    local = analyse(2, workers=1, **options)
    dask = analyse(
        2, backend="dask", address=cluster.scheduler_address, out=tmp_path / "race", **options
    )
    pd.testing.assert_frame_equal(local.table, dask.table)
    again = analyse(2, workers=1, out=tmp_path / "race", resume=True, **options)
    pd.testing.assert_frame_equal(local.table, again.table)


class _Counted:
    """A sized iterable of ints that counts those taken from it (a lazy plan's stand-in)."""

    def __init__(self, n: int) -> None:
        self.n, self.taken = n, 0

    def __len__(self) -> int:
        return self.n

    def __iter__(self) -> Iterator[int]:
        for i in range(self.n):
            self.taken += 1
            yield i


def test_a_long_plan_is_taken_as_tasks_go_out(client: Any) -> None:
    """The cluster backend takes the chunks group by group as its tasks go out (a run of 2**40
    games has a billion chunks): the first results come with a few groups taken, never the
    whole plan listed first. The first result is of a chunk already taken, whichever task ends
    first."""
    items = _Counted(10**6)
    results = BACKENDS.Dask(client).map(abs, items)
    try:
        first = next(results)  # (results come as tasks complete: any group's, in any order)
        assert 0 <= first < items.taken <= 10 * 128  # (two tasks a thread, 128 chunks at most)
    finally:
        results.close()
    assert items.taken < 10**6


def test_a_dataset_written_from_the_cluster(cluster: Any, tmp_path: Any) -> None:
    n = 4 * CHUNK + 3
    written = simulate(n, 2, seed=5, backend=Scheduler(cluster), out=tmp_path / "runs")
    assert written.complete
    assert_same(open_dataset(tmp_path / "runs").to_playouts(), simulate(n, 2, seed=5))


def _progress_calling(action: Callable[[int], None]) -> Callable[[int, bool], Any]:
    """A stand-in for ``progress_bar`` whose bar calls ``action(games so far)``."""

    def bar(total: int, enabled: bool, unit: str = "games") -> Callable[[int], None]:
        done = [0]

        def update(k: int) -> None:
            done[0] += k
            action(done[0])

        return update

    return bar


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_killed_worker_has_its_chunks_recomputed(monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGKILL to a worker process that is playing a task, after the first results arrived:
    the nanny restarts it, the scheduler reruns its tasks, the games are the same."""
    n = 16 * CHUNK
    expected = simulate(n, 2, policy="greedy", seed=11)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
        ) as local,
        distributed.Client(local, set_as_default=False) as client,
    ):
        pids = client.run(os.getpid)
        killed: list[int] = []

        def kill(done: int) -> None:
            if killed:
                return
            busy = [w for w, keys in client.processing().items() if keys and w in pids]
            assert busy, "tasks are still running after the first results"
            killed.append(pids[busy[0]])
            os.kill(pids[busy[0]], signal.SIGKILL)

        monkeypatch.setattr(RUN, "progress_bar", _progress_calling(kill))
        runs = simulate(
            n, 2, policy="greedy", seed=11, progress=True, backend=Scheduler(client)
        )
        assert killed
        assert killed[0] not in client.run(os.getpid).values()  # that process is gone
    assert_same(runs, expected)


def test_an_interruption_cancels_and_closes_the_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C (a KeyboardInterrupt from the progress bar here) propagates; the cluster started
    for the run is closed, its processes gone."""

    before = set(multiprocessing.active_children())
    running: list[int] = []

    def interrupt(done: int) -> None:
        running.append(len(set(multiprocessing.active_children()) - before))
        raise KeyboardInterrupt

    monkeypatch.setattr(RUN, "progress_bar", _progress_calling(interrupt))
    with pytest.raises(KeyboardInterrupt):
        simulate(64 * CHUNK, 2, seed=1, progress=True, backend="dask", workers=2)
    assert running == [2]  # the two worker processes were up
    assert set(multiprocessing.active_children()) <= before


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"backend": "mpi"}, "backend must be one of"),
        ({"backend": 3}, "backend must be one of"),
        ({"backend": "serial", "workers": 2}, "one thread"),
        ({"backend": Scheduler(8786)}, "a scheduler address"),
        ({"backend": Scheduler(" ")}, "empty scheduler address"),
        ({"backend": Scheduler("tcp://127.0.0.1:8786"), "workers": 2}, "own workers"),
        ({"backend": "dask", "workers": 0}, "workers must be"),
    ],
)
def test_wrong_backend_arguments(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(GenialError, match=message):
        simulate(10, 2, seed=1, **kwargs)


def test_the_address_keyword_of_genial_0_2() -> None:
    """``backend="dask", address=...`` is ``backend=Scheduler(...)``, with a DeprecationWarning;
    an address without backend="dask" is refused as before."""
    old = {"backend": "dask", "address": "tcp://127.0.0.1:8786"}
    with (
        pytest.warns(DeprecationWarning, match=r"use backend=Scheduler\(address\)"),
        pytest.raises(GenialError, match="own workers"),
    ):
        simulate(10, 2, workers=2, **old)
    with (
        pytest.warns(DeprecationWarning, match="address="),
        pytest.raises(GenialError, match="pass backend='dask'"),
    ):
        simulate(10, 2, **{"address": "tcp://127.0.0.1:8786"})


def no_client(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a distributed.Client is made (the probe should have answered)."""

    def called(self: Any, *args: Any, **kwargs: Any) -> None:
        pytest.fail("distributed.Client was made for an address the probe refuses")

    monkeypatch.setattr(distributed.Client, "__init__", called)


def a_refused_address() -> str:
    """A tcp:// address of a port nothing listens at (bound, never listening: refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{s.getsockname()[1]}"


def test_no_scheduler_at_the_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """A refused address fails at the socket probe, before any distributed.Client (which retried
    until its timeout: 30 s at the API, 10 s on the command line), from simulate, analyse and
    connect alike, plain host:port too."""
    from genial.board.openings import analyse

    no_client(monkeypatch)
    address = a_refused_address()
    plain = address.removeprefix("tcp://")
    for call, where in (
        (lambda: simulate(10, 2, seed=1, backend=Scheduler(address)), address),
        (lambda: analyse(2, games_per_opening=1, seed=1, backend="dask", address=address), address),
        (lambda: BACKENDS.connect(address), address),
        (lambda: BACKENDS.connect(plain, 5), plain),
        (lambda: list(BACKENDS.Dask(address).map(str, [1])), address),
    ):
        started = time.monotonic()
        with pytest.raises(GenialError, match=rf"nothing listens at '{re.escape(where)}' \("):
            call()
        assert time.monotonic() - started < BACKENDS.CONNECT_TIMEOUT  # (a generous guard)


@pytest.mark.parametrize(
    "address",
    ["tcp://127.0.0.1:99999", "tcp://127.0.0.1:0", "127.0.0.1:65536", "tcp://[::1]:70000",
     "tcp://127.0.0.1:" + "9" * 10**6, "tcp://127.0.0.1:" + "0" * 10**5],
)
def test_a_port_outside_1_to_65535_is_refused(
    address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A port outside 1..65535 is a GenialError naming the address, before any connection."""
    no_client(monkeypatch)
    monkeypatch.setattr(BACKENDS, "_probe", lambda *a: pytest.fail("probed"), raising=False)
    with pytest.raises(GenialError, match=r"the port must be 1\.\.65535") as caught:
        BACKENDS.connect(address, 5)
    assert excerpt(address) in str(caught.value)
    with pytest.raises(GenialError, match=r"the port must be 1\.\.65535"):
        simulate(10, 2, seed=1, backend=Scheduler(address))


def test_the_api_and_the_command_line_share_one_connect_timeout() -> None:
    """connect(address), simulate(..., backend=Scheduler(address)) and the command line wait the
    same 10 s by default: genial.batch.backends.CONNECT_TIMEOUT, which cluster.md states."""
    import inspect
    from pathlib import Path

    from genial import cli

    assert cli.CONNECT_TIMEOUT is BACKENDS.CONNECT_TIMEOUT == 10
    assert f"(default: {BACKENDS.CONNECT_TIMEOUT:g})" in cli.build_parser().format_help() or any(
        f"(default: {BACKENDS.CONNECT_TIMEOUT:g})" in " ".join(sub.format_help().split())
        for sub in cli.build_parser()._subparsers._group_actions[0].choices.values()  # type: ignore[union-attr]
    )
    assert inspect.signature(BACKENDS.connect).parameters["timeout"].default is None
    assert inspect.signature(BACKENDS.Dask).parameters["connect_timeout"].default is None
    docs = " ".join((Path(__file__).parents[1] / "docs" / "cluster.md").read_text().split())
    assert "both wait 10 seconds for the scheduler" in docs and "30 s" not in docs


BAD_ADDRESSES = [
    pytest.param("garbage://x", "unknown address scheme 'garbage'", id="unknown-scheme"),
    pytest.param("tcp://127.0.0.1:port", "invalid literal", id="no-port-number"),
    pytest.param("tcp://", "missing port", id="no-host"),
    pytest.param("tls://127.0.0.1:1", "TLS", id="tls-unconfigured"),
]


@pytest.mark.parametrize(("address", "why"), BAD_ADDRESSES)
def test_an_address_dask_cannot_use_is_a_genial_error(address: str, why: str) -> None:
    """distributed's ValueError or TypeError for an address it cannot use becomes a GenialError
    naming the address and saying why, from simulate, analyse and connect alike."""
    from genial.board.openings import analyse

    expected = rf"address '{address}': Dask cannot connect there \(.*{why}"
    for call in (
        lambda: simulate(10, 2, seed=1, backend=Scheduler(address)),
        lambda: analyse(2, games_per_opening=1, seed=1, backend="dask", address=address),
        lambda: BACKENDS.connect(address, timeout=2),
    ):
        with pytest.raises(GenialError, match=expected):
            call()


@pytest.mark.parametrize(
    "address",
    [pytest.param(a, id=i) for a, i in [("garbage://x", "bad"), ("tcp://127.0.0.1:1", "dead")]],
)
def test_a_failed_connection_closes_its_client(
    address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The client of a failed connection is closed before the error propagates: left open (the
    unknown scheme left it "connecting"), it closed at exit on a stopped event loop, a
    minute's hang and an "Exception ignored" traceback. (The probe is passed here, so that the
    client meets the dead port.)"""
    monkeypatch.setattr(BACKENDS, "_probe", lambda *a: None)
    made: list[Any] = []
    init = distributed.Client.__init__

    def spy(self: Any, *args: Any, **kwargs: Any) -> None:
        made.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(distributed.Client, "__init__", spy)
    with pytest.raises(GenialError, match=address):
        list(BACKENDS.Dask(address, connect_timeout=1).map(str, [1]))
    assert len(made) == 1 and made[0].status == "closed"


def test_the_connect_timeout_is_the_clients(monkeypatch: pytest.MonkeyPatch) -> None:
    """Dask(connect_timeout=s) and connect(address, s) wait s seconds for the scheduler (the
    client's own timeout, after the probe; without one, CONNECT_TIMEOUT). The probe is passed
    here, so that the client meets the refused port and times out."""
    waited: list[float] = []
    init = distributed.Client.__init__

    def spy(self: Any, *args: Any, **kwargs: Any) -> None:
        waited.append(kwargs["timeout"])
        init(self, *args, **kwargs)

    monkeypatch.setattr(BACKENDS, "_probe", lambda *a: None)
    monkeypatch.setattr(distributed.Client, "__init__", spy)
    address = a_refused_address()
    with pytest.raises(GenialError, match=r"no Dask scheduler answers .* after 0\.5 s"):
        list(BACKENDS.Dask(address, connect_timeout=0.5).map(str, [1]))
    with pytest.raises(GenialError, match=rf"'{address}' .* after 0\.5 s"):
        BACKENDS.connect(address, 0.5)
    assert waited == [0.5, 0.5]

    def refused(self: Any, *args: Any, **kwargs: Any) -> None:
        waited.append(kwargs["timeout"])
        raise OSError("refused")

    monkeypatch.setattr(distributed.Client, "__init__", refused)
    with pytest.raises(GenialError, match="no Dask scheduler answers"):
        BACKENDS.connect(address)
    with pytest.raises(GenialError, match="no Dask scheduler answers"):
        list(BACKENDS.Dask(address).map(str, [1]))
    assert waited[2:] == [BACKENDS.CONNECT_TIMEOUT] * 2


def test_a_probe_that_times_out_names_the_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """A host that never answers the probe (a dropped SYN) is a GenialError after the timeout,
    without a client."""
    no_client(monkeypatch)

    def silent(*args: Any, **kwargs: Any) -> Any:
        raise TimeoutError("timed out")

    monkeypatch.setattr(BACKENDS.socket, "create_connection", silent)
    with pytest.raises(
        GenialError, match=r"no Dask scheduler answers at 'tcp://10\.255\.255\.1:8786' .* 0\.5 s"
    ):
        BACKENDS.connect("tcp://10.255.255.1:8786", 0.5)


@pytest.mark.parametrize("timeout", [0, -1.0, float("nan"), float("inf"), True, "2", 10**6])
def test_bad_connect_timeouts_are_refused(timeout: Any) -> None:
    with pytest.raises(GenialError, match="connect timeout must be a number of seconds"):
        BACKENDS.connect("tcp://127.0.0.1:1", timeout)


def test_the_command_line_runs_on_the_scheduler_and_closes_its_client(
    cluster: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """genial simulate --backend dask --address URL connects within --connect-timeout (10 s by
    default), plays the games the threads play, and closes the client it opened."""
    from genial.cli import CONNECT_TIMEOUT, main

    opened: list[tuple[Any, Any]] = []
    connect = BACKENDS.connect

    def spy(address: Any, timeout: Any = None) -> Any:
        client = connect(address, timeout)
        opened.append((client, timeout))
        return client

    monkeypatch.setattr(BACKENDS, "connect", spy)
    argv = ["simulate", "--games", "300", "--seed", "4", "--no-progress"]
    address = cluster.scheduler_address
    def summary() -> str:  # (without the speed)
        return re.sub(r"[0-9,]+ games/s \([0-9.]+ s\)", "", capsys.readouterr().out)

    assert main(argv) == 0
    local = summary()
    assert main([*argv, "--backend", "dask", "--address", address]) == 0
    assert summary() == local
    assert main([*argv, "--backend", "dask", "--address", address, "--connect-timeout", "2.5"]) == 0
    assert [t for _, t in opened] == [CONNECT_TIMEOUT, 2.5] and CONNECT_TIMEOUT == 10
    assert all(client.status == "closed" for client, _ in opened)


def test_workers_of_another_genial_version_are_refused(
    cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(BACKENDS, "__version__", "0.0.1")
    with pytest.raises(GenialError, match=r"run genial .* this process 0\.0\.1"):
        simulate(10, 2, seed=1, backend=Scheduler(cluster.scheduler_address))


def test_without_distributed_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"genial-sim\[dask\]"):
        simulate(10, 2, seed=1, backend="dask")

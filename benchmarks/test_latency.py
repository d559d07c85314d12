"""How quickly a command stops (pytest-benchmark; real processes, ``python -m genial``):

- **Ctrl-C**: SIGINT to a long ``genial simulate`` (greedy, one worker or every core) or
  ``genial openings`` (two workers) once its progress bar is up, until the process has exited
  with status 130: the chunks already running finish (1,024 games each), nothing else does;
- **an unreachable Dask scheduler**: ``genial simulate --backend dask --address ...`` from the
  start of the process to its exit with status 2, for an address Dask cannot use
  (``garbage://x``: at once) and for a port nobody listens on (the connect timeout, 2 s here).

The tests (tests/test_cli.py) bound these only with a generous guard, for loaded machines, and
test the mechanism without a clock; the figures are measured here:
``python -m pytest benchmarks/test_latency.py``.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.processes import genial_process

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT is a POSIX signal")

LONG = {
    "simulate-1-worker": ["simulate", "--games", "1e8", "--policy", "greedy", "--workers", "1"],
    "simulate-all-cores": ["simulate", "--games", "1e8", "--policy", "greedy", "--workers", "-1"],
    "openings-2-workers": ["openings", "--games-per-opening", "100000", "--workers", "2"],
}


def _started(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    """The command, running: its progress bar has appeared on stderr."""
    proc = genial_process([*argv, "--progress"], cwd, text=False)
    assert proc.stderr is not None
    ready, _, _ = select.select([proc.stderr], [], [], 60)
    if not ready or not os.read(proc.stderr.fileno(), 4096):
        proc.kill()
        proc.communicate()
        pytest.fail(f"genial {argv[0]}: no progress bar within 60 s")
    return proc


def _finish(proc: subprocess.Popen[Any], code: int) -> None:
    proc.communicate(timeout=120)
    assert proc.returncode == code


@pytest.mark.parametrize("name", sorted(LONG))
def test_ctrl_c_latency(benchmark: Any, name: str, tmp_path: Path) -> None:
    procs: list[subprocess.Popen[Any]] = []

    def start() -> tuple[tuple[Any, ...], dict[str, Any]]:
        procs.append(_started(LONG[name], tmp_path))
        return (procs[-1],), {}

    def interrupt(proc: subprocess.Popen[Any]) -> None:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)

    try:
        benchmark.pedantic(interrupt, setup=start, rounds=5, iterations=1)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.communicate()
    assert all(proc.returncode == 130 for proc in procs)
    benchmark.extra_info.update(command=" ".join(LONG[name]), exit_status=130)


@pytest.mark.parametrize(("address", "timeout"), [("garbage://x", "2"), ("tcp://127.0.0.1:1", "2")])
def test_unreachable_scheduler_exit(
    benchmark: Any, address: str, timeout: str, tmp_path: Path
) -> None:
    pytest.importorskip("distributed")
    argv = ["simulate", "--games", "100", "--backend", "dask", "--address", address]

    def run() -> None:
        _finish(genial_process([*argv, "--connect-timeout", timeout], tmp_path), 2)

    benchmark.pedantic(run, rounds=3, iterations=1)
    benchmark.extra_info.update(command=" ".join(argv), connect_timeout_s=float(timeout))

"""``python -m genial ...`` in a child process, importing the genial this process imported
(whatever the child's working directory: a relative ``PYTHONPATH=src`` would not reach it from
there, and the child would run another installed copy)."""

from __future__ import annotations

import os
import signal
import site
import subprocess
import sys
from pathlib import Path
from typing import Any

import genial


def genial_env() -> dict[str, str]:
    """This environment, with the directory holding the imported genial first on the path
    (unless it is a site-packages directory, on the path anyway)."""
    root = str(Path(genial.__file__).resolve().parents[1])
    sites = [*site.getsitepackages(), site.getusersitepackages()]
    installed = {str(Path(p).resolve()) for p in sites}
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if root not in installed:
        paths.insert(0, root)
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def _interruptible() -> None:  # pragma: no cover - runs in the child, before exec
    """Ctrl-C's default action in the child: a shell that starts a job in the background (as a
    CI runner may start the test run) ignores SIGINT for it, and a child inherits that, so
    Python would install no KeyboardInterrupt handler and a test's SIGINT would do nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def genial_process(argv: list[str], cwd: Path, *, text: bool = True) -> subprocess.Popen[Any]:
    """``python -m genial ARGV`` in ``cwd``, its stdout and stderr piped (as text, or bytes
    with ``text=False``)."""
    return subprocess.Popen(
        [sys.executable, "-m", "genial", *argv],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=text,
        env=genial_env(),
        preexec_fn=_interruptible if os.name == "posix" else None,
    )

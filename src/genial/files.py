"""Writing files so that a reader never sees half of one."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["write_atomic"]


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file beside it, flushed
    to disk and renamed over ``path``: a reader sees the old file or the new one, never a part.

    >>> import tempfile
    >>> target = Path(tempfile.mkdtemp()) / "note.txt"
    >>> write_atomic(target, "done")
    >>> target.read_text()
    'done'
    """
    target = Path(os.fspath(path))
    temp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        with open(temp, "wb") as out:
            out.write(raw)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)

"""Files in and out: one atomic writer and one guarded reader for every format genial writes.

Writing: :func:`write_atomic` (bytes or text) and :func:`atomic_path` (a writer that needs a
path: Parquet, a plot) write a unique temporary file in the target's directory
(``tempfile.mkstemp``), ``fsync`` it, rename it over the target (``os.replace``) and ``fsync``
the directory. Two writers racing on one path (threads or processes) each write a whole file of
their own and the last rename wins: a reader sees one complete version, never a mixture.
:class:`DirectoryLock` is the one lock of a directory that is one unit (a dataset, a book, a
race's checkpoint): a second writer is refused while the first writes.

Reading: whatever genial reads back from disk is read as untrusted input (``SECURITY.md``).
:func:`read_bounded` reads a regular file only (a FIFO, device or directory is refused without
blocking), at most a stated number of bytes; :func:`load_json` refuses nesting deeper than
:data:`MAX_JSON_DEPTH` (checked in linear time before parsing), ``NaN`` and ``Infinity``,
numbers of more than :data:`MAX_NUMBER_DIGITS` digits, and text that is not UTF-8;
:func:`check_zip` bounds what an archive inflates to before it is inflated. Every failure is the
caller's error class (a :class:`~genial.errors.GenialError`, a ``ValueError``) naming the file,
raised within a bounded time and memory.
"""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import socket
import stat
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import GenialError, excerpt

try:  # (not on Windows: there the lock file made with O_EXCL is the lock)
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_NAME_BYTES",
    "MAX_NUMBER_DIGITS",
    "MAX_PATH_BYTES",
    "DirectoryLock",
    "atomic_path",
    "check_zip",
    "load_json",
    "path_problem",
    "read_bounded",
    "read_json",
    "temporary_prefix",
    "write_atomic",
]

MAX_JSON_DEPTH = 64
"""The deepest nesting of arrays and objects genial reads in a JSON file (its own files nest
at most six deep)."""

MAX_NUMBER_DIGITS = 400
"""The most digits of a number genial reads in a JSON file (a double needs at most 17)."""

MAX_NAME_BYTES = 255
"""The most bytes of one name of a path (the file systems' usual limit)."""

MAX_PATH_BYTES = 4000
"""The most bytes of a whole path genial writes to (the usual limit, 4,096, less room for the
names of the files in a directory)."""


def path_problem(text: str) -> str | None:
    """What makes ``text`` a path no file system takes (a NUL byte, text that cannot be
    encoded for the file system, a name over :data:`MAX_NAME_BYTES` bytes, the whole over
    :data:`MAX_PATH_BYTES`), or None: checked before a long run that would write there.

    >>> path_problem("runs/table.parquet") is None
    True
    >>> path_problem("runs/" + "x" * 300)
    'a name in the path is too long (300 bytes, at most 255)'
    """
    if "\0" in text:
        return "the path holds a NUL byte"
    try:
        raw = os.fsencode(text)
    except UnicodeError:
        return "the path cannot be encoded for the file system"
    if len(raw) > MAX_PATH_BYTES:
        return f"the path is too long ({len(raw):,} bytes, at most {MAX_PATH_BYTES:,})"
    names = [raw]
    for separator in {b"/", os.sep.encode(), (os.altsep or "/").encode()}:
        names = [part for name in names for part in name.split(separator)]
    longest = max(len(name) for name in names)
    if longest > MAX_NAME_BYTES:
        return f"a name in the path is too long ({longest:,} bytes, at most {MAX_NAME_BYTES})"
    return None


# -- writing ---------------------------------------------------------------------------------


def _fsync_directory(directory: str) -> None:
    """Make a rename in ``directory`` durable (where the system allows opening a directory)."""
    with contextlib.suppress(OSError, AttributeError):
        fd = os.open(directory or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _file_mode(target: str) -> int:
    """The permissions of the file being replaced, else the usual ones (0o666 less the umask)."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def temporary_prefix(name: str) -> str:
    """How the temporary file of a write to file ``name`` starts: a dot, at most 80 bytes of
    the name (cut on a character boundary: a name of 255 bytes has room for the rest), a dot.

    >>> temporary_prefix("table.parquet"), len(temporary_prefix("é" * 120).encode())
    ('.table.parquet.', 82)
    """
    cut = name.encode("utf-8", "surrogateescape")[:80].decode("utf-8", "ignore")
    return f".{cut}."


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], suffix: str = "") -> Iterator[str]:
    """A unique temporary path in ``path``'s directory to write; when the block ends without an
    exception it is flushed to disk (``fsync``) and renamed over ``path`` (the directory flushed
    too), else removed. ``suffix`` ends the temporary name (a writer that picks its format by
    extension).

    >>> target = Path(tempfile.mkdtemp()) / "plot.txt"
    >>> with atomic_path(target, ".txt") as temporary:
    ...     _ = Path(temporary).write_text("drawn")
    >>> target.read_text()
    'drawn'
    """
    target = os.fspath(path)
    directory, name = os.path.split(target)
    fd, temporary = tempfile.mkstemp(
        dir=directory or None, prefix=temporary_prefix(name), suffix=suffix
    )
    os.close(fd)
    try:
        yield temporary
        with open(temporary, "r+b") as handle:
            os.fsync(handle.fileno())
        os.chmod(temporary, _file_mode(target))
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_directory(directory)


def write_atomic(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through a unique temporary file beside it,
    flushed to disk and renamed over ``path``: a reader sees the old file or the new one, never
    a part, and of writers racing on one path the last rename wins whole.

    >>> target = Path(tempfile.mkdtemp()) / "note.txt"
    >>> write_atomic(target, "done")
    >>> target.read_text()
    'done'
    """
    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    with atomic_path(path) as temporary, open(temporary, "wb") as out:
        out.write(raw)
        out.flush()


class DirectoryLock:
    """The writer's lock of a directory that is one unit (a dataset, a book, a checkpoint):
    file ``name`` in it, held with ``flock`` while one writer writes (the system releases it
    when the process ends, however it ends). The file names its writer (pid and host) for the
    message refusing a second. Without ``flock`` (Windows) the file alone, made with
    ``O_EXCL``, is the lock. ``error`` is the class raised for a busy directory.

    >>> where = Path(tempfile.mkdtemp())
    >>> with DirectoryLock(where):
    ...     DirectoryLock(where).acquire()
    Traceback (most recent call last):
    ...
    genial.errors.GenialError: another writer (pid ...) is writing to ...: wait for it to finish ...
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        name: str = "_genial.lock",
        error: type[GenialError] = GenialError,
        what: str = "",
    ) -> None:
        self.file = Path(os.fspath(path)) / name
        self.error = error
        self.what = what
        self.fd: int | None = None

    def __enter__(self) -> DirectoryLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def acquire(self) -> None:
        """Take the lock, or raise ``error`` naming the writer that holds it."""
        holder = json.dumps({"pid": os.getpid(), "host": socket.gethostname()}).encode()
        for _ in range(100):  # (retried only if a writer removed the file meanwhile)
            flags = os.O_RDWR | os.O_CREAT | (os.O_EXCL if fcntl is None else 0)
            try:
                fd = os.open(self.file, flags, 0o644)
            except FileExistsError:  # (without flock)
                raise self._busy(None) from None
            try:
                if fcntl is not None:
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except OSError as error:
                        if error.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                            raise
                        raise self._busy(fd) from None
                    try:  # the file we locked must be the one the directory holds
                        same = os.stat(self.file).st_ino == os.fstat(fd).st_ino
                    except FileNotFoundError:
                        same = False
                    if not same:
                        os.close(fd)
                        continue
                os.ftruncate(fd, 0)
                os.write(fd, holder)
            except BaseException:
                os.close(fd)
                raise
            self.fd = fd
            return
        raise self.error(f"{self.file}: cannot be locked (it keeps changing)")  # pragma: no cover

    def _busy(self, fd: int | None) -> GenialError:
        try:  # (what the lock file says of its writer, read as user input)
            if fd is None:
                with open(self.file, "rb") as file:
                    raw = file.read(1024)
            else:
                raw = os.pread(fd, 1024, 0)
            info = json.loads(raw)
            who = f"pid {int(info['pid'])} on {excerpt(str(info['host']))}"
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            who = "another process"
        advice = (
            "wait for it to finish or stop it"
            if fcntl is not None
            else f"if no writer runs (one crashed), remove {self.file.name}"
        )
        return self.error(
            f"{self.what}another writer ({who}) is writing to "
            f"{excerpt(str(self.file.parent), 160)} ({self.file.name}): {advice}"
        )

    def release(self) -> None:
        """Give the lock back (the file removed if it is still ours)."""
        if self.fd is None:
            return
        try:
            if os.stat(self.file).st_ino == os.fstat(self.fd).st_ino:
                os.unlink(self.file)
        except OSError:
            pass
        finally:
            os.close(self.fd)
            self.fd = None


# -- reading ---------------------------------------------------------------------------------


def _shown(path: object) -> str:
    """A path in a message (cut if absurdly long)."""
    try:
        text = os.fsdecode(os.fspath(path))  # type: ignore[call-overload]
    except TypeError:
        return excerpt(path)
    return text if len(text) <= 200 else text[:197] + "..."


def read_bounded(
    path: str | os.PathLike[str],
    limit: int,
    where: str | None = None,
    error: type[GenialError] = GenialError,
) -> bytes:
    """At most ``limit`` bytes of a regular file, refused (``error``) if it holds more. The file
    opened is the one checked (``fstat`` of the open descriptor: a file swapped in after a
    check is still refused), and opening never blocks (a FIFO in place of a file is refused,
    not waited on). ``where`` names the file in messages (default: its path).

    >>> read_bounded("/dev/null", 10)
    Traceback (most recent call last):
    ...
    genial.errors.GenialError: /dev/null: not a regular file
    """
    shown = where if where is not None else _shown(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise error(f"{shown}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    except (TypeError, ValueError) as exc:  # (a path with a NUL, not a path)
        raise error(f"{shown}: not a file name ({exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{shown}: not a regular file")
        if info.st_size > limit:
            raise error(f"{shown}: {info.st_size:,} bytes, more than the {limit:,} bytes allowed")
        with os.fdopen(fd, "rb", closefd=False) as file:
            data = file.read(limit + 1)
    except OSError as exc:
        raise error(f"{shown}: cannot be read ({exc.strerror or type(exc).__name__})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise error(f"{shown}: more than the {limit:,} bytes allowed")
    return data


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number of JSON")


def _parse_float(text: str) -> float:
    if len(text) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of over {MAX_NUMBER_DIGITS} digits")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{excerpt(text, 20)} is too large for a double")
    return value


def _parse_int(text: str) -> int:
    if len(text) > MAX_NUMBER_DIGITS:
        raise ValueError(f"a number of over {MAX_NUMBER_DIGITS} digits")
    return int(text)


def _depth(value: Any, limit: int) -> bool:
    """Whether ``value`` nests at most ``limit`` deep (without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, (dict, list)):
            if level > limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return True


def load_json(
    data: bytes | str,
    where: str,
    error: type[GenialError] = GenialError,
    depth: int = MAX_JSON_DEPTH,
) -> Any:
    """JSON read as untrusted input, in time linear in its length: nesting at most ``depth``
    deep, no ``NaN`` or ``Infinity`` (nor a number too large for a double), no number of over
    :data:`MAX_NUMBER_DIGITS` digits, UTF-8 only; ``error`` naming ``where`` otherwise.

    >>> load_json(b'{"a": [1, 2.5]}', "x.json")
    {'a': [1, 2.5]}
    >>> load_json(b"[" * 100 + b"]" * 100, "x.json")
    Traceback (most recent call last):
    ...
    genial.errors.GenialError: x.json: cannot be read as JSON (nested deeper than 64)
    >>> load_json(b'{"a": NaN}', "x.json")
    Traceback (most recent call last):
    ...
    genial.errors.GenialError: x.json: cannot be read as JSON (NaN is not a number of JSON)
    """
    if isinstance(data, str):
        text = data
    else:
        try:
            text = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            raise error(f"{where}: cannot be read as JSON (not UTF-8 text)") from None
    try:
        value = json.loads(
            text,
            parse_constant=_refuse_constant,
            parse_float=_parse_float,
            parse_int=_parse_int,
        )
    except RecursionError:
        raise error(f"{where}: cannot be read as JSON (nested deeper than {depth})") from None
    except ValueError as exc:  # (JSONDecodeError is a ValueError)
        why = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise error(f"{where}: cannot be read as JSON ({why[:80]})") from None
    if not _depth(value, depth):
        raise error(f"{where}: cannot be read as JSON (nested deeper than {depth})")
    return value


def read_json(
    path: str | os.PathLike[str],
    limit: int,
    where: str | None = None,
    error: type[GenialError] = GenialError,
) -> Any:
    """:func:`load_json` of :func:`read_bounded`: a JSON file read as untrusted input."""
    shown = where if where is not None else _shown(path)
    return load_json(read_bounded(path, limit, shown, error), shown, error)


def check_zip(
    raw: bytes,
    where: str,
    error: type[GenialError] = GenialError,
    *,
    limit: int,
    ratio: int = 200,
) -> None:
    """Refuse a zip archive (an ``.npz``) that would inflate to more than ``limit`` bytes or
    more than ``ratio`` times its own size, before anything is inflated (``zipfile`` never
    gives more than a member's stated size, so the stated sizes bound the work).

    >>> import io
    >>> import numpy as np
    >>> buffer = io.BytesIO()
    >>> np.savez_compressed(buffer, a=np.zeros(10**6, np.uint8))
    >>> check_zip(buffer.getvalue(), "step.npz", limit=10**5)
    Traceback (most recent call last):
    ...
    genial.errors.GenialError: step.npz: inflates to 1,000,... bytes, more than the 100,000 ...
    """
    import io

    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError, EOFError):
        raise error(f"{where}: not a readable archive") from None
    if len(members) > 1024:
        raise error(f"{where}: {len(members):,} members in the archive, more than 1,024")
    total = sum(max(m.file_size, 0) for m in members)
    if total > limit:
        raise error(f"{where}: inflates to {total:,} bytes, more than the {limit:,} it may hold")
    if total > ratio * max(len(raw), 1) and total > 1 << 20:
        raise error(f"{where}: inflates {total // max(len(raw), 1):,} times its size: refused")

"""Progress bars for long runs: tqdm when installed (extra ``genial-sim[progress]``), else a plain
line on stderr."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TextIO

__all__ = ["one_bar", "progress_bar", "progress_lines"]


@dataclass(frozen=True)
class _Lines:
    label: str
    interval: float
    clock: Callable[[], float]
    stream: TextIO | None


_LINES: ContextVar[_Lines | None] = ContextVar("genial_progress_lines", default=None)
_SHARED: ContextVar[Callable[[int], None] | None] = ContextVar("genial_one_bar", default=None)


@contextlib.contextmanager
def progress_lines(
    label: str,
    *,
    interval: float = 5.0,
    clock: Callable[[], float] = time.monotonic,
    stream: TextIO | None = None,
) -> Iterator[None]:
    """Within it, the bars ``progress_bar`` makes (in this thread) are plain lines instead, for
    a log rather than a terminal: ``label: 120/600 playouts, 12 s`` on ``stream`` (default:
    stderr), one at most every ``interval`` seconds of ``clock`` (the command line's, when
    stderr is not a terminal)."""
    token = _LINES.set(_Lines(label, float(interval), clock, stream))
    try:
        yield
    finally:
        _LINES.reset(token)


def _line_bar(total: int, unit: str, lines: _Lines) -> Callable[[int], None]:
    start = lines.clock()
    last = [start]
    done = [0]

    def line(k: int) -> None:
        done[0] += k
        now = lines.clock()
        if now - last[0] < lines.interval:
            return
        last[0] = now
        stream = lines.stream if lines.stream is not None else sys.stderr
        with contextlib.suppress(OSError, ValueError):
            stream.write(f"{lines.label}: {done[0]:,}/{total:,} {unit}, {now - start:,.0f} s\n")
            stream.flush()

    return line


def progress_bar(total: int, enabled: bool, unit: str = "games") -> Callable[[int], None] | None:
    """A callable that advances a bar by ``k``, or ``None`` when not ``enabled`` (within
    ``progress_lines``, plain lines instead of a bar; within ``one_bar``, that bar)."""
    if not enabled:
        return None
    shared = _SHARED.get()
    if shared is not None:
        return shared
    lines = _LINES.get()
    if lines is not None:
        return _line_bar(total, unit, lines)
    try:
        from tqdm.auto import tqdm
    except ImportError:
        start = time.perf_counter()
        done = [0]

        def text_bar(k: int) -> None:
            done[0] += k
            frac = done[0] / total if total else 1.0
            rate = done[0] / max(time.perf_counter() - start, 1e-9)
            bar = "#" * int(30 * frac)
            sys.stderr.write(f"\r[{bar:<30}] {done[0]:,}/{total:,} {unit}, {rate:,.0f}/s")
            if done[0] >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()

        text_bar.close = lambda: done[0] < total and sys.stderr.write("\n")  # type: ignore[attr-defined]
        return text_bar
    bar = tqdm(total=total, unit=unit, unit_scale=True, smoothing=0.05)

    def update(k: int) -> None:
        bar.update(k)
        if bar.n >= total:
            bar.close()

    update.close = bar.close  # type: ignore[attr-defined]
    update.write = tqdm.write  # type: ignore[attr-defined]
    return update


@contextlib.contextmanager
def one_bar(total: int, enabled: bool, unit: str = "games") -> Iterator[Callable[[str], None]]:
    """Within it, the bars ``progress_bar`` makes in this thread are all one bar of ``total``
    (a run of many calls, such as the adaptive opening analysis's steps, shows one bar of the
    whole instead of one a step). Yields ``say(text)``, which shows ``text`` (a round, say) on
    the bar or, for plain lines and the text bar, on a line of its own."""
    bar = progress_bar(total, enabled, unit)
    if bar is None:
        yield lambda text: None
        return
    token = _SHARED.set(bar)
    write = getattr(bar, "write", None)  # tqdm's, which keeps the bar below the text

    def say(text: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            if write is not None:
                write(text, file=sys.stderr)
            else:
                sys.stderr.write(f"{text}\n")
                sys.stderr.flush()

    try:
        yield say
    finally:
        _SHARED.reset(token)
        close = getattr(bar, "close", None)  # a bar the run ended short of its total
        if close is not None:
            with contextlib.suppress(OSError, ValueError):
                close()

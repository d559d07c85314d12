"""Progress bars for long runs: tqdm when installed (extra ``genial-sim[progress]``), else a plain
line on stderr."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

__all__ = ["progress_bar"]


def progress_bar(total: int, enabled: bool, unit: str = "games") -> Callable[[int], None] | None:
    """A callable that advances a bar by ``k``, or ``None`` when not ``enabled``."""
    if not enabled:
        return None
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

        return text_bar
    bar = tqdm(total=total, unit=unit, unit_scale=True, smoothing=0.05)

    def update(k: int) -> None:
        bar.update(k)
        if bar.n >= total:
            bar.close()

    return update

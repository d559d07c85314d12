"""Running batches: the pure chunk function and ``simulate``.

Chunk ``c`` of a batch draws all its randomness from ``PCG64(child_seed(seed, c))``, so results
depend only on the spec and never on the number of workers or the backend. ``run_chunk`` is pure
(it returns its arrays), so threads, processes and clusters are only backends of one ``map``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from ..errors import GenialError, excerpt
from ..registry import entry
from ..seeds import as_seed_sequence, stream
from .backends import backend_for, worker_count
from .progress import progress_bar
from .results import Playouts
from .spec import CHUNK, BatchSpec, Chunk, chunks

__all__ = ["run", "run_chunk", "simulate"]

MAX_GAMES = 2**40


def run_chunk(spec: BatchSpec, chunk: int, size: int) -> Chunk:
    """Play the first ``size`` games of chunk ``chunk`` of ``spec`` and return their rows."""
    adapter = entry(spec.game).adapter
    rows, logs = adapter.play(spec, stream(spec.chunk_seed(chunk)), size)
    return Chunk(chunk, rows, logs)


def run(spec: BatchSpec, n: int, *, workers: int = 1, progress: bool = False) -> Playouts:
    """Play ``n`` games of ``spec`` on the backend for ``workers`` and gather the results."""
    adapter = entry(spec.game).adapter
    parts = chunks(n)
    rows = np.zeros(n, dtype=adapter.row_dtype)
    logs = np.zeros(n, dtype=adapter.log_dtype) if spec.records else None
    bar = progress_bar(n, progress)
    began = time.perf_counter()
    backend = backend_for(workers, len(parts))
    for done in backend.map(lambda part: run_chunk(spec, *part), parts):
        lo = done.index * CHUNK
        hi = lo + len(done.rows)
        rows[lo:hi] = done.rows
        if logs is not None and done.logs is not None:
            logs[lo:hi] = done.logs
        if bar:
            bar(hi - lo)
    if bar and n == 0:
        bar(0)
    seconds = time.perf_counter() - began
    return Playouts(spec, rows, np.arange(n, dtype=np.int64), logs, seconds=seconds)


def simulate(
    n_games: int,
    players: int | str | Any = 2,
    *,
    policy: str | Sequence[str] = "random",
    seed: Any = None,
    workers: int = 1,
    start: Any = None,
    openings: Sequence[Any] = (),
    records: bool = False,
    progress: bool = False,
    epsilon: float = 0.1,
    teams: bool = False,
    tournament: bool = False,
    tiles: Literal["standard", "travel"] = "standard",
    rules: Any = None,
    game: str = "board",
) -> Playouts:
    """Play ``n_games`` whole games inside the kernel and return their results.

    Parameters
    ----------
    n_games : int
        Games to play (>= 0).
    players : int, str or Rules
        2, 3 or 4; 1 for the solo game; or the rules as a token (``"4t"``) or a ``Rules``.
    policy : str or sequence of str
        ``"random"``, ``"greedy"``, ``"epsilon-greedy"`` or ``"epsilon-greedy:0.2"`` (defined in
        ``genial.policies``); one name for every seat, or one per seat.
    seed : anything ``numpy.random.default_rng`` accepts
        The root of the run's randomness; the same seed gives identical arrays whatever
        ``workers`` is.
    workers : int
        Threads running kernel chunks without the GIL; ``-1`` for all cores.
    start : Game or position text, optional
        Continue every game from this position (racks as they are, the bag's draws random).
    openings : sequence of moves, optional
        First placements every game makes: ``openings[i]`` is seat ``i``'s first placement. Its
        tile is put on the seat's rack before the deal (the rest of the rack is random). Used
        by ``genial.openings``; not with ``start``.
    records : bool
        Keep every game's log, so that ``Playouts.records`` gives its record (about 1.8 KB per
        game in memory; JSON only when asked).
    progress : bool
        Show a progress bar (tqdm if installed, else a plain one on stderr).
    epsilon : float
        Epsilon of ``"epsilon-greedy"`` seats without a parameter of their own.
    teams, tournament, tiles, rules
        The variant, as for ``Game``. In the team game ``winner`` holds the winning team (0:
        seats 0 and 2, 1: seats 1 and 3).
    game : str
        The registry name of the game (``genial.games()``).

    Examples
    --------
    >>> runs = simulate(3000, players=3, policy=("greedy", "random", "random"), seed=7)
    >>> runs.summary().win_rate[0] > 0.8
    np.True_
    >>> simulate(10, rules="4t", seed=1).rules
    Rules(players=4, teams=True)
    """
    if isinstance(n_games, (bool, np.bool_)) or not isinstance(n_games, (int, np.integer)):
        raise GenialError(f"n_games must be an int, got {excerpt(n_games)}")
    if n_games < 0:
        raise GenialError(f"n_games must be >= 0, got {n_games}")
    if n_games > MAX_GAMES:
        raise GenialError(f"n_games must be at most {MAX_GAMES:,}, got {n_games:,}")
    game_entry = entry(game)
    game_rules = game_entry.rules(
        players, teams=teams, tournament=tournament, tiles=tiles, rules=rules
    )
    n_workers = worker_count(workers)
    checked = game_entry.adapter.check(
        game_rules, policy=policy, epsilon=epsilon, start=start, openings=openings
    )
    spec = BatchSpec(
        game_entry.name, game_rules, seed=as_seed_sequence(seed), records=bool(records), **checked
    )
    return run(spec, int(n_games), workers=n_workers, progress=progress)

"""Batches of whole games at C speed: ``simulate`` and its results, ``Playouts``.

Games are played inside the kernel without the GIL, in chunks of ``CHUNK`` games. Chunk ``c`` draws
all its randomness from ``numpy.random.PCG64(SeedSequence(entropy, spawn_key=(*key, c)))``, the
``c``-th child of the run's seed sequence, so the results depend only on the seed and never on the
number of workers. Workers are threads: each runs kernel chunks with the GIL released, so they use
every core without the cost of processes (no pickling, no start-up, shared output arrays).

>>> runs = simulate(2000, players=2, policy="random", seed=1)
>>> len(runs), runs.scores.shape, runs.ranks.shape
(2000, (2000, 2, 6), (2000, 2))
>>> runs.replay(7).scores.tolist() == runs.scores[7].tolist()
True
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from . import _core
from .game import Game, GenialError, Move, tile_text
from .rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["CHUNK", "POLICIES", "Playouts", "Summary", "simulate", "wilson_interval"]

CHUNK = 1024
"""Games per seed chunk: chunk ``c`` holds games ``c * CHUNK`` to ``(c + 1) * CHUNK - 1``."""
POLICIES = ("random", "greedy", "epsilon-greedy")
DEFAULT_EPSILON = 0.1

_ARRAYS = ("scores", "ranks", "winner", "placements", "turns", "bonus", "swaps", "opening", "game")


def _parse_policies(
    policy: str | Sequence[str], players: int, epsilon: float
) -> tuple[tuple[str, ...], npt.NDArray[np.uint8], npt.NDArray[np.float64]]:
    if isinstance(policy, str):
        names = [policy] * players
    elif isinstance(policy, (list, tuple)):
        names = list(policy)
    else:
        raise GenialError(f"policy: a name or a sequence of names, got {policy!r}")
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.floating)):
        raise GenialError(f"epsilon must be a number in [0, 1], got {epsilon!r}")
    if len(names) != players:
        raise GenialError(
            f"policy: give one policy or one per seat ({players}), got {len(names)}: {names!r}"
        )
    codes = np.zeros(4, dtype=np.uint8)
    eps = np.zeros(4, dtype=np.float64)
    canonical = []
    for seat, name in enumerate(names):
        if not isinstance(name, str):
            raise GenialError(f"policy of seat {seat}: expected a name, got {name!r}")
        base, _, param = name.partition(":")
        if base not in POLICIES:
            raise GenialError(
                f"unknown policy {name!r}: expected one of {', '.join(POLICIES)} "
                "(epsilon-greedy takes a parameter: 'epsilon-greedy:0.2')"
            )
        e = epsilon
        if param:
            if base != "epsilon-greedy":
                raise GenialError(f"policy {name!r}: only epsilon-greedy takes a parameter")
            try:
                e = float(param)
            except ValueError:
                raise GenialError(f"policy {name!r}: {param!r} is not a number") from None
        if not 0.0 <= e <= 1.0:
            raise GenialError(f"policy {name!r}: epsilon must be in [0, 1], got {e}")
        codes[seat] = _core.POLICIES[base]
        eps[seat] = e
        canonical.append(f"epsilon-greedy:{e:g}" if base == "epsilon-greedy" else base)
    return tuple(canonical), codes, eps


def _seed_sequence(seed: Any) -> np.random.SeedSequence:
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, (np.random.Generator, np.random.BitGenerator)):
        raise GenialError(
            "seed: pass an int, a sequence of ints, a SeedSequence or None (a Generator's "
            "state cannot be split reproducibly into chunks)"
        )
    try:
        return np.random.SeedSequence(seed)
    except (TypeError, ValueError) as exc:
        raise GenialError(f"seed: {exc}") from None


def _chunk_seed(root: np.random.SeedSequence, chunk: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(
        root.entropy, spawn_key=(*root.spawn_key, chunk), pool_size=root.pool_size
    )


def _workers(workers: int) -> int:
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)):
        raise GenialError(f"workers must be an int (-1 for all cores), got {workers!r}")
    if workers == -1:
        return os.cpu_count() or 1
    if workers < 1:
        raise GenialError(f"workers must be >= 1, or -1 for all cores; got {workers}")
    return int(workers)


def wilson_interval(
    successes: npt.ArrayLike, trials: npt.ArrayLike, z: float = 1.959963984540054
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """Wilson score interval for a binomial proportion (95% by default).

    >>> lo, hi = wilson_interval(50, 100)
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.4038, 0.5962)
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = np.where(n > 0, centre - half, np.nan)
    hi = np.where(n > 0, centre + half, np.nan)
    lo = np.where((k == 0) & (n > 0), 0.0, np.clip(lo, 0.0, 1.0))  # exact ends: holds p
    hi = np.where((k == n) & (n > 0), 1.0, np.clip(hi, 0.0, 1.0))
    return lo, hi


@dataclass(frozen=True)
class Summary:
    """Statistics of a batch (``Playouts.summary()``), one entry per seat (per team in the team
    game: ``labels`` names them); ``str()`` prints a table."""

    games: int
    players: int
    policies: tuple[str, ...]
    labels: tuple[str, ...]  # "seat 0", ... or "team 0 (seats 0+2)", ...
    wins: npt.NDArray[np.int64]  # outright first places
    shared_first: int  # games whose first place is shared
    win_rate: npt.NDArray[np.float64]
    win_rate_lo: npt.NDArray[np.float64]
    win_rate_hi: npt.NDArray[np.float64]
    mean_lowest: npt.NDArray[np.float64]
    std_lowest: npt.NDArray[np.float64]
    lowest_quantiles: npt.NDArray[np.float64]  # (players, 5): 5%, 25%, 50%, 75%, 95%
    mean_scores: npt.NDArray[np.float64]  # (players, 6)
    mean_placements: float
    mean_turns: float
    mean_bonus: npt.NDArray[np.float64]
    mean_swaps: npt.NDArray[np.float64]
    lowest_counts: npt.NDArray[np.int64]  # (entries, cap + 1): games by final lowest counter
    rules: str = "2"
    seconds: float | None = None

    def __str__(self) -> str:
        solo = self.players == 1
        head = f"{self.games:,} games, rules {self.rules}, policies {', '.join(self.policies)}"
        if not solo:
            head += (
                f"; first place shared in {self.shared_first:,} "
                f"({self.shared_first / max(self.games, 1):.1%})"
            )
        rows = [head]
        if solo:
            rows.append(
                "        policy            result = lowest counter: mean    sd"
                "   5%  25%  50%  75%  95%"
            )
        else:
            rows.append(
                "                  policy            win rate  95% interval      "
                "lowest colour: mean    sd  median  bonus  swaps"
            )
        for s, label in enumerate(self.labels):
            q = self.lowest_quantiles[s]
            if solo:
                rows.append(
                    f"{label:<7} {self.policies[s]:<16}  {' ' * 24}{self.mean_lowest[s]:6.2f} "
                    f"{self.std_lowest[s]:5.2f} " + " ".join(f"{v:4.0f}" for v in q)
                )
                continue
            rows.append(
                f"{label:<17} {self.policies[s]:<16}  {self.win_rate[s]:7.2%}  "
                f"[{self.win_rate_lo[s]:6.2%}, {self.win_rate_hi[s]:6.2%}]  "
                f"{' ' * 13}{self.mean_lowest[s]:6.2f} {self.std_lowest[s]:5.2f} "
                f"{q[2]:7.1f}  {self.mean_bonus[s]:5.2f}  {self.mean_swaps[s]:5.2f}"
            )
        tail = f"placements per game {self.mean_placements:.1f}, turns {self.mean_turns:.1f}"
        if self.seconds:
            tail += f"; {self.games / self.seconds:,.0f} games/s ({self.seconds:.2f} s)"
        rows.append(tail)
        return "\n".join(rows)


@dataclass(frozen=True, eq=False)
class Playouts:
    """Results of a batch of games, one row per game (numpy arrays).

    Attributes
    ----------
    scores : uint8 (n, players, 6)
        Final counters, colours in order R G B O Y P.
    ranks : int8 (n, players)
        Final ranks, 0 = best (RULES §3.7); equal counter vectors share a rank.
    winner : int8 (n,)
        The seat ranked first alone, -1 where first place is shared.
    placements, turns : int16 (n,)
        Tiles placed, and turns started, in the game.
    bonus, swaps : int16 (n, players)
        Bonus placements and rack swaps per seat.
    opening : int16 (n, players)
        Each seat's first placement as an action id (``genial.Move.from_action``), -1 if none.
    game : int64 (n,)
        Each row's game number in its run; with ``seed`` it replays the game (``replay``).
    """

    players: int
    policies: tuple[str, ...]
    epsilons: tuple[float, ...]
    seed: np.random.SeedSequence
    start: str | None
    scores: npt.NDArray[np.uint8]
    ranks: npt.NDArray[np.int8]
    winner: npt.NDArray[np.int8]
    placements: npt.NDArray[np.int16]
    turns: npt.NDArray[np.int16]
    bonus: npt.NDArray[np.int16]
    swaps: npt.NDArray[np.int16]
    opening: npt.NDArray[np.int16]
    game: npt.NDArray[np.int64]
    openings: tuple[int, ...] = ()
    rules: Rules | None = None
    records: list[dict[str, Any]] | None = None
    seconds: float | None = field(default=None, compare=False)

    def __len__(self) -> int:
        return len(self.winner)

    def __getitem__(self, index: int | slice | npt.NDArray[Any]) -> Playouts:
        """Rows by slice, index array or boolean mask: ``runs[runs.winner == 0]``."""
        if isinstance(index, (int, np.integer)):
            if not -len(self) <= index < len(self):
                raise IndexError(f"row {index} is outside a batch of {len(self)} games")
            index = slice(int(index), int(index) + 1 or None)
        arrays = {name: getattr(self, name)[index] for name in _ARRAYS}
        records = None
        if self.records is not None:
            positions = np.arange(len(self))[index]
            records = [self.records[i] for i in np.atleast_1d(positions)]
        return Playouts(
            self.players,
            self.policies,
            self.epsilons,
            self.seed,
            self.start,
            openings=self.openings,
            rules=self.rules,
            records=records,
            **arrays,
        )

    def __repr__(self) -> str:
        return f"<Playouts: {len(self):,} games, {self.players} players, policies {self.policies}>"

    @property
    def lowest(self) -> npt.NDArray[np.uint8]:
        """Each seat's lowest counter, shape (n, players)."""
        lowest: npt.NDArray[np.uint8] = self.scores.min(axis=2)
        return lowest

    def summary(self) -> Summary:
        """Win rate per seat with 95% Wilson intervals, score distributions, game lengths.

        A win is an outright first place; games whose first place is shared count as
        wins for no seat (``shared_first`` counts them).
        """
        rules = self.game_rules
        n, p = len(self), rules.counter_sets
        wins = np.array([(self.winner == s).sum() for s in range(p)], dtype=np.int64)
        lo, hi = wilson_interval(wins, n)
        lowest = self.lowest[:, :p].astype(np.float64)
        empty = n == 0
        if rules.teams:
            labels = tuple(f"team {t} (seats {t}+{t + 2})" for t in range(p))
        else:
            labels = tuple(f"seat {s}" for s in range(p))
        return Summary(
            games=n,
            players=self.players,
            policies=self.policies[:p]
            if not rules.teams
            else tuple(
                "+".join(sorted({self.policies[t], self.policies[t + 2]})) for t in range(p)
            ),
            labels=labels,
            wins=wins,
            shared_first=int((self.winner == -1).sum()),
            win_rate=wins / n if n else np.full(p, np.nan),
            win_rate_lo=np.atleast_1d(lo),
            win_rate_hi=np.atleast_1d(hi),
            mean_lowest=lowest.mean(axis=0) if not empty else np.full(p, np.nan),
            std_lowest=lowest.std(axis=0) if not empty else np.full(p, np.nan),
            lowest_quantiles=(
                np.quantile(lowest, [0.05, 0.25, 0.5, 0.75, 0.95], axis=0).T
                if not empty
                else np.full((p, 5), np.nan)
            ),
            mean_scores=(self.scores[:, :p].mean(axis=0) if not empty else np.full((p, 6), np.nan)),
            mean_placements=float(self.placements.mean()) if not empty else math.nan,
            mean_turns=float(self.turns.mean()) if not empty else math.nan,
            mean_bonus=self._per_entry(self.bonus, rules) if not empty else np.full(p, np.nan),
            mean_swaps=self._per_entry(self.swaps, rules) if not empty else np.full(p, np.nan),
            lowest_counts=np.array(
                [np.bincount(self.lowest[:, s], minlength=rules.cap + 1) for s in range(p)],
                dtype=np.int64,
            ).reshape(p, rules.cap + 1),
            rules=str(rules),
            seconds=self.seconds,
        )

    @staticmethod
    def _per_entry(values: npt.NDArray[np.int16], rules: Rules) -> npt.NDArray[np.float64]:
        """Mean per game of a per-seat count, per seat or per team (partners added)."""
        mean = values.mean(axis=0)
        if rules.teams:
            return np.array([mean[0] + mean[2], mean[1] + mean[3]])
        return np.asarray(mean, dtype=np.float64)

    def to_pandas(self) -> pd.DataFrame:
        """One tidy row per game and seat (needs pandas: ``pip install genial[pandas]``).

        Columns: game, seat, policy, rank, won, score_R .. score_P, lowest, bonus, swaps,
        opening, placements, turns.
        """
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - exercised only without pandas
            raise ImportError(
                "Playouts.to_pandas needs pandas: pip install 'genial[pandas]'"
            ) from None
        n, p = len(self), self.players
        columns: dict[str, Any] = {
            "game": np.repeat(self.game, p),
            "seat": np.tile(np.arange(p, dtype=np.int8), n),
            "policy": pd.Categorical(np.tile(np.array(self.policies), n)),
            "rank": self.ranks.reshape(-1),
            "won": (
                self.winner[:, None]
                == np.array([self.game_rules.team_of(s) for s in range(p)])[None, :]
            ).reshape(-1),
        }
        for c, letter in enumerate("RGBOYP"):
            columns[f"score_{letter}"] = self.scores[:, :, c].reshape(-1)
        columns["lowest"] = self.lowest.reshape(-1)
        columns["bonus"] = self.bonus.reshape(-1)
        columns["swaps"] = self.swaps.reshape(-1)
        columns["opening"] = self.opening.reshape(-1)
        columns["placements"] = np.repeat(self.placements, p)
        columns["turns"] = np.repeat(self.turns, p)
        return pd.DataFrame(columns)

    def to_parquet(self, path: str | os.PathLike[str]) -> None:
        """Write ``to_pandas()`` as Parquet (needs pandas and pyarrow: ``genial[parquet]``)."""
        try:
            import pyarrow  # noqa: F401
        except ImportError:  # pragma: no cover - exercised only without pyarrow
            raise ImportError(
                "Playouts.to_parquet needs pyarrow: pip install 'genial[parquet]'"
            ) from None
        frame = self.to_pandas()
        frame.attrs = {
            "players": str(self.players),
            "policies": ",".join(self.policies),
            "seed_entropy": str(self.seed.entropy),
        }
        frame.to_parquet(path, index=False)

    def replay(self, row: int) -> Game:
        """Replay the game of ``row`` through ``Game`` (from its seed) and return it, finished."""
        if isinstance(row, bool) or not isinstance(row, (int, np.integer)):
            raise GenialError(f"row must be an int, got {row!r}")
        if not 0 <= row < len(self):
            raise GenialError(f"row {row} is outside 0..{len(self) - 1}")
        number = int(self.game[row])
        chunk, offset = divmod(number, CHUNK)
        records = self._batch.run(chunk, _allocate(offset + 1, self.players), records=True)
        return Game.from_record(records[offset])

    @property
    def _batch(self) -> _Batch:
        _, codes, eps = _parse_policies(self.policies, self.players, DEFAULT_EPSILON)
        eps[: len(self.epsilons)] = self.epsilons  # exact: the names round epsilon for display
        return _Batch(
            self.game_rules, self.policies, codes, eps, self.seed, self.start, self.openings
        )

    @property
    def game_rules(self) -> Rules:
        """The rules the games were played by."""
        return self.rules if self.rules is not None else Rules(self.players)


@dataclass(frozen=True)
class _Batch:
    """Everything that determines a batch's games, but their number: enough to replay one."""

    rules: Rules
    policies: tuple[str, ...]
    codes: npt.NDArray[np.uint8]
    epsilons: npt.NDArray[np.float64]
    seed: np.random.SeedSequence
    start: str | None = None  # position text to continue from, or None for a new deal
    openings: tuple[int, ...] = ()  # forced first placements, seat 0, 1, ... in turn

    def core(self) -> tuple[_core.Core, bool]:
        """The kernel state every game starts from, and whether it still has to be dealt."""
        if self.start is not None:
            return Game.from_text(self.start)._core.copy(), False
        core = self.rules.core()
        for seat, action in enumerate(self.openings):
            core.give(seat, _core.TILES.index(_move(action).tile))
        return core, True

    def forced(self) -> tuple[npt.NDArray[np.int16], npt.NDArray[np.int16]]:
        seats = np.arange(len(self.openings), dtype=np.int16)
        return seats, np.array(self.openings, dtype=np.int16)

    def run(
        self,
        chunk: int,
        arrays: dict[str, npt.NDArray[Any]],
        records: bool = False,
    ) -> list[dict[str, Any]]:
        """Play chunk ``chunk``'s first ``len(arrays['winner'])`` games into ``arrays``."""
        core, deal = self.core()
        seats, actions = self.forced()
        bitgen = np.random.PCG64(_chunk_seed(self.seed, chunk))
        n = len(arrays["winner"])
        logs: dict[str, npt.NDArray[Any]] = {}
        if records:
            logs = {
                "log_moves": np.zeros((n, _core.MAX_LOG_MOVES), dtype=np.int16),
                "log_counts": np.zeros((n, _core.MAX_LOG_MOVES), dtype=np.uint8),
                "log_draws": np.zeros((n, _core.MAX_LOG_DRAWS), dtype=np.uint8),
                "log_n": np.zeros(n, dtype=np.int16),
                "log_n_draws": np.zeros(n, dtype=np.int16),
            }
        _core.run_chunk(
            core,
            bitgen,
            deal,
            self.codes,
            self.epsilons,
            **_kernel_args(arrays, 0, n),
            forced_seats=seats,
            forced_actions=actions,
            **logs,
        )
        if not records:
            return []
        log_moves, log_counts, log_draws = logs["log_moves"], logs["log_counts"], logs["log_draws"]
        log_n, log_n_draws = logs["log_n"], logs["log_n_draws"]
        players = self.rules.players
        dealt = core.rack_size * players - sum(len(core.rack(p)) for p in range(players))
        out = []
        for g in range(n):
            draws = [int(t) for t in log_draws[g, : log_n_draws[g]]]
            if deal:
                begin = core.copy()
                begin.deal(None, draws[:dealt])
                start_text = Game._from_core(self.rules, begin).to_text()
                pos = dealt
            else:
                assert self.start is not None
                start_text = self.start
                pos = 0
            moves = []
            for i in range(int(log_n[g])):
                k = int(log_counts[g, i])
                moves.append(
                    {
                        "move": str(_move(int(log_moves[g, i]))),
                        "draws": [tile_text(_core.TILES[t]) for t in draws[pos : pos + k]],
                    }
                )
                pos += k
            out.append(
                {"format": "genial-record", "version": 1, "start": start_text, "moves": moves}
            )
        return out


def _allocate(n: int, players: int) -> dict[str, npt.NDArray[Any]]:
    return {
        "scores": np.zeros((n, players, 6), dtype=np.uint8),
        "ranks": np.zeros((n, players), dtype=np.int8),
        "winner": np.zeros(n, dtype=np.int8),
        "placements": np.zeros(n, dtype=np.int16),
        "turns": np.zeros(n, dtype=np.int16),
        "bonus": np.zeros((n, players), dtype=np.int16),
        "swaps": np.zeros((n, players), dtype=np.int16),
        "opening": np.zeros((n, players), dtype=np.int16),
    }


def _kernel_args(arrays: dict[str, npt.NDArray[Any]], lo: int, hi: int) -> dict[str, Any]:
    return {
        "scores": arrays["scores"][lo:hi],
        "ranks_out": arrays["ranks"][lo:hi],
        "winner": arrays["winner"][lo:hi],
        "placements": arrays["placements"][lo:hi],
        "turns": arrays["turns"][lo:hi],
        "bonus": arrays["bonus"][lo:hi],
        "swaps": arrays["swaps"][lo:hi],
        "opening": arrays["opening"][lo:hi],
    }


def _tile(text: str) -> tuple[int, int]:
    a, b = ("RGBOYP".index(ch) for ch in text)
    return (a, b)


def _move(action: int) -> Any:
    from .game import _ALL_MOVES

    return _ALL_MOVES[action]


def _progress_bar(total: int, enabled: bool) -> Callable[[int], None] | None:
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
            sys.stderr.write(f"\r[{bar:<30}] {done[0]:,}/{total:,} games, {rate:,.0f}/s")
            if done[0] >= total:
                sys.stderr.write("\n")
            sys.stderr.flush()

        return text_bar
    bar = tqdm(total=total, unit="games", unit_scale=True, smoothing=0.05)

    def update(k: int) -> None:
        bar.update(k)
        if bar.n >= total:
            bar.close()

    return update


def _chunks(n: int) -> Iterator[tuple[int, int, int]]:
    for c in range(math.ceil(n / CHUNK)):
        yield c, c * CHUNK, min(n, (c + 1) * CHUNK)


def simulate(
    n_games: int,
    players: int = 2,
    *,
    policy: str | Sequence[str] = "random",
    seed: Any = None,
    workers: int = 1,
    start: Game | str | None = None,
    openings: Sequence[Move | str | int] = (),
    records: bool = False,
    progress: bool = False,
    epsilon: float = DEFAULT_EPSILON,
    teams: bool = False,
    tournament: bool = False,
    tiles: Literal["standard", "travel"] = "standard",
    rules: Rules | None = None,
) -> Playouts:
    """Play ``n_games`` whole games inside the kernel and return their results.

    Parameters
    ----------
    n_games : int
        Games to play (>= 0).
    players : int
        2, 3 or 4; 1 for the solo game.
    policy : str or sequence of str
        ``"random"``: a uniformly random rack tile on a uniformly random legal pair of cells, a
        random way round, the swap on a fair coin. ``"greedy"``: the placement maximising
        ``sum_c -(18 - s_c)^2`` after it, ties at random, swapping whenever allowed.
        ``"epsilon-greedy"`` (or ``"epsilon-greedy:0.2"``): a random move with probability
        epsilon, else greedy. One name for every seat, or one per seat.
    seed : int, sequence of ints, SeedSequence or None
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
        Also fill ``Playouts.records`` with every game's record (``Game.from_record`` replays it).
        For small batches: a record is a few kilobytes.
    progress : bool
        Show a progress bar (tqdm if installed, else a plain one on stderr).
    epsilon : float
        Epsilon of ``"epsilon-greedy"`` seats without a parameter of their own.
    teams, tournament, tiles, rules
        The variant, as for ``Game`` (``genial.Rules``). In the team game ``winner`` holds the
        winning team (0: seats 0 and 2, 1: seats 1 and 3).

    Examples
    --------
    >>> runs = simulate(3000, players=3, policy=("greedy", "random", "random"), seed=7)
    >>> runs.summary().win_rate[0] > 0.8
    np.True_
    """
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)):
        raise GenialError(f"n_games must be an int, got {n_games!r}")
    if n_games < 0:
        raise GenialError(f"n_games must be >= 0, got {n_games}")
    n = int(n_games)
    game_rules = Rules.of(players, teams=teams, tournament=tournament, tiles=tiles, rules=rules)
    players = game_rules.players
    names, codes, eps = _parse_policies(policy, players, epsilon)
    n_workers = _workers(workers)
    root = _seed_sequence(seed)
    start_text = _check_start(start, game_rules)
    forced = _check_openings(openings, game_rules, start_text)
    batch = _Batch(game_rules, names, codes, eps, root, start_text, forced)

    arrays = _allocate(n, players)
    arrays["game"] = np.arange(n, dtype=np.int64)
    all_records: list[list[dict[str, Any]]] = [[] for _ in range(math.ceil(n / CHUNK))]
    bar = _progress_bar(n, progress)

    def run(chunk: tuple[int, int, int]) -> int:
        c, lo, hi = chunk
        part = {name: array[lo:hi] for name, array in arrays.items()}
        all_records[c] = batch.run(c, part, records=records)
        return hi - lo

    began = time.perf_counter()
    if n_workers == 1 or n <= CHUNK:
        for chunk in _chunks(n):
            done = run(chunk)
            if bar:
                bar(done)
    else:
        with ThreadPoolExecutor(max_workers=n_workers) as pool:
            for done in pool.map(run, _chunks(n)):
                if bar:
                    bar(done)
    seconds = time.perf_counter() - began
    if bar and n == 0:
        bar(0)
    return Playouts(
        players,
        names,
        tuple(float(e) for e in eps[:players]),
        root,
        start_text,
        openings=forced,
        rules=game_rules,
        records=[r for chunk in all_records for r in chunk] if records else None,
        seconds=seconds,
        **arrays,
    )


def _check_start(start: Game | str | None, rules: Rules) -> str | None:
    if start is None:
        return None
    game = start if isinstance(start, Game) else Game.from_text(start)
    if game.rules != rules:
        raise GenialError(f"start is a position of {game.rules!r}, not of {rules!r}")
    if game.is_over:
        raise GenialError("start: the game is already over")
    return game.to_text()


def _check_openings(
    openings: Sequence[Move | str | int], rules: Rules, start: str | None
) -> tuple[int, ...]:
    """Check that the forced first placements are legal one after the other (their legality
    depends on the board only: the tiles are given); return their action ids."""
    if isinstance(openings, (str, Move)):
        openings = [openings]
    if not isinstance(openings, (list, tuple)):
        raise GenialError(f"openings: a sequence of moves, got {openings!r}")
    if not openings:
        return ()
    if start is not None:
        raise GenialError("openings and start cannot be combined")
    players = rules.players
    if len(openings) > players:
        raise GenialError(f"openings: at most one per seat ({players}), got {len(openings)}")
    core = rules.core()
    moves = []
    for seat, item in enumerate(openings):
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            move = Move.from_action(int(item), players)
        elif isinstance(item, str):
            move = Move.parse(item)
        elif isinstance(item, Move):
            move = item
        else:
            raise GenialError(f"openings[{seat}]: expected a move, got {item!r}")
        if move.tile is None:
            raise GenialError(f"openings[{seat}]: {move} is not a placement")
        moves.append(move)
        core.give(seat, _core.TILES.index(move.tile))
    core.deal(np.random.PCG64(0))
    for seat, move in enumerate(moves):
        while core.phase == 1:  # a swap decision first: keeping changes no board
            core.apply(_core.ACTION_KEEP, np.random.PCG64(0))
        if core.current != seat or not core.is_legal(move.action):
            raise GenialError(
                f"openings[{seat}]: {move} is not a legal first placement for seat {seat} "
                "after the openings before it (RULES §3.2)"
            )
        core.apply(move.action, np.random.PCG64(0))
    return tuple(m.action for m in moves)

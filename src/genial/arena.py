"""Arenas: policies against each other on duplicate deals, and their Elo ratings.

``arena(policies, games=..., players=2)`` plays a round robin: every table of ``players``
distinct policies (every pair in the 2-player game) plays every deal once from each seat
rotation, so each policy sits in every seat with every hand. Deal ``d`` is the same chance
stream in every game that plays it, whichever table and seats: it is game 0 of chunk ``d`` of
``genial.simulate(..., seed=seed)`` (``genial.batch.run_chunk(spec, d, 1)``), so any arena game
can be played again on its own.

What a shared chance stream shares (docs/analysis.md, "Duplicate deals"): the opening racks
exactly, and the sequence of tiles drawn from the bag up to the first rack swap of the game (the
k-th draw is the same tile whoever draws it; who draws it, and when, depends on the play). A
swap returns tiles to the bag, after which the draws differ. It removes most of the luck of
the deal from a comparison, not all of it.

Every game is scored pairwise: a seat ranked ahead of another (RULES §3.7) wins that pairing,
equal ranks are a tie (half a win each). The ``Bradley-Terry`` model,
``P(i beats j) = 1 / (1 + 10 ** ((elo_j - elo_i) / 400))``, is fitted to those results by
maximum likelihood (Newton's method), and its intervals come from a bootstrap over deals.

>>> result = arena(["random", "greedy"], games=100, seed=1, workers=1)
>>> result.policies, result.games
(('random', 'greedy'), 200)
>>> bool(result.elo[1] > result.elo[0] + 200)
True
>>> w = np.array([[0, 60], [40, 0]])
>>> elo = bradley_terry(w)
>>> round(float(elo[0] - elo[1]), 1)  # 400 log10(60 / 40)
70.4
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .batch import BatchSpec, prepare, run_chunk
from .batch.backends import Serial, Threads, worker_count
from .batch.progress import progress_bar
from .errors import GenialError, checked_flag, checked_int, excerpt
from .registry import entry
from .seeds import as_seed_sequence, child_seed
from .stats import wilson_interval

__all__ = ["ArenaResult", "arena", "bradley_terry", "elo_probability"]

ELO_SCALE = 400 / math.log(10)
"""Elo points per unit of the Bradley-Terry log-strength (natural log)."""

BOOTSTRAP_STREAM = 2**33
"""Spawn key (under the arena's seed) of the bootstrap's resampling stream."""

MAX_DEALS = 10**8
DEALS_PER_ITEM = 16
"""Deals one work item plays (every table and rotation of each): results never depend on it."""

REPR_LIMIT = 5000
"""The results' ``repr`` stays below this many characters (``str`` and the HTML view are the
full tables)."""


def elo_probability(elo_difference: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The probability that a player rated ``elo_difference`` above another beats it (ties
    counted as half a win): ``1 / (1 + 10 ** (-d / 400))``.

    >>> round(float(elo_probability(200)), 3)
    0.76
    """
    d = np.asarray(elo_difference, dtype=np.float64)
    out: npt.NDArray[np.float64] = 1.0 / (1.0 + 10.0 ** (-d / 400.0))
    return out


# -- the Bradley-Terry fit ---------------------------------------------------------------------


def _strongly_connected(w: npt.NDArray[np.float64]) -> bool:
    """Whether every policy reaches every other along "has scored against" edges (the
    condition for the maximum-likelihood ratings to be finite, Hunter 2004)."""
    n = len(w)
    reach = (w > 0) | np.eye(n, dtype=bool)
    for _ in range(max(1, math.ceil(math.log2(max(n, 2))))):
        reach = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
    return bool(reach.all())


def _fit(w: npt.NDArray[np.float64], anchor: int | None) -> npt.NDArray[np.float64]:
    """Maximum-likelihood log-strengths (natural log) for the score matrix ``w`` (``w[i, j]``:
    points of i against j, a tie half a point), the anchor's at 0 (or mean 0 for None); damped
    Newton on the log-likelihood, which is concave. ``w`` must be strongly connected."""
    n = len(w)
    games = w + w.T
    theta = np.zeros(n)
    scored = w.sum(axis=1)

    def loglik(t: npt.NDArray[np.float64]) -> float:
        d = t[:, None] - t[None, :]
        return float((w * -np.logaddexp(0.0, -d)).sum())

    current = loglik(theta)
    for _ in range(200):
        d = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-d))
        grad = scored - (games * p).sum(axis=1)
        h = games * p * (1 - p)
        hess = np.diag(h.sum(axis=1)) - h  # the negative Hessian: a graph Laplacian
        keep = np.arange(n) != (0 if anchor is None else anchor)  # fix one strength
        step = np.zeros(n)
        step[keep] = np.linalg.solve(hess[np.ix_(keep, keep)], grad[keep])
        scale = 1.0
        while True:
            trial = theta + scale * step
            value = loglik(trial)
            if value >= current - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        theta, current = trial, value
        if float(np.abs(scale * step).max()) < 1e-10:
            break
    theta -= theta.mean() if anchor is None else theta[anchor]
    return theta


def bradley_terry(
    wins: npt.ArrayLike,
    ties: npt.ArrayLike | None = None,
    *,
    prior: float = 0.0,
    anchor: int | None = 0,
) -> npt.NDArray[np.float64]:
    """Elo ratings fitted to pairwise results by the Bradley-Terry model (maximum likelihood).

    ``wins[i, j]``: times ``i`` beat ``j``; ``ties[i, j]`` (symmetric): draws between them,
    half a win each. ``prior`` adds that many drawn games to every pair that met (a weak
    regularisation that keeps ratings finite when a player won or lost everything); with
    ``prior=0`` such results raise ``GenialError``. ``anchor``: the player rated 0, or None
    for ratings of mean 0. Ratings are ``400 log10`` of the strengths, so a difference ``d``
    means ``P(win) = 1 / (1 + 10 ** (-d / 400))``.

    >>> bradley_terry([[0, 76], [24, 0]]).round(0).tolist()
    [0.0, -200.0]
    """
    w = np.asarray(wins, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] < 2:
        raise GenialError(f"wins must be a square matrix of at least 2 players, got {w.shape}")
    t = np.zeros_like(w) if ties is None else np.asarray(ties, dtype=np.float64)
    if t.shape != w.shape:
        raise GenialError(f"ties must have the shape of wins {w.shape}, got {t.shape}")
    if not (np.isfinite(w).all() and np.isfinite(t).all() and (w >= 0).all() and (t >= 0).all()):
        raise GenialError("wins and ties must be finite counts >= 0")
    if not np.allclose(t, t.T):
        raise GenialError("ties must be symmetric (a tie between i and j is one for both)")
    if isinstance(prior, bool) or not isinstance(prior, (int, float, np.integer, np.floating)):
        raise GenialError(f"prior must be a number >= 0, got {excerpt(prior)}")
    if not (prior >= 0 and math.isfinite(prior)):
        raise GenialError(f"prior must be a number >= 0, got {excerpt(prior)}")
    n = len(w)
    if anchor is not None:
        anchor = checked_int(anchor, "anchor", 0, n - 1)
    score = w + 0.5 * t
    np.fill_diagonal(score, 0.0)
    met = (score + score.T) > 0
    score = score + 0.5 * float(prior) * met
    if not _strongly_connected(score):
        raise GenialError(
            "the ratings are infinite: some players won (or lost) every game against the rest; "
            "give prior > 0 or play more games"
        )
    return ELO_SCALE * _fit(score, anchor)


# -- the arena ---------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ArenaResult:
    """The result of ``arena``: policy ``i`` against policy ``j`` over every game they met in.

    ``wins[i, j]``: games in which ``i`` ranked ahead of ``j``; ``ties[i, j]``: games with
    them level; ``meetings[i, j]``: games they both played. ``score[i, j]`` is ``i``'s share
    of the points against ``j`` (a tie half a point), with 95% Wilson bounds
    ``score_lo``/``score_hi`` (NaN where they never met). ``elo``: Bradley-Terry ratings,
    the ``anchor`` policy at 0 (or mean 0), with 95% bootstrap-percentile bounds
    ``elo_lo``/``elo_hi`` (resampling deals: every game of a deal together). ``first``:
    outright first places per policy, ``played``: its games, ``lowest``: its mean final
    lowest colour (NaN in a game without colours).
    """

    policies: tuple[str, ...]
    rules: Any
    players: int
    deals: int
    games: int
    wins: npt.NDArray[np.int64]
    ties: npt.NDArray[np.int64]
    meetings: npt.NDArray[np.int64]
    score: npt.NDArray[np.float64]
    score_lo: npt.NDArray[np.float64]
    score_hi: npt.NDArray[np.float64]
    elo: npt.NDArray[np.float64]
    elo_lo: npt.NDArray[np.float64]
    elo_hi: npt.NDArray[np.float64]
    anchor: str
    prior: float
    first: npt.NDArray[np.int64]
    played: npt.NDArray[np.int64]
    lowest: npt.NDArray[np.float64]
    bootstrap: npt.NDArray[np.float64]  # (samples, policies): the bootstrap ratings
    seed: np.random.SeedSequence | None = None
    seconds: float | None = None

    def index(self, policy: str | int) -> int:
        """The position of a policy (its name, or its index) in ``policies``."""
        if isinstance(policy, str):
            if policy not in self.policies:
                raise GenialError(f"{excerpt(policy)} is not a policy of this arena")
            return self.policies.index(policy)
        return checked_int(policy, "policy", 0, len(self.policies) - 1)

    def difference(self, a: str | int, b: str | int) -> tuple[float, float, float]:
        """``elo[a] - elo[b]`` with its 95% bootstrap interval (on the differences, so it
        holds whichever policy is the anchor)."""
        i, j = self.index(a), self.index(b)
        diff = self.bootstrap[:, i] - self.bootstrap[:, j]
        lo, hi = np.percentile(diff, [2.5, 97.5]) if len(diff) else (math.nan, math.nan)
        return float(self.elo[i] - self.elo[j]), float(lo), float(hi)

    def significant(self, a: str | int, b: str | int) -> bool:
        """Whether ``a`` and ``b`` differ at 95%: the bootstrap interval of their rating
        difference excludes 0."""
        _, lo, hi = self.difference(a, b)
        return bool(lo > 0 or hi < 0)

    def ratings(self) -> list[dict[str, Any]]:
        """One dict per policy, best first: policy, elo, elo_lo, elo_hi, played, first (its
        outright first places), first_rate, score (its share of points against all others)
        and lowest (its mean final lowest colour)."""
        out = []
        for i in np.argsort(-self.elo, kind="stable"):
            met = self.meetings[i].sum()
            pts = self.wins[i].sum() + 0.5 * self.ties[i].sum()
            out.append(
                {
                    "policy": self.policies[i],
                    "elo": float(self.elo[i]),
                    "elo_lo": float(self.elo_lo[i]),
                    "elo_hi": float(self.elo_hi[i]),
                    "played": int(self.played[i]),
                    "first": int(self.first[i]),
                    "first_rate": float(self.first[i] / self.played[i])
                    if self.played[i]
                    else math.nan,
                    "score": float(pts / met) if met else math.nan,
                    "lowest": float(self.lowest[i]),
                }
            )
        return out

    @property
    def table(self) -> Any:
        """The ratings (``ratings()``) as a pandas DataFrame, or the list of dicts without
        pandas."""
        return _frame(self.ratings())

    @property
    def matrix(self) -> Any:
        """``score`` as a pandas DataFrame (rows: the policy, columns: its opponent), or a
        dict of dicts without pandas."""
        data = {
            b: {a: float(self.score[i, j]) for i, a in enumerate(self.policies)}
            for j, b in enumerate(self.policies)
        }
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - exercised only without pandas
            return {a: {b: data[b][a] for b in self.policies} for a in self.policies}
        return pd.DataFrame(data, index=list(self.policies), columns=list(self.policies))

    def __str__(self) -> str:
        """The ratings, then the score matrix with its intervals."""
        width = max(6, *(len(p) for p in self.policies))
        head = (
            f"arena: {len(self.policies)} policies, rules {self.rules}, {self.deals:,} deals, "
            f"{self.games:,} games (every deal from every seat rotation)"
        )
        colours = not np.isnan(self.lowest).all()  # a game without colours: no lowest column
        lines = [
            head,
            f"{'policy':<{width}}  {'elo':>7}  {'95% interval':<18} {'score':>6}  "
            f"{'first':>6}" + (f"  {'lowest':>6}" if colours else ""),
        ]
        marks, notes = self.interval_notes(digits=1)
        for row in self.ratings():
            anchor = "  (anchor)" if row["policy"] == self.anchor else ""
            lowest = f"  {row['lowest']:6.2f}" if colours else ""
            prefix, mark = marks.get(self.policies.index(row["policy"]), ("", ""))
            elo = prefix.strip() + f"{row['elo']:.1f}"
            lines.append(
                f"{row['policy']:<{width}}  {elo:>7}  "
                f"[{row['elo_lo']:6.1f}, {row['elo_hi']:6.1f}]{mark or ' '} {row['score']:6.1%}  "
                f"{row['first_rate']:6.1%}{lowest}{anchor}"
            )
        lines.append("")
        lines.append("score of the row against the column [95% Wilson interval]:")
        cell = 22
        lines.append(" " * width + "".join(f"  {p[:cell]:>{cell}}" for p in self.policies))
        for i, a in enumerate(self.policies):
            parts = []
            for j in range(len(self.policies)):
                if i == j or not self.meetings[i, j]:
                    parts.append(f"  {'-':>{cell}}")
                else:
                    text = (
                        f"{self.score[i, j]:.1%} [{self.score_lo[i, j]:.1%}, "
                        f"{self.score_hi[i, j]:.1%}]"
                    )
                    parts.append(f"  {text:>{cell}}")
            lines.append(f"{a:<{width}}" + "".join(parts))
        symbols = sorted({m for _, m in marks.values()}, key="†‡".index)
        lines.extend(f"{symbol} {note}" for symbol, note in zip(symbols, notes, strict=True))
        if self.seconds:
            lines.append(f"{self.games / self.seconds:,.0f} games/s, {self.seconds:.1f} s")
        return "\n".join(lines)

    def _swept(self) -> list[tuple[int, int]]:
        """The pairs ``(i, j)`` that met in which ``j`` never scored against ``i`` (no win, no
        tie): their rating gap is set by the prior, not measured."""
        n = len(self.policies)
        return [
            (i, j)
            for i in range(n)
            for j in range(n)
            if i != j and self.meetings[i, j] and self.wins[j, i] == 0 and self.ties[i, j] == 0
        ]

    def interval_notes(self, digits: int = 1) -> tuple[dict[int, tuple[str, str]], list[str]]:
        """What a view must say next to the ratings (every interval of zero width shown with
        ``digits`` decimals is explained): per policy index, the prefix of its rating (``"≥ "``
        or ``"≤ "`` when its only bound is set by the prior against the anchor) and the mark of
        its interval (``"†"``, ``"‡"``); then the caveat lines, the marks' meanings (the first
        the policy pairs of which one never scored against the other, as ``str`` has it)."""
        marks: dict[int, tuple[str, str]] = {}
        notes: list[str] = []
        anchor = self.policies.index(self.anchor) if self.anchor in self.policies else None
        swept = self._swept() if self.prior > 0 else []
        if swept:
            # without the prior the ratings would be infinite: a gap to the anchor is a bound
            points = self.wins + 0.5 * self.ties
            bounded = not _strongly_connected(points.astype(np.float64))
            for i, j in swept:
                if bounded and j == anchor:
                    marks[i] = ("≥ ", "†")
                elif bounded and i == anchor:
                    marks[j] = ("≤ ", "†")
                else:
                    for k in (i, j):
                        marks.setdefault(k, ("", "†"))
            i, j = swept[0]
            more = f" (and {len(swept) - 1} more pairs)" if len(swept) > 1 else ""
            notes.append(
                f"{self.policies[j]} never scored against {self.policies[i]}{more}: such a gap "
                f"is a lower bound set by the prior ({self.prior:g} drawn game a pair), not a "
                "measurement"
            )
        flat = [
            i
            for i in range(len(self.policies))
            if i != anchor
            and i not in marks
            and math.isfinite(self.elo_lo[i])
            and f"{self.elo_lo[i]:.{digits}f}" == f"{self.elo_hi[i]:.{digits}f}"
        ]
        for i in flat:
            marks[i] = ("", "‡")
        if flat:
            notes.append(
                "the bootstrap over deals found no spread in "
                + ", ".join(self.policies[i] for i in flat)
                + f"'s rating ({self.deals:,} deals): a zero-width interval is not a measured "
                "precision; play more games"
            )
        return marks, notes

    def __repr__(self) -> str:
        """Short: the arena's size and its ratings, not its arrays (``str`` for the tables)."""
        elo = {p: round(float(e), 1) for p, e in zip(self.policies, self.elo, strict=True)}
        text = (
            f"ArenaResult(policies={self.policies!r}, rules={self.rules!r}, "
            f"players={self.players}, deals={self.deals}, games={self.games}, "
            f"anchor={self.anchor!r}, prior={self.prior!r}, elo={elo!r})"
        )
        if len(text) < REPR_LIMIT:
            return text
        return (  # hundreds of policies, or very long names: counts only
            f"ArenaResult(policies=<{len(self.policies)} policies>, rules={excerpt(self.rules)}, "
            f"players={self.players}, deals={self.deals}, games={self.games}, "
            f"anchor={excerpt(self.anchor)}, prior={self.prior!r})"
        )

    def _repr_html_(self) -> str:
        from .render.html import arena_html

        return arena_html(self)


def _frame(rows: list[dict[str, Any]]) -> Any:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - exercised only without pandas
        return rows
    return pd.DataFrame(rows)


def _check_policies(policies: object) -> tuple[str, ...]:
    if isinstance(policies, str) or not isinstance(policies, (list, tuple)):
        raise GenialError(f"policies: a sequence of policy names, got {excerpt(policies)}")
    names = tuple(policies)
    if len(names) < 2:
        raise GenialError(f"an arena needs at least 2 policies, got {len(names)}")
    for name in names:
        if not isinstance(name, str):
            raise GenialError(f"policies: names like 'greedy', got {excerpt(name)}")
    if len(set(names)) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise GenialError(f"policies: {excerpt(twice)} is given twice")
    return names


def _tables(n: int, players: int) -> list[tuple[int, ...]]:
    """The tables of a round robin: every set of ``players`` distinct policies."""
    return list(itertools.combinations(range(n), players))


def _rotation(table: tuple[int, ...], r: int) -> tuple[int, ...]:
    """The policy of each seat in rotation ``r`` of a table: seat ``s`` plays
    ``table[(s + r) % k]``."""
    k = len(table)
    return tuple(table[(s + r) % k] for s in range(k))


def _play_deals(
    item: tuple[int, int, Sequence[Sequence[BatchSpec]]],
) -> tuple[int, npt.NDArray[Any]]:
    """Deals ``d0 .. d1 - 1`` at every table and rotation: rows ``(deals, tables, rotations)``."""
    d0, d1, specs = item
    adapter = entry(specs[0][0].game).adapter
    rows = np.zeros((d1 - d0, len(specs), len(specs[0])), dtype=adapter.row_dtype)
    for d in range(d0, d1):
        for t, rotations in enumerate(specs):
            for r, spec in enumerate(rotations):
                rows[d - d0, t, r] = run_chunk(spec, d, 1).rows[0]
    return d0, rows


def arena(
    policies: Sequence[str],
    *,
    games: int = 1000,
    players: Any = 2,
    seed: Any = None,
    workers: int | None = None,
    progress: bool = False,
    epsilon: float = 0.1,
    anchor: str | None = None,
    prior: float = 1.0,
    bootstrap: int = 1000,
    game: str = "board",
) -> ArenaResult:
    """A round robin of ``policies`` on duplicate deals, with Bradley-Terry (Elo) ratings.

    Parameters
    ----------
    policies : sequence of str
        At least ``players`` distinct policy names, as ``genial.simulate`` takes them.
    games : int
        Deals per table. Every table (every set of ``players`` distinct policies: every pair
        in the 2-player game) plays each deal once from each of its ``players`` seat rotations,
        so a table plays ``players * games`` games.
    players : int, str or Rules
        The game's rules (2, 3, 4, a token like ``"2T"``, or a ``Rules``: what the game's
        entry's ``rules`` takes); not the solo or team game (no opponents to rank against,
        or seats that share counters).
    seed : anything ``numpy.random.default_rng`` accepts
        The root: deal ``d`` is chunk ``d``'s chance stream of ``genial.simulate(..., seed=)``.
        The result does not depend on ``workers``.
    workers : int, optional
        Threads (default: every core; the kernel releases the GIL).
    progress : bool
        A progress bar over the games.
    epsilon : float
        Epsilon of ``"epsilon-greedy"`` policies given without their own.
    anchor : str, optional
        The policy rated 0 (default: the first); ``"mean"`` for ratings of mean 0.
    prior : float
        Drawn games added to every pair of policies that met, so that ratings stay finite when
        one policy won every game (default 1: negligible next to hundreds of games; 0 for the
        plain maximum-likelihood fit, which then may refuse).
    bootstrap : int
        Bootstrap samples (over deals) for the rating intervals; 0 for none (NaN bounds).
    game : str
        Any registered game (``genial.games()``: ``"board"``, ``"cards"``, or a plug-in's):
        the arena needs of its result rows only their ``ranks`` and ``winner``, and the
        lowest colour of their ``scores`` in a game with colours (the adapter's
        ``colours``; else ``lowest`` is NaN).
    """
    names = _check_policies(policies)
    game_entry = entry(game)
    rules = game_entry.rules(players)
    k = int(rules.players)
    if k < 2:
        raise GenialError("an arena needs opponents: the solo game has none")
    if getattr(rules, "teams", False):
        raise GenialError("an arena ranks seats against each other: not the team game")
    if len(names) < k:
        raise GenialError(
            f"a {k}-player arena needs at least {k} distinct policies, got {len(names)}"
        )
    deals = checked_int(games, "games", 1, MAX_DEALS)
    samples = checked_int(bootstrap, "bootstrap", 0, 100_000)
    progress = checked_flag(progress, "progress")
    n_workers = worker_count(-1 if workers is None else workers)
    if anchor is None:
        anchor_index: int | None = 0
    elif anchor == "mean":
        anchor_index = None
    elif isinstance(anchor, str) and anchor in names:
        anchor_index = names.index(anchor)
    else:
        raise GenialError(f"anchor: one of the policies or 'mean', got {excerpt(anchor)}")
    if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not prior >= 0:
        raise GenialError(f"prior must be a number >= 0, got {excerpt(prior)}")
    root = as_seed_sequence(seed)
    tables = _tables(len(names), k)
    specs = [
        [
            prepare(
                1,
                rules=rules,
                policy=[names[i] for i in _rotation(table, r)],
                seed=root,
                options={"epsilon": epsilon},
                game=game_entry.name,
            )
            for r in range(k)
        ]
        for table in tables
    ]
    items = [(d0, min(deals, d0 + DEALS_PER_ITEM), specs) for d0 in range(0, deals, DEALS_PER_ITEM)]
    per_deal = len(tables) * k
    bar = progress_bar(deals * per_deal, progress, unit="games")
    backend = Serial() if n_workers == 1 or len(items) == 1 else Threads(n_workers)
    began = time.perf_counter()
    blocks: list[npt.NDArray[Any]] = [np.empty(0)] * len(items)
    results = backend.map(_play_deals, items)
    try:
        for d0, rows in results:
            blocks[d0 // DEALS_PER_ITEM] = rows
            if bar:
                bar(rows.shape[0] * per_deal)
    finally:
        results.close()
    seconds = time.perf_counter() - began
    rows = np.concatenate(blocks)  # (deals, tables, rotations)
    colours = bool(getattr(game_entry.adapter, "colours", ""))  # (GameAdapter.colours)
    return _result(
        names, rules, k, tables, rows, anchor_index, float(prior), samples, root, seconds, colours
    )


def _outcomes(
    n: int, tables: Sequence[tuple[int, ...]], rows: npt.NDArray[Any], colours: bool = True
) -> tuple[npt.NDArray[np.int64], ...]:
    """Per deal: wins[d, i, j], ties[d, i, j], first places and games per policy, and the sum
    of the final lowest colours per policy (zeros in a game without ``colours``: the rows'
    ``ranks`` and ``winner`` are all the arena needs)."""
    deals = rows.shape[0]
    k = len(tables[0])
    wins = np.zeros((deals, n, n), dtype=np.int64)
    ties = np.zeros((deals, n, n), dtype=np.int64)
    first = np.zeros((deals, n), dtype=np.int64)
    played = np.zeros((deals, n), dtype=np.int64)
    lowest = np.zeros((deals, n), dtype=np.int64)
    for t, table in enumerate(tables):
        for r in range(k):
            seat_policy = _rotation(table, r)
            game_rows = rows[:, t, r]
            ranks = game_rows["ranks"][:, :k].astype(np.int64)
            low = game_rows["scores"][:, :k, :].min(axis=2).astype(np.int64) if colours else None
            winner = game_rows["winner"].astype(np.int64)
            for s, i in enumerate(seat_policy):
                played[:, i] += 1
                first[:, i] += winner == s
                if low is not None:
                    lowest[:, i] += low[:, s]
                for u, j in enumerate(seat_policy):
                    if u == s:
                        continue
                    wins[:, i, j] += ranks[:, s] < ranks[:, u]
                    ties[:, i, j] += ranks[:, s] == ranks[:, u]
    return wins, ties, first, played, lowest


def _result(
    names: tuple[str, ...],
    rules: Any,
    k: int,
    tables: Sequence[tuple[int, ...]],
    rows: npt.NDArray[Any],
    anchor: int | None,
    prior: float,
    samples: int,
    root: np.random.SeedSequence,
    seconds: float,
    colours: bool = True,
) -> ArenaResult:
    n = len(names)
    wins_d, ties_d, first_d, played_d, lowest_d = _outcomes(n, tables, rows, colours)
    wins, ties = wins_d.sum(axis=0), ties_d.sum(axis=0)
    meetings = wins + wins.T + ties
    with np.errstate(invalid="ignore", divide="ignore"):
        points = wins + 0.5 * ties
        score = np.where(meetings > 0, points / meetings, np.nan)
    lo, hi = wilson_interval(points, meetings)
    lo, hi = np.where(meetings > 0, lo, np.nan), np.where(meetings > 0, hi, np.nan)
    elo = bradley_terry(wins, ties, prior=prior, anchor=anchor)
    deals = rows.shape[0]
    boot = np.zeros((samples, n))
    if samples:
        rng = np.random.Generator(np.random.PCG64(child_seed(root, BOOTSTRAP_STREAM)))
        weights = rng.multinomial(deals, np.full(deals, 1.0 / deals), size=samples)
        w_b = (weights @ wins_d.reshape(deals, n * n)).reshape(samples, n, n)
        t_b = (weights @ ties_d.reshape(deals, n * n)).reshape(samples, n, n)
        for b in range(samples):
            try:
                boot[b] = bradley_terry(w_b[b], t_b[b], prior=prior, anchor=anchor)
            except GenialError:  # a resample where some policy won everything (prior=0)
                boot[b] = np.nan
        elo_lo = np.nanpercentile(boot, 2.5, axis=0)
        elo_hi = np.nanpercentile(boot, 97.5, axis=0)
    else:
        elo_lo = np.full(n, np.nan)
        elo_hi = np.full(n, np.nan)
    played = played_d.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        lowest = np.where(played > 0, lowest_d.sum(axis=0) / played, np.nan)
    if not colours:  # a game without colours: no lowest colour to average
        lowest = np.full(n, np.nan)
    return ArenaResult(
        policies=names,
        rules=rules,
        players=k,
        deals=deals,
        games=deals * len(tables) * k,
        wins=wins,
        ties=ties,
        meetings=meetings,
        score=score,
        score_lo=lo,
        score_hi=hi,
        elo=elo,
        elo_lo=elo_lo,
        elo_hi=elo_hi,
        anchor="mean" if anchor is None else names[anchor],
        prior=prior,
        first=first_d.sum(axis=0),
        played=played,
        lowest=lowest,
        bootstrap=boot,
        seed=root,
        seconds=seconds,
    )

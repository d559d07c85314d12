"""Opening analysis: which first placements win, by how much, and how sure we are.

Every legal first placement (RULES §3.2) is folded with the board's symmetry group (RULES §1.6:
six rotations and their mirror images, colours relabelled with the symbols) into classes of
equivalent openings. Each class is then played out many times with a policy (the opener holds
the opening's tile, the rest of every rack and the bag are random), and its results are reported
with 95% intervals and a Holm-corrected test against the average.

>>> from genial.openings import opening_classes
>>> classes = opening_classes(players=2)
>>> len(classes), sum(c.size for c in classes)
(164, 1944)
>>> print(classes[0].representative)
R1,-5+R2,-5
>>> for part in classes[0].description.split(", "):
...     print(part)
symbol-colour half touching the symbol on the symbols' ring
symbol-colour half further along the ring; scores 1
"""

from __future__ import annotations

import csv
import io
import math
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import NormalDist
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from ..batch import Playouts, prepare, run_many, simulate  # noqa: F401  (observe's doctest)
from ..batch.backends import checked_backend
from ..batch.chunks import check_memory
from ..batch.progress import one_bar, progress_bar
from ..errors import GenialError, checked_flag, checked_int, excerpt
from ..files import DirectoryLock, load_json, read_bounded, write_atomic
from ..policies import canonical, parse_policies
from ..racing import Checkpoint, CheckpointError, Race, split
from ..registry import entry
from ..seeds import as_seed_sequence, child_seed
from ..stats import (
    Z95,
    Agreement,
    best_set,
    best_set_of_means,
    holm,
    mean_interval,
    ranking_agreement,
    wilson_interval,
)
from .advantage import first_player_advantage
from .game import Game
from .geometry import COLOUR_NAMES, SYMBOLS, Symmetry, distance, symmetries
from .moves import TILES, Move
from .notation import NO_SYMBOL, Position, touched_symbol
from .rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "BookError",
    "OpeningAnalysis",
    "OpeningClass",
    "analyse",
    "book",
    "first_placements",
    "first_player_advantage",
    "holm",
    "map_move",
    "observe",
    "opening_classes",
    "read_book",
    "symmetries",
]

Cell = tuple[int, int]


# -- the symmetry group (RULES §1.6, in genial.geometry) acting on moves --------------------


def map_move(symmetry: Symmetry, move: Move) -> Move:
    """The image of a move under a symmetry (cells and colours both mapped)."""
    if move.cells is None or move.colours is None:
        return move
    cells = (symmetry.cell(move.cells[0]), symmetry.cell(move.cells[1]))
    return Move.place(cells, (symmetry.colour(move.colours[0]), symmetry.colour(move.colours[1])))


# -- classes of openings -----------------------------------------------------------------------


@dataclass(frozen=True)
class OpeningClass:
    """A class of equivalent first placements (an orbit of the symmetry group)."""

    index: int
    representative: Move  # the member with the smallest action id
    members: tuple[Move, ...]
    symbol: int  # colour of the symbol the representative touches
    symbol_halves: int  # halves of the tile in the touched symbol's colour: 0, 1 or 2
    others: str  # the other colour(s) relative to the symbol: neighbour, second, opposite
    touching: int  # halves next to the symbol: 1 or 2
    rim: int  # halves on the rim of the area
    points: int  # points the placement scores
    description: str

    @property
    def size(self) -> int:
        return len(self.members)


def _touched_symbol(move: Move) -> int:
    s = touched_symbol(move)
    return -1 if s == NO_SYMBOL else s  # a tournament first placement may touch only a tile


def _cross(u: Cell, p: Cell) -> int:
    return u[0] * p[1] - u[1] * p[0]


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _describe(move: Move, players: int, points: int) -> dict[str, Any]:
    """Words for a first placement, relative to the symbol it touches: which colour each half
    shows (the symbol's own, a neighbour's or second neighbour's on the side the tile lies,
    "near", or the other side, "far", or the opposite colour), and where each half lies."""
    assert move.cells is not None and move.colours is not None
    s = _touched_symbol(move)
    if s < 0:
        names = " and ".join(COLOUR_NAMES[c] for c in move.colours)
        return {
            "symbol": -1,
            "symbol_halves": 0,
            "others": "-",
            "touching": 0,
            "rim": sum(1 for c in move.cells if distance(c) == Rules(players).radius),
            "points": points,
            "description": f"{names} halves touching only tiles, at {move}; scores {points}",
        }
    sym = SYMBOLS[s]
    axis = (sym[0] // 5, sym[1] // 5)  # unit vector from the centre to the symbol
    cells, colours = move.cells, move.colours
    side = _sign(_cross(axis, (cells[0][0] + cells[1][0], cells[0][1] + cells[1][1])))

    def colour_side(c: int) -> int:
        return _sign(_cross(axis, SYMBOLS[c]))

    def colour_word(c: int, reference: int) -> str:
        d = (c - s) % 6
        if d == 0:
            return "symbol-colour"
        if d == 3:
            return "opposite-colour"
        kind = "neighbour" if d in (1, 5) else "second-neighbour"
        if reference == 0:
            return f"{kind}-colour"
        if side == 0:  # a tile on the symbol's axis: sides relative to the touching half's colour
            return f"{kind}-colour ({'same' if colour_side(c) == reference else 'other'} side)"
        return f"{'near' if colour_side(c) == reference else 'far'} {kind}-colour"

    def touches(cell: Cell) -> bool:
        return (
            max(
                abs(cell[0] - sym[0]),
                abs(cell[1] - sym[1]),
                abs(cell[0] - sym[0] + cell[1] - sym[1]),
            )
            == 1
        )

    def ring(cell: Cell) -> str:
        d = distance(cell)
        return "on the symbols' ring" if d == 5 else ("inside it" if d < 5 else "outside it")

    touch = [touches(c) for c in cells]
    t, a = (0, 1) if touch[0] else (1, 0)
    if side != 0:
        words = [colour_word(c, side) for c in colours]
    else:
        words = [""] * 2
        words[t] = colour_word(colours[t], 0)
        words[a] = colour_word(colours[a], colour_side(colours[t]))
    if all(touch):
        rings = [ring(cells[i]).replace("it", "the ring") for i in (t, a)]
        lie = (
            f"{words[t]} and {words[a]} halves both touching the symbol, {rings[0]} and {rings[1]}"
        )
    else:
        dt, da = distance(cells[t]), distance(cells[a])
        lateral = abs(_cross(axis, cells[a])) - abs(_cross(axis, cells[t]))
        if da == dt:
            way = "further along the ring" if dt == 5 else "alongside the ring"
            if dt != 5:
                way += f", {'away from' if lateral > 0 else 'toward'} the symbol's axis"
        else:
            toward = "toward the centre" if da < dt else "away from the centre"
            if lateral == 0 and side == 0:
                way = f"straight {toward}"
            elif lateral == 0:
                way = f"{'inward' if da < dt else 'outward'}, parallel to the symbol's axis"
            else:
                way = (
                    f"{'inward' if da < dt else 'outward'}, "
                    f"{'away from' if lateral > 0 else 'toward'} the symbol's axis"
                )
        where = ring(cells[t])
        if side != 0 and _cross(axis, cells[t]) == 0:
            where += " on the symbol's axis"
        lie = f"{words[t]} half touching the symbol {where}, {words[a]} half {way}"
    symbol_halves = sum(1 for c in colours if c == s)
    others = sorted(
        {w.split(" (")[0].split()[-1].removesuffix("-colour") for w in words} - {"symbol"}
    )
    return {
        "symbol": s,
        "symbol_halves": symbol_halves,
        "others": "+".join(others) if others else "-",
        "touching": sum(touch),
        "rim": sum(1 for c in cells if distance(c) == Rules(players).radius),
        "points": points,
        "description": f"{lie}; scores {points}",
    }


def _first_placements(position: Position) -> list[Move]:
    """All first placements of the seat to move at ``position`` with any tile (RULES §3.2):
    the legal moves of the position with each tile type in turn as every rack."""
    out: set[Move] = set()
    players = position.rules.players
    for tile in TILES:
        pos = position.replace(racks=((tile,),) * players, bag=(0,) * len(TILES))
        out.update(Game.from_position(pos).legal_moves())
    return sorted(out, key=lambda m: m.action)


def _empty_position(rules: Rules) -> Position:
    return Position.empty(rules).replace(bag=(0,) * len(TILES))


def first_placements(players: int | str | Rules = 2) -> list[Move]:
    """Every legal first placement of the first player on the empty board, by action id.

    >>> len(first_placements(2))
    1944
    """
    return _first_placements(_empty_position(Rules.of(players)))


def opening_classes(
    players: int | Rules = 2, reply_to: Move | str | None = None
) -> list[OpeningClass]:
    """The classes of equivalent first placements of the first player, or, with ``reply_to``,
    of the second player's first placement after that opening (folded by the symmetries that
    fix it). ``players`` may be a ``genial.Rules`` for a variant. Sorted by representative
    action id."""
    rules = Rules.of(players)
    players = rules.players
    position = _empty_position(rules)
    group = symmetries()
    if reply_to is not None:
        if players == 1:
            raise GenialError("reply_to: the solo game has no second player")
        first = reply_to if isinstance(reply_to, Move) else Move.parse(reply_to)
        if first.kind != "place" or first not in set(_first_placements(position)):
            raise GenialError(
                f"reply_to: {first} is not a legal first placement of the first player"
            )
        position = position.place(first, seat=0).replace(to_move=1)
        group = [g for g in group if map_move(g, first) == first]
    candidates = _first_placements(position)
    legal = set(candidates)
    seen: set[Move] = set()
    classes = []
    scorer = Game.from_position(position.replace(racks=(((0, 0),),) * players))
    for move in sorted(candidates, key=lambda m: m.action):
        if move in seen:
            continue
        orbit = {map_move(g, move) for g in group}
        assert orbit <= legal, "the symmetry group maps legal openings to legal openings"
        seen |= orbit
        members = tuple(sorted(orbit, key=lambda m: m.action))
        points = sum(scorer.gains(members[0]))
        classes.append((members, _describe(members[0], players, points)))
    return [
        OpeningClass(index=i, representative=m[0], members=m, **info)
        for i, (m, info) in enumerate(classes)
    ]


# -- statistics --------------------------------------------------------------------------------


def _per_game(runs: Playouts, seat: int) -> dict[str, np.ndarray]:
    """Each game's result for ``seat``: ``win`` (its side first alone), ``shared`` (a shared
    first place), ``mine`` (its lowest counter) and ``others`` (the best lowest counter of the
    other sides; 0 in solo), as uint8 arrays."""
    rules = runs.game_rules
    side = rules.team_of(seat)
    lowest = runs.scores.min(axis=2)
    opponents = [s for s in range(rules.players) if rules.team_of(s) != side]
    return {
        "win": (runs.winner == side).astype(np.uint8),
        "shared": ((runs.winner == -1) & (runs.ranks[:, seat] == 0)).astype(np.uint8),
        "mine": lowest[:, seat].astype(np.uint8),
        "others": (lowest[:, opponents].max(axis=1) if opponents else np.zeros(len(runs))).astype(
            np.uint8
        ),
    }


_GAMES = ("win", "shared", "mine", "others")  # the columns of ``_per_game``


def _games_of(results: Sequence[Playouts], seat: int) -> dict[str, np.ndarray]:
    """``_per_game`` of several batches, their games one after another."""
    each = [_per_game(runs, seat) for runs in results]
    return {name: np.concatenate([games[name] for games in each]) for name in _GAMES}


def _refuse_impossible(games: dict[str, np.ndarray], where: str, step: int) -> None:
    """A step read back from disk holds no game both won alone and shared (the checksum
    guards against damage, this against a well-formed lie)."""
    if np.any(games["win"] & games["shared"]):
        raise CheckpointError(f"{where}: step {step}: a game both won and shared")


def _class_stats(runs: Playouts, seat: int) -> dict[str, Any]:
    return _stats(_per_game(runs, seat))


def _stats(games: dict[str, np.ndarray]) -> dict[str, Any]:
    """A class's columns of the table from its games' results (``_per_game``)."""
    n = len(games["win"])
    wins = int(games["win"].sum())
    shared = int(games["shared"].sum())
    lo, hi = wilson_interval(wins, n)
    mine = games["mine"].astype(np.float64)
    others = games["others"].astype(np.float64)
    low_mean, low_lo, low_hi = mean_interval(mine)
    margin_mean, margin_lo, margin_hi = mean_interval(mine - others)
    return {
        "_win": games["win"],  # (the games in order, for a paired best set: _table drops them)
        "_mine": games["mine"],
        "games": n,
        "wins": wins,
        "shared": shared,
        "win_rate": wins / n if n else math.nan,
        "win_rate_lo": float(lo),
        "win_rate_hi": float(hi),
        "lowest": low_mean,
        "lowest_lo": low_lo,
        "lowest_hi": low_hi,
        "lowest_sd": float(mine.std(ddof=1)) if n > 1 else math.nan,
        "margin": margin_mean,
        "margin_lo": margin_lo,
        "margin_hi": margin_hi,
    }


# -- results -----------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class OpeningAnalysis:
    """The result of ``analyse`` or ``observe``: ``table`` has one row per class, best first.

    Columns: ``class``, ``example`` (the representative move), ``size`` (openings in the
    class), ``description``, ``symbol``, ``symbol_halves``, ``others``, ``touching``, ``rim``,
    ``points``, ``games``, ``wins`` (outright first places of the opener), ``shared`` (first
    places shared, counted as no win), ``win_rate`` with ``win_rate_lo``/``win_rate_hi`` (95%
    Wilson), ``lowest`` (the opener's final lowest colour) and ``margin`` (that minus the best
    opponent's lowest colour), each with a 95% interval, ``p_value`` (two-sided z-test of the
    metric against the average of all classes), ``p_holm`` and ``differs`` (Holm, 5%), and
    ``best``: the classes that may be best at 95% (multiple comparisons with the best, Hsu
    1981; ``best_words`` says how many are tied for first). The table's order and its
    estimates are those of the games that selected the classes, so the top rows' estimates
    carry the winner's curse; with ``confirm`` (``analyse(confirm=N)``) each class of the best
    set was played ``N`` more times on a stream that took no part in the selection, and
    ``confirm_games``, ``confirm_wins``, ``confirm_shared``, ``confirm_lowest``,
    ``confirm_lowest_sd`` and ``confirmed`` with ``confirmed_lo``/``confirmed_hi`` (the
    metric, 95%) are the estimates to read (NaN, 0 games, for the other classes).

    ``metric`` is ``"win_rate"``, or ``"lowest"`` in the solo game (the result of a solo game
    is its lowest counter); ``average`` is the metric over all games (a win rate with its
    Wilson interval), except in a raced table (``race``), whose classes played as many games
    as the race gave them: there it is the mean of the classes' estimates, each class weighing
    the same (a stratified mean, as ``effects`` pools groups of classes), the metric of an
    opening drawn uniformly from the classes (a pooled rate would lean toward the classes that
    stayed in the race). In the team game a win is the opener's team's.
    """

    players: int
    seat: int
    policy: tuple[str, ...]
    games_per_opening: int | None
    seed: np.random.SeedSequence | None
    reply_to: str | None
    classes: tuple[OpeningClass, ...]
    table: pd.DataFrame
    average: float  # the opener's win rate over every game
    average_lo: float
    average_hi: float
    rules: Rules = field(default_factory=Rules)
    metric: str = "win_rate"
    seconds: float | None = None
    race: dict[str, Any] | None = None  # the adaptive analysis's summary (``analyse``)
    provenance: dict[str, Any] | None = None  # how a book was made (``book``, ``read_book``)
    confirm: int = 0  # fresh games of each class of the best set (``analyse(confirm=N)``)
    paired: bool = False  # game j of every class on the same streams (``analyse(paired=True)``)

    @property
    def best_words(self) -> str:
        """How many classes may be best, in words (``best``)."""
        return _best_words(self.table)

    def __repr__(self) -> str:
        """One line (the table is ``table``; ``str()`` prints it, Jupyter shows it as HTML):
        a dump of every class's members and statistics would run to 100,000 characters."""
        games = "" if self.games_per_opening is None else f", {self.games_per_opening:,} games each"
        if self.race is not None:
            games = (
                f", raced: {self.race['games']:,} games of {self.race['uniform_games']:,}, "
                f"{self.race['in_race']} classes to the end"
            )
        reply = "" if self.reply_to is None else f", replies to {self.reply_to}"
        seed = "" if self.seed is None else f", seed {self.seed.entropy}"
        return (
            f"<OpeningAnalysis: rules {self.rules}, seat {self.seat}{reply}, "
            f"{len(self.classes)} classes{games}, policies {self.policy}{seed}>"
        )

    def effects(self) -> pd.DataFrame:
        """What the classes share, pooled: the metric of an opening drawn uniformly from the
        classes with a given value of a feature, with its 95% interval, for the features
        ``points`` (what the opening scores), ``touching`` (its halves touching the symbol:
        how close it keeps to it), ``symbol_halves`` (its halves of the symbol's colour) and
        ``rim`` (its halves on the board's rim), and ``all`` (every class: ``average``).

        Each class weighs the same, whatever its games (a raced table gives the classes it
        stopped fewer), and each class's games are its own: the estimate of a group is the
        mean of its classes' estimates, with the variance ``sum(var_i / n_i) / k^2`` of a
        stratified mean (normal interval). These are selection-free: no group was chosen by
        the games that estimate it. Columns: ``feature``, ``value``, ``classes``, ``games``,
        ``estimate``, ``lo``, ``hi``.

        >>> from genial.openings import book
        >>> effects = book(2).effects()
        >>> by_points = effects[effects["feature"] == "points"]
        >>> list(by_points["value"])
        [0, 1, 2]
        >>> bool(by_points["estimate"].is_monotonic_increasing)
        True
        """
        import pandas as pd

        t = self.table
        rows: list[tuple[str, str | int, np.ndarray]] = [("all", "all", np.ones(len(t), bool))]
        for feature in ("points", "touching", "symbol_halves", "rim"):
            for value in sorted(t[feature].unique()):
                rows.append((feature, int(value), (t[feature] == value).to_numpy()))
        out = []
        for feature, value, pick in rows:
            mean, lo, hi = _stratified(t[pick], self.metric)
            out.append(
                {
                    "feature": feature,
                    "value": value,
                    "classes": int(pick.sum()),
                    "games": int(t["games"][pick].sum()),
                    "estimate": mean,
                    "lo": lo,
                    "hi": hi,
                }
            )
        return pd.DataFrame(out)

    def to_parquet(self, path: str | os.PathLike[str]) -> None:
        """Write the table as Parquet (needs pyarrow)."""
        self.table.to_parquet(path, index=False)

    def to_csv(self, path: str | os.PathLike[str]) -> None:
        """Write the table as CSV."""
        self.table.to_csv(path, index=False)

    def agreement(
        self, other: OpeningAnalysis, *, top: int = 10, draws: int = 2000, seed: Any = 0
    ) -> Agreement:
        """How far this table's ranking of the classes agrees with ``other``'s (the same rules
        and opener, another policy or sample): Kendall's tau between the classes' estimates and
        how many of the ``top`` best classes both share, each with a 95% interval from a
        parametric bootstrap of both tables (``genial.stats.ranking_agreement``; binomial win
        rates, or normal mean lowest counters in solo). Along the skill ladder it says when a
        cheap table (greedy play) can stand in for an expensive one (docs/openings.md).

        >>> greedy = analyse(2, games_per_opening=200, seed=1)
        >>> again = analyse(2, games_per_opening=200, seed=2)
        >>> found = greedy.agreement(again, draws=100)
        >>> found.candidates, found.top, -1 <= found.tau_lo <= found.tau_hi <= 1
        (164, 10, True)
        """
        if not isinstance(other, OpeningAnalysis):
            raise GenialError(f"agreement needs another OpeningAnalysis, got {excerpt(other)}")
        if (str(self.rules), self.seat, self.reply_to) != (
            str(other.rules), other.seat, other.reply_to
        ) or len(self.classes) != len(other.classes):
            raise GenialError(
                "agreement compares analyses of the same classes: rules "
                f"{self.rules} seat {self.seat} against rules {other.rules} seat {other.seat}"
            )
        a = self.table.sort_values("class")
        b = other.table.sort_values("class")
        if (a["games"] < 2).any() or (b["games"] < 2).any():
            raise GenialError("agreement needs at least 2 games of every class in both tables")
        try:
            if self.metric == "win_rate":
                return ranking_agreement(
                    a["win_rate"].to_numpy(), np.zeros(len(a)), b["win_rate"].to_numpy(),
                    np.zeros(len(b)), top=top, draws=draws, seed=as_seed_sequence(seed),
                    games_a=a["games"].to_numpy(), games_b=b["games"].to_numpy(),
                )  # fmt: skip
            return ranking_agreement(
                a["lowest"].to_numpy(), (a["lowest_sd"] / np.sqrt(a["games"])).to_numpy(),
                b["lowest"].to_numpy(), (b["lowest_sd"] / np.sqrt(b["games"])).to_numpy(),
                top=top, draws=draws, seed=as_seed_sequence(seed),
            )  # fmt: skip
        except ValueError as err:
            raise GenialError(f"agreement: {err}") from None

    def replay(
        self,
        classes: Sequence[int] | None = None,
        *,
        games: int = 10_000,
        seed: Any = None,
        workers: int | None = -1,
        progress: bool = False,
    ) -> pd.DataFrame:
        """Play the confirmed classes again on fresh games, to see that their confirmed
        estimates hold (issue 41: a book's numbers must survive a second look). ``classes``:
        class indices (default: every confirmed class); each plays ``games`` games under the
        table's rules, opener and policies, on a stream of ``seed`` (give one the table did
        not use: the default draws fresh entropy).

        One row per class: ``class``, ``example``, the confirmation's ``confirmed`` with
        ``confirmed_lo``/``confirmed_hi`` and ``confirm_games``, the replay's ``games``,
        ``replayed`` with ``replayed_lo``/``replayed_hi`` (95% Wilson), ``inside`` (the
        replay's estimate inside the confirmed interval) and ``agrees``: the two estimates
        differ by less than their 95% bound, Bonferroni-corrected over the rows (a two-sided
        z-test of the difference of two independent win rates), which holds for every row at
        once with probability at least 95% when the confirmed estimates are right.

        >>> checked = analyse(2, games_per_opening=64, seed=1, confirm=256, workers=1)
        >>> again = checked.replay(list(checked.table["class"][:2]), games=256, seed=99)
        >>> list(again.columns[-2:]), len(again)
        (['inside', 'agrees'], 2)
        """
        import pandas as pd

        if self.metric != "win_rate":
            raise GenialError("replay checks win rates: a solo table's results are counters")
        t = self.table.set_index("class")
        if "confirmed" not in t or not (t["confirm_games"] > 0).any():
            raise GenialError("replay needs a confirmed table (analyse(..., confirm=N))")
        done = [int(i) for i in t.index[t["confirm_games"] > 0]]
        if classes is None:
            picked = done
        else:
            if isinstance(classes, (str, bytes)) or not isinstance(classes, Sequence):
                raise GenialError(f"classes: a sequence of class indices, got {excerpt(classes)}")
            picked = []
            for item in classes:
                if isinstance(item, bool) or not isinstance(item, (int, np.integer)):
                    raise GenialError(f"classes: class indices, got {excerpt(item)}")
                if int(item) not in done:
                    raise GenialError(f"class {excerpt(int(item))} was not confirmed in this table")
                picked.append(int(item))
        games = checked_int(games, "games", 1, _MAX_CONFIRM)
        root = as_seed_sequence(seed)
        first = None if self.reply_to is None else Move.parse(self.reply_to)
        by_index = {cls.index: cls for cls in self.classes}
        jobs = []
        for i in picked:
            opening = by_index[i].representative
            spec = prepare(
                games,
                rules=self.rules,
                policy=list(self.policy),
                seed=child_seed(root, i),
                options={"openings": [opening] if first is None else [first, opening]},
            )
            jobs.append((spec, games))
        results = run_many(jobs, workers=workers, progress=progress)
        z = NormalDist().inv_cdf(1 - 0.025 / max(1, len(picked)))  # Bonferroni, two-sided
        rows = []
        for i, runs in zip(picked, results, strict=True):
            wins = int(_per_game(runs, self.seat)["win"].sum())
            lo, hi = wilson_interval(wins, games)
            row = t.loc[i]
            a, n_a = float(row["confirmed"]), int(row["confirm_games"])
            b = wins / games
            spread = math.sqrt(a * (1 - a) / n_a + b * (1 - b) / games)
            rows.append(
                {
                    "class": i,
                    "example": row["example"],
                    "confirmed": a,
                    "confirmed_lo": float(row["confirmed_lo"]),
                    "confirmed_hi": float(row["confirmed_hi"]),
                    "confirm_games": n_a,
                    "games": games,
                    "replayed": b,
                    "replayed_lo": float(lo),
                    "replayed_hi": float(hi),
                    "inside": bool(row["confirmed_lo"] <= b <= row["confirmed_hi"]),
                    "agrees": bool(abs(a - b) <= z * spread),
                }
            )
        return pd.DataFrame(rows)

    def to_book(self, directory: str | os.PathLike[str], *, command: str | None = None) -> None:
        """Write this analysis as an opening book, the form ``read_book`` and ``book`` read:
        ``table.csv`` and ``book.json`` (its provenance: rules, policies, games, seed, the
        race's parameters, ``command``, the date, genial's version, and the table's SHA-256) in
        ``directory``. The two files are written under the directory's lock
        (``genial.files.DirectoryLock``): a second writer meanwhile (another thread or process,
        or a race writing its steps there) is refused with a ``BookError``, and a book is never
        a mixture of two writers' files. An analysis that could not be read back as a book is
        refused before anything is written."""
        import datetime
        import hashlib
        import json

        from .._version import __version__
        from ..seeds import seed_words

        where = Path(os.fspath(directory))
        named = _book_where(where)
        text = self.table.to_csv(index=False, lineterminator="\n")
        words = None if self.seed is None else seed_words(self.seed.entropy)
        meta = {
            "format": BOOK_FORMAT,
            "rules": str(self.rules),
            "seat": self.seat,
            "reply_to": self.reply_to,
            "policy": list(self.policy),
            "games_per_opening": self.games_per_opening,
            "seed": words if words is None or isinstance(words, list) else str(words),
            "race": self.race,
            "games": int(self.table["games"].sum()),
            "seconds": None if self.seconds is None else round(self.seconds, 1),
            "command": command,
            "confirm": self.confirm,
            "paired": self.paired,
            "date": datetime.date.today().isoformat(),
            "genial": __version__,
            "sha256": hashlib.sha256(text.encode()).hexdigest(),
        }
        try:
            if self.seed is not None and words is None:
                raise BookError(f"seed: not a seed's entropy: {excerpt(self.seed.entropy)}")
            _check_book_meta(meta, f"{named}: book.json")
        except BookError as err:
            raise BookError(f"this analysis cannot be written as a book: {err}") from None
        try:
            where.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise BookError(f"{named}: cannot be made ({err.strerror or err})") from None
        with DirectoryLock(where, error=BookError, what="opening book: "):
            write_atomic(where / "table.csv", text)
            write_atomic(where / "book.json", json.dumps(meta, indent=1) + "\n")

    def cell_win_rates(self) -> dict[Cell, float]:
        """Each cell's mean metric (win rate; the result in solo) over the openings (every
        member of every class) covering it, for the heatmap."""
        rates = dict(zip(self.table["class"], self.table[self.metric], strict=True))
        total: dict[Cell, float] = {}
        count: dict[Cell, int] = {}
        for cls in self.classes:
            rate = rates.get(cls.index)
            if rate is None or math.isnan(rate):
                continue
            for move in cls.members:
                assert move.cells is not None
                for cell in move.cells:
                    total[cell] = total.get(cell, 0.0) + rate
                    count[cell] = count.get(cell, 0) + 1
        return {cell: total[cell] / count[cell] for cell in total}

    def plot(self, path: str | os.PathLike[str] | None = None, *, top: int = 12) -> Any:
        """A figure: the hex-board heatmap of win rate by the cells of the opening, and the
        best and worst ``top`` classes with their intervals. Saved to ``path`` if given (PNG,
        SVG, PDF: by its extension); returns the matplotlib Figure. Needs ``genial-sim[plot]``."""
        from .pictures import opening_figure

        figure = opening_figure(self, top=top)
        if path is not None:
            figure.savefig(path, dpi=110, bbox_inches="tight")
        return figure

    def summary(self, rows: int = 5) -> str:
        """The best and worst classes as a text table."""
        t = self.table
        solo = self.metric == "lowest"
        head = (
            f"rules {self.rules}, policy {', '.join(sorted(set(self.policy)))}, "
            f"{int(t['games'].sum()):,} games over {len(t)} classes"
        )
        if self.games_per_opening:
            head += f", {self.games_per_opening:,} per class"
        if self.reply_to:
            head += f", replies to {self.reply_to}"
        if solo:
            head += (
                f"; mean result {self.average:.2f} [{self.average_lo:.2f}, {self.average_hi:.2f}]"
            )
            columns = f"{'result':>8}  {'95% interval':<15}"
        else:
            head += (
                f"; seat {self.seat} wins {self.average:.2%} "
                f"[{self.average_lo:.2%}, {self.average_hi:.2%}] overall"
            )
            columns = f"{'win rate':>8}  {'95% interval':<17} {'lowest':>6} {'margin':>6}"
        confirmed = self.confirm > 0 and "confirmed" in t
        if confirmed:
            columns += f"  {'confirmed (fresh games)':<27}"
        lines = [
            head,
            f"best set: {self.best_words}; * marks its members"
            + (f", each confirmed on {self.confirm:,} fresh games" if confirmed else ""),
            f"{'rank':>4}  {'example':<14} {columns}  differs  description",
        ]
        picks = list(range(len(t)))
        if len(t) > 2 * rows:
            picks = [*range(rows), -1, *range(len(t) - rows, len(t))]
        for i in picks:
            if i == -1:
                lines.append("   ...")
                continue
            row = t.iloc[i]
            if solo:
                values = (
                    f"{row['lowest']:8.2f}  [{row['lowest_lo']:5.2f}, {row['lowest_hi']:5.2f}] "
                )
            else:
                values = (
                    f"{row['win_rate']:8.2%}  [{row['win_rate_lo']:6.2%}, "
                    f"{row['win_rate_hi']:6.2%}] {row['lowest']:6.2f} {row['margin']:+6.2f}"
                )
            if confirmed:
                if row["confirm_games"] > 0 and solo:
                    values += (
                        f"  {row['confirmed']:8.2f} [{row['confirmed_lo']:5.2f}, "
                        f"{row['confirmed_hi']:5.2f}]     "
                    )
                elif row["confirm_games"] > 0:
                    values += (
                        f"  {row['confirmed']:7.2%} [{row['confirmed_lo']:6.2%}, "
                        f"{row['confirmed_hi']:6.2%}]"
                    )
                else:
                    values += f"  {'':<27}"
            mark = "*" if row["best"] else " "
            lines.append(
                f"{i + 1:>3}{mark}  {row['example']:<14} {values}  "
                f"{'yes' if row['differs'] else 'no':<7}  {row['description']}"
            )
        played = int(t["games"].sum())
        if self.race is not None and "played" in self.race:
            played = int(self.race["played"])  # a resumed race read the rest from disk
            if played < int(t["games"].sum()):
                lines.append(f"resumed: {int(t['games'].sum()) - played:,} games read from disk")
        if self.seconds and played:
            lines.append(f"{played / self.seconds:,.0f} games/s, {self.seconds:.1f} s")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def _repr_html_(self) -> str:
        from .pictures import openings_html

        return openings_html(self)


def _table(
    classes: Sequence[OpeningClass],
    stats: Sequence[dict[str, Any]],
    metric: str,
    confirmed: dict[int, dict[str, float]] | None = None,
    *,
    paired: bool = False,
    best: Sequence[bool] | None = None,
    raced: bool = False,
) -> tuple[pd.DataFrame, float, float, float]:
    """The table, best first by ``metric`` ("win_rate", or "lowest" in the solo game), and the
    average with its interval. Each class is tested against the average (two-sided z-test),
    ``best`` marks the classes that may be best (``_best``; with ``paired``, on the classes'
    games compared game by game; ``best`` given: as read from a book, in ``classes``' order),
    and ``confirmed`` (class -> ``_confirm_stats``) adds the confirmation stage's columns
    (``_CONFIRM_TABLE``). ``raced``: the classes' games were set by a race, which plays the
    classes it stops less, so the average is the classes' stratified mean (``_stratified``),
    not the pooled games'."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - exercised only without pandas
        raise ImportError(
            "genial.openings needs pandas: pip install 'genial-sim[pandas]'"
        ) from None
    rows = []
    key = "_win" if metric == "win_rate" else "_mine"
    samples: list[npt.NDArray[Any]] | None = None
    if paired and best is None:
        samples = [st[key] for st in stats]
    stats = [{k: v for k, v in st.items() if not k.startswith("_")} for st in stats]
    for cls, st in zip(classes, stats, strict=True):
        rows.append(
            {
                "class": cls.index,
                "example": str(cls.representative),
                "size": cls.size,
                "description": cls.description,
                "symbol": COLOUR_NAMES[cls.symbol] if cls.symbol >= 0 else "none",
                "symbol_halves": cls.symbol_halves,
                "others": cls.others,
                "touching": cls.touching,
                "rim": cls.rim,
                "points": cls.points,
                **st,
            }
        )
    table = pd.DataFrame(rows)
    games = int(table["games"].sum()) if len(table) else 0
    n = table["games"].to_numpy(dtype=np.float64) if len(table) else np.zeros(0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if metric == "win_rate":
            wins = int(table["wins"].sum()) if len(table) else 0
            average = wins / games if games else math.nan
            lo, hi = (float(v) for v in wilson_interval(wins, games))
            if raced:
                average, lo, hi = _stratified(table, metric)
            p = table["win_rate"].to_numpy(dtype=np.float64)
            z = (p - average) / np.sqrt(average * (1 - average) / n)
        else:
            average = float((table["lowest"] * table["games"]).sum() / games) if games else math.nan
            if raced:
                average = float(table["lowest"].mean())
            # the pooled standard deviation of all games' results
            within = (table["games"] * table["lowest_sd"].fillna(0) ** 2).sum()
            between = (table["games"] * (table["lowest"] - average) ** 2).sum()
            spread = math.sqrt((within + between) / games) if games else math.nan
            half = Z95 * spread / math.sqrt(games) if games else math.nan
            lo, hi = average - half, average + half
            if raced:
                average, lo, hi = _stratified(table, metric)
            z = (table["lowest"].to_numpy(dtype=np.float64) - average) / (spread / np.sqrt(n))
        p_value = np.array([math.erfc(abs(v) / math.sqrt(2)) if np.isfinite(v) else 1.0 for v in z])
    table["p_value"] = p_value
    table["p_holm"] = holm(p_value) if len(p_value) else p_value
    table["differs"] = table["p_holm"] < 0.05
    if best is not None:
        table["best"] = np.asarray(best, dtype=bool)
    else:
        table["best"] = _best(table, metric, samples) if len(table) else np.zeros(0, dtype=bool)
    if confirmed is not None:
        for column in _CONFIRM_TABLE:
            table[column] = [
                confirmed[c][column]
                if c in confirmed
                else (0 if column in _CONFIRM_INTS else math.nan)
                for c in table["class"]
            ]
    table = table.sort_values([metric, "class"], ascending=[False, True], kind="stable")
    return table.reset_index(drop=True), average, float(lo), float(hi)


def _class_variances(table: pd.DataFrame, metric: str) -> np.ndarray:
    """Each class's variance of its estimate (a win rate's ``p(1 - p) / n``, a mean's
    ``sd^2 / n``)."""
    n = table["games"].to_numpy(dtype=np.float64)
    if metric == "win_rate":
        p = table["win_rate"].to_numpy(dtype=np.float64)
        spread = p * (1 - p)
    else:
        spread = table["lowest_sd"].fillna(0).to_numpy(dtype=np.float64) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        out: np.ndarray = spread / n
    return out


def _stratified(table: pd.DataFrame, metric: str) -> tuple[float, float, float]:
    """The metric of a class drawn uniformly from ``table``'s: the mean of the classes'
    estimates with its 95% normal interval, ``var = sum(var_i) / k^2`` (each class's games
    its own: a stratified mean)."""
    k = len(table)
    if k == 0 or int(table["games"].min()) == 0:
        return math.nan, math.nan, math.nan
    values = table["win_rate" if metric == "win_rate" else "lowest"].to_numpy(dtype=np.float64)
    mean = float(values.mean())
    half = Z95 * math.sqrt(float(_class_variances(table, metric).sum())) / k
    return mean, mean - half, mean + half


BEST_CONFIDENCE = 0.95
"""The confidence of every opening table's ``best`` set."""

CONFIRM_KEY = 2**31 - 1
"""The seed key of the confirmation stage: its fresh games draw from ``child_seed(root,
CONFIRM_KEY)``'s games (paired: game ``j`` of every class from ``child_seed(root, CONFIRM_KEY,
j, 0 or 1)``; unpaired: class ``i`` from ``child_seed(root, CONFIRM_KEY, i)``), streams no
selection game touches (those have keys ``(j, 0 or 1)``, or ``(i, chunk)`` with ``i`` a class's
index, below 65,536)."""

_CONFIRM_TABLE = ("confirm_games", "confirm_wins", "confirm_shared", "confirm_lowest",
                  "confirm_lowest_sd", "confirmed", "confirmed_lo", "confirmed_hi")  # fmt: skip
_CONFIRM_INTS = ("confirm_games", "confirm_wins", "confirm_shared")


def _best(
    table: pd.DataFrame, metric: str, samples: Sequence[npt.NDArray[Any]] | None = None
) -> npt.NDArray[np.bool_]:
    """Which classes may be best at ``BEST_CONFIDENCE``: multiple comparisons with the best
    (Hsu 1981) over the classes' games: paired game by game (``genial.stats.best_set``) when
    ``samples`` (each class's results in the order of its games, the table's order) come from
    paired games, else as independent means (``best_set_of_means``); in a raced table only
    among the classes raced to the end (the others were stopped by the race's family-wise
    bound)."""
    n = table["games"].to_numpy(dtype=np.float64)
    if metric == "win_rate":
        mean = table["win_rate"].to_numpy(dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            var = np.where(n > 1, mean * (1 - mean) * n / np.maximum(n - 1, 1), np.inf)
    else:
        mean = table["lowest"].to_numpy(dtype=np.float64)
        var = table["lowest_sd"].to_numpy(dtype=np.float64) ** 2
    var = np.where(np.isfinite(var), var, np.inf)
    eligible = np.ones(len(table), dtype=bool)
    if "stopped_after" in table:
        eligible = table["stopped_after"].to_numpy() == -1
    mask = np.zeros(len(table), dtype=bool)
    if eligible.any() and samples is not None:
        picked = [samples[int(i)] for i in np.flatnonzero(eligible)]
        mask[eligible] = best_set(picked, paired=True, confidence=BEST_CONFIDENCE).mask
    elif eligible.any():
        found = best_set_of_means(
            mean[eligible], var[eligible], n[eligible], confidence=BEST_CONFIDENCE
        )
        mask[eligible] = found.mask
    return mask


def _confirm_stats(games: int, wins: int, shared: int, lowest: float, sd: float,
                   metric: str) -> dict[str, float]:  # fmt: skip
    """A confirmed class's columns from its fresh games' counts and mean lowest colour."""
    if metric == "win_rate":
        value = wins / games if games else math.nan
        lo, hi = (float(v) for v in wilson_interval(wins, games))
    else:
        value = lowest
        half = Z95 * sd / math.sqrt(games) if games > 1 else math.nan
        lo, hi = value - half, value + half
    return {
        "confirm_games": games, "confirm_wins": wins, "confirm_shared": shared,
        "confirm_lowest": lowest, "confirm_lowest_sd": sd,
        "confirmed": value, "confirmed_lo": lo, "confirmed_hi": hi,
    }  # fmt: skip


def _best_words(table: pd.DataFrame) -> str:
    """The best set in words."""
    size, k = int(table["best"].sum()), len(table)
    if size == 1:
        return f"1 of {k} classes is best ({BEST_CONFIDENCE:.0%}): no other may be"
    return f"{size} of {k} classes are statistically tied for first ({BEST_CONFIDENCE:.0%})"


def _result(
    classes: Sequence[OpeningClass],
    stats: Sequence[dict[str, Any]],
    rules: Rules,
    confirmed: dict[int, dict[str, float]] | None = None,
    best: Sequence[bool] | None = None,
    **fields: Any,
) -> OpeningAnalysis:
    """The ``OpeningAnalysis`` of ``classes`` and their ``stats`` (``_table``: ranked, tested
    against the average, its best set marked, ``confirmed`` added) under ``rules``, with the
    other ``fields``."""
    metric = "lowest" if rules.players == 1 else "win_rate"
    table, average, lo, hi = _table(
        classes,
        stats,
        metric,
        confirmed,
        paired=bool(fields.get("paired")),
        best=best,
        raced=fields.get("race") is not None,
    )
    return OpeningAnalysis(
        players=rules.players,
        classes=tuple(classes),
        table=table,
        average=average,
        average_lo=lo,
        average_hi=hi,
        rules=rules,
        metric=metric,
        **fields,
    )


# -- the analyses ------------------------------------------------------------------------------


def analyse(
    players: int = 2,
    *,
    games_per_opening: int = 1000,
    policy: str | Sequence[str] = "greedy",
    seed: Any = None,
    workers: int | None = None,
    reply_to: Move | str | None = None,
    progress: bool = False,
    epsilon: float = 0.1,
    teams: bool = False,
    tournament: bool = False,
    tiles: Literal["standard", "travel"] = "standard",
    rules: Rules | None = None,
    backend: str = "threads",
    address: Any = None,
    adaptive: bool = False,
    confidence: float = 0.95,
    batch: int | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    confirm: int = 0,
    paired: bool = True,
) -> OpeningAnalysis:
    """Play every class of openings ``games_per_opening`` times and tabulate the results.

    The opener (seat 0, or seat 1 with ``reply_to``) makes the class's representative
    placement (its tile given before the deal, the rest random); everything after is played by
    ``policy`` (default greedy: random play ends with a lowest colour near 0 and says little
    about real play). The classes are compared on **paired games** (common random numbers,
    ``paired=True``, the default): game ``j`` of every class draws from the same streams,
    ``child_seed(root, j, 0)`` for chance and ``(j, 1)`` for the policies (``BatchSpec.paired``),
    so the deals and draws of two classes' ``j``-th games match as far as their openings allow
    and their difference carries less luck; ``paired=False``: class ``i`` draws from the
    ``i``-th child of ``SeedSequence(seed)``, independently. Either way the table does not
    depend on ``workers``. Workers are threads running classes side by side
    (default: every core); ``backend="dask"`` runs the classes' chunks on a Dask cluster instead
    (``address`` and ``workers`` as for ``genial.simulate``), with the same table.

    ``adaptive=True`` races the classes instead (successive elimination, ``genial.racing``,
    docs/openings.md): rounds bring every class still in the race to ``batch``, then twice,
    four times as many games, up to ``games_per_opening``, and stop playing the classes whose
    upper bound is below the best lower bound (Hoeffding bounds with a family-wise guarantee:
    with probability ``confidence`` the best class is never stopped). A class's games are the
    first games of the uniform analysis's (the same seeds), so its row is what the uniform
    analysis would say after that many games; the table adds ``stopped_after`` (the round, or
    -1 for a class raced to the end) and the race's bounds ``race_lo``/``race_hi``. ``out`` (a
    directory) keeps every step of the race on disk as it finishes, and ``resume=True`` goes
    on from there: a long analysis stopped by Ctrl-C loses at most the step it was playing.

    The table's ``best`` column marks the classes that may be best at 95% (multiple
    comparisons with the best; in a race, among the classes raced to the end). Their
    estimates come from the games that selected them, biased upward at the top of a table (the
    winner's curse). ``confirm=N`` then plays each class of the best set ``N`` more times on a
    stream that took no part in the selection (class ``i``: ``child_seed(root, CONFIRM_KEY,
    i)``), and the table's ``confirmed`` columns hold those unbiased estimates
    (docs/openings.md).

    >>> result = analyse(2, games_per_opening=20, seed=1, workers=1)
    >>> len(result.table), int(result.table["games"].sum())
    (164, 3280)
    >>> raced = analyse(2, games_per_opening=1024, seed=1, adaptive=True)
    >>> raced.race["rounds"], raced.race["games"], raced.race["in_race"]
    (1, 167936, 164)
    >>> uniform = analyse(2, games_per_opening=1024, seed=1)
    >>> raced.table[["class", "wins"]].equals(uniform.table[["class", "wins"]])
    True
    >>> checked = analyse(2, games_per_opening=64, seed=1, confirm=64)
    >>> members = checked.table[checked.table["best"]]
    >>> bool((members["confirm_games"] == 64).all()), int(checked.table["confirm_games"].sum())
    (True, 9984)
    """
    game_rules = Rules.of(players, teams=teams, tournament=tournament, tiles=tiles, rules=rules)
    players = game_rules.players
    if isinstance(games_per_opening, bool) or not isinstance(games_per_opening, (int, np.integer)):
        raise GenialError(f"games_per_opening must be an int, got {excerpt(games_per_opening)}")
    if games_per_opening < 1:
        raise GenialError(f"games_per_opening must be >= 1, got {excerpt(int(games_per_opening))}")
    confirm = checked_int(confirm, "confirm", 0, _MAX_CONFIRM)
    paired = checked_flag(paired, "paired")
    bases, epsilons = parse_policies(policy, players, epsilon)
    names = tuple(canonical(b, e) for b, e in zip(bases, epsilons, strict=True))
    backend, n_workers = checked_backend(backend, workers, address, default_workers=-1)
    root = as_seed_sequence(seed)
    first = None
    if reply_to is not None:
        first = reply_to if isinstance(reply_to, Move) else Move.parse(reply_to)
    classes = opening_classes(game_rules, first)
    seat = 0 if first is None else 1

    def spec_of(cls: OpeningClass, games: int, key: tuple[int, ...]) -> Any:
        spec = prepare(
            games,
            rules=game_rules,
            policy=policy,
            seed=child_seed(root, *key),
            options={
                "openings": [cls.representative] if first is None else [first, cls.representative],
                "epsilon": epsilon,
            },
        )
        return replace(spec, paired=True) if paired else spec

    # paired: every class on the root's games (game j: child_seed(root, j, 0 or 1)); else
    # class i on the root's i-th child
    specs = [
        spec_of(cls, int(games_per_opening), () if paired else (cls.index,)) for cls in classes
    ]
    metric = "lowest" if players == 1 else "win_rate"
    began = time.perf_counter()
    race_info = None

    def run(jobs: list[tuple[Any, int]], starts: list[int]) -> list[Playouts]:
        """Each job's games from its start (``run_many(first=...)``), through one pool."""
        return run_many(
            jobs, workers=n_workers, progress=progress, backend=backend, address=address,
            first=starts,
        )  # fmt: skip

    race_params: dict[str, Any] = {
        "rules": str(game_rules),
        "seat": seat,
        "policy": list(names),
        "seed": [str(root.entropy), list(root.spawn_key)],
        "games_per_opening": int(games_per_opening),
        "reply_to": None if first is None else str(first),
        "classes": len(classes),
        **({"paired": True} if paired else {}),
    }
    if adaptive is not False:
        if adaptive is not True:
            raise GenialError(f"adaptive must be True or False, got {excerpt(adaptive)}")
        # one bar for the whole race: its total is the uniform analysis's games, the most the
        # race can play (it ends sooner when it stops classes)
        with one_bar(len(specs) * int(games_per_opening), progress) as say:
            stats, race_info = _race(
                specs,
                int(games_per_opening),
                seat,
                metric,
                game_rules,
                confidence=confidence,
                batch=batch,
                out=out,
                resume=resume,
                params=race_params,
                run=run,
                say=say,
                read=progress_bar(0, progress),
            )
    else:
        if out is not None or resume is not False or batch is not None:
            raise GenialError("out=, resume= and batch= are options of adaptive=True")
        check_memory(int(games_per_opening) * len(classes), entry("board").adapter, False)
        jobs = [(spec, int(games_per_opening)) for spec in specs]
        # every class's chunks through one pool: Ctrl-C stops within a chunk's time
        results = run_many(
            jobs, workers=n_workers, progress=progress, backend=backend, address=address
        )
        stats = [_class_stats(runs, seat) for runs in results]
    confirmed = None
    if confirm:
        selected, *_ = _table(classes, stats, metric, paired=paired)
        members = [int(i) for i in selected.loc[selected["best"], "class"]]
        check_memory(int(confirm) * len(members), entry("board").adapter, False)
        fresh = [
            spec_of(classes[i], int(confirm), (CONFIRM_KEY,) if paired else (CONFIRM_KEY, i))
            for i in members
        ]
        with one_bar(int(confirm) * len(members), progress):
            confirmed = _confirm(
                fresh,
                members,
                int(confirm),
                seat,
                metric,
                game_rules,
                out=out,
                resume=resume,
                params={
                    **race_params,
                    **({k: race_info[k] for k in ("confidence", "batch")} if race_info else {}),
                    "confirm": int(confirm),
                    "members": members,
                },
                run=run,
                read=progress_bar(0, progress),
            )
    return _result(
        classes,
        stats,
        game_rules,
        confirmed,
        confirm=int(confirm),
        paired=paired,
        seat=seat,
        policy=names,
        games_per_opening=int(games_per_opening),
        seed=root,
        reply_to=None if first is None else str(first),
        seconds=time.perf_counter() - began,
        race=race_info,
    )


_CONFIRM_STEP_CHUNKS = 64  # a confirmation step: one class's next 64 chunks of games


def _confirm(
    specs: Sequence[Any],
    members: Sequence[int],
    confirm: int,
    seat: int,
    metric: str,
    rules: Rules,
    *,
    out: str | os.PathLike[str] | None,
    resume: bool,
    params: dict[str, Any],
    run: Any,
    read: Callable[[int], None] | None = None,
) -> dict[int, dict[str, float]]:
    """The confirmation stage (``analyse(confirm=N)``): ``confirm`` fresh games of each class
    of the best set (``specs[k]`` plays class ``members[k]``), class -> ``_confirm_stats``.

    With ``out`` (an adaptive analysis's directory) every step, one class's next games, goes to
    ``out/confirm`` as it finishes (``Checkpoint``, checked like the race's steps) and
    ``resume`` reads the steps back, so that a long confirmation stopped by Ctrl-C loses at
    most the step it was playing. The games are those of one uninterrupted call either way: a
    step's games are the class's next games of the same stream (``run(jobs, starts)``)."""
    size = specs[0].chunk_games if specs else 1
    per_step = max(1, _CONFIRM_STEP_CHUNKS * size)
    plan = [
        (k, start, min(per_step, confirm - start))
        for k in range(len(members))
        for start in range(0, confirm, per_step)
    ]
    parts: list[list[dict[str, np.ndarray]]] = [[] for _ in members]
    check: Checkpoint | None = None
    pending: list[tuple[dict[str, Any], dict[str, np.ndarray]]] = []
    if out is not None:
        arrays = {"win": ("uint8", 1), "shared": ("uint8", 1), "mine": ("uint8", rules.cap),
                  "others": ("uint8", rules.cap)}  # fmt: skip
        check, pending = Checkpoint.open(
            Path(os.fspath(out)) / "confirm", params, resume=resume, arrays=arrays, rows=per_step
        )
    if check is None:  # every class's chunks through one pool, as one call
        results = run([(spec, confirm) for spec in specs], [0] * len(specs))
        parts = [[_games_of([runs], seat)] for runs in results]
        plan = []
    try:
        where = excerpt(str(Path(os.fspath(out)) / "confirm"), 200) if out is not None else ""
        if len(pending) > len(plan):
            raise CheckpointError(f"{where}: it holds more steps than this confirmation makes")
        for step, (k, start, count) in enumerate(plan):
            if step < len(pending):
                info, games = pending[step]
                if info != {"class": int(members[k]), "first": start} or len(games["win"]) != count:
                    raise CheckpointError(
                        f"{where}: step {step} is not a step of this confirmation"
                    )
                _refuse_impossible(games, where, step)
                if read is not None:  # (the bar counts the games read back too)
                    read(len(games["win"]))
            else:
                games = _games_of(run([(specs[k], count)], [start]), seat)
                if check is not None:
                    check.add({"class": int(members[k]), "first": start}, games)
            parts[k].append(games)
    finally:
        if check is not None:
            check.close()
    confirmed = {}
    for k, i in enumerate(members):
        games = {name: np.concatenate([p[name] for p in parts[k]]) for name in _GAMES}
        mine = games["mine"].astype(np.float64)
        confirmed[int(i)] = _confirm_stats(
            len(mine),
            int(games["win"].sum()),
            int(games["shared"].sum()),
            float(mine.mean()),
            float(mine.std(ddof=1)) if len(mine) > 1 else math.nan,
            metric,
        )
    return confirmed


_MAX_CONFIRM = 10**9  # fresh games of a class

_RACE_ARRAYS = {"cls": ("uint16", 65535), "win": ("uint8", 1), "shared": ("uint8", 1)}


def _race(
    specs: Sequence[Any],
    cap: int,
    seat: int,
    metric: str,
    rules: Rules,
    *,
    confidence: float,
    batch: int | None,
    out: str | os.PathLike[str] | None,
    resume: bool,
    params: dict[str, Any],
    run: Any,
    say: Callable[[str], None] | None = None,
    read: Callable[[int], None] | None = None,
) -> tuple[list[dict[str, float]], dict[str, Any]]:
    """The adaptive analysis (``analyse(adaptive=True)``): the classes' statistics and the
    race's summary. Each step plays a group of classes' next games (``run(jobs, starts)``) and
    goes to ``out`` before the next begins."""
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)):
        raise GenialError(f"confidence must be a number in (0, 1), got {excerpt(confidence)}")
    if not 0.0 < float(confidence) < 1.0:
        raise GenialError(f"confidence must be in (0, 1), got {excerpt(confidence)}")
    size = specs[0].chunk_games
    if batch is None:
        batch = size * -(-256 // size)
    if isinstance(batch, bool) or not isinstance(batch, (int, np.integer)):
        raise GenialError(f"batch must be an int, got {excerpt(batch)}")
    if batch < 1 or batch % size:
        raise GenialError(
            f"batch must be a positive multiple of {size} (the games of a chunk of these "
            f"policies), got {int(batch)}"
        )
    if not isinstance(resume, bool):
        raise GenialError(f"resume must be True or False, got {excerpt(resume)}")
    if resume and out is None:
        raise GenialError("resume=True needs out= (the directory of the analysis to resume)")
    span = 1.0 if metric == "win_rate" else float(rules.cap)
    k = len(specs)
    race = Race(k, cap=cap, batch=int(batch), confidence=float(confidence), span=span)
    arrays = {**_RACE_ARRAYS, "mine": ("uint8", rules.cap), "others": ("uint8", rules.cap)}
    params = {**params, "confidence": float(confidence), "batch": int(batch), "metric": metric}
    per_step = max(1, 64 * size)
    check: Checkpoint | None = None
    pending: list[tuple[dict[str, Any], dict[str, np.ndarray]]] = []
    if out is not None:
        # a step brings a group of classes to the round's goal: at most per_step games, or
        # one class's games of the round (at most cap)
        check, pending = Checkpoint.open(
            out, params, resume=resume, arrays=arrays, rows=max(per_step, cap)
        )
    try:
        return _run_race(
            race, specs, seat, metric, cap, out, check, pending, per_step, run, say, read
        )
    finally:
        if check is not None:
            check.close()  # the directory's lock: the race has ended, however it ended


def _run_race(
    race: Race,
    specs: Sequence[Any],
    seat: int,
    metric: str,
    cap: int,
    out: str | os.PathLike[str] | None,
    check: Checkpoint | None,
    pending: list[tuple[dict[str, Any], dict[str, np.ndarray]]],
    per_step: int,
    run: Any,
    say: Callable[[str], None] | None,
    read: Callable[[int], None] | None,
) -> tuple[list[dict[str, float]], dict[str, Any]]:
    """The rounds of ``_race``: steps read back from ``pending`` (checked against the race:
    each must be the step this analysis would play next), then played and added to
    ``check``."""
    k = len(specs)
    parts: list[list[dict[str, np.ndarray]]] = [[] for _ in range(k)]

    def take(cls: np.ndarray, games: dict[str, np.ndarray]) -> None:
        for i in np.unique(cls):
            rows = cls == i
            part = {name: games[name][rows] for name in _GAMES}
            parts[int(i)].append(part)
            value = part["win"] if metric == "win_rate" else part["mine"]
            race.record(int(i), count=int(rows.sum()), total=float(value.sum()))

    played = 0
    while not race.done:
        goal = race.targets()
        while todo := [i for i in race.alive if race.count[i] < goal[i]]:
            if pending:
                info, games = pending.pop(0)
                due = {i: goal[i] - race.count[i] for i in todo}
                counts = dict(zip(*np.unique(games["cls"], return_counts=True), strict=True))
                step = len(check.steps) - len(pending) - 1 if check else 0
                at = info.get("round")
                if (
                    isinstance(at, bool)
                    or at != race.round
                    or not counts
                    or any(due.get(int(i)) != int(c) for i, c in counts.items())
                ):
                    raise CheckpointError(
                        f"{excerpt(str(out), 200)}: step {step} is not a step of this analysis"
                    )
                _refuse_impossible(games, excerpt(str(out), 200), step)
                if read is not None:  # (the bar counts the games read back too)
                    read(len(games["cls"]))
                take(games["cls"], games)
                continue
            group = split(todo, max(1, per_step // max(1, goal[todo[0]] - race.count[todo[0]])))[0]
            jobs = [(specs[i], goal[i] - race.count[i]) for i in group]
            results = run(jobs, [race.count[i] for i in group])
            played += sum(len(r) for r in results)
            cls = np.concatenate(
                [np.full(len(r), i, dtype=np.uint16) for i, r in zip(group, results, strict=True)]
            )
            games = _games_of(results, seat)
            if check is not None:
                check.add({"round": race.round}, {"cls": cls, **games})
            take(cls, games)
        race.end_round()
        if not race.done and say is not None:
            say(
                f"round {race.round} of the race begins: {len(race.alive)} of {k} classes "
                f"still in it, {sum(race.count):,} games played of at most {k * cap:,}"
            )
    if pending:
        raise CheckpointError(
            f"{excerpt(str(out), 200)}: it holds more steps than this analysis makes"
        )
    stats = []
    for i in range(k):
        games = {name: np.concatenate([p[name] for p in parts[i]]) for name in parts[i][0]}
        row = _stats(games)
        after = race.stopped_after[i]
        row["stopped_after"] = -1 if after is None else after
        row["race_lo"], row["race_hi"] = race.bounds[i]
        stats.append(row)
    info = {
        "confidence": race.confidence,
        "batch": race.batch,
        "rounds": race.round,
        "games": sum(race.count),
        "uniform_games": k * cap,
        "in_race": len(race.alive),
        "played": played,
    }
    return stats, info


BOOK_FORMAT = "genial-book-1"
_BOOK_COLUMNS = {
    "class": int, "games": int, "wins": int, "shared": int, "lowest": float, "lowest_lo": float,
    "lowest_hi": float, "lowest_sd": float, "margin": float, "margin_lo": float,
    "margin_hi": float,
}  # fmt: skip
_RACE_COLUMNS = {"stopped_after": int, "race_lo": float, "race_hi": float}
_MAYBE_NAN = {"lowest_lo", "lowest_hi", "lowest_sd", "margin_lo", "margin_hi",
              "confirm_lowest", "confirm_lowest_sd"}  # one game, or no class confirmed  # fmt: skip
_BOOK_FIELDS = (
    "format", "rules", "seat", "reply_to", "policy", "games_per_opening", "seed", "race",
    "games", "seconds", "command", "date", "genial", "sha256",
)  # fmt: skip
_OPTIONAL_FIELDS = {"confirm": 0, "paired": False}  # (books written before these lack them)
_RACE_FIELDS = ("confidence", "batch", "rounds", "games", "uniform_games", "in_race")
_CONFIRM_COLUMNS = {
    "confirm_games": int, "confirm_wins": int, "confirm_shared": int, "confirm_lowest": float,
    "confirm_lowest_sd": float,
}  # fmt: skip
_MAX_BOOK_JSON = 1 << 20  # bytes
_MAX_BOOK_TABLE = 16 << 20  # bytes (a 436-class book takes about 200 KB)
_MAX_GAMES = 10**15  # games of a class, or of a book
_MAX_TEXT = 10_000  # characters of the command; the other strings are shorter still
_INT_TEXT = re.compile(r"-?[0-9]{1,18}")
_FLOAT_TEXT = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]{1,4})?")


class BookError(GenialError):
    """An opening book that cannot be read (a file missing, not a book's, damaged or out of
    range: the message names the file and the field), or a book directory another writer is
    writing to."""


def _book_where(directory: Any) -> str:
    return f"opening book {excerpt(str(directory), 200)}"


def _read_book_file(where: Any, name: str, limit: int) -> bytes:
    """File ``name`` of the book directory ``where`` (a path, or a resource of a package that
    is not on a file system), at most ``limit`` bytes, as untrusted input."""
    shown = f"{_book_where(where)}: {name}"
    if isinstance(where, Path):
        return read_bounded(where / name, limit, shown, BookError)
    try:  # (a Traversable: a package's resource in a zip archive)
        entry = where.joinpath(name)
        if not entry.is_file():
            raise BookError(f"{shown}: not a regular file")
        with entry.open("rb") as file:
            data = bytes(file.read(limit + 1))
    except OSError as err:
        raise BookError(f"{shown}: cannot be read ({err.strerror or type(err).__name__})") from None
    if len(data) > limit:
        raise BookError(f"{shown}: more than the {limit:,} bytes it may hold")
    return data


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class _BookMeta:
    """``book.json``, checked: what ``read_book`` builds the analysis from."""

    rules: Rules
    first: Move | None
    classes: list[OpeningClass]
    seat: int
    policy: tuple[str, ...]
    games_per_opening: int | None
    seed: np.random.SeedSequence | None
    race: dict[str, Any] | None
    games: int
    seconds: float | None
    confirm: int = 0
    paired: bool = False


def _check_book_meta(meta: Any, shown: str) -> _BookMeta:
    """Every field of a book's ``book.json`` checked for its type and range (``shown`` names
    the file in messages): a ``BookError`` naming the field otherwise."""

    def bad(key: str, what: str, value: Any) -> BookError:
        return BookError(f"{shown}: {key} must be {what}, got {excerpt(value)}")

    if not isinstance(meta, dict) or meta.get("format") != BOOK_FORMAT:
        raise BookError(f"{shown}: format: not a {BOOK_FORMAT} book")
    unknown = sorted(set(meta) - set(_BOOK_FIELDS) - set(_OPTIONAL_FIELDS), key=str)
    if unknown:
        raise BookError(f"{shown}: unknown field {excerpt(unknown[0])}")
    missing = [k for k in _BOOK_FIELDS if k not in meta]
    if missing:
        raise BookError(f"{shown}: {missing[0]}: missing")

    def text(key: str, limit: int, *, none: bool = False) -> str | None:
        value = meta[key]
        if value is None and none:
            return None
        if not isinstance(value, str) or len(value) > limit:
            raise bad(key, f"a string of at most {limit:,} characters", value)
        return value

    def count(key: str, value: Any, low: int, high: int) -> int:
        if not _is_int(value) or not low <= value <= high:
            raise bad(key, f"an int in {low:,}..{high:,}", value)
        return int(value)

    rules_text = text("rules", 100)
    try:
        rules = Rules.parse(str(rules_text))
    except GenialError as err:
        raise BookError(f"{shown}: rules: {err}") from None
    reply = text("reply_to", 100, none=True)
    try:
        first = None if reply is None else Move.parse(reply)
        classes = opening_classes(rules, first)
    except GenialError as err:
        raise BookError(f"{shown}: reply_to: {err}") from None
    seat = count("seat", meta["seat"], 0, 1)
    if seat != (0 if first is None else 1):
        raise bad("seat", f"{0 if first is None else 1} (the opener's seat)", seat)
    policy = meta["policy"]
    if (
        not isinstance(policy, list)
        or not 1 <= len(policy) <= 16
        or not all(isinstance(p, str) and 0 < len(p) <= 200 for p in policy)
    ):
        raise bad("policy", "a list of 1 to 16 policy names", policy)
    per = meta["games_per_opening"]
    per = None if per is None else count("games_per_opening", per, 1, _MAX_GAMES)
    seed_value = meta["seed"]
    seed: np.random.SeedSequence | None = None
    if seed_value is not None:
        words: Any = seed_value
        if isinstance(seed_value, str):
            if not 0 < len(seed_value) <= 2500 or not seed_value.isascii():
                raise bad("seed", "a seed's entropy (an int >= 0, or ints)", seed_value)
            if not seed_value.isdigit():
                raise bad("seed", "a seed's entropy (an int >= 0, or ints)", seed_value)
            words = int(seed_value)
        elif not isinstance(seed_value, list):
            raise bad("seed", "a seed's entropy (an int >= 0, or ints)", seed_value)
        try:
            seed = as_seed_sequence(words)
        except GenialError as err:
            raise BookError(f"{shown}: seed: {err}") from None
    games = count("games", meta["games"], 1, _MAX_GAMES)
    confirm = count("confirm", meta.get("confirm", 0), 0, _MAX_CONFIRM)
    paired = meta.get("paired", False)
    if not isinstance(paired, bool):
        raise bad("paired", "true or false", paired)
    seconds = meta["seconds"]
    if seconds is not None and (
        isinstance(seconds, bool)
        or not isinstance(seconds, (int, float))
        or not 0 <= seconds <= 1e12  # (NaN fails this too)
    ):
        raise bad("seconds", "a number of seconds >= 0 or null", seconds)
    text("command", _MAX_TEXT, none=True)
    text("date", 40)
    text("genial", 100)
    digest = meta["sha256"]
    if not isinstance(digest, str) or re.fullmatch(r"[0-9a-f]{64}", digest) is None:
        raise bad("sha256", "64 hex digits", digest)
    race = meta["race"]
    if race is not None:
        if not isinstance(race, dict):
            raise bad("race", "an object (the race's summary) or null", race)
        extra = sorted(set(race) - {*_RACE_FIELDS, "played"}, key=str)
        if extra:
            raise BookError(f"{shown}: race: unknown field {excerpt(extra[0])}")
        absent = [k for k in _RACE_FIELDS if k not in race]
        if absent:
            raise BookError(f"{shown}: race.{absent[0]}: missing")
        confidence = race["confidence"]
        if (
            isinstance(confidence, bool)
            or not isinstance(confidence, (int, float))
            or not 0.0 < confidence < 1.0
        ):
            raise bad("race.confidence", "a number in (0, 1)", confidence)
        if per is None:
            raise bad("games_per_opening", "an int (the race's cap)", per)
        count("race.batch", race["batch"], 1, _MAX_GAMES)
        count("race.rounds", race["rounds"], 1, 64)
        count("race.games", race["games"], games, games)
        count("race.uniform_games", race["uniform_games"], len(classes) * per, len(classes) * per)
        count("race.in_race", race["in_race"], 1, len(classes))
        if "played" in race:
            count("race.played", race["played"], 0, games)
        race = dict(race)
    return _BookMeta(
        rules=rules,
        first=first,
        classes=classes,
        seat=seat,
        policy=tuple(policy),
        games_per_opening=per,
        seed=seed,
        race=race,
        games=games,
        seconds=None if seconds is None else float(seconds),
        confirm=confirm,
        paired=paired,
    )


def _book_rows(raw: bytes, shown: str, info: _BookMeta) -> dict[int, dict[str, int | float]]:
    """The rows of a book's ``table.csv`` by class, each column of ``_BOOK_COLUMNS`` (and of
    ``_RACE_COLUMNS`` for a raced book) parsed strictly and checked for its range."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BookError(f"{shown}: not UTF-8 text") from None
    columns = {
        **_BOOK_COLUMNS,
        **(_RACE_COLUMNS if info.race is not None else {}),
        **(_CONFIRM_COLUMNS if info.confirm else {}),
    }
    known = {c.index for c in info.classes}
    top = float(info.rules.cap)
    rows: dict[int, dict[str, int | float]] = {}
    try:
        reader = csv.reader(io.StringIO(text, newline=""))
        header = next(reader, None)
        if header is None:
            raise BookError(f"{shown}: empty")
        if len(set(header)) != len(header):
            raise BookError(f"{shown}: a column is named twice")
        missing = [c for c in columns if c not in header]
        if missing:
            raise BookError(f"{shown}: column {missing[0]}: missing")
        place = {c: header.index(c) for c in columns}
        if info.paired and "best" not in header:  # (its best set needs the games: it is kept)
            raise BookError(f"{shown}: column best: missing (a paired book keeps its best set)")
        best_at = header.index("best") if info.paired else None
        for line, row in enumerate(reader, start=2):
            if len(rows) >= len(known):
                raise BookError(f"{shown}: more than the {len(known)} rows of its classes")
            if len(row) != len(header):
                raise BookError(f"{shown}: line {line}: {len(row)} fields, not {len(header)}")
            values: dict[str, int | float] = {}
            for column, kind in columns.items():
                cell = row[place[column]]
                where = f"{shown}: line {line}: {column}"
                if kind is int:
                    if _INT_TEXT.fullmatch(cell) is None:
                        raise BookError(f"{where}: not an int: {excerpt(cell)}")
                    values[column] = int(cell)
                elif cell == "" and column in _MAYBE_NAN:
                    values[column] = math.nan
                else:
                    number = float(cell) if _FLOAT_TEXT.fullmatch(cell) else math.nan
                    if not math.isfinite(number) or abs(number) > 1e9:
                        raise BookError(f"{where}: not a finite number: {excerpt(cell)}")
                    values[column] = number
            if best_at is not None:
                cell = row[best_at]
                if cell not in ("True", "False"):
                    raise BookError(f"{shown}: line {line}: best: not True or False")
                values["best"] = cell == "True"
            _check_book_row(values, f"{shown}: line {line}", info, known, top)
            index = int(values.pop("class"))
            if index in rows:
                raise BookError(f"{shown}: line {line}: class {index} is listed twice")
            rows[index] = values
    except csv.Error as err:
        raise BookError(f"{shown}: not readable CSV ({excerpt(str(err), 80)})") from None
    return rows


def _check_book_row(
    row: dict[str, int | float], where: str, info: _BookMeta, known: set[int], top: float
) -> None:
    """One row's values in range: its class, counts that add up, means within the counters."""
    index, n, wins, shared = (int(row[k]) for k in ("class", "games", "wins", "shared"))
    if index not in known:
        raise BookError(f"{where}: class {index} is not a class of rules {info.rules}")
    cap = info.games_per_opening if info.games_per_opening is not None else _MAX_GAMES
    if not 1 <= n <= cap:
        raise BookError(f"{where}: games: {n} is not in 1..{cap:,}")
    if info.race is None and info.games_per_opening is not None and n != cap:
        raise BookError(f"{where}: games: {n}, not the book's {cap:,} games per opening")
    if not (0 <= wins <= n and 0 <= shared <= n - wins):
        raise BookError(f"{where}: class {index}: bad counts (wins, shared)")
    if not 0.0 <= row["lowest"] <= top or not -top <= row["margin"] <= top:
        raise BookError(f"{where}: lowest or margin outside the counters' 0..{top:g}")
    if row["lowest_sd"] < 0:  # (NaN passes: a single game)
        raise BookError(f"{where}: lowest_sd: negative")
    if info.race is not None:
        after = int(row["stopped_after"])
        if not -1 <= after < info.race["rounds"]:
            raise BookError(f"{where}: stopped_after: {after} is not a round of the race")
        if not row["race_lo"] <= row["race_hi"]:
            raise BookError(f"{where}: race_lo is above race_hi")
    if info.confirm:
        games, wins, shared = (
            int(row[k]) for k in ("confirm_games", "confirm_wins", "confirm_shared")
        )
        if games not in (0, info.confirm) or not (
            0 <= wins <= games and 0 <= shared <= games - wins
        ):
            raise BookError(f"{where}: class {index}: bad counts of its confirmation games")
        low = row["confirm_lowest"]
        if games and not 0.0 <= low <= top:
            raise BookError(f"{where}: confirm_lowest outside the counters' 0..{top:g}")
        if games and row["confirm_lowest_sd"] < 0:
            raise BookError(f"{where}: confirm_lowest_sd: negative")


def read_book(directory: str | os.PathLike[str] | Any) -> OpeningAnalysis:
    """The opening book in ``directory`` (``OpeningAnalysis.to_book``), read as untrusted
    input: each file read within a size limit (a FIFO or device refused without blocking), its
    format, every field of ``book.json`` checked for type and range (the race's summary too),
    the table's SHA-256, every class of its rules exactly once (an observational book,
    ``observe``, holds the classes it saw), counts that add up; the table is rebuilt from the
    games' counts (intervals and tests recomputed), and ``provenance`` holds ``book.json``.
    ``BookError`` (a ``GenialError``) names the file and the field that is wrong."""
    import hashlib

    where = directory if not isinstance(directory, (str, os.PathLike)) else None
    if where is None:
        try:
            where = Path(os.fspath(directory))
        except (TypeError, ValueError) as err:
            raise BookError(f"{_book_where(directory)}: not a directory name ({err})") from None
    elif not hasattr(where, "joinpath"):
        raise BookError(f"read_book needs a directory, got {excerpt(directory)}")
    named = _book_where(where)
    meta = load_json(
        _read_book_file(where, "book.json", _MAX_BOOK_JSON), f"{named}: book.json", BookError
    )
    info = _check_book_meta(meta, f"{named}: book.json")
    raw = _read_book_file(where, "table.csv", _MAX_BOOK_TABLE)
    if hashlib.sha256(raw).hexdigest() != meta["sha256"]:
        raise BookError(f"{named}: table.csv: its contents do not match book.json's sha256")
    rows = _book_rows(raw, f"{named}: table.csv", info)
    classes = info.classes
    if info.games_per_opening is None and info.race is None:  # observed: the classes seen
        classes = [c for c in classes if c.index in rows]
    elif len(rows) != len(classes):
        raise BookError(
            f"{named}: table.csv: it must hold every one of the {len(classes)} classes once"
        )
    if not rows:
        raise BookError(f"{named}: table.csv: no class")
    total = sum(int(r["games"]) for r in rows.values())
    if total != info.games:
        raise BookError(f"{named}: book.json: games: {info.games:,}, the table's {total:,}")
    if info.race is not None:
        alive = sum(1 for r in rows.values() if r["stopped_after"] == -1)
        if alive != info.race["in_race"]:
            raise BookError(
                f"{named}: book.json: race.in_race: {info.race['in_race']}, the table's {alive}"
            )
    stats = []
    confirmed: dict[int, dict[str, float]] | None = None
    if info.confirm:
        confirmed = {
            cls.index: _confirm_stats(
                int(rows[cls.index]["confirm_games"]),
                int(rows[cls.index]["confirm_wins"]),
                int(rows[cls.index]["confirm_shared"]),
                float(rows[cls.index]["confirm_lowest"]),
                float(rows[cls.index]["confirm_lowest_sd"]),
                "lowest" if info.rules.players == 1 else "win_rate",
            )
            for cls in classes
            if rows[cls.index]["confirm_games"] > 0
        }
    best = None
    if info.paired:
        best = [bool(rows[cls.index].pop("best")) for cls in classes]
        stopped = [
            cls.index for cls, b in zip(classes, best, strict=True)
            if b and info.race is not None and rows[cls.index]["stopped_after"] != -1
        ]  # fmt: skip
        if not any(best) or stopped:
            raise BookError(
                f"{named}: table.csv: best: "
                + (f"class {stopped[0]} was stopped by the race" if stopped else "no class")
            )
    for cls in classes:
        row = rows[cls.index]
        for column in _CONFIRM_COLUMNS:
            row.pop(column, None)
        n, wins, shared = int(row["games"]), int(row["wins"]), int(row["shared"])
        w_lo, w_hi = wilson_interval(wins, n)
        stats.append(
            {"games": n, "wins": wins, "shared": shared, "win_rate": wins / n,
             "win_rate_lo": float(w_lo), "win_rate_hi": float(w_hi),
             **{k: v for k, v in row.items() if k not in ("games", "wins", "shared")}}
        )  # fmt: skip
    result = _result(
        classes,
        stats,
        info.rules,
        confirmed,
        best,
        confirm=info.confirm,
        paired=info.paired,
        seat=info.seat,
        policy=info.policy,
        games_per_opening=info.games_per_opening,
        seed=info.seed,
        reply_to=None if info.first is None else str(info.first),
        seconds=info.seconds,
        race=info.race,
        provenance=meta,
    )
    if confirmed is not None:
        chosen = set(result.table.loc[result.table["best"], "class"].tolist())
        if chosen != set(confirmed):
            raise BookError(
                f"{named}: table.csv: its confirmed classes are not the table's best set"
            )
    return result


def book(players: int = 2) -> OpeningAnalysis:
    """The opening book genial ships for ``players`` (2, 3 or 4): every class of openings of
    that player count played out under a value search (docs/openings.md), as an
    ``OpeningAnalysis`` whose ``provenance`` says how it was made (the policy, the games, the
    seed, the command, the date, genial's version).

    >>> two = book(2)
    >>> len(two.table), two.provenance["policy"][0].startswith("mc:")
    (164, True)
    """
    from importlib import resources

    if not _is_int(players) and not isinstance(players, np.integer):
        raise GenialError(f"books are for 2, 3 or 4 players (an int), got {excerpt(players)}")
    if int(players) not in (2, 3, 4):
        raise GenialError(f"books are for 2, 3 or 4 players, got {excerpt(int(players))}")
    return read_book(resources.files("genial").joinpath("books").joinpath(f"{int(players)}p"))


def observe(runs: Playouts, seat: int = 0) -> OpeningAnalysis:
    """Group existing playouts by ``seat``'s opening class (observational: the openings were
    chosen by the policies, so classes differ in games and in who chose them).

    >>> runs = simulate(3000, 2, policy="greedy", seed=2)
    >>> result = observe(runs)
    >>> int(result.table["games"].sum())
    3000
    """
    if not 0 <= seat < runs.players:
        raise GenialError(f"seat {seat} is not a seat of these {runs.players}-player games")
    if runs.openings[:seat]:
        raise GenialError("observe: the earlier seats' openings were forced; use analyse()")
    if seat != 0:
        raise GenialError("observe: only the first player's openings (seat 0) are classified")
    if runs.start is not None:
        raise GenialError("observe: these games continued a position; they have no openings")
    rules = runs.game_rules
    classes = opening_classes(rules)
    class_of = {m.action: c.index for c in classes for m in c.members}
    labels = np.array([class_of.get(int(a), -1) for a in runs.opening[:, seat]])
    stats = [_class_stats(runs[labels == c.index], seat) for c in classes]
    keep = [i for i, st in enumerate(stats) if st["games"] > 0]
    return _result(
        [classes[i] for i in keep],
        [stats[i] for i in keep],
        rules,
        seat=seat,
        policy=runs.policies,
        games_per_opening=None,
        seed=runs.seed,
        reply_to=None,
    )

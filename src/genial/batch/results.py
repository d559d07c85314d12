"""Results of a batch: ``Playouts`` (one row per game, numpy arrays, with the spec that made them)
and its ``Summary``."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ..errors import GenialError, excerpt
from ..policies import canonical
from ..registry import entry
from ..stats import wilson_interval
from .spec import BatchSpec

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Playouts", "Summary"]


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
    mean_plays: float  # tiles placed (board game) or cards played (card game) per game
    mean_turns: float
    mean_bonus: npt.NDArray[np.float64]
    mean_swaps: npt.NDArray[np.float64]
    lowest_counts: npt.NDArray[np.int64]  # (entries, cap + 1): games by final lowest counter
    rules: str = "2"
    seconds: float | None = None
    moves_label: str = "placements"  # what mean_plays counts: "placements", "plays" or "moves"
    truncated: int = 0  # games stopped by a turn cap (the card game's), not by the rules' end
    colours: int = 6  # the colours of a seat's scores; 0: a game without them (no lowest colour)

    @property
    def mean_placements(self) -> float:
        """Deprecated alias of ``mean_plays`` (which counts cards played in the card game)."""
        warnings.warn(
            "Summary.mean_placements is deprecated: use mean_plays (tiles placed, or cards "
            "played in the card game)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.mean_plays

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Load a pickle of any version (up to 0.2 the field was ``mean_placements``)."""
        if "mean_placements" in state:
            state = dict(state)
            state["mean_plays"] = state.pop("mean_placements")
        self.__dict__.update(state)

    def __str__(self) -> str:
        solo = self.players == 1
        head = f"{self.games:,} games, rules {self.rules}, policies {', '.join(self.policies)}"
        if not solo:
            head += (
                f"; first place shared in {self.shared_first:,} "
                f"({self.shared_first / max(self.games, 1):.1%})"
            )
        rows = [head]
        if not self.colours:  # a game without colour scores: the win rates alone
            rows.append("                  policy            win rate  95% interval")
        elif solo:
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
            if not self.colours:
                rows.append(
                    f"{label:<17} {self.policies[s]:<16}  {self.win_rate[s]:7.2%}  "
                    f"[{self.win_rate_lo[s]:6.2%}, {self.win_rate_hi[s]:6.2%}]"
                )
                continue
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
        tail = f"{self.moves_label} per game {self.mean_plays:.1f}, turns {self.mean_turns:.1f}"
        if self.truncated:
            tail += (
                f"; {self.truncated:,} truncated at the turn cap "
                f"({self.truncated / max(self.games, 1):.1%}, ranked by their markers)"
            )
        if self.seconds:
            tail += f"; {self.games / self.seconds:,.0f} games/s ({self.seconds:.2f} s)"
        rows.append(tail)
        return "\n".join(rows)

    def _repr_html_(self) -> str:
        from ..render.html import summary_html

        return summary_html(self)


@dataclass(frozen=True, eq=False)
class Playouts:
    """Results of a batch of games, one row per game.

    ``rows`` is a structured numpy array (the kernel's result struct); the attributes below are
    views of it, cut to the seats of the game:

    scores : uint8 (n, players, 6)
        Final counters, colours in order R G B O Y P.
    ranks : int8 (n, players)
        Final ranks, 0 = best (RULES §3.7); equal counter vectors share a rank.
    winner : int8 (n,)
        The seat ranked first alone (the team in the team game), -1 where first place is shared.
    placements, turns : int16 (n,)
        Tiles placed, and turns started, in the game.
    bonus, swaps : int16 (n, players)
        Bonus placements and rack swaps per seat.
    opening : int16 (n, players)
        Each seat's first placement as an action id (``genial.Move.from_action``), -1 if none.
    truncated : bool (n,)
        Games that stopped without ending (none from a real deal).
    game : int64 (n,)
        Each row's game number in its run; with ``spec`` it replays the game (``replay``).
    luck : float64 (n, players) or None
        With the board game's ``options={"luck": True}``: each seat's luck in the draws (the
        deal's included), the sum over the tiles it drew of the learned evaluation's estimate
        of its chances just after the draw minus that estimate's average over the tiles it
        could have drawn (docs/openings.md, "Luck adjustment"). Each term averages 0 whatever
        came before it, so a result minus ``luck_on(seat)`` estimates the same expectation
        with less noise.
    """

    spec: BatchSpec
    rows: npt.NDArray[Any]
    game: npt.NDArray[np.int64]
    logs: npt.NDArray[Any] | None = None
    seconds: float | None = field(default=None, compare=False)
    luck: npt.NDArray[np.float64] | None = None

    # -- the spec ------------------------------------------------------------------------------
    @property
    def rules(self) -> Any:
        """The rules the games were played by."""
        return self.spec.rules

    game_rules = rules

    @property
    def players(self) -> int:
        return int(self.spec.rules.players)

    @property
    def policies(self) -> tuple[str, ...]:
        pairs = zip(self.spec.policies, self.spec.epsilons, strict=True)
        return tuple(canonical(n, e) for n, e in pairs)

    @property
    def epsilons(self) -> tuple[float, ...]:
        return self.spec.epsilons

    @property
    def seed(self) -> np.random.SeedSequence:
        return self.spec.seed

    @property
    def start(self) -> str | None:
        return self.spec.start

    @property
    def openings(self) -> tuple[int, ...]:
        return self.spec.openings

    # -- columns -------------------------------------------------------------------------------
    def column(self, name: str) -> npt.NDArray[Any]:
        """A result column by name, per-seat columns cut to the game's seats; ``GenialError``
        naming the columns there are for a name that is not one."""
        names = self.rows.dtype.names or ()
        if not isinstance(name, str) or name not in names:
            raise GenialError(
                f"no column {excerpt(name)} in the {self.spec.game} game's results: "
                f"{', '.join(names)}"
            )
        values: npt.NDArray[Any] = self.rows[name]
        if values.ndim > 1 and name in self._per_seat():
            return values[:, : self.players]
        return values

    @property
    def scores(self) -> npt.NDArray[np.uint8]:
        return self.column("scores")

    @property
    def ranks(self) -> npt.NDArray[np.int8]:
        return self.column("ranks")

    @property
    def winner(self) -> npt.NDArray[np.int8]:
        return self.column("winner")

    @property
    def placements(self) -> npt.NDArray[np.int16]:
        return self.column("placements")

    @property
    def turns(self) -> npt.NDArray[np.int16]:
        return self.column("turns")

    @property
    def bonus(self) -> npt.NDArray[np.int16]:
        return self.column("bonus")

    @property
    def swaps(self) -> npt.NDArray[np.int16]:
        return self.column("swaps")

    @property
    def opening(self) -> npt.NDArray[np.int16]:
        return self.column("opening")

    @property
    def truncated(self) -> npt.NDArray[np.bool_]:
        return self.column("truncated").astype(bool)

    @property
    def lowest(self) -> npt.NDArray[np.uint8]:
        """Each seat's lowest counter, shape (n, players) (a game whose scores have colours)."""
        if not self._colours():
            raise GenialError(f"the {self.spec.game} game's results have no colour scores")
        lowest: npt.NDArray[np.uint8] = self.scores.min(axis=2)
        return lowest

    def _per_seat(self) -> frozenset[str]:
        """The names of the columns with a seat axis (the adapter's ``per_seat``)."""
        return frozenset(getattr(entry(self.spec.game).adapter, "per_seat", ()))

    def _colours(self) -> str:
        """The letters of the score colours (the adapter's ``colours``; "" for none)."""
        return str(getattr(entry(self.spec.game).adapter, "colours", ""))

    @property
    def records(self) -> list[dict[str, Any]] | None:
        """Every game's record (``Game.from_record`` replays it), built from the kernel's logs
        on each access; ``None`` unless the batch was run with ``records=True``. The logs take
        about 1.8 KB a game; a record built as Python objects about 16 KB (1.9 KB as JSON), so
        for large batches take one at a time with ``record(row)`` or ``iter_records()``."""
        if self.logs is None:
            return None
        records: list[dict[str, Any]] = entry(self.spec.game).adapter.records(self.spec, self.logs)
        return records

    def record(self, row: int) -> dict[str, Any]:
        """The record of the game in ``row`` (needs ``records=True``; else see ``replay``)."""
        self._check_row(row)
        if self.logs is None:
            raise GenialError("these games were played without records=True: use replay(row)")
        return entry(self.spec.game).adapter.records(self.spec, self.logs[row : row + 1])[0]  # type: ignore[no-any-return]

    def iter_records(self, chunk: int = 1024) -> Iterator[dict[str, Any]]:
        """The records one by one, built ``chunk`` at a time (needs ``records=True``)."""
        if self.logs is None:
            raise GenialError("these games were played without records=True: use replay(row)")
        adapter = entry(self.spec.game).adapter
        for lo in range(0, len(self), chunk):
            yield from adapter.records(self.spec, self.logs[lo : lo + chunk])

    def _check_row(self, row: object) -> None:
        if isinstance(row, (bool, np.bool_)) or not isinstance(row, (int, np.integer)):
            raise GenialError(f"row must be an int, got {excerpt(row)}")
        if not 0 <= row < len(self):
            raise GenialError(f"row {excerpt(int(row))} is outside 0..{len(self) - 1}")

    # -- rows ----------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int | slice | npt.NDArray[Any]) -> Playouts:
        """Rows by slice, index array or boolean mask: ``runs[runs.winner == 0]``."""
        if isinstance(index, (int, np.integer)):
            if not -len(self) <= index < len(self):
                raise IndexError(f"row {index} is outside a batch of {len(self)} games")
            index = slice(int(index), int(index) + 1 or None)
        return Playouts(
            self.spec,
            self.rows[index],
            self.game[index],
            None if self.logs is None else self.logs[index],
            luck=None if self.luck is None else self.luck[index],
        )

    def luck_on(self, seat: int = 0) -> npt.NDArray[np.float64]:
        """The luck of each game's draws on ``seat``'s result, shape (n,): its side's draws'
        luck (partners added) minus the average of each other side's (a side's bad draws are
        the others' good fortune; alone in solo). It averages 0 over the games whatever the
        policies, so ``won - luck_on(seat)`` (any result the evaluation estimates: a share of
        first place) keeps its expectation with less variance: the control variate of luck
        adjustment. ``GenialError`` unless the batch measured luck
        (``options={"luck": True}``).

        >>> import genial
        >>> runs = genial.simulate(200, 2, policy="greedy", seed=7, options={"luck": True})
        >>> won = (runs.winner == 0).astype(float)
        >>> bool(abs((won - runs.luck_on(0)).mean() - won.mean()) < 0.1)
        True
        >>> bool((won - runs.luck_on(0)).var() < won.var())
        True
        """
        if self.luck is None:
            raise GenialError(
                "these games did not measure luck: play them with options={'luck': True}"
            )
        players = self.players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
            raise GenialError(f"seat: an int, got {excerpt(seat)}")
        if not 0 <= seat < players:
            raise GenialError(f"seat: 0 to {players - 1}, got {excerpt(int(seat))}")
        team_of = getattr(self.rules, "team_of", lambda s: s)
        sides = sorted({team_of(s) for s in range(players)})
        mine = team_of(int(seat))
        out = np.zeros(len(self), dtype=np.float64)
        for s in range(players):
            side = team_of(s)
            weight = 1.0 if side == mine else -1.0 / (len(sides) - 1)
            out += weight * self.luck[:, s]
        return out

    def __repr__(self) -> str:
        return f"<Playouts: {len(self):,} games, rules {self.rules}, policies {self.policies}>"

    def _repr_html_(self) -> str:
        from ..render.html import playouts_html

        return playouts_html(self)

    # -- summaries -----------------------------------------------------------------------------
    def summary(self) -> Summary:
        """Win rate per seat with 95% Wilson intervals, score distributions, game lengths.

        A win is an outright first place; games whose first place is shared count as
        wins for no seat (``shared_first`` counts them).
        """
        rules = self.rules
        n, p = len(self), int(getattr(rules, "counter_sets", self.players))
        wins = np.array([(self.winner == s).sum() for s in range(p)], dtype=np.int64)
        lo, hi = wilson_interval(wins, n)
        colours = len(self._colours())
        empty = n == 0
        nan = np.full(p, np.nan)
        if not colours:
            return self._plain_summary(n, p, wins, lo, hi)
        lowest = self.lowest[:, :p].astype(np.float64)
        if rules.teams:
            labels = tuple(f"team {t} (seats {t}+{t + 2})" for t in range(p))
            policies = tuple(
                "+".join(sorted({self.policies[t], self.policies[t + 2]})) for t in range(p)
            )
        else:
            labels = tuple(f"seat {s}" for s in range(p))
            policies = self.policies[:p]
        return Summary(
            games=n,
            players=self.players,
            policies=policies,
            labels=labels,
            wins=wins,
            shared_first=int((self.winner == -1).sum()),
            win_rate=wins / n if n else nan,
            win_rate_lo=np.atleast_1d(lo),
            win_rate_hi=np.atleast_1d(hi),
            mean_lowest=lowest.mean(axis=0) if not empty else nan,
            std_lowest=lowest.std(axis=0) if not empty else nan,
            lowest_quantiles=(
                np.quantile(lowest, [0.05, 0.25, 0.5, 0.75, 0.95], axis=0).T
                if not empty
                else np.full((p, 5), np.nan)
            ),
            mean_scores=(self.scores[:, :p].mean(axis=0) if not empty else np.full((p, 6), np.nan)),
            mean_plays=float(self._plays().mean()) if not empty else math.nan,
            mean_turns=float(self.turns.mean()) if not empty else math.nan,
            mean_bonus=self._per_entry(self.bonus) if not empty else nan,
            mean_swaps=self._per_entry(self.swaps) if not empty else nan,
            lowest_counts=np.array(
                [np.bincount(self.lowest[:, s], minlength=rules.cap + 1) for s in range(p)],
                dtype=np.int64,
            ).reshape(p, rules.cap + 1),
            rules=str(rules),
            seconds=self.seconds,
            moves_label="placements" if "placements" in (self.rows.dtype.names or ()) else "plays",
            truncated=int(self.truncated.sum()),
        )

    def _plain_summary(
        self, n: int, p: int, wins: npt.NDArray[np.int64], lo: Any, hi: Any
    ) -> Summary:
        """The summary of a game whose scores have no colours: win rates and game lengths."""
        nan, empty = np.full(p, np.nan), n == 0
        names = self.rows.dtype.names or ()
        moves = self.column("moves") if "moves" in names else self.turns
        return Summary(
            games=n,
            players=self.players,
            policies=self.policies[:p],
            labels=tuple(f"seat {s}" for s in range(p)),
            wins=wins,
            shared_first=int((self.winner == -1).sum()),
            win_rate=wins / n if n else nan,
            win_rate_lo=np.atleast_1d(lo),
            win_rate_hi=np.atleast_1d(hi),
            mean_lowest=nan,
            std_lowest=nan,
            lowest_quantiles=np.full((p, 5), np.nan),
            mean_scores=np.zeros((p, 0)),
            mean_plays=float(moves.mean()) if not empty else math.nan,
            mean_turns=float(self.turns.mean()) if not empty else math.nan,
            mean_bonus=nan,
            mean_swaps=nan,
            lowest_counts=np.zeros((p, 0), dtype=np.int64),
            rules=str(self.rules),
            seconds=self.seconds,
            moves_label="moves",
            truncated=int(self.truncated.sum()),
            colours=0,
        )

    def _plays(self) -> npt.NDArray[Any]:
        """Tiles placed per game, or cards played (the card game's rows count them per seat)."""
        if "placements" in (self.rows.dtype.names or ()):
            return self.placements
        plays: npt.NDArray[Any] = self.column("plays").sum(axis=1)
        return plays

    def _per_entry(self, values: npt.NDArray[np.int16]) -> npt.NDArray[np.float64]:
        """Mean per game of a per-seat count, per seat or per team (partners added)."""
        mean = values.mean(axis=0)
        if self.rules.teams:
            return np.array([mean[0] + mean[2], mean[1] + mean[3]])
        return np.asarray(mean, dtype=np.float64)

    def to_pandas(self) -> pd.DataFrame:
        """One tidy row per game and seat (needs pandas: ``pip install genial-sim[pandas]``).

        Columns: game, seat, policy, rank, won, score_R .. score_P, lowest, then the game's
        per-seat counts (board game: bonus, swaps, opening; card game: plays, bonus, swaps) and
        its per-game ones (board game: truncated, placements, turns; card game: instant,
        truncated, turns, reshuffles).
        """
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - exercised only without pandas
            raise ImportError(
                "Playouts.to_pandas needs pandas: pip install 'genial-sim[pandas]'"
            ) from None
        n, p = len(self), self.players
        seat_team = getattr(self.rules, "team_of", None)
        team_of = np.array([seat_team(s) if seat_team else s for s in range(p)])
        columns: dict[str, Any] = {
            "game": np.repeat(self.game, p),
            "seat": np.tile(np.arange(p, dtype=np.int8), n),
            "policy": pd.Categorical(np.tile(np.array(self.policies), n)),
            "rank": self.ranks.reshape(-1),
            "won": (self.winner[:, None] == team_of[None, :]).reshape(-1),
        }
        colours = self._colours()
        if colours:
            for c, letter in enumerate(colours):
                columns[f"score_{letter}"] = self.scores[:, :, c].reshape(-1)
            columns["lowest"] = self.lowest.reshape(-1)
        names = self.rows.dtype.names or ()
        per_seat = self._per_seat()
        for name in names:  # the game's other per-seat columns, then its per-game ones
            if name in per_seat and name not in ("scores", "ranks"):
                columns[name] = self.column(name).reshape(-1)
        for name in names:
            if name not in per_seat and name != "winner":
                columns[name] = np.repeat(self.column(name), p)
        return pd.DataFrame(columns)

    def to_parquet(self, path: str | os.PathLike[str]) -> None:
        """Write ``to_pandas()`` as Parquet, with the rules, policies and seed in its metadata
        (needs pandas and pyarrow: ``genial-sim[parquet]``)."""
        try:
            import pyarrow  # noqa: F401
        except ImportError:  # pragma: no cover - exercised only without pyarrow
            raise ImportError(
                "Playouts.to_parquet needs pyarrow: pip install 'genial-sim[parquet]'"
            ) from None
        frame = self.to_pandas()
        frame.attrs = {
            "game": self.spec.game,
            "rules": str(self.rules),
            "players": str(self.players),
            "policies": ",".join(self.policies),
            "seed_entropy": str(self.seed.entropy),
            "seed_spawn_key": ",".join(str(k) for k in self.seed.spawn_key),
        }
        frame.to_parquet(path, index=False)

    def replay(self, row: int) -> Any:
        """Replay the game of ``row`` from its seed and return it, finished (a ``Game``)."""
        self._check_row(row)
        adapter = entry(self.spec.game).adapter
        chunk, offset = divmod(int(self.game[row]), self.spec.chunk_games)
        _, logs = adapter.play(
            self.spec.with_records(), *self.spec.chunk_streams(chunk), offset + 1
        )
        assert logs is not None
        return adapter.replay(adapter.records(self.spec, logs[offset : offset + 1])[0])


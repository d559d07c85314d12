"""The first-player advantage: every seat's win rate, for each rules variant and policy, with
95% intervals, the fair share once shared first places are set aside, and the seats that may
be best.

Every game is played by one policy at every seat, the opener choosing its own opening; a
*win* is an outright first place (RULES §3.7): a game whose first place is shared by several
seats is a win for none of them. So the seats' win rates and the share of games with a shared
first place add up to 1, and a seat's **fair share** is what is left for the seats, shared
equally: ``fair_share = (1 - shared_first_rate) / k``, ``k`` the number of sides (the players,
or the 2 teams of the team game). A seat's **advantage** is its win rate minus that fair
share: the mean, over the games, of ``won - (first place not shared) / k``, with a 95% normal
interval; the advantages of the sides add up to 0.

The seats ranked honestly: ``genial.stats.best_set`` (multiple comparisons with the best,
paired: the seats of one game share its deal) on the per-game win indicators says which seats
may have the largest win rate at 95%.

The table has one row per (rules, policy), in the order given (rules first):

- ``rules`` (the token: ``"2"``, ``"4t"``, ``"2T"``, ``"2v"``), ``players``, ``teams``,
  ``tournament``, ``tiles``, ``policy`` (its canonical name) and ``games``;
- the first player's (seat 0's) results, as before: ``first_wins``, ``first_win_rate`` with
  its Wilson interval ``first_win_rate_lo``/``_hi``, ``fair_share``, ``advantage`` with
  ``advantage_lo``/``_hi``, ``shared_first`` (games with a shared first place) and
  ``shared_first_rate``;
- ``best_seats`` (the seats that may be best, as text: ``"0"``, ``"0 2"``) and ``best_words``
  (``BestSet.words``: ``"1 of 2 seats is best (95%): no other may be"``);
- one group of columns per seat ``s`` of the largest game asked: ``seat{s}_wins``,
  ``seat{s}_win_rate``, ``seat{s}_win_rate_lo``, ``seat{s}_win_rate_hi``,
  ``seat{s}_advantage``, ``seat{s}_advantage_lo``, ``seat{s}_advantage_hi`` and the boolean
  ``seat{s}_best`` (missing, ``<NA>``/NaN, where the row's game has fewer seats).

In the team game a seat's win is its team's (seats 0 and 2 are team 0, 1 and 3 team 1: they
share every column), the fair share is ``(1 - shared_first_rate) / 2`` and the best set is
taken over the two teams (``best_words`` says "teams").

>>> table = first_player_advantage((2,), ("random",), games=2000, seed=1, workers=1)
>>> table[["rules", "policy", "games"]].to_dict("records")
[{'rules': '2', 'policy': 'random', 'games': 2000}]
>>> row = table.iloc[0]
>>> bool(abs(row.seat0_win_rate + row.seat1_win_rate + row.shared_first_rate - 1) < 1e-12)
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from ..batch import prepare, run_many
from ..batch.backends import checked_backend
from ..batch.chunks import check_memory
from ..errors import GenialError, RulesError, checked_flag, excerpt
from ..policies import canonical, parse_policy
from ..registry import entry
from ..seeds import as_seed_sequence, child_seed
from ..stats import BestSet, best_set, mean_interval, wilson_interval
from .rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["DEFAULT_PLAYERS", "advantage_text", "first_player_advantage"]

DEFAULT_PLAYERS: tuple[int, ...] = (2, 3, 4)
"""The player counts of ``first_player_advantage`` given none (with a variant keyword, those of
them the variant allows: ``teams=True`` 4, ``tournament=True`` or ``tiles="travel"`` 2)."""

_ALLOWED = "2, 3 or 4 players, or a rules token such as '3', '4t', '2T' or '2v'"

PlayersArgument = int | str | Rules | Sequence[int | str | Rules]


def _rules_list(players: Any, teams: Any, tournament: Any, tiles: Any, rules: Any) -> list[Rules]:
    """The rules of every row, checked: a ``GenialError`` naming the bad value otherwise."""
    if rules is not None:
        if players is not DEFAULT_PLAYERS:
            raise GenialError("give either rules= or players=, not both")
        items = list(rules) if isinstance(rules, (list, tuple)) else [rules]
        if not items:
            raise GenialError("rules: give at least one rules variant, got an empty sequence")
        for item in items:
            if not isinstance(item, (Rules, str)):
                raise GenialError(
                    f"rules: a genial.Rules or a rules token such as '4t', got {excerpt(item)}"
                )
        found = [
            Rules.of(rules=item, teams=teams, tournament=tournament, tiles=tiles) for item in items
        ]
    elif players is DEFAULT_PLAYERS:
        found, first_error = [], None
        for n in DEFAULT_PLAYERS:
            try:
                found.append(Rules.of(n, teams=teams, tournament=tournament, tiles=tiles))
            except RulesError as exc:
                first_error = first_error or exc
        if not found:
            assert first_error is not None
            raise first_error
    else:
        items = list(players) if isinstance(players, (list, tuple, range)) else [players]
        if not items:
            raise GenialError(f"players: give at least one of {_ALLOWED}; got an empty sequence")
        found = []
        for item in items:
            if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
                if int(item) not in (2, 3, 4):
                    raise GenialError(f"players: expected {_ALLOWED}; got {excerpt(int(item))}")
            elif not isinstance(item, (str, Rules)):
                raise GenialError(f"players: expected {_ALLOWED}; got {excerpt(item)}")
            found.append(Rules.of(item, teams=teams, tournament=tournament, tiles=tiles))
    for game_rules in found:
        if game_rules.players == 1:
            raise GenialError(
                f"players: the solo game ({excerpt(str(game_rules))}) has no other seat; "
                f"give {_ALLOWED}"
            )
    for i, game_rules in enumerate(found):
        if game_rules in found[:i]:
            raise GenialError(f"players: the rules {excerpt(str(game_rules))} are given twice")
    return found


def _policy_list(policies: Any) -> list[tuple[str, str]]:
    """``(name as given, canonical name)`` of every policy, checked."""
    if isinstance(policies, str):
        items: list[Any] = [policies]
    elif isinstance(policies, (list, tuple)):
        items = list(policies)
    else:
        raise GenialError(
            f"policies: a policy name or a sequence of names such as ('random', 'greedy'), "
            f"got {excerpt(policies)}"
        )
    if not items:
        raise GenialError("policies: give at least one policy name, got an empty sequence")
    named: list[tuple[str, str]] = []
    for item in items:
        if not isinstance(item, str):
            raise GenialError(
                f"policies: each is a policy name like 'greedy' or 'mc:200', got {excerpt(item)}"
            )
        base, epsilon = parse_policy(item)  # an unknown name: the message lists the families
        name = canonical(base, epsilon)
        if name in (n for _, n in named):
            raise GenialError(f"policies: {excerpt(name)} is given twice")
        named.append((item, name))
    return named


def _games(games: Any) -> int:
    if isinstance(games, (bool, np.bool_)) or not isinstance(games, (int, np.integer)):
        raise GenialError(
            f"games must be an int >= 1 (games per rules and policy), got {excerpt(games)}"
        )
    if games < 1:
        raise GenialError(
            f"games must be >= 1 (games per rules and policy), got {excerpt(int(games))}"
        )
    return int(games)


def _row(game_rules: Rules, policy: str, winner: npt.NDArray[Any], seats: int) -> dict[str, Any]:
    """One row of the table from the games' ``winner`` column (the seat, or the team in the
    team game, ranked first alone; -1 where first place is shared)."""
    n = len(winner)
    sides = game_rules.counter_sets  # the players, or the 2 teams
    won = [np.asarray(winner == side, dtype=np.float64) for side in range(sides)]
    wins = np.array([int(w.sum()) for w in won], dtype=np.int64)
    shared = int((winner == -1).sum())
    decided = np.asarray(winner != -1, dtype=np.float64)
    fair = (1.0 - shared / n) / sides
    lo, hi = wilson_interval(wins, n)
    edges = [mean_interval(w - decided / sides) for w in won]
    best: BestSet = best_set(won, paired=True)
    noun = "teams" if game_rules.teams else "seats"
    in_set = [s for s in range(game_rules.players) if best.mask[game_rules.team_of(s)]]
    row: dict[str, Any] = {
        "rules": str(game_rules),
        "players": game_rules.players,
        "teams": game_rules.teams,
        "tournament": game_rules.tournament,
        "tiles": game_rules.tiles,
        "policy": policy,
        "games": n,
        "first_wins": int(wins[0]),
        "first_win_rate": wins[0] / n,
        "first_win_rate_lo": float(lo[0]),
        "first_win_rate_hi": float(hi[0]),
        "fair_share": fair,
        "advantage": edges[0][0],
        "advantage_lo": edges[0][1],
        "advantage_hi": edges[0][2],
        "shared_first": shared,
        "shared_first_rate": shared / n,
        "best_seats": " ".join(map(str, in_set)),
        "best_words": best.words(noun),
    }
    for seat in range(seats):
        key = f"seat{seat}_"
        if seat >= game_rules.players:
            row.update(
                {
                    key + "wins": None,
                    key + "win_rate": math.nan,
                    key + "win_rate_lo": math.nan,
                    key + "win_rate_hi": math.nan,
                    key + "advantage": math.nan,
                    key + "advantage_lo": math.nan,
                    key + "advantage_hi": math.nan,
                    key + "best": None,
                }
            )
            continue
        side = game_rules.team_of(seat)
        row.update(
            {
                key + "wins": int(wins[side]),
                key + "win_rate": wins[side] / n,
                key + "win_rate_lo": float(lo[side]),
                key + "win_rate_hi": float(hi[side]),
                key + "advantage": edges[side][0],
                key + "advantage_lo": edges[side][1],
                key + "advantage_hi": edges[side][2],
                key + "best": bool(best.mask[side]),
            }
        )
    return row


def first_player_advantage(
    players: PlayersArgument = DEFAULT_PLAYERS,
    policies: str | Sequence[str] = ("random", "greedy"),
    *,
    games: int = 100_000,
    seed: Any = None,
    workers: int | None = -1,
    teams: bool = False,
    tournament: bool = False,
    tiles: Literal["standard", "travel"] = "standard",
    rules: Rules | str | Sequence[Rules | str] | None = None,
    progress: bool = False,
    backend: str = "threads",
    address: Any = None,
) -> pd.DataFrame:
    """Every seat's win rate for each rules variant and policy, with 95% intervals, against the
    fair share once shared first places are set aside, and the seats that may be best: one row
    per (rules, policy) (the columns: this module's docstring).

    Parameters
    ----------
    players : int, str, Rules or a sequence of them
        Player counts (2, 3 or 4) or rules tokens (``"4t"``, ``"2T"``, ``"2v"``), one row
        group each; the variant keywords apply to the counts. Default 2, 3 and 4 players (those
        of them the variant keywords allow).
    policies : str or sequence of str
        Policy names (``genial.policies``: ``"random"``, ``"greedy"``, ``"mc:200"``...), each
        played at every seat.
    games : int
        Games per (rules, policy), at least 1.
    seed : anything ``genial.seeds`` accepts
        Row ``(i, j)`` (the ``i``-th rules, the ``j``-th policy) plays from child ``(i, j)`` of
        the seed, so a row does not depend on the other rows, on ``workers`` or ``backend``.
    workers : int
        Threads, -1 (default) for every core.
    teams, tournament, tiles, rules
        The rules variants, as ``genial.board.openings.analyse`` takes them
        (``Rules.of``); ``rules=`` (a ``Rules``, a token or a sequence of them) instead of
        ``players``.
    progress : bool
        One progress bar for all the games.
    backend, address
        As for ``genial.simulate``.

    Every argument is checked before any game is played: a bad one raises a ``GenialError``
    naming it and what is allowed.

    >>> table = first_player_advantage("4t", "greedy", games=500, seed=3, workers=1)
    >>> row = table.iloc[0]
    >>> row.rules, bool(row.seat0_win_rate == row.seat2_win_rate), row.best_words.endswith("(95%)")
    ('4t', True, True)
    """
    import pandas as pd

    found = _rules_list(players, teams, tournament, tiles, rules)
    named = _policy_list(policies)
    n_games = _games(games)
    backend, n_workers = checked_backend(backend, workers, address, default_workers=-1)
    show = checked_flag(progress, "progress")
    root = as_seed_sequence(seed)
    specs = [
        prepare(n_games, rules=game_rules, policy=given, seed=child_seed(root, i, j))
        for i, game_rules in enumerate(found)
        for j, (given, _) in enumerate(named)
    ]
    check_memory(n_games * len(specs), entry("board").adapter, False)
    runs = run_many(
        [(spec, n_games) for spec in specs],
        workers=n_workers,
        progress=show,
        backend=backend,
        address=address,
    )
    seats = max(r.players for r in found)
    labels = [(game_rules, name) for game_rules in found for _, name in named]
    rows = [
        _row(game_rules, name, np.asarray(result.winner), seats)
        for (game_rules, name), result in zip(labels, runs, strict=True)
    ]
    table = pd.DataFrame(rows)
    for seat in range(seats):
        table[f"seat{seat}_wins"] = table[f"seat{seat}_wins"].astype("Int64")
        table[f"seat{seat}_best"] = table[f"seat{seat}_best"].astype("boolean")
    return table


def _percent(x: float) -> str:
    return f"{100 * x:.2f}%"


def advantage_text(table: pd.DataFrame) -> str:
    """The table of ``first_player_advantage`` in words: per row, the games, the shared first
    places and the fair share; per seat its win rate and advantage with their 95% intervals,
    ``*`` on the seats that may be best; then the best set in a sentence."""
    lines: list[str] = []
    for row in table.to_dict("records"):
        lines.append(
            f"rules {row['rules']}, policy {row['policy']}: {row['games']:,} games; first "
            f"place shared in {_percent(row['shared_first_rate'])}; fair share "
            f"{_percent(row['fair_share'])}"
        )
        for seat in range(int(row["players"])):
            key = f"seat{seat}_"
            team = f" (team {seat % 2})" if row["teams"] else ""
            mark = "*" if row[key + "best"] else " "
            lines.append(
                f"  {mark} seat {seat}{team}: wins {_percent(row[key + 'win_rate'])} "
                f"[{_percent(row[key + 'win_rate_lo'])}, {_percent(row[key + 'win_rate_hi'])}]"
                f"  advantage {100 * row[key + 'advantage']:+.2f} points "
                f"[{100 * row[key + 'advantage_lo']:+.2f}, "
                f"{100 * row[key + 'advantage_hi']:+.2f}]"
            )
        lines.append(f"  {row['best_words']}")
    lines.append("* may be best (genial.stats.best_set, paired over the games, 95%)")
    return "\n".join(lines)

"""Position analysis: every legal decision of the seat to move, played out many times.

``evaluate(game)`` takes each legal move of the current decision (the placements, or swap and
keep when the swap is due), plays ``playouts`` games from the position after it with a policy
for every seat, and tabulates, for the seat to move (its team in the team game): the win rate
with a 95% Wilson interval, the mean rank, the mean final lowest colour with a 95% interval and
the points the placement scores now. The playouts run in the kernel without the GIL, on every
core.

What the playouts know (``view``):

- ``"player"`` (the default): only what the seat to move knows. Before every playout the tiles
  it cannot see (the other racks, its partner's too, and the bag) are pooled and dealt again at
  random, each rack keeping its size (determinisation), so the analysis never depends on the
  opponents' real racks; the seat's own refill after its move comes from that pool.
- ``"omniscient"``: the real racks of every seat; only the bag's draws are random.

Either way the bag has no order: a position holds its contents, and every playout draws from
them at random.

``adaptive=True`` spends the playouts where they matter, by successive elimination
(``genial.racing.Race``; Even-Dar, Mannor, Mansour 2006): every move gets ``min_playouts``,
then round after round the playouts of the moves still in the race are doubled, up to
``playouts``; after each round a move is dropped only if the upper bound of its result is
below the best lower bound. The bounds are Hoeffding's (the result of a playout lies in a known
range: 0 or 1 for a win, ``0..cap`` for the solo game's lowest colour), each at an error of
``(1 - 0.95) / (2 K (r+1) (r+2))`` for ``K`` moves and round ``r``, so with probability at
least 95% every bound of every move in every round holds at once and the best move is never
dropped (a move whose bound still overlaps the leader's never is). A solo game without a kernel
has no known range: ``adaptive`` then plays every move to ``playouts``. The table's
``playouts`` column says how many each move got, and the moves are sorted by it first (the
moves kept longest first), then by the result.

The playouts are paired (``paired=True``, the default; common random numbers): playout ``k``
of every move draws from the same two streams, ``child_seed(pair_root, k, 0)`` for chance (the
redeal of what the seat cannot see, in the player view, and every later draw) and
``child_seed(pair_root, k, 1)`` for the policies, ``pair_root = child_seed(root, PAIR_KEY)``
(``root`` the seed's ``SeedSequence``). So the ``k``-th playouts of two moves start from the
same redeal and draw alike for as long as their games stay alike, and their difference is
measured game by game. ``paired=False`` plays each work item's playouts one after the other on
the item's own two streams instead (the child ``(r, i)`` of the seed for item ``i`` of round
``r``): the moves' playouts are then independent.

The result marks the moves that may be best (``best``, ``Evaluation.best_set``): multiple
comparisons with the best (``genial.stats.best_set``; Hsu 1981) on every move's per-playout
results (``Evaluation.outcomes``), at 95%; the set holds the best move with probability at
least 95% (asymptotically). Paired playouts are compared by the differences of their ``k``-th
playouts (``best_set(outcomes, paired=True)``), unpaired ones by Welch's standard errors.
``p_best`` is each move's posterior probability of the highest win rate (Monte Carlo; NaN in
the solo game): paired, by the Bayesian bootstrap with playout ``k``'s weight shared by every
move, so that it keeps the pairing; unpaired, from independent Beta posteriors (uniform
priors).

The result does not depend on ``workers``: the playouts are cut into pieces and packed into work
items in a fixed way (each piece knows the index of its first playout among its move's), and a
playout's streams depend on that index (paired) or on its item (unpaired) only; nor, paired, on
``adaptive``: the first ``n`` playouts of a move are the same in any run of the same seed.

The card game (``genial.cards.CardGame``, a ``CardPosition`` or its text) is analysed the same
way: its decisions are the plays of the hand (each card either way round), or swap and keep
(RULES §5.5); ``lowest`` is the seat's lowest marker, ``points`` how far the play advances its
two markers now (``CardGame.gains``). The player view redeals every other hand, the deck and the
discard pile (face down, RULES §5.3), each keeping its size. Its policies are the card game's
(``"random"``, ``"greedy"``, ``"epsilon-greedy"``); the search policies and ``"value"`` are the
board game's.

A game of another distribution (``genial.registry``) is analysed the same way without a kernel:
an entry without ``analysis`` hooks has its playouts played through the game's own verbs
(``PLAYOUT_VERBS``), in Python. Playout ``k`` of a move deals
``from_position(position, seed=s)``, ``s`` the first 64-bit word of
``child_seed(pair_root, k).generate_state`` (paired: the same ``s`` for playout ``k`` of every
move; unpaired, the next 64-bit draw of the work item's chance stream), the game drawing its
chance and, from the seed's ``POLICY_STREAM`` child, its policies' choices from it, as the
library's games do; it plays the move, then every seat's ``choose(policy, epsilon=...)`` until
the game is over; so its table, too, does not depend on ``workers``. Its
phase is ``"move"``, ``lowest`` is the seat's final score (the lowest of its scores if it has
several), ``points`` is 0, and both views play the position as the game reads it (such a game
has no redeal of what the seat cannot see: give it ``analysis`` hooks for that).

>>> import genial
>>> game = genial.Game(2, seed=4)
>>> result = evaluate(game, playouts=40, seed=1, workers=1)
>>> len(result.table) == len(game.legal_moves()), int(result.table["playouts"].min())
(True, 40)
>>> str(result.best) == result.table["move"][0]
True
>>> bool(result.table["best"][0]), result.best_set.size == int(result.table["best"].sum())
(True, True)
>>> from genial.cards import CardGame
>>> cards = evaluate(CardGame(3, seed=2), playouts=40, seed=1, workers=1)
>>> cards.phase, len(cards.rows) == len(CardGame(3, seed=2).legal_moves())
('play', True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from .batch.backends import Serial, Threads, worker_count
from .batch.progress import progress_bar
from .errors import GenialError, checked_flag, checked_int, excerpt
from .policies import canonical, kernel_codes, kernel_policies, parse_policies
from .racing import Race
from .registry import AnalysisHooks, GameEntry, entry_of
from .seeds import POLICY_STREAM, as_seed_sequence, child_seed, seed_prefix, stream
from .stats import Z95, BestSet, best_set, wilson_interval

if TYPE_CHECKING:  # pragma: no cover  (annotations only: evaluate asks the registry)
    from .board.game import Game
    from .board.moves import Move
    from .board.notation import Position
    from .board.rules import Rules
    from .cards.game import CardGame
    from .cards.moves import CardMove
    from .cards.notation import CardPosition
    from .cards.rules import CardRules

__all__ = ["PAIR_KEY", "PLAYOUT_VERBS", "VIEWS", "Evaluation", "evaluate"]

View = Literal["player", "omniscient"]
VIEWS: tuple[View, ...] = ("player", "omniscient")

PIECE = 1024
"""Most playouts of one move in one kernel call (a move's playouts of a round are cut so)."""
ITEM = 4096
"""Playouts a work item holds at most about (its pieces are played one after the other,
sharing the item's two streams)."""
MIN_ITEM = 256
"""Playouts a work item holds at least (but the last of a round): enough that its overhead
(two streams, one summary) is small next to its playouts."""
ITEMS = 64
"""Work items a round is cut into when ``MIN_ITEM`` and ``ITEM`` allow: enough for the workers
of a machine to finish together."""
MAX_PLAYOUTS = 10**9
CONFIDENCE = 0.95
"""The family-wise confidence of the adaptive race's bounds and of the set of moves that may be
best."""
POSTERIOR_DRAWS = 4000
"""Monte Carlo draws of the moves' posterior win rates behind ``p_best``."""
PAIR_KEY = 0x7A1D
"""The key of the child of the evaluation's root seed whose children ``(k, 0)`` and ``(k, 1)``
are the chance and policy streams of playout ``k`` of every move (paired playouts; the work
items use the children ``(r, i)``, ``p_best`` the child ``(2**32 - 1,)``)."""

_SUMS = 6  # per move: playouts, outright wins, shared firsts, sum of ranks, of lowest, of lowest^2


# -- the games ----------------------------------------------------------------------------------


GENERIC_PHASE = "move"
"""The phase of a decision of a game without a kernel (``AnalysisHooks``)."""

PLAYOUT_VERBS = (
    "from_position",
    "from_text",
    "legal_moves",
    "play",
    "choose",
    "ranks",
    "scores",
)
"""What the analysis of a game without a kernel asks of its game class (and of its games
``position``, ``is_over``, ``current_player``, as the conformance contract has them):
``from_position(position, seed=...)`` deals a playout, ``choose(policy, epsilon=...)`` plays
a seat's policy from the game's own policy stream, ``from_text`` gives ``Evaluation.best``."""

_DECISIONS = {"place": "place", "play": "play a card", "swap": "decide the swap"}


@dataclass(frozen=True, eq=False)
class Evaluation:
    """The result of ``evaluate``: ``rows`` (and ``table``) hold one entry per move, best first.

    Columns: ``move`` (its text), ``action`` (its id), ``playouts``, ``wins`` (outright first
    places of the seat to move, or of its team), ``shared`` (first places shared, not counted
    as wins), ``win_rate`` with ``win_lo``/``win_hi`` (95% Wilson), ``rank`` (mean rank, 0 =
    first), ``lowest`` (mean final lowest colour) with ``lowest_lo``/``lowest_hi`` (95% normal
    interval), ``points`` (what the placement scores now, before the cap; 0 for swap and
    keep), ``best`` (whether the move may be best at 95%: it is in ``best_set``) and ``p_best``
    (its posterior probability of the highest win rate; NaN in the solo game). ``metric`` is
    what the moves are ranked by: ``"win_rate"`` (then ``lowest``), or ``"lowest"`` in the solo
    game. ``outcomes[i]``: the metric of every playout of ``rows[i]``'s move, in the order
    played (1/0 for an outright win; the lowest in the solo game): ``outcomes[i][k]`` is
    playout ``k`` of that move. ``paired``: whether playout ``k`` of every move drew from the
    same streams (``evaluate(paired=...)``); ``best_set`` (a ``genial.stats.BestSet``, indexed
    like ``rows``) is ``best_set(outcomes, paired=paired)``.
    In the card game (``rules`` a ``CardRules``, ``phase`` ``"play"`` or ``"swap"``) ``lowest``
    is the lowest marker and ``points`` how far the play advances the seat's two markers now
    (``CardGame.gains``). In a game without a kernel (``phase`` ``"move"``) ``lowest`` is the
    seat's final score and ``points`` 0.
    """

    position: str
    rules: Rules | CardRules | Any  # (the rules of a game of another distribution)
    seat: int
    phase: str
    view: View
    policy: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    adaptive: bool
    playouts: int  # per move (uniform), or the survivors' (adaptive)
    min_playouts: int
    metric: str
    seed: np.random.SeedSequence | None = field(default=None, repr=False)
    seconds: float | None = None
    best_set: BestSet | None = field(default=None, repr=False)
    outcomes: tuple[npt.NDArray[np.int64], ...] = field(default=(), repr=False)
    paired: bool = False

    def tied(self) -> str:
        """How many moves may be best, in words (``BestSet.words``), e.g. ``"2 of 2 moves are
        statistically tied for first (95%)"``."""
        if self.best_set is None:
            return ""
        return self.best_set.words("moves")

    def _tied_line(self) -> str:
        """The summary's line naming the set, and how its moves were compared."""
        how = " (paired playouts)" if self.paired else ""
        return f"{self.tied()}{how}: marked *"

    @property
    def best(self) -> Move | CardMove | Any:
        """The move ranked first (a ``CardMove`` in the card game, a move of its own game in
        a game without a kernel)."""
        found = entry_of(self.rules)
        action = int(self.rows[0]["action"])
        if found.analysis is not None:
            move: Move | CardMove = found.analysis.moves[action]
            return move
        legal = found.game.from_text(self.position).legal_moves()
        return next(m for m in legal if m.action == action)

    @property
    def total_playouts(self) -> int:
        return int(sum(r["playouts"] for r in self.rows))

    @property
    def table(self) -> Any:
        """The rows as a pandas DataFrame (a list of dicts when pandas is not installed)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - exercised only without pandas
            return list(self.rows)
        return pd.DataFrame(list(self.rows))

    def summary(self, rows: int = 10) -> str:
        """The first ``rows`` moves as a text table."""
        solo = self.metric == "lowest"
        mode = (
            f"adaptive: {self.min_playouts:,} to {self.playouts:,} playouts a move"
            if self.adaptive
            else f"{self.playouts:,} playouts a move"
        )
        lines = [
            f"seat {self.seat} to {_DECISIONS.get(self.phase, self.phase)}, "
            f"rules {self.rules}, {len(self.rows)} moves; policy {', '.join(self.policy)}, "
            f"{self.view} view, {mode}, {self.total_playouts:,} playouts",
        ]
        if solo:
            lines.append(
                f"{'rank':>4}  {'move':<14} {'playouts':>8}  {'lowest':>6}  "
                f"{'95% interval':<15} {'points':>6}"
            )
        else:
            lines.append(
                f"{'rank':>4}  {'move':<14} {'playouts':>8}  {'win rate':>8}  "
                f"{'95% interval':<17} {'mean rank':>9}  {'lowest':>6}  "
                f"{'95% interval':<15} {'points':>6}"
            )
        for i, r in enumerate(self.rows[: max(int(rows), 0)]):
            low = f"[{r['lowest_lo']:5.2f}, {r['lowest_hi']:5.2f}]"
            mark = "*" if r.get("best") else " "
            if solo:
                lines.append(
                    f"{i + 1:>3}{mark}  {r['move']:<14} {r['playouts']:>8,}  {r['lowest']:6.2f}  "
                    f"{low:<15} {r['points']:>6}"
                )
            else:
                lines.append(
                    f"{i + 1:>3}{mark}  {r['move']:<14} {r['playouts']:>8,}  {r['win_rate']:8.1%}  "
                    f"[{r['win_lo']:6.1%}, {r['win_hi']:6.1%}] {r['rank']:9.2f}  "
                    f"{r['lowest']:6.2f}  {low:<15} {r['points']:>6}"
                )
        if len(self.rows) > rows:
            lines.append(f"   ... {len(self.rows) - rows:,} more moves")
        if self.best_set is not None:
            lines.append(self._tied_line())
        if self.seconds:
            lines.append(
                f"{self.total_playouts / self.seconds:,.0f} playouts/s, {self.seconds:.2f} s"
            )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        """Short (under ``REPR_LIMIT`` characters): the position, the settings, the number of
        moves and the best one with its result; ``rows``/``table`` hold every move, ``str`` and
        the HTML view show the first ones."""
        top = self.rows[0] if self.rows else None
        best = "None" if top is None else excerpt(str(top["move"]), 60)
        value = "" if top is None else f", {self.metric}={round(float(top[self.metric]), 4)!r}"
        position = self.position if len(self.position) <= 2000 else excerpt(self.position, 2000)
        return (
            f"Evaluation(position={position!r}, rules={excerpt(self.rules, 200)}, "
            f"seat={self.seat}, phase={self.phase!r}, view={self.view!r}, "
            f"policy={excerpt(self.policy, 400)}, moves={len(self.rows)}, "
            f"playouts={self.playouts}, adaptive={self.adaptive}, paired={self.paired}, "
            f"total_playouts={self.total_playouts}, best={best}{value})"
        )

    def _repr_html_(self) -> str:
        import html
        from dataclasses import replace

        from .render.html import evaluation_html

        marked = tuple(
            {**r, "move": f"{r['move']} *" if r.get("best") else r["move"]} for r in self.rows
        )
        page = evaluation_html(replace(self, rows=marked))
        if self.best_set is None:
            return page
        return page + f"<p>{html.escape(self._tied_line())}</p>"


# -- checking the arguments --------------------------------------------------------------------


def _as_game(game: object) -> tuple[GameEntry, Any]:
    """The entry of ``game``'s game and the game to analyse (a position or its text dealt)."""
    try:
        found: GameEntry | None = entry_of(game)  # a game, a position, or a position's text
    except GenialError:
        found = None
    if found is not None:
        if isinstance(game, found.game):
            return found, game
        if found.position is not None and isinstance(game, found.position):
            return found, found.game.from_position(game)
        if isinstance(game, str):
            return found, found.game.from_text(game)
    raise GenialError(
        "evaluate: a genial.Game, a Position, a genial.cards.CardGame, a CardPosition or a "
        f"position text, got {excerpt(game)}"
    )


def _candidates(
    found: GameEntry, legal: list[int], moves: object, as_move: Callable[[Any], Any]
) -> list[int]:
    """The action ids to evaluate: every legal one, or the given moves (each legal; ``as_move``
    reads one)."""
    if moves is None:
        return legal
    single = isinstance(moves, str) or (found.move is not None and isinstance(moves, found.move))
    if single or not isinstance(moves, (list, tuple)):
        raise GenialError(f"moves: a sequence of moves, got {excerpt(moves)}")
    allowed = set(legal)
    out: list[int] = []
    for item in moves:
        move = as_move(item)
        if move.action not in allowed:
            raise GenialError(f"moves: {move} is not legal here")
        if move.action not in out:
            out.append(move.action)
    if not out:
        raise GenialError("moves: give at least one move")
    return out


def _legal_move(legal: Sequence[Any], item: object) -> Any:
    """The legal move ``item`` (a move, its text or its action id) stands for, in a game
    without a kernel (only its verbs: ``legal_moves()``, each move's ``action`` and text)."""
    action = isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_))
    for move in legal:
        if item is move or (isinstance(item, (str, type(move))) and str(item) == str(move)):
            return move
        if action and int(item) == move.action:  # type: ignore[call-overload]
            return move
    raise GenialError(f"moves: {excerpt(item)} is not legal here")


# -- playing -----------------------------------------------------------------------------------


@dataclass
class _Plan:
    """What every work item shares: the position, the policies, the view."""

    kind: AnalysisHooks | None  # None: a game without a kernel, played through its own API
    base: Any  # the kernel state (a _core.Core, a card kernel's Cards), or the position
    seat: int
    codes: npt.NDArray[np.uint8]
    eps: npt.NDArray[np.float64]
    extra: dict[str, Any]  # the board's search policies' parameters (search=_core.SEARCH_DTYPE)
    view_seat: int
    side: int  # the winner value that is a win of the seat to move (its team in the team game)
    actions: list[int]
    labels: list[str]  # the moves' texts, by index into actions
    points: list[int]  # what each move scores now, by index into actions
    game: Any = None  # the game class (a game without a kernel)
    seats: tuple[tuple[str, float], ...] = ()  # each seat's policy and epsilon (the same)
    solo: bool = False  # the metric is the lowest (else an outright win)
    pair: np.random.SeedSequence | None = None  # paired: playout k's streams are its (k, 0/1)
    prefix: npt.NDArray[np.uint32] | None = None  # seed_prefix(pair), for the kernel


Task = tuple[int, int, int]
"""A piece of work: (index of the move in the plan, index of the piece's first playout among
that move's playouts, playouts)."""


def _play_item(
    item: tuple[_Plan, np.random.SeedSequence, list[Task]],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Play an item's tasks one after the other on the item's two streams; the sums of each
    task's playouts (``_SUMS`` per task) and the metric of every playout (an outright win, or
    the lowest in the solo game), in order."""
    plan, seed, tasks = item
    counts = [n for _, _, n in tasks]
    starts = np.zeros(len(tasks), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    if plan.kind is None:
        ranks, lowest, wins, shared = _play_out(plan, seed, tasks)
    else:
        ranks, lowest, wins, shared = _play_kernel(plan, plan.kind, seed, tasks)
    values = np.stack(
        [np.ones(len(ranks), dtype=np.int64), wins, shared, ranks, lowest, lowest * lowest],
        axis=1,
    )
    sums: npt.NDArray[np.int64] = np.add.reduceat(values, starts, axis=0)
    return sums, (lowest if plan.solo else wins)


Outcomes = tuple[npt.NDArray[np.int64], ...]
"""Per playout of an item: the seat's rank, its lowest, an outright win, a shared first."""


def _play_kernel(
    plan: _Plan, kind: AnalysisHooks, seed: np.random.SeedSequence, tasks: list[Task]
) -> Outcomes:
    """The playouts of a game with a kernel, each game's first decision forced. Unpaired: one
    ``run_chunk`` call on the item's two streams. Paired: one call per task, its game ``j``
    playout ``first + j`` of its move, on that playout's own streams (``game_prefix``)."""
    chance = stream(seed)
    policy = stream(child_seed(seed, POLICY_STREAM))
    total = sum(n for _, _, n in tasks)
    kernel = kind.kernel
    rows = np.zeros(total, dtype=kernel.ROW_DTYPE)
    seats = np.array([plan.seat], dtype=np.int16)

    def run(out: npt.NDArray[Any], forced: npt.NDArray[np.int16], **more: Any) -> None:
        kernel.run_chunk(  # each game's first decision forced: a placement (a play), or swap/keep
            plan.base, chance, policy, False, plan.codes, plan.eps, out, None, seats, forced,
            view_seat=plan.view_seat, **more, **plan.extra,
        )  # fmt: skip

    if plan.pair is not None and plan.prefix is not None:
        start = 0
        for m, first, n in tasks:  # (chance and policy left untouched: each game's own streams)
            forced = np.array([plan.actions[m]], dtype=np.int16)
            run(rows[start : start + n], forced, game_prefix=plan.prefix,
                pool_size=plan.pair.pool_size, first_game=first)  # fmt: skip
            start += n
    else:
        counts = [n for _, _, n in tasks]
        each = np.repeat(np.array([plan.actions[m] for m, _, _ in tasks], dtype=np.int16), counts)
        run(rows, each[:1], forced_each=each)
    ranks = rows["ranks"][:, plan.seat].astype(np.int64)
    lowest = rows["scores"][:, plan.seat, :].min(axis=1).astype(np.int64)
    winner = rows["winner"].astype(np.int64)
    wins = (winner == plan.side).astype(np.int64)
    shared = ((winner == -1) & (ranks == 0)).astype(np.int64)
    return ranks, lowest, wins, shared


def _play_out(plan: _Plan, seed: np.random.SeedSequence, tasks: list[Task]) -> Outcomes:
    """The playouts of a game without a kernel, through the game's own verbs: each playout is
    ``from_position(position, seed=s)`` (the game takes its chance and its policies' draws from
    that seed, as the library's games do), the move played, then every seat's ``choose`` until
    it is over. Paired, ``s`` is the first 64-bit word of ``child_seed(pair, p)`` for playout
    ``p`` of the move (the same for every move); unpaired, the next 64-bit draw of the item's
    chance stream."""
    chance = stream(seed)
    total = sum(n for _, _, n in tasks)
    out = np.zeros((4, total), dtype=np.int64)
    k = 0
    for m, first, n in tasks:
        for p in range(first, first + n):
            if plan.pair is not None:
                s = int(child_seed(plan.pair, p).generate_state(1, np.uint64)[0])
            else:
                s = int(chance.random_raw())
            game = plan.game.from_position(plan.base, seed=s)
            game.play(plan.actions[m])
            while not game.is_over:
                name, epsilon = plan.seats[game.current_player]
                game.play(game.choose(name, epsilon=epsilon))
            ranks = np.asarray(game.ranks(), dtype=np.int64)
            first = bool(ranks[plan.seat] == 0)
            alone = first and int((ranks == 0).sum()) == 1
            score = np.asarray(game.scores)[plan.seat]
            out[:, k] = (ranks[plan.seat], int(np.min(score)), alone, first and not alone)
            k += 1
    return out[0], out[1], out[2], out[3]


def _pack(tasks: Sequence[Task]) -> list[list[Task]]:
    """Cut the tasks into pieces and pack them, in order, into about ``ITEMS`` items (each of
    ``MIN_ITEM`` to about ``ITEM`` playouts; the last may hold fewer): the packing depends on
    the tasks only, so the results do not depend on the workers."""
    total = sum(n for _, _, n in tasks)
    target = min(ITEM, max(MIN_ITEM, math.ceil(total / ITEMS)))
    piece = min(PIECE, target)
    items: list[list[Task]] = []
    current: list[Task] = []
    size = 0
    for m, first, n in tasks:
        while n > 0:
            k = min(n, piece)
            current.append((m, first, k))
            size += k
            first += k
            n -= k
            if size >= target:
                items.append(current)
                current, size = [], 0
    if current:
        items.append(current)
    return items


class _Runner:
    """Plays rounds of tasks on the workers and keeps every move's sums and the metric of each
    of its playouts (``outcomes``, in playout order)."""

    def __init__(self, plan: _Plan, root: np.random.SeedSequence, workers: int, bar: Any) -> None:
        self.plan = plan
        self.root = root
        self.workers = workers
        self.bar = bar
        self.sums = np.zeros((len(plan.actions), _SUMS), dtype=np.int64)
        self.pieces: list[list[tuple[int, npt.NDArray[np.int64]]]] = [[] for _ in plan.actions]
        self.round = 0
        self.played = 0

    def play(self, wanted: Sequence[tuple[int, int]]) -> None:
        """Play ``n`` more playouts of move ``m`` for each ``(m, n)`` of ``wanted``: its
        playouts from the index of its next one (the playouts it has so far)."""
        following = {m: int(self.sums[m, 0]) for m, _ in wanted}
        tasks: list[Task] = []
        for m, n in wanted:
            tasks.append((m, following[m], n))
            following[m] += n
        packed = _pack(tasks)
        items = [
            (self.plan, child_seed(self.root, self.round, i), item) for i, item in enumerate(packed)
        ]
        self.round += 1
        backend = Serial() if self.workers == 1 or len(items) <= 1 else Threads(self.workers)
        results = backend.map(_play_item, items)
        try:
            for (_, _, item), (sums, values) in zip(items, results, strict=True):
                start = 0
                for (m, first, n), s in zip(item, sums, strict=True):
                    self.sums[m] += s
                    self.pieces[m].append((first, values[start : start + n]))
                    start += n
                self.played += start
                if self.bar:
                    self.bar(start)
        finally:
            results.close()

    def outcomes(self, m: int) -> npt.NDArray[np.int64]:
        """The metric of every playout of move ``m``, in playout order (entry ``k``: its
        playout ``k``)."""
        pieces = [values for _, values in sorted(self.pieces[m], key=lambda piece: piece[0])]
        return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.int64)

    def metric_sum(self, m: int) -> int:
        """The sum of move ``m``'s metric over its playouts."""
        return int(self.sums[m, 4 if self.plan.solo else 1])


def _stats(sums: npt.NDArray[np.int64]) -> dict[str, npt.NDArray[Any]]:
    """The table's statistics of every move at once (``sums``: one row of ``_SUMS`` a move)."""
    n, wins, shared, rank, low, low2 = (sums[:, i] for i in range(_SUMS))
    lo, hi = wilson_interval(wins, n)
    nf = n.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, low / nf, math.nan)
        var = np.where(n > 1, (low2 - nf * mean * mean) / (nf - 1), math.nan)
        half = np.where(n > 1, Z95 * np.sqrt(np.maximum(var, 0.0) / nf), math.nan)
        return {
            "playouts": n,
            "wins": wins,
            "shared": shared,
            "win_rate": np.where(n > 0, wins / nf, math.nan),
            "win_lo": lo,
            "win_hi": hi,
            "rank": np.where(n > 0, rank / nf, math.nan),
            "lowest": mean,
            "lowest_lo": mean - half,
            "lowest_hi": mean + half,
        }


def _order_key(metric: str) -> Any:
    def key(row: dict[str, Any]) -> tuple[float, ...]:
        value = row[metric] if math.isfinite(row[metric]) else -math.inf
        second = row["lowest"] if math.isfinite(row["lowest"]) else -math.inf
        return (-row["playouts"], -value, -second, row["action"])

    return key


def _span(kind: AnalysisHooks | None, rules: Any, solo: bool) -> float | None:
    """The range of a playout's metric, for the race's Hoeffding bounds: 1 for a win; the
    counters' maximum (``rules.cap``) for the lowest of a game with a kernel; None (unknown)
    for the lowest of a game without one."""
    if not solo:
        return 1.0
    cap = getattr(rules, "cap", None) if kind is not None else None
    if isinstance(cap, int) and not isinstance(cap, bool) and cap > 0:
        return float(cap)
    return None


def _race(runner: _Runner, race: Race) -> None:
    """Successive elimination (``genial.racing.Race``): bring every move in the race to its
    round's target, record what it added, and drop the moves whose upper bound is below the
    best lower bound, until the moves left have the race's cap."""
    while True:
        targets = race.targets()
        before = {m: (int(runner.sums[m, 0]), runner.metric_sum(m)) for m in targets}
        runner.play([(m, t - before[m][0]) for m, t in targets.items() if t > before[m][0]])
        for m, (count, total) in before.items():
            added = int(runner.sums[m, 0]) - count
            race.record(m, count=added, total=float(runner.metric_sum(m) - total))
        if race.done:
            return
        race.end_round()


def _p_best(
    outcomes: Sequence[npt.NDArray[np.int64]], root: np.random.SeedSequence, paired: bool
) -> npt.NDArray[np.float64]:
    """Each move's posterior probability of the highest win rate, from ``POSTERIOR_DRAWS``
    Monte Carlo draws on the seed's child ``(2**32 - 1,)`` (the rounds' items use the children
    ``(r, i)``), so the same seed gives the same column.

    Unpaired: independent Beta(1 + wins, 1 + other playouts) posteriors (uniform priors).
    Paired: the Bayesian bootstrap (Rubin 1981) with playout ``k``'s weight shared by every
    move, since every move's playout ``k`` was played on the same streams: a move's win rate
    in a draw is its weighted mean with one pseudo-win and one pseudo-loss of its own weights
    (the uniform prior); a move's marginal is then that of the unpaired bootstrap, and the
    comparisons keep the pairing (a move that wins wherever another wins, and more, is the
    better in every draw)."""
    n = np.array([len(o) for o in outcomes], dtype=np.int64)
    wins = np.array([int(o.sum()) for o in outcomes], dtype=np.int64)
    moves = len(outcomes)
    rng = np.random.Generator(stream(child_seed(root, 2**32 - 1)))
    counts = np.zeros(moves, dtype=np.int64)
    top = int(n.max()) if moves else 0
    if paired and top:
        x = np.zeros((moves, top))
        mask = np.zeros((moves, top))
        for i, o in enumerate(outcomes):
            x[i, : len(o)] = o
            mask[i, : len(o)] = 1.0
    left = POSTERIOR_DRAWS
    while left > 0:
        if paired and top:
            k = min(left, max(1, 2_000_000 // top))
            w = rng.standard_exponential((k, top))
            prior = rng.standard_exponential((2, k, moves))
            draws = (w @ x.T + prior[0]) / (w @ mask.T + prior[0] + prior[1])
        else:
            k = min(left, 1000)
            draws = rng.beta(1 + wins, 1 + n - wins, size=(k, moves))
        counts += np.bincount(draws.argmax(axis=1), minlength=moves)
        left -= k
    out: npt.NDArray[np.float64] = counts / POSTERIOR_DRAWS
    return out


def evaluate(
    game: Game | Position | CardGame | CardPosition | str | Any,
    *,
    playouts: int = 1000,
    policy: str | Sequence[str] = "greedy",
    seed: Any = None,
    workers: int | None = None,
    view: View = "player",
    adaptive: bool = False,
    min_playouts: int = 32,
    moves: Sequence[Move | CardMove | str | int | Any] | None = None,
    progress: bool = False,
    epsilon: float = 0.1,
    paired: bool = True,
) -> Evaluation:
    """Play out every legal decision of the seat to move and rank them.

    Parameters
    ----------
    game : Game, Position, CardGame, CardPosition or position text
        The position; its seat to move is analysed (its team's result in the team game).
        The card game is analysed the same way, and so is a game of any registered game
        (its game or position object), with its kernel or through its verbs (module
        docstring).
    playouts : int
        Playouts per move; with ``adaptive``, what the moves kept to the last round get.
    policy : str or sequence of str
        The policy of every seat in the playouts (one name, or one per seat), as
        ``genial.simulate`` takes them: ``"greedy"`` (the default: the rollouts of ``mc:N``
        and ``mcts:N``, and the command line's default), ``"random"``, ... (the search policies
        ``"mc:N"``, ``"mcts:N"`` in the board game only; a game without a kernel: the names
        its ``choose`` takes).
    seed : anything ``numpy.random.default_rng`` accepts
        The root of the playouts' randomness; the same seed gives the same table whatever
        ``workers``.
    workers : int, optional
        Threads (default: every core).
    view : ``"player"`` or ``"omniscient"``
        What the playouts know: only what the seat to move sees (the hidden tiles redealt
        before every playout), or the real racks (module docstring).
    adaptive : bool
        Successive elimination from ``min_playouts`` a move up to ``playouts``: a move is
        dropped only when its upper bound is below the best lower bound, at a family-wise 95%
        over the moves and the rounds (module docstring).
    moves : sequence of moves, optional
        Evaluate only these legal moves.
    progress : bool
        A progress bar over the playouts.
    epsilon : float
        Epsilon of ``"epsilon-greedy"`` seats given without their own.
    paired : bool
        Playout ``k`` of every move on the same streams, the children ``(k, 0)`` (chance: the
        redeal, the draws) and ``(k, 1)`` (policies) of ``child_seed(root, PAIR_KEY)``, and
        the moves compared game by game (``best_set(paired=True)``); ``False``: each work
        item's playouts on the item's own streams, compared as independent (module docstring).
    """
    found, dealt = _as_game(game)
    n_playouts = checked_int(playouts, "playouts", 1, MAX_PLAYOUTS)
    first = checked_int(min_playouts, "min_playouts", 1, MAX_PLAYOUTS)
    adaptive = checked_flag(adaptive, "adaptive")
    progress = checked_flag(progress, "progress")
    paired = checked_flag(paired, "paired")
    if view not in VIEWS:
        raise GenialError(f"view must be 'player' or 'omniscient', got {excerpt(view)}")
    n_workers = worker_count(-1 if workers is None else workers)
    kind = found.analysis
    if kind is None:
        missing = [verb for verb in PLAYOUT_VERBS if not hasattr(found.game, verb)]
        if missing:
            raise GenialError(
                f"evaluate: the game {found.name!r} has no position analysis (no kernel, "
                f"and its games lack {', '.join(missing)})"
            )
    rules = dealt.rules
    names, epsilons = parse_policies(policy, rules.players, epsilon, search=found.search)
    extra: dict[str, Any] = {}
    if kind is None:  # a game without a kernel: its own verbs play the playouts out
        codes, eps = np.zeros(0, dtype=np.uint8), np.zeros(0, dtype=np.float64)
    elif found.search:
        codes, eps, extra["search"] = kernel_policies(names, epsilons)
    else:
        codes, eps = kernel_codes(names, epsilons)
    # the kernel state of the position itself (racks or hands in canonical order), not of the
    # game's history: the playouts depend on the position only, as simulate(start=...)'s do
    position = dealt.position
    text = position.to_text()
    if kind is None:
        base = position
        over, seat = bool(dealt.is_over), int(dealt.current_player)
        legal_moves = list(dealt.legal_moves())
        legal = [int(m.action) for m in legal_moves]
    else:
        base = kind.load(position)
        over, seat = base.phase == 2, int(base.current)
        legal = [int(a) for a in base.legal_actions()]
    if over:
        raise GenialError("evaluate: the game is over, there is no decision to analyse")
    if not legal:
        raise GenialError("evaluate: the seat to move has no legal move")
    if kind is None:
        by_action = {m.action: m for m in legal_moves}
        actions = _candidates(found, legal, moves, lambda item: _legal_move(legal_moves, item))
        labels = [str(by_action[a]) for a in actions]
        points = [0] * len(actions)
    else:
        actions = _candidates(found, legal, moves, dealt._as_move)
        labels = [str(kind.moves[a]) for a in actions]
        points = [int(kind.points(base, a)) for a in actions]
    plan = _Plan(
        kind=kind,
        base=base,
        seat=seat,
        codes=codes,
        eps=eps,
        extra=extra,
        view_seat=seat if view == "player" and rules.players > 1 else -1,
        side=rules.team_of(seat) if kind is not None else seat,
        actions=actions,
        labels=labels,
        points=points,
        game=found.game,
        seats=tuple(zip(names, epsilons, strict=True)),
        solo=rules.players == 1,
    )
    metric = "lowest" if plan.solo else "win_rate"
    root = as_seed_sequence(seed)
    if paired:
        plan.pair = child_seed(root, PAIR_KEY)
        plan.prefix = seed_prefix(plan.pair) if kind is not None else None
    span = _span(kind, rules, plan.solo)
    total = len(actions) * n_playouts  # at most (the race may drop moves)
    bar = progress_bar(total, progress, unit="playouts")
    runner = _Runner(plan, root, n_workers, bar)
    began = time.perf_counter()
    if adaptive and span is not None:
        race = Race(len(actions), cap=n_playouts, batch=first, confidence=CONFIDENCE, span=span)
        _race(runner, race)
    else:
        runner.play([(m, n_playouts) for m in range(len(actions))])
    if bar and runner.played < total:
        bar(total - runner.played)  # (the playouts of the moves dropped: the bar ends)
    seconds = time.perf_counter() - began
    rows = sorted(_rows(runner.sums, range(len(actions)), plan), key=_order_key(metric))
    order = [int(row.pop("index")) for row in rows]
    outcomes = tuple(runner.outcomes(m) for m in order)
    tied = best_set(outcomes, confidence=CONFIDENCE, paired=paired)
    p_best = None if plan.solo else _p_best(outcomes, root, paired)
    for i, row in enumerate(rows):
        row["best"] = bool(tied.mask[i])
        row["p_best"] = math.nan if p_best is None else float(p_best[i])
    return Evaluation(
        position=text,
        rules=rules,
        seat=seat,
        phase=GENERIC_PHASE if kind is None else kind.phases[base.phase],
        view=view,
        policy=tuple(canonical(b, e) for b, e in zip(names, epsilons, strict=True)),
        rows=tuple(rows),
        adaptive=adaptive,
        playouts=n_playouts,
        min_playouts=min(first, n_playouts),
        metric=metric,
        seed=root,
        seconds=seconds,
        best_set=tied,
        outcomes=outcomes,
        paired=paired,
    )


def _rows(sums: npt.NDArray[np.int64], moves: Iterable[int], plan: _Plan) -> list[dict[str, Any]]:
    """The table rows of ``moves`` (indices into the plan), with their ``index``."""
    index = list(moves)
    stats = _stats(sums[index])
    columns = {k: v.tolist() for k, v in stats.items()}
    out = []
    for i, m in enumerate(index):
        row = {"move": plan.labels[m], "action": plan.actions[m]}
        row.update((k, v[i]) for k, v in columns.items())
        row["points"] = plan.points[m]
        row["index"] = m
        out.append(row)
    return out

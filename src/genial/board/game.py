"""The game: a position of the kernel with its history and its two random streams.

``Game`` is one game of the board game (RULES §3, §4) with its history: the chance stream draws
the bag's tiles, the policy stream feeds ``choose`` and ``playouts``, so the same seed and the same
moves give the same game whoever chose the moves.

>>> game = Game(2, seed=7)
>>> move = game.legal_moves()[0]
>>> game.play(move)
>>> game.undo() == move
True
>>> game.current_player
0
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from .. import _core
from .._core import Core
from ..errors import GenialError, IllegalMoveError, PositionError, RecordError, excerpt
from ..history import History
from ..seeds import (
    as_seed_sequence,
)
from .geometry import COLOUR_NAMES, Cell, area, cell_text, distance
from .moves import MOVES, TILES, Move, Tile, tile_text
from .notation import Phase, Position, load, make_record, read, read_record
from .rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    from ..batch.results import Playouts

__all__ = ["Game"]

_PHASES: tuple[Phase, ...] = ("place", "swap", "over")


class Game(History):
    """A game of Ingenious (RULES §3) or one of its variants (RULES §4), with its history.

    Parameters
    ----------
    players : int, str or Rules
        2, 3 or 4 for the base game, 1 for solo; or the rules as a token (``"2T"``, ``"4t"``,
        ``"1v"``, see ``genial.Rules``) or a ``Rules``.
    seed : anything ``numpy.random.default_rng`` accepts
        The root of the game's randomness: the bag's draws come from it (the chance stream), and
        the policies of ``choose`` and ``playouts`` from a stream derived from it.
    teams, tournament, tiles, rules
        The variant by keyword (``Game(4, teams=True)``), or ``rules=`` as one object or token.

    Examples
    --------
    >>> game = Game(players=2, seed=1)
    >>> game.players, game.current_player, game.phase, game.bag_size
    (2, 0, 'place', 108)
    >>> Game("2T", seed=1).rules
    Rules(players=2, tournament=True)
    >>> move = max(game.legal_moves(), key=lambda m: sum(game.gains(m)))
    >>> move, game.gains(move)
    (Move.parse('R1,-5+R0,-4'), (1, 1))
    >>> game.play(move)
    >>> game.scores[0].tolist()
    [2, 0, 0, 0, 0, 0]
    >>> Game.from_text(game.to_text()) == game
    True
    """

    __slots__ = ()
    _core_type = Core

    _rules: Rules
    _core: Core

    def __init__(
        self,
        players: int | str | Rules = 2,
        *,
        seed: Any = None,
        teams: bool = False,
        tournament: bool = False,
        tiles: Literal["standard", "travel"] = "standard",
        rules: Rules | str | None = None,
    ) -> None:
        game_rules = Rules.of(players, teams=teams, tournament=tournament, tiles=tiles, rules=rules)
        core = game_rules.core()
        self._init(game_rules, core, seed)
        core.deal(self._chance)
        self._start = self.to_text()

    # -- reading the position ------------------------------------------------------------------
    @property
    def rules(self) -> Rules:
        """The rules of this game (players and variant)."""
        return self._rules

    @property
    def players(self) -> int:
        """Number of players (seats 0 .. players - 1)."""
        return int(self._core.players)

    @property
    def current_player(self) -> int:
        """The seat to move (0 moves first)."""
        return int(self._core.current)

    @property
    def phase(self) -> Phase:
        """``'place'`` (a placement is due), ``'swap'`` (the swap decision) or ``'over'``."""
        return _PHASES[self._core.phase]

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (RULES §3.6)."""
        return bool(self._core.phase == 2)

    @property
    def scores(self) -> npt.NDArray[np.int64]:
        """Counters, shape ``(players, 6)``, columns in colour order R G B O Y P."""
        scores: npt.NDArray[np.int64] = self._core.scores()
        return scores

    def rack(self, player: int) -> list[Tile]:
        """The tiles on ``player``'s rack, each ``(lower colour, higher colour)``, sorted."""
        self._check_seat(player)
        return [TILES[t] for t in self._core.rack(int(player))]

    @property
    def bag_size(self) -> int:
        """Tiles left in the bag."""
        return int(self._core.bag_n)

    def bag(self) -> dict[Tile, int]:
        """The bag's contents: tile -> count (tiles with count 0 left out)."""
        return {TILES[t]: n for t, n in enumerate(self._core.bag_counts()) if n}

    @property
    def bonus_plays(self) -> int:
        """Bonus placements still owed to the current player this turn (RULES §3.4)."""
        return int(self._core.bonus)

    @property
    def turn(self) -> int:
        """Turns started so far (1 on the first turn)."""
        return int(self._core.turn)

    @property
    def free_pairs(self) -> int:
        """Unordered pairs of adjacent empty cells in the area (the game ends at 0)."""
        return int(self._core.n_free)

    @property
    def radius(self) -> int:
        """The playing area: cells at distance <= radius (RULES §1.3)."""
        return self._rules.radius

    @property
    def board(self) -> dict[Cell, int]:
        """Cells covered by tile halves -> colour (printed symbols are not included)."""
        return dict(self.position.board)

    @property
    def position(self) -> Position:
        """The position as data (``genial.Position``)."""
        with self._lock:
            return read(self._core, self._rules)

    def cells(self) -> list[Cell]:
        """The cells of the playing area, in row-major order."""
        return list(area(self.radius))

    def ranks(self) -> npt.NDArray[np.int64]:
        """Rank of each player, 0 = best (RULES §3.7): counters sorted ascending compared
        lexicographically; players with identical vectors share a rank, and a rank counts the
        players strictly ahead (1, 1, 3 style). Defined at any time, final when over."""
        ranks: npt.NDArray[np.int64] = self._core.ranks()
        return ranks

    def winner(self) -> int | None:
        """The player ranked first alone (in the team game: the team, 0 for seats 0 and 2, 1 for
        seats 1 and 3); ``None`` while the game runs or if first place is shared."""
        if not self.is_over:
            return None
        ranks = self.ranks()[: self._rules.counter_sets]
        best = np.flatnonzero(ranks == 0)
        return int(best[0]) if len(best) == 1 else None

    # -- moves ---------------------------------------------------------------------------------
    def legal_actions(self) -> npt.NDArray[np.int32]:
        """The legal moves' ids, sorted (see ``Move.action``)."""
        actions: npt.NDArray[np.int32] = self._core.legal_actions()
        return actions

    def action_mask(self) -> npt.NDArray[np.bool_]:
        """A bool array of length ``ACTION_SIZE``, True at the legal moves' ids."""
        mask: npt.NDArray[np.bool_] = self._core.action_mask()
        return mask

    def legal_moves(self) -> list[Move]:
        """The legal moves for the current decision, in action order (empty when over)."""
        moves = MOVES
        return [moves[a] for a in self._core.legal_actions().tolist()]

    def is_legal(self, move: Move | str | int) -> bool:
        """Whether ``move`` (a Move, its text or its action id) is legal now; False for
        anything that is not a move."""
        try:
            return bool(self._core.is_legal(self._as_move(move).action))
        except GenialError:
            return False

    def gains(self, move: Move | str) -> tuple[int, int]:
        """Points each half of a placement would score now (RULES §3.3), before the cap.

        The tile need not be on the rack; the cells must be two adjacent empty cells of the area.
        """
        m = self._as_move(move)
        if m.cells is None or m.colours is None:
            raise IllegalMoveError(f"{m.kind!r} is not a placement: it scores nothing")
        with self._lock:
            self._check_cells(m)
            g0, g1 = self._core.gains(m.action)
        return (int(g0), int(g1))

    def play(self, move: Move | str | int) -> None:
        """Play a move (a ``Move``, its text, or its action id), checked.

        Raises ``IllegalMoveError``, saying why, and leaves the game unchanged if the move is
        malformed or not legal now.
        """
        self._play(move)

    def undo(self) -> Move:
        """Take back the last ``play()``: board, scores, racks, bag and the chance stream are
        exactly as before it (the policy stream, the chooser's, runs on). Returns the move taken
        back."""
        move: Move = self._undo()
        return move

    @property
    def moves(self) -> list[Move]:
        """The moves played since the start of the record (``to_record()['start']``)."""
        return [move for move, _ in self._moves]

    def _as_move(self, move: Move | str | int) -> Move:
        if isinstance(move, Move):
            return move
        if isinstance(move, str):
            return Move.parse(move)
        if isinstance(move, (int, np.integer)) and not isinstance(move, (bool, np.bool_)):
            if 0 <= move < len(MOVES):  # the area is checked with the move's legality
                return MOVES[int(move)]
            return Move.from_action(int(move), self._rules)  # says what is wrong
        raise IllegalMoveError(f"expected a Move, a move text or an action id, got {excerpt(move)}")

    def _check_cells(self, m: Move) -> None:
        assert m.cells is not None
        board = self._core.board()
        for cell in m.cells:
            if distance(cell) > self.radius:
                raise IllegalMoveError(
                    f"cell {cell_text(cell)} is outside the {self.players}-player area "
                    f"(distance {distance(cell)} > {self.radius}, docs/rules.md §1.3)"
                )
            if board[_core.index_of(*cell)] != 6:
                raise IllegalMoveError(f"cell {cell_text(cell)} is already covered")

    def _check_legal(self, m: Move) -> None:
        """Raise an ``IllegalMoveError`` saying why ``m`` is not legal now (the kernel says
        which rule it breaks; this only words it)."""
        why = self._core.illegal_reason(m.action)
        if why is None:
            return
        player = self.current_player
        if why == "over":
            raise IllegalMoveError(f"the game is over: no move is legal ({m})")
        if why == "decide-swap":
            raise IllegalMoveError(
                f"player {player} must first decide on the swap (docs/rules.md §3.5): "
                f"play 'swap' or 'keep', not {m}"
            )
        if why == "not-decision":
            raise IllegalMoveError(f"player {player} must place a tile now; {m} is not allowed")
        if why in ("outside", "covered"):
            self._check_cells(m)
        if why == "no-tile":
            assert m.tile is not None
            rack = " ".join(tile_text(t) for t in self.rack(player)) or "empty"
            raise IllegalMoveError(
                f"player {player} has no {tile_text(m.tile)} tile (rack: {rack})"
            )
        if why == "first-round":
            touched = [COLOUR_NAMES[s] for s in self._core.first_symbols() if 0 <= s < 6]
            also = f" not touched yet (already touched: {', '.join(touched)})" if touched else ""
            raise IllegalMoveError(
                f"{m} is player {player}'s first placement: it must touch a printed "
                f"symbol{also} (docs/rules.md §3.2)"
            )
        raise IllegalMoveError(f"{m} is not legal now ({why})")  # pragma: no cover

    # -- copies and pickling -------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        """Games are equal when their positions are (``to_text()``), whatever their history."""
        return isinstance(other, Game) and other.to_text() == self.to_text()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Game.from_text({self.to_text()!r})"

    def __str__(self) -> str:
        from ..render.text import ascii_board

        return ascii_board(self)

    def _repr_svg_(self) -> str:
        from ..render.svg import board_svg

        return board_svg(self)

    # -- position text -------------------------------------------------------------------------
    def to_text(self) -> str:
        """The whole position as one line (the README describes the ten fields).

        >>> Game(players=2, seed=3).to_text().split()[0]
        '2'
        """
        with self._lock:
            return read(self._core, self._rules).to_text()

    @classmethod
    def from_text(cls, text: str, *, seed: Any = None, pair_tiles: bool = True) -> Game:
        """Read a position written by ``to_text()``. ``seed`` seeds the draws that follow.

        Raises ``PositionError`` saying what is wrong. ``pair_tiles=False`` accepts a board
        whose covered cells do not pair into tiles (for scoring studies; see the README).
        """
        return cls.from_position(Position.parse(text), seed=seed, pair_tiles=pair_tiles)

    @classmethod
    def from_position(
        cls, position: Position, *, seed: Any = None, pair_tiles: bool = True
    ) -> Game:
        """A game starting at ``position`` (checked: ``PositionError`` says what is wrong)."""
        if not isinstance(position, Position):
            raise PositionError(f"expected a genial.Position, got {type(position).__name__}")
        game = object.__new__(cls)
        game._init(position.rules, load(position, pair_tiles=bool(pair_tiles)), seed)
        game._start = game.to_text()
        return game

    # -- records -------------------------------------------------------------------------------
    def to_record(self) -> dict[str, Any]:
        """A JSON-serialisable record: the start position (racks and bag included), then every
        move with the tiles drawn right after it. ``Game.from_record`` replays it exactly."""
        return make_record(self._start, self._record_moves())

    @classmethod
    def from_record(cls, record: Any, *, seed: Any = None, pair_tiles: bool = True) -> Game:
        """Replay a record made by ``to_record()``; raises ``RecordError`` saying what is wrong.

        ``seed`` seeds draws after the record's last move; ``pair_tiles`` is ``from_text``'s.
        """
        start, moves = read_record(record)
        try:
            game = cls.from_text(start, seed=seed, pair_tiles=pair_tiles)
        except PositionError as exc:
            raise RecordError(f"bad start position: {exc}") from None
        game._replay(moves)
        return game

    # -- batches ---------------------------------------------------------------------------------
    def playouts(
        self,
        n_games: int,
        *,
        policy: str | Sequence[str] = "random",
        seed: Any = None,
        workers: int = 1,
        records: bool = False,
        progress: bool = False,
        epsilon: float = 0.1,
    ) -> Playouts:
        """``genial.simulate`` continuing from this position: every game starts here (the racks
        as they are, the bag's draws random) and is played to its end by the policies. Without a
        ``seed`` the run is seeded from the game's policy stream (reproducible from the game's
        seed; each call advances that stream).

        >>> game = Game(players=2, seed=3)
        >>> game.play(game.choose("greedy"))
        >>> runs = game.playouts(100, policy="greedy")
        >>> len(runs), bool((runs.placements >= 1).all())
        (100, True)
        >>> again = Game(players=2, seed=3)
        >>> again.play(again.choose("greedy"))
        >>> bool((again.playouts(100, policy="greedy").scores == runs.scores).all())
        True
        """
        with self._lock:
            if seed is not None:
                return self._playouts(n_games, policy, seed, workers, records, progress, epsilon)
            # seeded from the policy stream; a refused call leaves the stream as it was
            saved = self._policy_snapshot()
            try:
                seed = as_seed_sequence(np.random.Generator(self._policy_stream()))
                return self._playouts(n_games, policy, seed, workers, records, progress, epsilon)
            except BaseException:
                self._policy = None
                self._policy_state = saved
                raise

    def _playouts(
        self,
        n_games: int,
        policy: str | Sequence[str],
        seed: Any,
        workers: int,
        records: bool,
        progress: bool,
        epsilon: float,
    ) -> Playouts:
        from ..batch import simulate

        return simulate(
            n_games,
            policy=policy,
            rules=self._rules,
            seed=seed,
            workers=workers,
            start=self,
            records=records,
            progress=progress,
            epsilon=epsilon,
        )

    # -- policies ------------------------------------------------------------------------------
    def choose(self, policy: str = "random", *, epsilon: float = 0.1) -> Move:
        """The move a built-in policy (``'random'``, ``'greedy'``, ``'epsilon-greedy'``,
        ``'epsilon-greedy:0.2'``, or a search: ``'mc:200'``, ``'mcts:500'``, see docs/search.md)
        picks here, drawn from the game's policy stream (never from the bag's chance stream; see
        ``genial.policies`` for the policies' definitions)."""
        return MOVES[self._choose(policy, epsilon)]

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
from ..base import GameBase
from ..errors import GenialError, IllegalMoveError
from ..seeds import as_seed_sequence
from .geometry import COLOUR_NAMES, Cell, area, cell_text, distance
from .moves import MOVES, TILES, Move, Tile, tile_text
from .notation import PHASES, RECORDS, Phase, Position, load, read
from .rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    from ..batch.results import Playouts

__all__ = ["Game"]


class Game(GameBase[Move, Position, Rules]):
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
    _move_type = Move
    _move_table = MOVES
    _position_type = Position
    _position_name = "genial.Position"
    _read = staticmethod(read)
    _load = staticmethod(load)
    _records = RECORDS

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
        self._deal(
            Rules.of(players, teams=teams, tournament=tournament, tiles=tiles, rules=rules), seed
        )

    # -- reading the position ------------------------------------------------------------------
    @property
    def phase(self) -> Phase:
        """``'place'`` (a placement is due), ``'swap'`` (the swap decision) or ``'over'``."""
        return PHASES[self._core.phase]

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

    def cells(self) -> list[Cell]:
        """The cells of the playing area, in row-major order."""
        return list(area(self.radius))

    def _ranked_seats(self) -> int:
        return self._rules.counter_sets

    def evaluate(self, player: int | None = None) -> float:
        """The learned evaluation of this position for ``player`` (default: the player to move):
        its estimated share of first place (solo: its lowest counter over the cap), from what
        that player can see (docs/value.md); exact once the game is over. The ``value`` policy
        plays the placement whose position it rates best.

        >>> g = Game(2, seed=1)
        >>> 0.0 < g.evaluate() < 1.0 and g.evaluate(1) == g.evaluate(player=1)
        True
        """
        seat = self.current_player if player is None else player
        self._check_seat(seat)
        with self._lock:
            try:
                return float(self._core.value(int(seat)))
            except ValueError as err:  # the weights file is missing or damaged
                raise GenialError(str(err)) from None

    # -- moves ---------------------------------------------------------------------------------
    def action_mask(self) -> npt.NDArray[np.bool_]:
        """A bool array of length ``ACTION_SIZE``, True at the legal moves' ids."""
        mask: npt.NDArray[np.bool_] = self._core.action_mask()  # the kernel's, at once
        return mask

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

    # -- pictures ------------------------------------------------------------------------------
    def __str__(self) -> str:
        from .text import ascii_board

        return ascii_board(self)

    def _repr_svg_(self) -> str:
        from .svg import board_svg

        return board_svg(self)

    # -- position text -------------------------------------------------------------------------
    @classmethod
    def from_text(cls, text: str, *, seed: Any = None, pair_tiles: bool = True) -> Game:
        """Read a position written by ``to_text()``. ``seed`` seeds the draws that follow.

        Raises ``PositionError`` saying what is wrong. ``pair_tiles=False`` accepts a board
        whose covered cells do not pair into tiles (for scoring studies; see docs/guide.md).
        """
        return cls._from_text(text, seed, pair_tiles=bool(pair_tiles))

    @classmethod
    def from_position(
        cls, position: Position, *, seed: Any = None, pair_tiles: bool = True
    ) -> Game:
        """A game starting at ``position`` (checked: ``PositionError`` says what is wrong)."""
        return cls._from_position(position, seed, pair_tiles=bool(pair_tiles))

    # -- records -------------------------------------------------------------------------------
    @classmethod
    def from_record(cls, record: Any, *, seed: Any = None, pair_tiles: bool = True) -> Game:
        """Replay a record made by ``to_record()``; raises ``RecordError`` saying what is wrong.

        ``seed`` seeds draws after the record's last move; ``pair_tiles`` is ``from_text``'s.
        """
        return cls._from_record(record, seed, pair_tiles=bool(pair_tiles))

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
            self._rules,
            policy=policy,
            seed=seed,
            workers=workers,
            start=self,
            records=records,
            progress=progress,
            options={"epsilon": epsilon},
        )

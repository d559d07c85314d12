"""The game: a thin, checked, typed face of the kernel (``genial._core``).

``Game`` is one position of the base game (RULES §3) with its history; ``Move`` is a placement, a
swap or a keep. Positions are written in a one-line notation (``Game.to_text``) and games in a
JSON-serialisable record (``Game.to_record``); both are described in the README.

>>> game = Game(players=2, seed=7)
>>> move = game.legal_moves()[0]
>>> game.play(move)
>>> game.undo() == move
True
>>> game.current_player
0
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from . import _core
from .errors import GenialError, IllegalMoveError, PositionError, RecordError
from .rules import Rules

if TYPE_CHECKING:  # pragma: no cover
    from .simulation import Playouts

__all__ = [
    "ACTION_SIZE",
    "COLOURS",
    "EDGES",
    "SYMBOLS",
    "Game",
    "GenialError",
    "IllegalMoveError",
    "Move",
    "PositionError",
    "RecordError",
]

COLOURS = "RGBOYP"
"""Colour letters in index order (RULES §1.4): red, green, blue, orange, yellow, purple."""
COLOUR_NAMES = ("red", "green", "blue", "orange", "yellow", "purple")
SYMBOLS: tuple[tuple[int, int], ...] = _core.SYMBOLS
"""The printed symbol of colour ``c`` is at ``SYMBOLS[c]`` (RULES §1.4)."""
EDGES: tuple[tuple[tuple[int, int], tuple[int, int]], ...] = _core.EDGES
"""The 426 pairs of adjacent cells without a printed symbol, in action order."""
ACTION_SIZE: int = _core.ACTION_SIZE
"""Size of the action space: ``426 * 36`` placements, then swap, then keep."""
RECORD_FORMAT = "genial-record"
RECORD_VERSION = 1

Cell = tuple[int, int]
Tile = tuple[int, int]
Phase = Literal["place", "swap", "over"]

_EDGE_OF: dict[tuple[Cell, Cell], int] = {pair: i for i, pair in enumerate(EDGES)}
_TILES: tuple[Tile, ...] = _core.TILES
_TILE_ID: dict[Tile, int] = {t: i for i, t in enumerate(_TILES)}
_SYMBOL_AT: dict[Cell, int] = {cell: c for c, cell in enumerate(SYMBOLS)}
_DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
_DECIMAL = re.compile(r"[0-9]{1,12}")  # ASCII digits only (str.isdigit accepts '²')
_DIGITS = re.compile(r"[0-9]+")
_MAX_TURN = 32767  # the kernel's int16 turn counter
_HALF = re.compile(r"\s*([A-Za-z])\s*\(?\s*(-?\d+)\s*,\s*(-?\d+)\s*\)?\s*")


def distance(cell: Cell) -> int:
    """Distance of a cell from the centre (RULES §1.2).

    >>> distance((3, -5))
    5
    """
    q, r = cell
    return max(abs(q), abs(r), abs(q + r))


def _row_major(cell: Cell) -> tuple[int, int]:
    return (cell[1], cell[0])


def tile_text(tile: Tile) -> str:
    """Two letters, lower colour first: ``tile_text((0, 2)) == 'RB'``."""
    return COLOURS[tile[0]] + COLOURS[tile[1]]


def parse_tile(text: str) -> Tile:
    """``'BR'`` or ``'RB'`` -> ``(0, 2)``; raises ``ValueError`` for anything else."""
    if len(text) != 2 or any(ch not in COLOURS for ch in text.upper()):
        raise ValueError(f"{text!r} is not a tile (two of the letters {COLOURS})")
    a, b = (COLOURS.index(ch) for ch in text.upper())
    return (min(a, b), max(a, b))


def _cell_text(cell: Cell) -> str:
    return f"({cell[0]}, {cell[1]})"


class Move:
    """A decision: a placement of a tile on two cells, a swap of the rack, or keeping it.

    A placement puts ``colours[0]`` on ``cells[0]`` and ``colours[1]`` on ``cells[1]``; the pair
    is stored in a canonical order (cells in row-major order), so equal placements compare equal.

    >>> m = Move.place(((1, -4), (0, -4)), (2, 0))
    >>> m.cells, m.colours
    (((0, -4), (1, -4)), (0, 2))
    >>> str(m)
    'R0,-4+B1,-4'
    >>> Move.parse('B1,-4+R0,-4') == m
    True
    >>> m
    Move.parse('R0,-4+B1,-4')
    >>> Move.from_action(m.action, players=2) == m
    True
    """

    __slots__ = ("_action", "cells", "colours", "kind")

    kind: Literal["place", "swap", "keep"]
    cells: tuple[Cell, Cell] | None
    colours: tuple[int, int] | None
    _action: int

    def __init__(self) -> None:
        raise TypeError(
            "use Move.place(), Move.swap(), Move.keep(), Move.parse() or Move.from_action()"
        )

    @classmethod
    def _make(
        cls,
        kind: Literal["place", "swap", "keep"],
        cells: tuple[Cell, Cell] | None,
        colours: tuple[int, int] | None,
        action: int,
    ) -> Move:
        move = object.__new__(cls)
        object.__setattr__(move, "kind", kind)
        object.__setattr__(move, "cells", cells)
        object.__setattr__(move, "colours", colours)
        object.__setattr__(move, "_action", action)
        return move

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Move is immutable")

    @classmethod
    def place(cls, cells: Sequence[Sequence[int]], colours: Sequence[int]) -> Move:
        """A placement of ``colours[0]`` on ``cells[0]`` and ``colours[1]`` on ``cells[1]``.

        Raises ``IllegalMoveError`` unless the cells are two adjacent cells of the board
        without a printed symbol and the colours are two ints in ``0..5``.
        """
        try:
            (q0, r0), (q1, r1) = cells
            c0, c1 = colours
            if not all(
                isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                for v in (q0, r0, q1, r1, c0, c1)
            ):
                raise TypeError
            x: Cell = (int(q0), int(r0))
            y: Cell = (int(q1), int(r1))
            k0, k1 = int(c0), int(c1)
        except (TypeError, ValueError):
            raise IllegalMoveError(
                f"a placement needs two cells (q, r) and two colours, got {cells!r}, {colours!r}"
            ) from None
        for c in (k0, k1):
            if not 0 <= c < 6:
                raise IllegalMoveError(f"colour {c} is not in 0..5 ({COLOURS})")
        for cell in (x, y):
            if distance(cell) > 7:
                raise IllegalMoveError(f"cell {_cell_text(cell)} is off the board (radius 7)")
            if cell in _SYMBOL_AT:
                name = COLOUR_NAMES[_SYMBOL_AT[cell]]
                raise IllegalMoveError(f"cell {_cell_text(cell)} holds the printed {name} symbol")
        if _row_major(y) < _row_major(x):
            x, y, k0, k1 = y, x, k1, k0
        edge = _EDGE_OF.get((x, y))
        if edge is None:
            raise IllegalMoveError(f"cells {_cell_text(x)} and {_cell_text(y)} are not adjacent")
        return _PLACEMENTS[edge * 36 + k0 * 6 + k1]

    @classmethod
    def swap(cls) -> Move:
        """Swap the rack (RULES §3.5)."""
        return _SWAP

    @classmethod
    def keep(cls) -> Move:
        """Decline the swap and refill the rack."""
        return _KEEP

    @classmethod
    def parse(cls, text: str) -> Move:
        """Read ``'R0,-4+B1,-4'``, ``'swap'`` or ``'keep'`` (case and spaces are free)."""
        if not isinstance(text, str):
            raise IllegalMoveError(f"a move text must be a str, got {type(text).__name__}")
        word = text.strip().lower()
        if word == "swap":
            return _SWAP
        if word == "keep":
            return _KEEP
        halves = text.split("+")
        if len(halves) != 2:
            raise IllegalMoveError(
                f"cannot read move {text!r}: expected 'swap', 'keep' or a placement "
                "like 'R0,-4+B1,-4'"
            )
        cells: list[Cell] = []
        colours: list[int] = []
        for half in halves:
            match = _HALF.fullmatch(half)
            if match is None or match.group(1).upper() not in COLOURS:
                raise IllegalMoveError(
                    f"cannot read {half.strip()!r} in move {text!r}: expected a colour letter "
                    f"({COLOURS}) then q,r, like 'R0,-4'"
                )
            colours.append(COLOURS.index(match.group(1).upper()))
            cells.append((int(match.group(2)), int(match.group(3))))
        return cls.place(cells, colours)

    @classmethod
    def from_action(cls, action: int, players: int = 2) -> Move:
        """The move with integer id ``action`` (see ``ACTION_SIZE``), checked against the area
        of a ``players``-player game."""
        radius = Rules.of(players).radius
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalMoveError(f"an action id must be an int, got {action!r}")
        if not 0 <= action < ACTION_SIZE:
            raise IllegalMoveError(f"action {action} is outside 0..{ACTION_SIZE - 1}")
        move = _ALL_MOVES[int(action)]
        if move.cells is not None:
            for cell in move.cells:
                if distance(cell) > radius:
                    raise IllegalMoveError(
                        f"action {action} uses cell {_cell_text(cell)}, outside the "
                        f"{players}-player area"
                    )
        return move

    @property
    def action(self) -> int:
        """The integer id of this move in the fixed action space (``0 <= action < ACTION_SIZE``).

        A placement's id is ``edge * 36 + 6 * colour_on_first_cell + colour_on_second_cell``
        with ``edge`` its index in ``EDGES``; swap is ``15336`` and keep ``15337``.
        """
        return self._action

    @property
    def tile(self) -> Tile | None:
        """The tile a placement uses, as ``(lower colour, higher colour)``."""
        if self.colours is None:
            return None
        return (min(self.colours), max(self.colours))

    def __str__(self) -> str:
        if self.cells is None or self.colours is None:
            return self.kind
        (q0, r0), (q1, r1) = self.cells
        c0, c1 = self.colours
        return f"{COLOURS[c0]}{q0},{r0}+{COLOURS[c1]}{q1},{r1}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and other._action == self._action

    def __hash__(self) -> int:
        return hash(self._action)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (Move.parse, (str(self),))


def _build_moves() -> tuple[list[Move], Move, Move]:
    moves = []
    for e, cells in enumerate(EDGES):
        for c0 in range(6):
            for c1 in range(6):
                moves.append(Move._make("place", cells, (c0, c1), e * 36 + c0 * 6 + c1))
    return (
        moves,
        Move._make("swap", None, None, _core.ACTION_SWAP),
        Move._make("keep", None, None, _core.ACTION_KEEP),
    )


_PLACEMENTS, _SWAP, _KEEP = _build_moves()
_ALL_MOVES: list[Move] = [*_PLACEMENTS, _SWAP, _KEEP]


def _bit_generator(seed: Any) -> np.random.BitGenerator:
    try:
        return np.random.default_rng(seed).bit_generator
    except (TypeError, ValueError) as exc:
        raise GenialError(f"seed: {exc} (pass an int, ints, a SeedSequence or None)") from None


class Game:
    """A game of Ingenious for 2, 3 or 4 players (RULES §3), with its history.

    Parameters
    ----------
    players : int
        2, 3 or 4 for the base game (RULES §3); 1 for the solo game (RULES §4.1).
    seed : anything ``numpy.random.default_rng`` accepts
        Determines every draw from the bag: the same seed gives the same game for the same moves.
    teams, tournament, tiles
        The variants (see ``genial.Rules``): ``Game(4, teams=True)``, ``Game(2, tournament=True)``,
        ``Game(2, tiles="travel")``.
    rules : genial.Rules, optional
        The rules as one object, instead of the keywords.

    Examples
    --------
    >>> game = Game(players=2, seed=1)
    >>> game.players, game.current_player, game.phase, game.bag_size
    (2, 0, 'place', 108)
    >>> game.scores.shape
    (2, 6)
    >>> len(game.rack(0))
    6
    >>> move = max(game.legal_moves(), key=lambda m: sum(game.gains(m)))
    >>> move, game.gains(move)
    (Move.parse('R1,-5+R0,-4'), (1, 1))
    >>> game.play(move)
    >>> game.scores[0].tolist()
    [2, 0, 0, 0, 0, 0]
    >>> game.current_player
    1
    >>> Game.from_text(game.to_text()) == game
    True
    """

    __slots__ = ("_bitgen", "_core", "_history", "_moves", "_rules", "_start")

    def __init__(
        self,
        players: int = 2,
        *,
        seed: Any = None,
        teams: bool = False,
        tournament: bool = False,
        tiles: Literal["standard", "travel"] = "standard",
        rules: Rules | None = None,
    ) -> None:
        self._rules = Rules.of(
            players, teams=teams, tournament=tournament, tiles=tiles, rules=rules
        )
        self._bitgen: np.random.BitGenerator = _bit_generator(seed)
        self._core = self._rules.core()
        self._core.deal(self._bitgen)
        self._start = self.to_text()
        self._moves: list[tuple[str, list[int]]] = []
        self._history: list[tuple[bytes, Mapping[str, Any]]] = []

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
        return _core.PHASES[self._core.phase]

    @property
    def is_over(self) -> bool:
        """Whether the game has ended (RULES §3.6)."""
        return bool(self._core.phase == 2)

    @property
    def scores(self) -> npt.NDArray[np.int64]:
        """Counters, shape ``(players, 6)``, columns in colour order R G B O Y P."""
        return self._core.scores()

    def rack(self, player: int) -> list[Tile]:
        """The tiles on ``player``'s rack, each ``(lower colour, higher colour)``, sorted."""
        self._check_seat(player)
        return [_TILES[t] for t in self._core.rack(int(player))]

    @property
    def bag_size(self) -> int:
        """Tiles left in the bag."""
        return int(self._core.bag_n)

    def bag(self) -> dict[Tile, int]:
        """The bag's contents: tile -> count (tiles with count 0 left out)."""
        return {_TILES[t]: n for t, n in enumerate(self._core.bag_counts()) if n}

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
        return int(self._core.radius)

    @property
    def board(self) -> dict[Cell, int]:
        """Cells covered by tile halves -> colour (printed symbols are not included)."""
        raw = self._core.board()
        out: dict[Cell, int] = {}
        for cell in self._area_cells():
            value = raw[_core.index_of(*cell)]
            if value < 6 and cell not in _SYMBOL_AT:
                out[cell] = value
        return out

    def cells(self) -> list[Cell]:
        """The cells of the playing area, in row-major order."""
        return self._area_cells()

    def _area_cells(self) -> list[Cell]:
        return _area(self.radius)

    def ranks(self) -> npt.NDArray[np.int64]:
        """Rank of each player, 0 = best (RULES §3.7): counters sorted ascending compared
        lexicographically; players with identical vectors share a rank, and a rank counts the
        players strictly ahead (1, 1, 3 style). Defined at any time, final when over."""
        return self._core.ranks()

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
        return self._core.legal_actions()

    def action_mask(self) -> npt.NDArray[np.bool_]:
        """A bool array of length ``ACTION_SIZE``, True at the legal moves' ids."""
        mask = np.zeros(ACTION_SIZE, dtype=bool)
        mask[self._core.legal_actions()] = True
        return mask

    def legal_moves(self) -> list[Move]:
        """The legal moves for the current decision, in action order (empty when over)."""
        return [_ALL_MOVES[a] for a in self._core.legal_actions()]

    def is_legal(self, move: Move | str | int) -> bool:
        """Whether ``move`` (a Move, its text or its action id) is legal now."""
        try:
            return bool(self._core.is_legal(self._as_move(move).action))
        except IllegalMoveError:
            return False

    def gains(self, move: Move | str) -> tuple[int, int]:
        """Points each half of a placement would score now (RULES §3.3), before the cap.

        The tile need not be on the rack; the cells must be two adjacent empty cells of the area.
        """
        m = self._as_move(move)
        if m.cells is None or m.colours is None:
            raise IllegalMoveError(f"{m.kind!r} is not a placement: it scores nothing")
        self._check_cells(m)
        g0, g1 = self._core.gains(m.action // 36, m.colours[0], m.colours[1])
        return (int(g0), int(g1))

    def play(self, move: Move | str | int) -> None:
        """Play a move (a ``Move``, its text, or its action id), checked.

        Raises ``IllegalMoveError``, saying why, and leaves the game unchanged if the move is
        malformed or not legal now.
        """
        m = self._as_move(move)
        if not self._core.is_legal(m.action):
            self._explain(m)
            raise IllegalMoveError(f"{m} is not legal now")  # pragma: no cover - _explain raises
        snapshot = (self._core.snapshot(), self._bitgen.state)
        draws = self._core.apply(m.action, self._bitgen)
        self._history.append(snapshot)
        self._moves.append((str(m), draws))

    def undo(self) -> Move:
        """Take back the last ``play()``: board, scores, racks, bag and the random state are exactly
        as before it. Returns the move taken back."""
        if not self._history:
            raise IllegalMoveError("there is no move to undo")
        state, rng_state = self._history.pop()
        self._core.restore(state)
        self._bitgen.state = rng_state
        text, _ = self._moves.pop()
        return Move.parse(text)

    @property
    def moves(self) -> list[Move]:
        """The moves played since the start of the record (``to_record()['start']``)."""
        return [Move.parse(text) for text, _ in self._moves]

    def _as_move(self, move: Move | str | int) -> Move:
        if isinstance(move, Move):
            return move
        if isinstance(move, str):
            return Move.parse(move)
        if isinstance(move, (int, np.integer)) and not isinstance(move, bool):
            return Move.from_action(int(move), self.players)
        raise IllegalMoveError(f"expected a Move, a move text or an action id, got {move!r}")

    def _check_seat(self, player: object) -> None:
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)):
            raise GenialError(f"a player is an int seat, got {player!r}")
        if not 0 <= player < self.players:
            raise GenialError(f"player {player} is not a seat of this {self.players}-player game")

    def _check_cells(self, m: Move) -> None:
        assert m.cells is not None
        board = self._core.board()
        for cell in m.cells:
            if distance(cell) > self.radius:
                raise IllegalMoveError(
                    f"cell {_cell_text(cell)} is outside the {self.players}-player area "
                    f"(distance {distance(cell)} > {self.radius}, RULES §1.3)"
                )
            if board[_core.index_of(*cell)] != 6:
                raise IllegalMoveError(f"cell {_cell_text(cell)} is already covered")

    def _explain(self, m: Move) -> None:
        """Raise an ``IllegalMoveError`` saying why the move ``m`` is not legal."""
        player = self.current_player
        if self.is_over:
            raise IllegalMoveError(f"the game is over: no move is legal ({m})")
        if self.phase == "swap":
            raise IllegalMoveError(
                f"player {player} must first decide on the swap (RULES §3.5): "
                f"play 'swap' or 'keep', not {m}"
            )
        if m.kind != "place" or m.colours is None or m.cells is None:
            raise IllegalMoveError(f"player {player} must place a tile now; {m!s} is not allowed")
        self._check_cells(m)
        tile = m.tile
        assert tile is not None
        if tile not in self.rack(player):
            rack = " ".join(tile_text(t) for t in self.rack(player)) or "empty"
            raise IllegalMoveError(f"player {player} has no {tile_text(tile)} tile (rack: {rack})")
        if self._core.is_first_placement() and not self._core.first_round_ok(m.action // 36):
            touched = [COLOUR_NAMES[s] for s in self._core.first_symbols() if 0 <= s < 6]
            also = f" not touched yet (already touched: {', '.join(touched)})" if touched else ""
            raise IllegalMoveError(
                f"{m} is player {player}'s first placement: it must touch a printed symbol{also} "
                "(RULES §3.2)"
            )
        raise IllegalMoveError(f"{m} is not legal now")  # pragma: no cover - the cases above

    # -- copies --------------------------------------------------------------------------------
    def copy(self) -> Game:
        """An independent copy with the same position, history and random state (cheap)."""
        other = object.__new__(Game)
        other._rules = self._rules
        other._core = self._core.copy()
        other._bitgen = type(self._bitgen)()
        other._bitgen.state = self._bitgen.state
        other._start = self._start
        other._moves = list(self._moves)
        other._history = list(self._history)
        return other

    def __copy__(self) -> Game:
        return self.copy()

    def __deepcopy__(self, memo: dict[int, Any]) -> Game:
        return self.copy()

    def __eq__(self, other: object) -> bool:
        """Games are equal when their positions are (``to_text()``), whatever their history."""
        return isinstance(other, Game) and other.to_text() == self.to_text()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Game.from_text({self.to_text()!r})"

    def __str__(self) -> str:
        from .render import ascii_board

        return ascii_board(self)

    # -- position text -------------------------------------------------------------------------
    def to_text(self) -> str:
        """The whole position as one line (the README describes the ten fields).

        >>> Game(players=2, seed=3).to_text().split()[0]
        '2'
        """
        core = self._core
        n = self.players
        raw = core.board()
        rows = []
        for r in range(-self.radius, self.radius + 1):
            row = ""
            for cell in _row(self.radius, r):
                value = raw[_core.index_of(*cell)]
                row += "-" if value == 6 else COLOURS[value]
            rows.append(row)
        scores = "/".join(",".join(str(int(v)) for v in row) for row in core.scores())
        racks = "/".join(
            "".join(tile_text(_TILES[t]) for t in core.rack(p)) or "-" for p in range(n)
        )
        bag = "".join(str(c) for c in core.bag_counts())
        phase = "psx"[core.phase]
        first = "".join(
            "-" if s == 255 else ("+" if s == 254 else COLOURS[s]) for s in core.first_symbols()
        )
        return " ".join(
            [
                str(self._rules),
                "/".join(rows),
                scores,
                racks,
                bag,
                str(core.current),
                phase,
                str(core.bonus),
                first,
                str(core.turn),
            ]
        )

    @classmethod
    def from_text(cls, text: str, *, seed: Any = None) -> Game:
        """Read a position written by ``to_text()``. ``seed`` seeds the draws that follow.

        Raises ``PositionError`` saying what is wrong.
        """
        return cls._from_core(*_parse_position(text), seed=seed)

    @classmethod
    def _from_core(cls, rules: Rules, core: _core.Core, seed: Any = None) -> Game:
        game = object.__new__(cls)
        game._rules = rules
        game._core = core
        game._bitgen = _bit_generator(seed)
        game._start = game.to_text()
        game._moves = []
        game._history = []
        return game

    # -- records -------------------------------------------------------------------------------
    def to_record(self) -> dict[str, Any]:
        """A JSON-serialisable record: the start position (racks and bag included), then every
        move with the tiles drawn right after it. ``Game.from_record`` replays it exactly."""
        return {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "start": self._start,
            "moves": [
                {"move": text, "draws": [tile_text(_TILES[t]) for t in draws]}
                for text, draws in self._moves
            ],
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any], *, seed: Any = None) -> Game:
        """Replay a record made by ``to_record()``; raises ``RecordError`` saying what is wrong.

        ``seed`` seeds draws after the record's last move.
        """
        if not isinstance(record, Mapping):
            raise RecordError(f"a record is a dict, got {type(record).__name__}")
        if record.get("format") != RECORD_FORMAT:
            raise RecordError(f"not a genial record: format is {record.get('format')!r}")
        if record.get("version") != RECORD_VERSION:
            raise RecordError(f"unsupported record version {record.get('version')!r}")
        start, moves = record.get("start"), record.get("moves")
        if not isinstance(start, str):
            raise RecordError("the record has no 'start' position text")
        if not isinstance(moves, list):
            raise RecordError("the record's 'moves' is not a list")
        try:
            game = cls.from_text(start, seed=seed)
        except PositionError as exc:
            raise RecordError(f"bad start position: {exc}") from None
        game._replay(moves)
        return game

    def _replay(self, moves: Iterable[Any]) -> None:
        for i, entry in enumerate(moves):
            if (
                not isinstance(entry, Mapping)
                or not isinstance(entry.get("move"), str)
                or not (isinstance(entry.get("draws"), list))
            ):
                raise RecordError(
                    f"move {i}: expected {{'move': str, 'draws': [tile, ...]}}, got {entry!r}"
                )
            try:
                m = self._as_move(entry["move"])
                if not self._core.is_legal(m.action):
                    self._explain(m)
                draws = [_TILE_ID[parse_tile(t)] for t in entry["draws"]]
            except (IllegalMoveError, ValueError, TypeError) as exc:
                raise RecordError(f"move {i} ({entry['move']!r}): {exc}") from None
            snapshot = (self._core.snapshot(), self._bitgen.state)
            try:
                drawn = self._core.apply(m.action, None, draws)
            except ValueError as exc:
                raise RecordError(f"move {i} ({entry['move']!r}): {exc}") from None
            self._history.append(snapshot)
            self._moves.append((str(m), drawn))

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
        as they are, the bag's draws random) and is played to its end by the policies.

        >>> game = Game(players=2, seed=3)
        >>> game.play(game.choose("greedy"))
        >>> runs = game.playouts(100, policy="greedy", seed=1)
        >>> len(runs), bool((runs.placements >= 1).all())
        (100, True)
        """
        from .simulation import simulate

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
    def choose(self, policy: str = "random") -> Move:
        """The move a built-in policy (``'random'`` or ``'greedy'``) picks here, drawn from this
        game's random state (see ``genial.simulate`` for the policies' definitions)."""
        if policy not in ("random", "greedy"):
            raise GenialError(f"unknown policy {policy!r}: expected 'random' or 'greedy'")
        if not len(self._core.legal_actions()):
            raise IllegalMoveError("there is no legal move to choose from")
        return _ALL_MOVES[self._core.choose(policy, self._bitgen)]


def _row(radius: int, r: int) -> list[Cell]:
    return [(q, r) for q in range(max(-radius, -radius - r), min(radius, radius - r) + 1)]


_AREAS: dict[int, list[Cell]] = {
    radius: [cell for r in range(-radius, radius + 1) for cell in _row(radius, r)]
    for radius in (5, 6, 7)
}


def _area(radius: int) -> list[Cell]:
    return _AREAS[radius]


def _parse_position(text: str) -> tuple[Rules, _core.Core]:
    """Check and read a position text into rules and a kernel state (``PositionError`` on any
    fault)."""
    if not isinstance(text, str):
        raise PositionError(f"a position is a str, got {type(text).__name__}")
    fields = text.split()
    if len(fields) != 10:
        raise PositionError(
            f"a position has 10 fields (rules board scores racks bag to-move phase bonus "
            f"first-round turn), got {len(fields)}"
        )
    rules, board, scores_f, racks_f, bag_f, move_f, phase_f, bonus_f, first_f, turn_f = fields
    try:
        game_rules = Rules.parse(rules)
    except ValueError as exc:
        raise PositionError(f"rules field: {exc}") from None
    players = game_rules.players
    radius = game_rules.radius
    core = game_rules.core()

    rows = board.split("/")
    if len(rows) != 2 * radius + 1:
        raise PositionError(
            f"board: {len(rows)} rows, a {players}-player board has {2 * radius + 1}"
        )
    cells: dict[int, int] = {}
    halves = [0] * 6
    for r, row in zip(range(-radius, radius + 1), rows, strict=True):
        row_cells = _row(radius, r)
        if len(row) != len(row_cells):
            raise PositionError(f"board row r={r}: {len(row)} cells, expected {len(row_cells)}")
        for cell, ch in zip(row_cells, row, strict=True):
            if ch != "-" and ch not in COLOURS:
                raise PositionError(
                    f"board cell {_cell_text(cell)}: {ch!r} is not '-' or one of {COLOURS}"
                )
            if cell in _SYMBOL_AT:
                expected = COLOURS[_SYMBOL_AT[cell]]
                if ch != expected:
                    raise PositionError(
                        f"board cell {_cell_text(cell)} is the printed {expected} symbol, "
                        f"got {ch!r}"
                    )
                continue
            if ch != "-":
                cells[_core.index_of(*cell)] = COLOURS.index(ch)
                halves[COLOURS.index(ch)] += 1

    score_rows = scores_f.split("/")
    if len(score_rows) != players:
        raise PositionError(f"scores: {len(score_rows)} players, expected {players}")
    scores = []
    for p, row in enumerate(score_rows):
        try:
            values = [int(v) for v in row.split(",")]
        except ValueError:
            raise PositionError(f"scores of player {p}: {row!r} is not six ints") from None
        if len(values) != 6 or not all(0 <= v <= core.cap for v in values):
            raise PositionError(f"scores of player {p}: {row!r} must be six ints in 0..{core.cap}")
        scores.append(values)

    for p in range(players):
        partner = game_rules.team_of(p)
        if scores[p] != scores[partner]:
            raise PositionError(
                f"scores: seats {partner} and {p} are a team (RULES §4.2) and share counters, "
                f"got {scores[partner]} and {scores[p]}"
            )

    rack_rows = racks_f.split("/")
    if len(rack_rows) != players:
        raise PositionError(f"racks: {len(rack_rows)} players, expected {players}")
    racks = []
    for p, row in enumerate(rack_rows):
        tiles = [] if row == "-" else [row[i : i + 2] for i in range(0, len(row), 2)]
        try:
            ids = [_TILE_ID[parse_tile(t)] for t in tiles]
        except ValueError as exc:
            raise PositionError(f"rack of player {p}: {exc}") from None
        if len(ids) > core.rack_size:
            raise PositionError(f"rack of player {p}: {len(ids)} tiles, at most {core.rack_size}")
        for t in ids:
            for c in _TILES[t]:
                halves[c] += 1
        racks.append(ids)

    if len(bag_f) != len(_TILES) or not _DIGITS.fullmatch(bag_f):
        raise PositionError(
            f"bag: expected {len(_TILES)} digits (count per tile type), got {bag_f!r}"
        )
    bag = [int(ch) for ch in bag_f]
    in_racks = [sum(rack.count(t) for rack in racks) for t in range(len(_TILES))]
    for t, (count, full) in enumerate(zip(bag, game_rules.tile_counts, strict=True)):
        if count + in_racks[t] > full:
            raise PositionError(
                f"{count} {tile_text(_TILES[t])} tiles in the bag and {in_racks[t]} on racks, "
                f"the set has {full}"
            )
        for c in _TILES[t]:
            halves[c] += count
    for c, n in enumerate(halves):
        if n > game_rules.halves_per_colour:
            raise PositionError(
                f"too much {COLOUR_NAMES[c]}: {n} halves on the board, racks and bag, the set has "
                f"{game_rules.halves_per_colour}"
            )

    if not _DECIMAL.fullmatch(move_f) or int(move_f) >= players:
        raise PositionError(f"to-move: {move_f!r} is not a seat 0..{players - 1}")
    if phase_f not in ("p", "s", "x"):
        raise PositionError(f"phase: {phase_f!r}, expected p (place), s (swap) or x (over)")
    if not _DECIMAL.fullmatch(bonus_f) or int(bonus_f) > 12:
        raise PositionError(f"bonus: {bonus_f!r} is not a count of bonus plays")
    allowed = COLOURS + "-" + ("+" if game_rules.tournament else "")
    if len(first_f) != players or any(ch not in allowed for ch in first_f):
        raise PositionError(
            f"first-round: {first_f!r}, expected one char per player: the letter of the symbol "
            "its first placement touched, '-' before it"
            + (", '+' if it touched none" if game_rules.tournament else "")
        )
    used = [ch for ch in first_f if ch in COLOURS]
    if game_rules.first_round == "new-symbol" and len(used) != len(set(used)):
        raise PositionError(f"first-round: {first_f!r} names a symbol twice")
    first = [255 if ch == "-" else 254 if ch == "+" else COLOURS.index(ch) for ch in first_f]
    if not _DECIMAL.fullmatch(turn_f) or not 1 <= int(turn_f) <= _MAX_TURN:
        raise PositionError(f"turn: {turn_f!r} is not an int in 1..{_MAX_TURN}")
    core.set_position(
        cells,
        scores,
        racks,
        bag,
        int(move_f),
        "psx".index(phase_f),
        int(bonus_f),
        first,
        int(turn_f),
    )
    _check_phase(core, phase_f, scores, racks, int(move_f), int(bonus_f))
    return game_rules, core


def _check_phase(
    core: _core.Core,
    phase: str,
    scores: list[list[int]],
    racks: list[list[int]],
    to_move: int,
    bonus: int,
) -> None:
    """The phase must agree with the end conditions (RULES §3.6) and the turn's state."""
    capped = [p for p, row in enumerate(scores) if all(v == core.cap for v in row)]
    ended = []
    if core.n_free == 0:
        ended.append("no two adjacent empty cells remain")
    if capped:
        ended.append(f"player {capped[0]} has all six counters at {core.cap}")
    if not any(racks):
        ended.append("every rack is empty")
    if phase == "x":
        if not ended:
            raise PositionError(
                "phase: 'x' (over), but the game has not ended: free pairs remain, no player "
                "has six counters at the cap and a rack holds tiles (RULES §3.6)"
            )
        if bonus:
            raise PositionError("bonus: no bonus plays are owed once the game is over")
        return
    if ended:
        raise PositionError(f"phase: {phase!r}, but the game is over: {ended[0]} (RULES §3.6)")
    if len(capped) > 1:  # pragma: no cover - implied by the check above
        raise PositionError("two players cannot both have six counters at the cap")
    if phase == "s":
        if bonus:
            raise PositionError("bonus: no bonus plays are owed during the swap decision")
        if not core.swap_allowed():
            raise PositionError(
                f"phase: 's' (swap decision), but player {to_move}'s rack holds a tile with "
                "one of its lowest colours, or is empty (RULES §3.5)"
            )
        return
    if not racks[to_move]:
        raise PositionError(f"phase: 'p', but player {to_move} to place has an empty rack")
    if not len(core.legal_actions()):
        raise PositionError(f"phase: 'p', but player {to_move} has no legal placement")

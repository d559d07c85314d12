"""Positions and records, both ways: the position text (one line, like chess's FEN), the
``Position`` builder, and JSON game records.

A ``Position`` is plain data; ``Position.parse`` reads the text (syntax), ``load`` checks that the
position is possible and builds the kernel state, ``read`` turns a kernel state back into a
``Position``. Build positions with ``Position.empty(rules)``, ``replace`` and ``place``, never by
editing the text.

>>> pos = Position.empty(Rules(2)).replace(racks=(((0, 0),), ((1, 2),)))
>>> pos.racks
(((0, 0),), ((1, 2),))
>>> Position.parse(pos.to_text()) == pos
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .. import _core
from .. import position_text as text_fields
from ..errors import PositionError, excerpt
from ..records import RecordFormat
from .geometry import (
    COLOUR_NAMES,
    COLOURS,
    DIRECTIONS,
    SYMBOL_AT,
    Cell,
    area,
    cell_text,
    distance,
    row,
)
from .moves import TILES, Move, Tile, parse_tile, tile_id, tile_text
from .rules import Rules

__all__ = [
    "MAX_TURN",
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "Phase",
    "Position",
    "load",
    "make_record",
    "read",
    "read_record",
]

Phase = Literal["place", "swap", "over"]
PHASES: tuple[Phase, ...] = ("place", "swap", "over")  # by the kernel's phase code
PHASE_LETTERS, _PHASE_OF = text_fields.phase_letters(PHASES)
RECORD_FORMAT = "genial-record"
RECORD_VERSION = 1
MAX_TURN = 32767  # the kernel's int16 turn counter
MAX_POSITION_TEXT = 1000  # a 4-player position text has about 330 characters
_FIELDS = (
    *("rules", "board", "scores", "racks", "bag"),
    *("to-move", "phase", "bonus", "first-round", "turn"),
)
_FIRST_MARKS = frozenset(COLOURS + "-+")
NO_SYMBOL = -1
"""``Position.first`` of a seat whose first placement touched no symbol (tournament rules)."""


@dataclass(frozen=True)
class Position:
    """A whole position: what the ten fields of the position text hold.

    ``board`` maps covered cells to colours (printed symbols are not included); ``scores`` holds
    six counters per seat (team partners repeat their team's); ``racks`` the tiles per seat;
    ``bag`` the count of each of the 21 tile types; ``first`` per seat the colour of the symbol
    its first placement touched, ``None`` before it, ``NO_SYMBOL`` if it touched none.
    """

    rules: Rules
    board: Mapping[Cell, int]
    scores: tuple[tuple[int, ...], ...]
    racks: tuple[tuple[Tile, ...], ...]
    bag: tuple[int, ...]
    to_move: int = 0
    phase: Phase = "place"
    bonus: int = 0
    first: tuple[int | None, ...] = ()
    turn: int = 1

    def __post_init__(self) -> None:
        # a rack is a multiset of tiles (RULES §2.3): kept sorted, so equal racks compare equal
        try:
            racks = tuple(tuple(sorted((min(t), max(t)) for t in rack)) for rack in self.racks)
        except (TypeError, ValueError):
            raise PositionError(
                f"racks: tuples of tiles (lo, hi), got {excerpt(self.racks)}"
            ) from None
        object.__setattr__(self, "racks", racks)

    @classmethod
    def empty(cls, rules: Rules) -> Position:
        """An empty board, every tile in the bag, empty racks, seat 0 to place, turn 1."""
        if not isinstance(rules, Rules):
            raise PositionError(f"rules must be a genial.Rules, got {excerpt(rules)}")
        n = rules.players
        return cls(
            rules=rules,
            board={},
            scores=((0,) * 6,) * n,
            racks=((),) * n,
            bag=tuple(rules.tile_counts),
            first=(None,) * n,
        )

    def replace(self, **changes: Any) -> Position:
        """A copy with some fields changed (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)

    def place(self, move: Move, seat: int | None = None) -> Position:
        """A copy with the placement's two halves on the board; with ``seat``, also recorded as
        that seat's first placement (the symbol it touches)."""
        if not isinstance(move, Move) or move.cells is None or move.colours is None:
            raise PositionError(f"{excerpt(move)} is not a placement (a genial.Move)")
        if seat is not None and not (
            isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(self.first)
        ):
            raise PositionError(f"seat {excerpt(seat)} is not a seat of this position")
        board = dict(self.board)
        for cell, colour in zip(move.cells, move.colours, strict=True):
            board[cell] = colour
        if seat is None:
            return self.replace(board=board)
        first = list(self.first)
        first[seat] = touched_symbol(move)
        return self.replace(board=board, first=tuple(first))

    # -- the text ------------------------------------------------------------------------------
    def to_text(self) -> str:
        """The position text (docs/guide.md, "Notations", describes the ten fields)."""
        board = self.board
        rows = [
            "".join(
                fixed if fixed != "-" or cell not in board else COLOURS[board[cell]]
                for cell, fixed in line
            )
            for line in _TEXT_ROWS[self.rules.radius]
        ]
        return " ".join(
            [
                str(self.rules),
                "/".join(rows),
                text_fields.numbers_text(self.scores),
                text_fields.items_text(self.racks, tile_text),
                "".join(str(c) for c in self.bag),
                str(self.to_move),
                PHASE_LETTERS[self.phase],
                str(self.bonus),
                "".join(
                    "-" if s is None else "+" if s == NO_SYMBOL else COLOURS[s] for s in self.first
                ),
                str(self.turn),
            ]
        )

    def __str__(self) -> str:
        return self.to_text()

    @classmethod
    def parse(cls, text: str) -> Position:
        """Read a position text; ``PositionError`` says which field is malformed. This checks
        the syntax and the ranges of the fields; ``load`` checks that the position can be."""
        fields = text_fields.split_fields(text, MAX_POSITION_TEXT, _FIELDS)
        rules_f, board_f, scores_f, racks_f, bag_f, move_f, phase_f, bonus_f, first_f, turn_f = (
            fields
        )
        try:
            rules = Rules.parse(rules_f)
        except ValueError as exc:
            raise PositionError(f"rules field: {exc}") from None
        players, radius = rules.players, rules.radius
        rows = board_f.split("/")
        if len(rows) != 2 * radius + 1:
            raise PositionError(
                f"board: {len(rows)} rows, a board of rules {rules} has {2 * radius + 1}"
            )
        board: dict[Cell, int] = {}
        for r, line in zip(range(-radius, radius + 1), rows, strict=True):
            cells = row(radius, r)
            if len(line) != len(cells):
                raise PositionError(f"board row r={r}: {len(line)} cells, expected {len(cells)}")
            for cell, ch in zip(cells, line, strict=True):
                if ch != "-" and ch not in COLOURS:
                    raise PositionError(
                        f"board cell {cell_text(cell)}: {ch!r} is not '-' or one of {COLOURS}"
                    )
                if cell in SYMBOL_AT:
                    expected = COLOURS[SYMBOL_AT[cell]]
                    if ch != expected:
                        raise PositionError(
                            f"board cell {cell_text(cell)} is the printed {expected} symbol, "
                            f"got {ch!r}"
                        )
                elif ch != "-":
                    board[cell] = COLOURS.index(ch)
        scores = text_fields.read_numbers(scores_f, "scores", players, rules.cap)
        racks = text_fields.read_items(
            racks_f, "rack", players, rules.rack_size, parse_tile, "tiles"
        )
        if len(bag_f) != len(TILES) or not all("0" <= ch <= "9" for ch in bag_f):
            raise PositionError(
                f"bag: expected {len(TILES)} digits (count per tile type), got {excerpt(bag_f)}"
            )
        bag = tuple(int(ch) for ch in bag_f)
        to_move = text_fields.read_seat(move_f, "to-move", players)
        if phase_f not in _PHASE_OF:
            raise PositionError(
                f"phase: {excerpt(phase_f)}, expected p (place), s (swap) or x (over)"
            )
        if not text_fields.DECIMAL.fullmatch(bonus_f) or int(bonus_f) > 12:
            raise PositionError(f"bonus: {excerpt(bonus_f)} is not a count of bonus plays")
        if len(first_f) != players or any(ch not in _FIRST_MARKS for ch in first_f):
            raise PositionError(
                f"first-round: {excerpt(first_f)}, expected one char per player: the letter of "
                "the symbol its first placement touched, '-' before it, '+' if it touched none "
                "(tournament rules, or the first-round rule had lapsed)"
            )
        first = tuple(
            None if ch == "-" else NO_SYMBOL if ch == "+" else COLOURS.index(ch) for ch in first_f
        )
        turn = text_fields.read_int(turn_f, "turn", 1, MAX_TURN)
        return cls(
            rules=rules,
            board=board,
            scores=scores,
            racks=racks,
            bag=bag,
            to_move=to_move,
            phase=_PHASE_OF[phase_f],
            bonus=int(bonus_f),
            first=first,
            turn=turn,
        )


def touched_symbol(move: Move) -> int:
    """The colour of the printed symbol a placement touches, ``NO_SYMBOL`` if none (§3.2)."""
    assert move.cells is not None
    for cell in move.cells:
        for c, (sq, sr) in enumerate(_SYMBOL_CELLS):
            if distance((cell[0] - sq, cell[1] - sr)) == 1:
                return c
    return NO_SYMBOL


_SYMBOL_CELLS = tuple(sorted(SYMBOL_AT, key=SYMBOL_AT.__getitem__))


# -- positions and the kernel ------------------------------------------------------------------

# per radius: the area's cells without a printed symbol with their kernel index, and the rows of
# the board field as (cell, printed letter or "-")
_FREE_CELLS: dict[int, tuple[tuple[Cell, int], ...]] = {
    radius: tuple((c, _core.index_of(*c)) for c in area(radius) if c not in SYMBOL_AT)
    for radius in range(1, 8)
}
_TEXT_ROWS: dict[int, tuple[tuple[tuple[Cell, str], ...], ...]] = {
    radius: tuple(
        tuple((c, COLOURS[SYMBOL_AT[c]] if c in SYMBOL_AT else "-") for c in row(radius, r))
        for r in range(-radius, radius + 1)
    )
    for radius in range(1, 8)
}


def load(position: Position, *, pair_tiles: bool = True) -> _core.Core:
    """Check that ``position`` can be (``PositionError`` says why not) and build its kernel
    state. What is checked is listed in docs/guide.md ("Notations"). ``pair_tiles=False`` skips
    one check, that the covered cells pair into tiles, for scoring studies of boards that are
    not tilings."""
    pos = position
    _check_types(pos)
    rules = pos.rules
    players = rules.players
    if len(pos.scores) != players or len(pos.racks) != players or len(pos.first) != players:
        raise PositionError(f"scores, racks and first-round need one entry per seat ({players})")
    cells: dict[int, int] = {}
    halves = [0] * 6
    inside = set(area(rules.radius))
    for cell, colour in pos.board.items():
        if cell not in inside or cell in SYMBOL_AT or not 0 <= colour < 6:
            raise PositionError(f"board: {excerpt(cell)} is not a free cell of the area")
        cells[_core.index_of(*cell)] = colour
        halves[colour] += 1
    if pair_tiles:
        _check_tiles(pos.board)
    for p, values in enumerate(pos.scores):
        if len(values) != 6 or not all(0 <= v <= rules.cap for v in values):
            raise PositionError(
                f"scores of player {p}: {list(values)} must be six ints in 0..{rules.cap}"
            )
    for p in range(players):
        partner = rules.team_of(p)
        if pos.scores[p] != pos.scores[partner]:
            raise PositionError(
                f"scores: seats {partner} and {p} are a team (docs/rules.md §4.2) and share "
                f"counters, "
                f"got {list(pos.scores[partner])} and {list(pos.scores[p])}"
            )
    racks = []
    for p, rack in enumerate(pos.racks):
        if len(rack) > rules.rack_size:
            raise PositionError(f"rack of player {p}: {len(rack)} tiles, at most {rules.rack_size}")
        ids = [tile_id(t) for t in rack]
        for t in ids:
            for c in TILES[t]:
                halves[c] += 1
        racks.append(ids)
    if len(pos.bag) != len(TILES):
        raise PositionError(f"bag: {len(TILES)} counts expected")
    in_racks = [sum(rack.count(t) for rack in racks) for t in range(len(TILES))]
    for t, (count, full) in enumerate(zip(pos.bag, rules.tile_counts, strict=True)):
        if count + in_racks[t] > full:
            raise PositionError(
                f"{count} {tile_text(TILES[t])} tiles in the bag and {in_racks[t]} on racks, "
                f"the set has {full}"
            )
        for c in TILES[t]:
            halves[c] += count
    for c, n in enumerate(halves):
        if n > rules.halves_per_colour:
            raise PositionError(
                f"too much {COLOUR_NAMES[c]}: {n} halves on the board, racks and bag, the set has "
                f"{rules.halves_per_colour}"
            )
    if not 0 <= pos.to_move < players:
        raise PositionError(f"to-move: {pos.to_move} is not a seat 0..{players - 1}")
    used = [s for s in pos.first if s is not None and s >= 0]
    if rules.first_round == "new-symbol" and len(used) != len(set(used)):
        raise PositionError(f"first-round: {_first_text(pos.first)} names a symbol twice")
    if not 1 <= pos.turn <= MAX_TURN:
        raise PositionError(f"turn: {pos.turn} is not an int in 1..{MAX_TURN}")
    _check_bonus(pos)
    core = rules.core()
    core.set_position(
        cells,
        [list(s) for s in pos.scores],
        racks,
        list(pos.bag),
        pos.to_move,
        PHASES.index(pos.phase),
        pos.bonus,
        [255 if s is None else 254 if s == NO_SYMBOL else s for s in pos.first],
        pos.turn,
    )
    _check_phase(core, pos)
    return core


def _int(value: object, what: str, lo: int, hi: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise PositionError(f"{what} must be an int, got {excerpt(value)}")
    if not lo <= value <= hi:
        raise PositionError(f"{what} must be in {lo}..{hi}, got {excerpt(int(value))}")
    return int(value)


def _check_types(pos: object) -> None:
    """Every field of a Position holds values of the right type and range (``PositionError``)."""
    if not isinstance(pos, Position):
        raise PositionError(f"expected a genial.Position, got {type(pos).__name__}")
    if not isinstance(pos.rules, Rules):
        raise PositionError(f"rules must be a genial.Rules, got {excerpt(pos.rules)}")
    n = pos.rules.players
    if not isinstance(pos.board, Mapping) or len(pos.board) > 169:
        raise PositionError(f"board: a mapping of cells to colours, got {excerpt(pos.board)}")
    for cell, colour in pos.board.items():
        if not (isinstance(cell, tuple) and len(cell) == 2):
            raise PositionError(f"board: {excerpt(cell)} is not a cell (q, r)")
        _int(cell[0], "board cell q", -7, 7)
        _int(cell[1], "board cell r", -7, 7)
        _int(colour, f"board colour at {excerpt(cell)}", 0, 5)
    for name, rows, size, hi in (("scores", pos.scores, 6, 36), ("racks", pos.racks, None, 5)):
        if not isinstance(rows, tuple) or len(rows) != n:
            raise PositionError(f"{name}: one entry per seat ({n}), got {excerpt(rows)}")
        for p, entry in enumerate(rows):
            if not isinstance(entry, tuple) or (size is not None and len(entry) != size):
                raise PositionError(f"{name} of player {p}: {excerpt(entry)}")
            if size is not None:
                for v in entry:
                    _int(v, f"scores of player {p}", 0, hi)
            elif len(entry) > 6:
                raise PositionError(f"rack of player {p}: {len(entry)} tiles, at most 6")
            else:
                for tile in entry:
                    if not (isinstance(tile, tuple) and len(tile) == 2):
                        raise PositionError(f"rack of player {p}: {excerpt(tile)} is not a tile")
                    _int(tile[0], f"rack of player {p}: a colour", 0, 5)
                    _int(tile[1], f"rack of player {p}: a colour", 0, 5)
    if not isinstance(pos.bag, tuple) or len(pos.bag) != len(TILES):
        raise PositionError(f"bag: {len(TILES)} counts expected, got {excerpt(pos.bag)}")
    for count in pos.bag:
        _int(count, "bag count", 0, 9)
    _int(pos.to_move, "to-move", 0, n - 1)
    if not isinstance(pos.phase, str) or pos.phase not in PHASE_LETTERS:
        raise PositionError(f"phase: 'place', 'swap' or 'over', got {excerpt(pos.phase)}")
    _int(pos.bonus, "bonus", 0, 12)
    if not isinstance(pos.first, tuple) or len(pos.first) != n:
        raise PositionError(f"first-round: one entry per seat ({n}), got {excerpt(pos.first)}")
    for s in pos.first:
        if s is not None:
            _int(s, "first-round symbol", NO_SYMBOL, 5)
    _int(pos.turn, "turn", 1, MAX_TURN)


def _check_tiles(board: Mapping[Cell, int]) -> None:
    """The covered cells must pair into tiles: two adjacent halves each (RULES §2.1)."""
    cells = list(board)
    if len(cells) % 2:
        raise PositionError(
            f"board: {len(cells)} tile halves, an odd number: every tile has two halves"
        )
    index = {cell: i for i, cell in enumerate(cells)}
    adj = [
        [index[n] for n in ((q + dq, r + dr) for dq, dr in DIRECTIONS) if n in index]
        for q, r in cells
    ]
    for cell, neighbours in zip(cells, adj, strict=True):
        if not neighbours:
            raise PositionError(
                f"board: the half at {cell_text(cell)} has no covered neighbour to be its tile's "
                "other half"
            )
    match = max_matching(adj)
    if -1 in match:
        lone = cells[match.index(-1)]
        raise PositionError(
            f"board: the covered cells do not pair into tiles of two adjacent halves (no tiling "
            f"leaves a partner for {cell_text(lone)})"
        )


def _lca(a: int, b: int, base: list[int], match: list[int], parent: list[int]) -> int:
    seen = [False] * len(base)
    while True:
        a = base[a]
        seen[a] = True
        if match[a] == -1:
            break
        a = parent[match[a]]
    while True:
        b = base[b]
        if seen[b]:
            return b
        b = parent[match[b]]


def _mark(
    v: int,
    b: int,
    child: int,
    base: list[int],
    match: list[int],
    parent: list[int],
    blossom: list[bool],
) -> None:
    while base[v] != b:
        blossom[base[v]] = blossom[base[match[v]]] = True
        parent[v] = child
        child = match[v]
        v = parent[match[v]]


def _augmenting_path(adj: Sequence[Sequence[int]], match: list[int], root: int) -> list[int]:
    """Parents along an augmenting path from ``root`` (its end is ``parent[-1]``), or []."""
    n = len(adj)
    parent = [-1] * n
    base = list(range(n))
    used = [False] * n
    used[root] = True
    queue = [root]
    head = 0
    while head < len(queue):
        v = queue[head]
        head += 1
        for to in adj[v]:
            if base[v] == base[to] or match[v] == to:
                continue
            if to == root or (match[to] != -1 and parent[match[to]] != -1):
                b = _lca(v, to, base, match, parent)
                blossom = [False] * n
                _mark(v, b, to, base, match, parent, blossom)
                _mark(to, b, v, base, match, parent, blossom)
                for i in range(n):
                    if blossom[base[i]]:
                        base[i] = b
                        if not used[i]:
                            used[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if match[to] == -1:
                    return [*parent, to]
                used[match[to]] = True
                queue.append(match[to])
    return []


def max_matching(adj: Sequence[Sequence[int]]) -> list[int]:
    """A maximum matching of a general graph (Edmonds' blossom algorithm; ``adj`` lists each
    vertex's neighbours): ``match[v]`` is v's partner or -1. A greedy start leaves little to
    augment on board-like graphs (a full 4-player board takes well under a millisecond).

    >>> max_matching([[1], [0, 2], [1]])  # a path of three: one vertex stays alone
    [1, 0, -1]
    """
    n = len(adj)
    match = [-1] * n
    for v in sorted(range(n), key=lambda v: len(adj[v])):
        if match[v] == -1:
            free = [u for u in adj[v] if match[u] == -1]
            if free:
                u = min(free, key=lambda u: len(adj[u]))
                match[v], match[u] = u, v
    for root in range(n):
        if match[root] != -1:
            continue
        path = _augmenting_path(adj, match, root)
        if not path:
            continue
        parent, v = path[:-1], path[-1]
        while v != -1:
            pv = parent[v]
            ppv = match[pv]
            match[v] = pv
            match[pv] = v
            v = ppv
    return match


def _first_text(first: Sequence[int | None]) -> str:
    return "".join("-" if s is None else "+" if s == NO_SYMBOL else COLOURS[s] for s in first)


def _check_bonus(pos: Position) -> None:
    """Bonus plays owed must be possible under the rules (RULES §3.4, §4.1-§4.3): none in solo,
    at most one under tournament rules, and never more than the mover's counters that have
    reached a threshold (each bonus play is earned by a counter reaching 18, or 36 in teams)."""
    rules = pos.rules
    if not pos.bonus:
        return
    if rules.bonus == "none":
        raise PositionError("bonus: the solo game has no bonus plays (RULES §4.1)")
    if rules.bonus == "one" and pos.bonus > 1:
        raise PositionError(
            f"bonus: {pos.bonus} owed, but tournament rules earn at most one per placement "
            "(RULES §4.3)"
        )
    if rules.first_round == "new-symbol" and pos.first[pos.to_move] is None:
        raise PositionError(
            f"bonus: {pos.bonus} owed, but player {pos.to_move} has not made its first "
            "placement yet: bonus plays follow a placement (RULES §3.4)"
        )
    counters = pos.scores[pos.to_move]
    reached = sum(v >= rules.crossing for v in counters) + sum(
        v >= rules.cap for v in counters if rules.cap > rules.crossing
    )
    if pos.bonus > reached:
        raise PositionError(
            f"bonus: {pos.bonus} owed, but only {reached} of player {pos.to_move}'s counters "
            "have reached a threshold that earns one (RULES §3.4)"
        )


def _check_phase(core: _core.Core, pos: Position) -> None:
    """The phase must agree with the end conditions (RULES §3.6) and the turn's state."""
    capped = [p for p, row in enumerate(pos.scores) if all(v == core.cap for v in row)]
    ended = []
    if core.n_free == 0:
        ended.append("no two adjacent empty cells remain")
    if capped:
        ended.append(f"player {capped[0]} has all six counters at {core.cap}")
    if not any(pos.racks):
        ended.append("every rack is empty")
    if pos.phase == "over":
        if not ended:
            raise PositionError(
                "phase: 'x' (over), but the game has not ended: free pairs remain, no player "
                "has six counters at the cap and a rack holds tiles (docs/rules.md §3.6)"
            )
        if pos.bonus:
            raise PositionError("bonus: no bonus plays are owed once the game is over")
        return
    if ended:
        raise PositionError(
            f"phase: {pos.phase!r}, but the game is over: {ended[0]} (docs/rules.md §3.6)"
        )
    if pos.phase == "swap":
        if pos.bonus:
            raise PositionError("bonus: no bonus plays are owed during the swap decision")
        if not core.swap_allowed():
            raise PositionError(
                f"phase: 's' (swap decision), but player {pos.to_move}'s rack holds a tile with "
                "one of its lowest colours, or is empty (docs/rules.md §3.5)"
            )
        return
    if not pos.racks[pos.to_move]:
        raise PositionError(f"phase: 'p', but player {pos.to_move} to place has an empty rack")
    if not len(core.legal_actions()):
        raise PositionError(f"phase: 'p', but player {pos.to_move} has no legal placement")


def read(core: _core.Core, rules: Rules) -> Position:
    """The ``Position`` of a kernel state."""
    raw = core.board()
    board = {cell: raw[i] for cell, i in _FREE_CELLS[rules.radius] if raw[i] < 6}
    return Position(
        rules=rules,
        board=board,
        scores=tuple(map(tuple, core.scores().tolist())),
        racks=tuple(tuple(TILES[t] for t in core.rack(p)) for p in range(rules.players)),
        bag=tuple(core.bag_counts()),
        to_move=int(core.current),
        phase=PHASES[core.phase],
        bonus=int(core.bonus),
        first=tuple(
            None if s == 255 else NO_SYMBOL if s == 254 else int(s) for s in core.first_symbols()
        ),
        turn=int(core.turn),
    )


# -- records -----------------------------------------------------------------------------------


RECORDS = RecordFormat(
    RECORD_FORMAT,
    RECORD_VERSION,
    "genial record",
    "tile",
    _core.MAX_BAG,
    lambda t: tile_text(TILES[t]),
    lambda text: tile_id(parse_tile(text)),
)
make_record = RECORDS.make
read_record = RECORDS.read

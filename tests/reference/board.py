"""A slow, plain reference implementation of the Ingenious board game (RULES §1-§4).

Written from docs/rules.md (its rules and decisions) only, for differential
tests against the compiled engine. Everything is recomputed from scratch on every call: no caches,
no incremental bookkeeping, so that each rule can be read off the code directly.

Coordinates are axial ``(q, r)`` (RULES §1.2); colours are ints 0..5 = R G B O Y P (RULES §1.4);
a tile is a canonical pair ``(lo, hi)`` with ``lo <= hi`` (RULES §2.1).

Games (keyword-only options of :class:`Reference`):

* the base game, 2-4 players (RULES §3);
* solo, ``players=1`` (RULES §4.1): the rack is the single tile just drawn, counters run to 36 with
  a crossing at 18, no bonus plays, no swap;
* ``teams=True``, 4 players (RULES §4.2): seats 0 and 2 against 1 and 3, team counters to 36;
* ``tournament=True``, 2 players (RULES §4.3): one bonus play at most per placement, and a looser
  first-round rule;
* ``tiles="travel"``, 1-2 players (RULES §2.2): the 57-tile set, whose bag can run out.

Moves:

* a placement is ``("place", ((q0, r0), c0), ((q1, r1), c1))`` with the two (cell, colour) pairs
  sorted ascending by Python tuple order (build one with :func:`placement`);
* ``("swap",)`` swaps the rack, ``("keep",)`` keeps it and refills (RULES §3.5).
"""

from __future__ import annotations

import collections
import copy

# RULES §1.2: the six directions E, NE, NW, W, SW, SE.
DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

# RULES §1.4: colour -> printed cell.
SYMBOL_CELLS = {0: (0, -5), 1: (5, -5), 2: (5, 0), 3: (0, 5), 4: (-5, 5), 5: (-5, 0)}
# printed cell -> colour
PRINTED = {cell: colour for colour, cell in SYMBOL_CELLS.items()}

BOARD_RADIUS = 7  # RULES §1.1
CAP = 18  # RULES §3.3: the cap of the base game's counters
CROSSING = 18  # RULES §4.1: double-length counters stop here when they reach it from below ...
LONG_CAP = 36  # ... and then run on to 36 (RULES §4.1, §4.2)
RACK_SIZE = 6  # RULES §2.3
SOLO_RACK_SIZE = 1  # RULES §4.1: no rack, only the tile just drawn

TILE_SETS = ("standard", "travel")  # RULES §2.1, §2.2

SWAP = ("swap",)
KEEP = ("keep",)

# first_touched[p] for a tournament first placement that touched tiles only (RULES §4.3)
TOUCHED_TILE = "tile"


def distance(cell: tuple[int, int]) -> int:
    """Distance from the centre, RULES §1.2."""
    q, r = cell
    return max(abs(q), abs(r), abs(-q - r))


def neighbour(cell: tuple[int, int], direction: tuple[int, int]) -> tuple[int, int]:
    return (cell[0] + direction[0], cell[1] + direction[1])


def are_adjacent(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return any(neighbour(a, d) == b for d in DIRECTIONS)


def area_radius(players: int) -> int:
    """RULES §1.3: 1-2 players radius 5, 3 players radius 6, 4 players radius 7."""
    return {1: 5, 2: 5, 3: 6, 4: 7}[players]


def tile_of(c0: int, c1: int) -> tuple[int, int]:
    return (min(c0, c1), max(c0, c1))


def _tile_set(per_pair: int, per_double: int) -> collections.Counter:
    tiles = collections.Counter()
    for lo in range(6):
        for hi in range(lo, 6):
            tiles[(lo, hi)] = per_double if lo == hi else per_pair
    return tiles


def standard_set() -> collections.Counter:
    """RULES §2.1: 6 of each of the 15 two-colour pairs, 5 of each of the 6 doubles (120 tiles)."""
    return _tile_set(per_pair=6, per_double=5)


def travel_set() -> collections.Counter:
    """RULES §2.2: 3 of each of the 15 two-colour pairs, 2 of each of the 6 doubles (57 tiles)."""
    return _tile_set(per_pair=3, per_double=2)


def tile_set(name: str) -> collections.Counter:
    """The tile set called `name`: "standard" (RULES §2.1) or "travel" (RULES §2.2)."""
    if name == "standard":
        return standard_set()
    if name == "travel":
        return travel_set()
    raise ValueError(f"unknown tile set {name!r} (expected one of {TILE_SETS})")


def placement(cell_a, colour_a, cell_b, colour_b) -> tuple:
    """The canonical placement move putting colour_a on cell_a and colour_b on cell_b."""
    first, second = sorted([(tuple(cell_a), colour_a), (tuple(cell_b), colour_b)])
    return ("place", first, second)


def check_options(players: int, *, teams: bool, tournament: bool, tiles: str) -> None:
    """Raise ValueError unless the options name a game of RULES §2-§4."""
    if players not in (1, 2, 3, 4):
        raise ValueError(f"1-4 players (RULES §3, §4.1), got {players}")
    if tiles not in TILE_SETS:
        raise ValueError(f"unknown tile set {tiles!r} (expected one of {TILE_SETS})")
    if teams and players != 4:
        raise ValueError(f"the team game is for 4 players (RULES §4.2), got {players}")
    if tournament and players != 2:
        raise ValueError(f"tournament rules are for 2 players (RULES §4.3), got {players}")
    if tiles == "travel" and players not in (1, 2):
        raise ValueError(f"the travel set is for 1-2 players (RULES §2.2), got {players}")


class Reference:
    """The state of one game (RULES §3, §4), or an analysis position (:meth:`from_covered`).

    Options (keyword-only):

    * ``teams``: the team game (RULES §4.2), 4 players only;
    * ``tournament``: tournament rules (RULES §4.3), 2 players only;
    * ``tiles``: "standard" (RULES §2.1) or "travel" (RULES §2.2, 1-2 players only).

    ``players=1`` is the solo game (RULES §4.1). Bad combinations raise ValueError.

    Public state:

    * ``players``, ``current_player``, ``phase`` ("place", "swap" or "over");
    * ``turn``: turns started so far, 1 at the start (a bonus placement is not a new turn; in solo
      every placement is a turn);
    * ``scores[p][colour]`` (RULES §2.3, §3.3), one row per seat; in the team game a seat's row is
      its team's counters, so partners' rows are equal (RULES §4.2);
    * ``cap``: 18, or 36 for the double-length counters of solo and teams (RULES §4.1, §4.2);
    * ``racks[p]`` and ``bag``: Counters of canonical tiles;
    * ``covered``: {cell: colour} of the cells covered by tile halves (printed cells not included);
    * ``bonus_pending``: bonus placements still owed this turn (RULES §3.4);
    * ``first_touched[p]``: colour of the printed symbol touched by player p's first placement, or
      None while p has not placed yet (RULES §3.2); under tournament rules a first placement that
      touched tiles only records :data:`TOUCHED_TILE` (RULES §4.3).
    """

    # ----------------------------------------------------------------- construction

    def __init__(
        self,
        players: int,
        racks: list[list[tuple[int, int]]],
        *,
        teams: bool = False,
        tournament: bool = False,
        tiles: str = "standard",
    ):
        check_options(players, teams=teams, tournament=tournament, tiles=tiles)
        assert len(racks) == players
        self.players = players
        self.solo = players == 1  # RULES §4.1
        self.teams = teams  # RULES §4.2
        self.tournament = tournament  # RULES §4.3
        self.tiles = tiles  # RULES §2.1, §2.2
        # RULES §4.1, §4.2: double-length counters in solo and in the team game
        self.cap = LONG_CAP if self.solo or self.teams else CAP
        self.rack_size = SOLO_RACK_SIZE if self.solo else RACK_SIZE
        self.current_player = 0  # RULES §3.1
        self.phase = "place"
        self.turn = 1
        self.scores = [[0] * 6 for _ in range(players)]
        self.racks = []
        for rack in racks:
            counter = collections.Counter()
            for tile in rack:
                tile = tuple(tile)
                assert tile in self.tile_set(), f"not a canonical tile: {tile}"
                counter[tile] += 1
            assert counter.total() <= self.rack_size, f"a rack holds at most {self.rack_size}"
            self.racks.append(counter)
        # The bag is the tile set minus the racks.
        self.bag = self.tile_set()
        for rack in self.racks:
            for tile, count in rack.items():
                assert self.bag[tile] >= count, "the racks hold more tiles than the set"
                self.bag[tile] -= count
        self.bag = +self.bag  # drop zero counts
        self.covered = {}
        self.bonus_pending = 0
        self.first_touched = [None] * players
        self._instant_winner = None

    @classmethod
    def from_covered(
        cls,
        players: int,
        covered: list[tuple[int, int, int]],
        *,
        teams: bool = False,
        tournament: bool = False,
        tiles: str = "standard",
    ) -> Reference:
        """An analysis position: the given cells (q, r, colour) are covered by tile halves.

        Racks are empty, scores 0, player 0 to move, nobody has made a first placement; the bag is
        the whole tile set (irrelevant for analysis). The phase is "over" if no free pair remains.
        """
        ref = cls(
            players,
            [[] for _ in range(players)],
            teams=teams,
            tournament=tournament,
            tiles=tiles,
        )
        for q, r, colour in covered:
            cell = (q, r)
            assert cell in ref.area(), f"{cell} is outside the area"
            assert cell not in PRINTED, f"{cell} is a printed cell"
            assert cell not in ref.covered, f"{cell} is listed twice"
            assert colour in range(6)
            ref.covered[cell] = colour
        if ref.free_pairs() == 0:
            ref.phase = "over"
        return ref

    def tile_set(self) -> collections.Counter:
        """The whole set of tiles of this game (RULES §2.1 or §2.2)."""
        return tile_set(self.tiles)

    # ----------------------------------------------------------------- seats and teams

    def team_of(self, seat: int) -> int:
        """RULES §4.2: seats 0 and 2 are team 0, seats 1 and 3 team 1; otherwise a seat is alone."""
        return seat % 2 if self.teams else seat

    def seats_sharing_counters(self, seat: int) -> list[int]:
        """The seats whose counters are `seat`'s counters: its team (RULES §4.2), or itself."""
        return [other for other in range(self.players) if self.team_of(other) == self.team_of(seat)]

    # ----------------------------------------------------------------- board geometry

    def area(self) -> set[tuple[int, int]]:
        """RULES §1.3: the cells of the playing area (printed cells included)."""
        return {
            (q, r)
            for q in range(-BOARD_RADIUS, BOARD_RADIUS + 1)
            for r in range(-BOARD_RADIUS, BOARD_RADIUS + 1)
            if self.in_area((q, r))
        }

    def in_area(self, cell: tuple[int, int]) -> bool:
        return distance(cell) <= area_radius(self.players)

    def colour_at(self, cell: tuple[int, int]) -> int | None:
        """Colour shown on a cell of the area (tile half or printed symbol), None if empty."""
        if cell in PRINTED:
            return PRINTED[cell]
        return self.covered.get(cell)

    def empty_cells(self) -> set[tuple[int, int]]:
        return {cell for cell in self.area() if self.colour_at(cell) is None}

    def empty_pairs(self) -> set[tuple[tuple[int, int], tuple[int, int]]]:
        """Unordered pairs of adjacent empty cells of the area, each as (a, b) with a < b."""
        empty = self.empty_cells()
        pairs = set()
        for a in empty:
            for d in DIRECTIONS:
                b = neighbour(a, d)
                if b in empty:
                    pairs.add((min(a, b), max(a, b)))
        return pairs

    def free_pairs(self) -> int:
        return len(self.empty_pairs())

    # ----------------------------------------------------------------- scoring (RULES §3.3)

    def ray(self, start: tuple[int, int], direction: tuple[int, int], colour: int) -> int:
        """Cells of `colour` in an unbroken line from `start` (excluded) along `direction`."""
        count = 0
        cell = neighbour(start, direction)
        while self.in_area(cell) and self.colour_at(cell) == colour:
            count += 1
            cell = neighbour(cell, direction)
        return count

    def half_points(self, cell, colour, partner_cell) -> int:
        """Points of one half: the 5 rays that do not point into the partner half."""
        total = 0
        for d in DIRECTIONS:
            if neighbour(cell, d) == partner_cell:
                continue
            total += self.ray(cell, d, colour)
        return total

    def _check_placement_cells(self, move) -> None:
        assert isinstance(move, tuple), f"not a placement: {move!r}"
        assert len(move) == 3, f"not a placement: {move!r}"
        assert move[0] == "place", f"not a placement: {move!r}"
        (a, ca), (b, cb) = move[1], move[2]
        for cell, colour in ((a, ca), (b, cb)):
            assert colour in range(6), f"bad colour in {move!r}"
            assert self.in_area(cell), f"cell outside the area in {move!r}"
            assert self.colour_at(cell) is None, f"cell not empty in {move!r}"
        assert are_adjacent(a, b), f"cells not adjacent in {move!r}"

    def gains(self, move) -> tuple[int, int]:
        """Points of each half of a placement on the current board (RULES §3.3).

        No cap is applied and nothing is played.
        """
        self._check_placement_cells(move)
        (a, ca), (b, cb) = move[1], move[2]
        return (self.half_points(a, ca, b), self.half_points(b, cb, a))

    def advance(self, counter: int, points: int) -> int:
        """A counter's new value after gaining `points` (RULES §3.3, §4.1).

        Base game: the counter stops at 18. Double-length counters (solo, teams): a counter below
        18 that reaches or passes 18 stops at 18, the excess is lost; from 18 on it runs to 36 and
        stops there.
        """
        if self.cap == CAP:
            return min(CAP, counter + points)
        if counter < CROSSING:
            return min(CROSSING, counter + points)
        return min(LONG_CAP, counter + points)

    def bonus_marks(self) -> tuple[int, ...]:
        """Counter values that earn a bonus play when reached from below (RULES §3.4, §4)."""
        if self.solo:
            return ()  # RULES §4.1: no bonus plays
        if self.teams:
            return (CROSSING, LONG_CAP)  # RULES §4.2: at 18 and again at 36
        return (CAP,)  # RULES §3.4

    # ----------------------------------------------------------------- moves

    def touched_symbol(self, a, b) -> int | None:
        """Colour of the printed symbol that a tile on cells a, b touches (RULES §3.2), if any."""
        for colour, symbol in SYMBOL_CELLS.items():
            if are_adjacent(a, symbol) or are_adjacent(b, symbol):
                return colour
        return None

    def touches_a_tile(self, a, b) -> bool:
        """Whether a tile on cells a, b would share an edge with a covered cell (RULES §4.3)."""
        return any(neighbour(cell, d) in self.covered for cell in (a, b) for d in DIRECTIONS)

    def first_placement_allowed(self, a, b) -> bool:
        """Whether the current player's first placement may go on cells a, b."""
        symbol = self.touched_symbol(a, b)
        if self.tournament:
            # RULES §4.3 decision: a printed symbol or a tile already on the board, any of them.
            return symbol is not None or self.touches_a_tile(a, b)
        # RULES §3.2 (and §4.1, §4.2): a symbol that no earlier first placement touched.
        taken = {colour for colour in self.first_touched if colour is not None}
        return symbol is not None and symbol not in taken

    def legal_moves(self) -> set:
        if self.phase == "over":
            return set()
        if self.phase == "swap":
            return {SWAP, KEEP}
        assert self.phase == "place"
        player = self.current_player
        first_placement = self.first_touched[player] is None
        moves = set()
        for a, b in self.empty_pairs():
            if first_placement and not self.first_placement_allowed(a, b):
                continue
            for lo, hi in self.racks[player]:
                moves.add(placement(a, lo, b, hi))
                moves.add(placement(a, hi, b, lo))
        return moves

    # ----------------------------------------------------------------- playing

    def play(self, move, draws: list[tuple[int, int]]) -> None:
        """Play a legal move; `draws` are the tiles drawn, in order, if the turn ends with a draw.

        Raises AssertionError (leaving the state unchanged) on an illegal move, a wrong number of
        draws or a drawn tile that is not in the bag.
        """
        saved = copy.deepcopy(self.__dict__)
        try:
            draw_kind, count = self._apply(move)
            draws = [tuple(tile) for tile in draws]
            assert len(draws) == count, f"{move!r} draws {count} tiles, got {len(draws)}"
            if draw_kind == "refill":
                self._draw_into_rack(draws)
                self._next_turn()
            elif draw_kind == "swap":
                old = self.racks[self.current_player]
                self.racks[self.current_player] = collections.Counter()
                self._draw_into_rack(draws)  # draw first (RULES §3.5) ...
                self.bag += old  # ... then return the old tiles to the bag
                self._next_turn()
        except AssertionError:
            self.__dict__.clear()
            self.__dict__.update(saved)
            raise

    def draws_needed(self, move) -> int:
        """How many tiles `play(move, ...)` will draw (0 if the turn does not end with a draw)."""
        trial = copy.deepcopy(self)
        _, count = trial._apply(move)
        return count

    def _apply(self, move) -> tuple[str | None, int]:
        """Apply `move` up to the point where tiles are drawn.

        Returns (draw kind, number of tiles to draw); the kind is "refill", "swap" or None.
        """
        assert move in self.legal_moves(), f"illegal move {move!r} (phase {self.phase})"
        player = self.current_player
        bag_size = self.bag.total()
        if move == SWAP:
            # Draw 6 new tiles (or what is left), then put the old ones back (spec decision 4).
            return "swap", min(RACK_SIZE, bag_size)
        if move == KEEP:
            return "refill", min(self.rack_size - self.racks[player].total(), bag_size)

        # A placement (RULES §3.2 a-c).
        (a, ca), (b, cb) = move[1], move[2]
        points_a, points_b = self.gains(move)
        tile = tile_of(ca, cb)
        self.racks[player][tile] -= 1
        self.racks[player] = +self.racks[player]
        if self.first_touched[player] is None:
            symbol = self.touched_symbol(a, b)
            self.first_touched[player] = TOUCHED_TILE if symbol is None else symbol
        self.covered[a] = ca
        self.covered[b] = cb

        # Score (RULES §3.3) with the cap or the crossing (RULES §4.1). The points of the placement
        # are added to each counter at once: with a double both halves go in together, so a counter
        # below 18 can never pass 18 in one placement.
        points = collections.Counter()
        points[ca] += points_a
        points[cb] += points_b
        before = list(self.scores[player])
        after = [self.advance(before[c], points[c]) for c in range(6)]
        for seat in self.seats_sharing_counters(player):  # partners share counters (RULES §4.2)
            self.scores[seat] = list(after)

        # Bonus plays (RULES §3.4), earned by the placing player: one per counter reaching a mark
        # from below (18 in the base game; 18 and 36 in the team game, RULES §4.2).
        earned = sum(
            1 for c in range(6) for mark in self.bonus_marks() if before[c] < mark <= after[c]
        )
        if self.tournament:
            earned = min(earned, 1)  # RULES §4.3: at most one bonus play per placement
        if self.bonus_pending > 0:
            self.bonus_pending -= 1  # this placement was a bonus play
        self.bonus_pending += earned

        # End of game (RULES §3.6, §4.1, §4.2, spec decision 1): nothing follows.
        if all(score == self.cap for score in after):
            self._instant_winner = player
            self._end()
            return None, 0
        if self.free_pairs() == 0:
            self._end()
            return None, 0

        # Bonus plays owed (RULES §3.4, spec decision 2).
        if self.bonus_pending > 0:
            if self.racks[player].total() > 0 and self.legal_moves():
                return None, 0
            self.bonus_pending = 0  # lapse

        # Swap check on the rack after the placements (RULES §3.5, spec decision 4), on the team's
        # counters in the team game (RULES §4.2); never in solo (RULES §4.1).
        rack = self.racks[player]
        lowest = min(after)
        lowest_colours = {c for c in range(6) if after[c] == lowest}
        shows_lowest = any(lo in lowest_colours or hi in lowest_colours for lo, hi in rack)
        # decision: no swap on an empty rack, nor with an empty bag (nothing could be drawn)
        if not self.solo and rack.total() > 0 and self.bag.total() > 0 and not shows_lowest:
            self.phase = "swap"
            return None, 0
        # Refill with what is left in the bag (RULES §3.6 decision); solo draws one tile (§4.1).
        return "refill", min(self.rack_size - rack.total(), bag_size)

    def _draw_into_rack(self, draws) -> None:
        rack = self.racks[self.current_player]
        for tile in draws:
            assert self.bag[tile] > 0, f"drawn tile {tile} is not in the bag"
            self.bag[tile] -= 1
            rack[tile] += 1
        self.bag = +self.bag

    def _end(self) -> None:
        self.phase = "over"
        self.bonus_pending = 0

    def _next_turn(self) -> None:
        """Pass the turn to the next player (RULES §3.1), skipping empty racks (RULES §3.6).

        With a bag that ran out (travel set, RULES §2.2), a player whose rack is empty passes; when
        every rack is empty the game ends (in solo: the single tile could not be replaced, §4.1).
        """
        self.bonus_pending = 0
        if all(rack.total() == 0 for rack in self.racks):
            self._end()
            return
        player = (self.current_player + 1) % self.players
        while self.racks[player].total() == 0:
            player = (player + 1) % self.players
        self.current_player = player
        self.phase = "place"
        self.turn += 1

    # ----------------------------------------------------------------- results

    def is_over(self) -> bool:
        return self.phase == "over"

    def instant_winner(self) -> int | None:
        """The player whose placement took all six of their counters to the cap, ending the game.

        RULES §3.6 (six 18s); in the team game the placing seat, whose team's six counters reached
        36 (RULES §4.2); in solo six 36s (decision).
        """
        return self._instant_winner

    def ranks(self) -> list[int]:
        """RULES §3.7: rank = number of seats strictly better (0 = best).

        An instant winner (RULES §3.6) is first whatever the counters; in the team game partners
        share their team's counters and so their rank, and the instant winner's partner is first too
        (RULES §4.2). Solo: [0].
        """
        winner = self._instant_winner

        def key(seat):
            wins = winner is not None and self.team_of(seat) == self.team_of(winner)
            return (wins, sorted(self.scores[seat]))

        return [
            sum(1 for other in range(self.players) if key(other) > key(seat))
            for seat in range(self.players)
        ]


__all__ = [
    "CAP",
    "CROSSING",
    "DIRECTIONS",
    "KEEP",
    "LONG_CAP",
    "PRINTED",
    "SWAP",
    "SYMBOL_CELLS",
    "TOUCHED_TILE",
    "Reference",
    "check_options",
    "distance",
    "placement",
    "standard_set",
    "tile_of",
    "tile_set",
    "travel_set",
]

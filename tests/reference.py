"""A slow, plain reference implementation of the Ingenious base game (RULES §1-§3, 2-4 players).

Written from /work/shared/RULES.md and the spec's "Decisions beyond RULES.md" only, for differential
tests against the compiled engine. Everything is recomputed from scratch on every call: no caches,
no incremental bookkeeping, so that each rule can be read off the code directly.

Coordinates are axial ``(q, r)`` (RULES §1.2); colours are ints 0..5 = R G B O Y P (RULES §1.4);
a tile is a canonical pair ``(lo, hi)`` with ``lo <= hi`` (RULES §2.1).

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
CAP = 18  # RULES §3.3
RACK_SIZE = 6  # RULES §2.3

SWAP = ("swap",)
KEEP = ("keep",)


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


def standard_set() -> collections.Counter:
    """RULES §2.1: 6 of each of the 15 two-colour pairs, 5 of each of the 6 doubles (120 tiles)."""
    tiles = collections.Counter()
    for lo in range(6):
        for hi in range(lo, 6):
            tiles[(lo, hi)] = 5 if lo == hi else 6
    return tiles


def placement(cell_a, colour_a, cell_b, colour_b) -> tuple:
    """The canonical placement move putting colour_a on cell_a and colour_b on cell_b."""
    first, second = sorted([(tuple(cell_a), colour_a), (tuple(cell_b), colour_b)])
    return ("place", first, second)


class Reference:
    """The state of one base game (RULES §3), or an analysis position (:meth:`from_covered`).

    Public state:

    * ``players``, ``current_player``, ``phase`` ("place", "swap" or "over");
    * ``turn``: turns started so far, 1 at the start (a bonus placement is not a new turn);
    * ``scores[p][colour]`` (RULES §2.3, §3.3);
    * ``racks[p]`` and ``bag``: Counters of canonical tiles;
    * ``covered``: {cell: colour} of the cells covered by tile halves (printed cells not included);
    * ``bonus_pending``: bonus placements still owed this turn (RULES §3.4);
    * ``first_touched[p]``: colour of the printed symbol touched by player p's first placement, or
      None while p has not placed yet (RULES §3.2).
    """

    # ----------------------------------------------------------------- construction

    def __init__(self, players: int, racks: list[list[tuple[int, int]]]):
        assert players in (2, 3, 4), "the base game is for 2-4 players (RULES §3)"
        assert len(racks) == players
        self.players = players
        self.current_player = 0  # RULES §3.1
        self.phase = "place"
        self.turn = 1
        self.scores = [[0] * 6 for _ in range(players)]
        self.racks = []
        for rack in racks:
            counter = collections.Counter()
            for tile in rack:
                tile = tuple(tile)
                assert tile in standard_set(), f"not a canonical tile: {tile}"
                counter[tile] += 1
            self.racks.append(counter)
        # The bag is the standard set minus the racks.
        self.bag = standard_set()
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
    def from_covered(cls, players: int, covered: list[tuple[int, int, int]]) -> Reference:
        """An analysis position: the given cells (q, r, colour) are covered by tile halves.

        Racks are empty, scores 0, player 0 to move, nobody has made a first placement; the bag is
        the standard set (irrelevant for analysis). The phase is "over" if no free pair remains.
        """
        ref = cls(players, [[] for _ in range(players)])
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

    # ----------------------------------------------------------------- moves

    def touched_symbol(self, a, b) -> int | None:
        """Colour of the printed symbol that a tile on cells a, b touches (RULES §3.2), if any."""
        for colour, symbol in SYMBOL_CELLS.items():
            if are_adjacent(a, symbol) or are_adjacent(b, symbol):
                return colour
        return None

    def legal_moves(self) -> set:
        if self.phase == "over":
            return set()
        if self.phase == "swap":
            return {SWAP, KEEP}
        assert self.phase == "place"
        player = self.current_player
        first_placement = self.first_touched[player] is None
        taken = {colour for colour in self.first_touched if colour is not None}
        moves = set()
        for a, b in self.empty_pairs():
            if first_placement:
                # RULES §3.2 first round: touch a symbol no earlier first placement touched.
                symbol = self.touched_symbol(a, b)
                if symbol is None or symbol in taken:
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
            return "refill", min(RACK_SIZE - self.racks[player].total(), bag_size)

        # A placement (RULES §3.2 a-c).
        (a, ca), (b, cb) = move[1], move[2]
        points_a, points_b = self.gains(move)
        tile = tile_of(ca, cb)
        self.racks[player][tile] -= 1
        self.racks[player] = +self.racks[player]
        self.covered[a] = ca
        self.covered[b] = cb
        if self.first_touched[player] is None:
            self.first_touched[player] = self.touched_symbol(a, b)

        # Score (RULES §3.3) with the cap; count counters reaching 18 (RULES §3.4).
        before = list(self.scores[player])
        for colour, points in ((ca, points_a), (cb, points_b)):
            self.scores[player][colour] = min(CAP, self.scores[player][colour] + points)
        earned = sum(1 for c in range(6) if before[c] < CAP and self.scores[player][c] == CAP)
        if self.bonus_pending > 0:
            self.bonus_pending -= 1  # this placement was a bonus play
        self.bonus_pending += earned

        # End of game (RULES §3.6, spec decision 1): nothing follows.
        if all(score == CAP for score in self.scores[player]):
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

        # Swap check on the rack after the placements (RULES §3.5, spec decision 4).
        rack = self.racks[player]
        lowest = min(self.scores[player])
        lowest_colours = {c for c in range(6) if self.scores[player][c] == lowest}
        shows_lowest = any(lo in lowest_colours or hi in lowest_colours for lo, hi in rack)
        if rack.total() > 0 and not shows_lowest:
            self.phase = "swap"
            return None, 0
        return "refill", min(RACK_SIZE - rack.total(), bag_size)

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
        """Pass the turn to the next player (RULES §3.1), skipping empty racks (RULES §3.6)."""
        self.bonus_pending = 0
        if all(rack.total() == 0 for rack in self.racks):
            # RULES §3.6 decision: every rack empty (cannot happen with the standard set)
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
        """RULES §3.6: the player whose six counters all reached 18, if that ended the game."""
        return self._instant_winner

    def ranks(self) -> list[int]:
        """RULES §3.7: rank = number of players strictly better (0 = best).

        An instant winner (RULES §3.6) is first whatever the counters.
        """

        def key(player):
            return (player == self._instant_winner, sorted(self.scores[player]))

        return [
            sum(1 for other in range(self.players) if key(other) > key(player))
            for player in range(self.players)
        ]


__all__ = [
    "CAP",
    "DIRECTIONS",
    "KEEP",
    "PRINTED",
    "SWAP",
    "SYMBOL_CELLS",
    "Reference",
    "distance",
    "placement",
    "standard_set",
    "tile_of",
]

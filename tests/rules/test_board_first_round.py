"""Hand-computed rule tests: board geometry (RULES §1), material (§2.1), the first round (§3.2).

Scoring is in test_rules_scoring.py, turn flow (bonus plays, swap, end, ranking) in
test_rules_turns.py, error handling in test_rules_errors.py.  Every expected number is worked out
by hand from docs/rules.md; the derivation is in a comment next to it.
"""

import pytest

import genial

from . import positions as helpers

h = helpers
R, G, B, O, Y, P = range(6)  # noqa: E741 (the colour letters of RULES §1.4)


# ---------------------------------------------------------------------------------------------
# RULES §1: geometry
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "free_cells"), [(2, 85), (3, 121), (4, 163)])
def test_free_cells_in_board_text(players, free_cells):
    """RULES §1.3, §1.5: 91/127/169 area cells minus the 6 printed cells = 85/121/163 empty."""
    g = genial.Game(players, seed=1)
    board = helpers.field(g, h.F_BOARD)
    assert board.count("-") == free_cells
    # the printed letters are on the board text, each once (RULES §1.4)
    for letter in "RGBOYP":
        assert board.count(letter) == 1


@pytest.mark.parametrize(
    ("players", "row_lengths"),
    [
        (2, [6, 7, 8, 9, 10, 11, 10, 9, 8, 7, 6]),
        (3, [7, 8, 9, 10, 11, 12, 13, 12, 11, 10, 9, 8, 7]),
        (4, [8, 9, 10, 11, 12, 13, 14, 15, 14, 13, 12, 11, 10, 9, 8]),
    ],
)
def test_area_rows(players, row_lengths):
    """RULES §1.1, §1.3: the area of radius R has rows of R+1 .. 2R+1 .. R+1 cells."""
    g = genial.Game(players, seed=1)
    rows = helpers.field(g, h.F_BOARD).split("/")
    assert [len(row) for row in rows] == row_lengths


@pytest.mark.parametrize(("players", "pairs"), [(2, 222), (3, 306), (4, 426)])
def test_free_pairs_at_start(players, pairs):
    """RULES §1.5: a hexagon of radius R has 3(3R^2+R) adjacent pairs (R=5: 240, 6: 342,
    7: 462).  A corner symbol (2 players) has 3 neighbours in the area, an inner one (3, 4
    players) 6: 240-18 = 222, 342-36 = 306, 462-36 = 426."""
    assert genial.Game(players, seed=2).free_pairs == pairs


@pytest.mark.parametrize(("players", "pairs"), [(2, 222), (3, 306), (4, 426)])
def test_after_first_round_every_free_pair_is_legal(players, pairs):
    """RULES §3.2 (from the second round on, any two adjacent empty cells), §1.3, §1.4: on an
    empty board after the first round the legal cell pairs are exactly the free pairs, all in
    the area, none on a printed cell.  Rack RG + BB: 2 orientations of RG + 1 of BB = 3 moves
    per pair; a second RG adds no move (legal_moves is a list of distinct actions)."""
    g = helpers.game(players=players, racks=[["RG", "BB", "RG"]] + [["OO"]] * (players - 1))
    moves = g.legal_moves()
    pairs_seen = h.cell_pairs(moves)
    assert len(pairs_seen) == pairs
    assert len(moves) == 3 * pairs
    actions = [m.action for m in moves]
    assert actions == sorted(set(actions)) == [int(a) for a in g.legal_actions()]
    for pair in pairs_seen:
        for c in pair:
            assert helpers.dist(c) <= h.RADIUS[players]
            assert c not in helpers.PRINTED


@pytest.mark.parametrize("players", [2, 3, 4])
def test_printed_cells_never_in_legal_moves_of_a_new_game(players):
    """RULES §1.4: printed cells are never empty; no legal move covers one."""
    g = genial.Game(players, seed=5)
    for m in g.legal_moves():
        assert not set(map(tuple, m.cells)) & set(helpers.PRINTED)


def test_placement_outside_the_2_player_area_is_illegal():
    """RULES §1.3: (6,-2) has distance 6: outside the 2-player area, inside the 3-player area."""
    text = "R5,-2+B6,-2"
    g2 = helpers.game(players=2, racks=[["RB"], ["OO"]])
    before = g2.to_text()
    with pytest.raises(genial.IllegalMoveError):
        g2.play(text)
    assert g2.to_text() == before
    g3 = helpers.game(players=3, racks=[["RB"], ["OO"], ["OO"]])
    g3.play(text)
    assert g3.board == {(5, -2): R, (6, -2): B}


def test_placement_outside_the_3_player_area_is_illegal():
    """RULES §1.3: (7,-2) has distance 7: outside the 3-player area, inside the 4-player one."""
    text = "R6,-2+B7,-2"
    g3 = helpers.game(players=3, racks=[["RB"], ["OO"], ["OO"]])
    before = g3.to_text()
    with pytest.raises(genial.IllegalMoveError):
        g3.play(text)
    assert g3.to_text() == before
    g4 = helpers.game(players=4, racks=[["RB"], ["OO"], ["OO"], ["OO"]])
    g4.play(text)
    assert g4.board == {(6, -2): R, (7, -2): B}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_printed_cell_not_playable(players):
    """RULES §1.4: no tile may cover a printed cell; (0,-5) is the red symbol, (0,-4) is next
    to it."""
    g = helpers.game(players=players, racks=[["RB"]] + [["OO"]] * (players - 1))
    before = g.to_text()
    with pytest.raises(genial.IllegalMoveError):
        g.play("R0,-5+B0,-4")
    assert g.to_text() == before


# ---------------------------------------------------------------------------------------------
# RULES §2.1: the tile set
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_new_game_material(players):
    """RULES §2.1, §2.3, §3.1: 6 tiles per rack, the rest in the bag: 120 tiles, 6 of each of
    the 15 pairs, 5 of each of the 6 doubles; bag_size = 120 - 6 * players."""
    g = genial.Game(players, seed=11)
    counts = [int(ch) for ch in helpers.field(g, h.F_BAG)]
    assert len(counts) == 21
    assert sum(counts) == g.bag_size == 120 - 6 * players
    for p in range(players):
        rack = h.rack(g, p)
        assert len(rack) == 6
        assert rack == sorted(rack)
        for t in rack:
            counts[h.TILE_TYPES.index(t)] += 1
    assert sum(counts) == 120
    for (lo, hi), n in zip(h.TILE_TYPES, counts, strict=False):
        assert n == (5 if lo == hi else 6), (lo, hi)


def test_new_game_state():
    """RULES §3.1: player 0 moves first; nobody has placed; turn 1; all counters 0."""
    g = genial.Game(3, seed=4)
    assert g.current_player == 0
    assert g.phase == "place"
    assert g.bonus_plays == 0
    assert not g.is_over
    assert h.scores(g) == [[0] * 6] * 3
    assert helpers.field(g, helpers.F_FIRST) == "---"
    assert helpers.field(g, h.F_TURN) == "1"
    assert g.board == {}


# ---------------------------------------------------------------------------------------------
# RULES §3.2: the first round
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "pairs"), [(2, 54), (3, 102), (4, 144)])
def test_first_placement_cell_pairs(players, pairs):
    """RULES §3.2, §1.5: the first placement must touch a symbol.
    Per symbol, count the pairs with a cell among its neighbours N: sum over N of free degrees
    minus the edges inside N (the ring of N is a cycle).
    2 players, symbol G (5,-5): N = (4,-5) (3 free nbrs: (3,-5),(3,-4),(4,-4)), (4,-4) (5),
    (5,-4) (3: (4,-4),(4,-3),(5,-3)); 11 - 2 inner edges = 9; x6 = 54 (RULES §1.5).
    3 players: N = (6,-5) 3 [(6,-6),(5,-4),(6,-4); (7,-5),(7,-6) have distance 7],
    (6,-6) 2 [(5,-6),(6,-5)], (5,-6) 3 [(6,-6),(4,-6),(4,-5)], (4,-5) 5, (4,-4) 5, (5,-4) 5:
    23 - 6 = 17; x6 = 102.  4 players: every ring cell has 5 free nbrs: 30 - 6 = 24; x6 = 144.
    The symbols are 5 apart, so no pair is counted twice."""
    g = genial.Game(players, seed=3)
    pairs_seen = h.cell_pairs(g.legal_moves())
    assert len(pairs_seen) == pairs
    assert all(h.touches_symbol(pair) for pair in pairs_seen)


def test_first_placement_must_touch_a_symbol():
    """RULES §3.2: a first placement away from the symbols is illegal; one touching the red
    symbol (0,-5) through (0,-4) is legal and recorded in the first-round field."""
    g = helpers.game(racks=[["RB", "GO"], ["OO"]], first="--", turn=1, bag={"YY": 4})
    before = g.to_text()
    with pytest.raises(genial.IllegalMoveError):
        g.play("R0,0+B1,0")
    assert g.to_text() == before
    g.play("R0,-4+B1,-4")
    assert g.board == {(0, -4): R, (1, -4): B}
    assert helpers.field(g, helpers.F_FIRST) == "R-"
    assert g.current_player == 1


def test_second_player_may_not_touch_the_same_symbol():
    """RULES §3.2: player 0's first placement (0,-4)+(1,-4) touched R.  Player 1 may not touch
    R: (-1,-4) is adjacent to (0,-5).  The legal pairs are the 9 of each other symbol: 5 x 9 =
    45 (the covered cells are far from G, B, O, Y, P).  Touching G through (4,-4) is legal."""
    g = helpers.game(
        covered={(0, -4): R, (1, -4): B},
        racks=[["GO"], ["RG", "YY"]],
        to_move=1,
        first="R-",
        turn=2,
        bag={"YY": 4},
    )
    pairs_seen = h.cell_pairs(g.legal_moves())
    assert len(pairs_seen) == 45
    for pair in pairs_seen:
        assert not any(n == (0, -5) for c in pair for n in helpers.neighbours(c))
    before = g.to_text()
    for text in ("G-1,-4+R-2,-3", "R1,-5+G2,-5"):
        with pytest.raises(genial.IllegalMoveError):
            g.play(text)
        assert g.to_text() == before
    g.play("R3,-4+G4,-4")
    assert helpers.field(g, helpers.F_FIRST) == "RG"
    assert g.current_player == 0


def test_third_player_may_touch_neither_earlier_symbol():
    """RULES §3.2, spec decision 3, 3 players: R and G were touched; player 2 has the 17 pairs
    of each of B, O, Y, P (see test_first_placement_cell_pairs): 4 x 17 = 68."""
    g = helpers.game(
        players=3,
        covered={(0, -4): R, (1, -4): B, (4, -4): G, (3, -4): R},
        racks=[["GO"], ["GO"], ["RG", "YY"]],
        to_move=2,
        first="RG-",
        turn=3,
        bag={"YY": 4},
    )
    pairs_seen = h.cell_pairs(g.legal_moves())
    assert len(pairs_seen) == 68
    before = g.to_text()
    with pytest.raises(genial.IllegalMoveError):
        g.play("R5,-6+G6,-6")  # (5,-6) touches G (5,-5)
    assert g.to_text() == before
    g.play("R4,0+G4,1")  # (4,0) touches B (5,0)
    assert helpers.field(g, helpers.F_FIRST) == "RGB"


def test_from_second_round_anything_goes():
    """RULES §3.2: from the second round on a tile need not touch anything."""
    g = helpers.game(
        covered={(0, -4): R, (1, -4): B, (4, -4): G, (3, -4): R},
        racks=[["RB", "GO"], ["OO"]],
        first="RG",
        turn=3,
        bag={"YY": 4},
    )
    g.play("B0,0+R1,0")
    assert g.board[(0, 0)] == B and g.board[(1, 0)] == R
    # the other player, also touching nothing: (2,2) and (3,2) have no printed neighbour
    g.play("O2,2+O3,2")
    assert g.board[(2, 2)] == O and g.board[(3, 2)] == O


def test_tiles_may_leave_single_empty_cells():
    """RULES §3.2: a tile may leave a single empty cell.  (1,-5) has the free neighbours
    (2,-5), (0,-4), (1,-4).  Covering (2,-5) [4 free nbrs: (3,-5),(1,-5),(1,-4),(2,-4)] and
    (0,-4) [5: (1,-4),(1,-5),(-1,-4),(-1,-3),(0,-3)], not adjacent to each other:
    free_pairs = 222 - 4 - 5 = 213.  Then (1,-4)+(2,-4) isolates (1,-5): (1,-4) has the free
    nbrs (2,-4),(1,-5),(0,-3),(1,-3) = 4, (2,-4) has (3,-4),(3,-5),(1,-4),(1,-3),(2,-3) = 5,
    the edge between them counted twice: 213 - (4 + 5 - 1) = 205."""
    g = helpers.game(covered={(2, -5): O, (0, -4): O}, racks=[["RB", "GO"], ["OO"]], bag={"YY": 4})
    assert g.free_pairs == 213
    g.play("R1,-4+B2,-4")
    assert g.free_pairs == 205
    assert (1, -5) not in g.board
    assert all((1, -5) not in pair for pair in h.cell_pairs(g.legal_moves()))


def test_first_round_bonus_placement_need_not_touch_a_symbol():
    """RULES §3.2, §3.4, spec decision 2: player 0 (B at 17) opens with B on (4,0) next to the
    blue symbol (5,0): ray E = the symbol, then (6,0) is outside the area -> 1; the other rays
    of (4,0) and all rays of R on (3,0) meet empty cells -> B 18, one bonus play.  The bonus
    placement is not bound by the first-round rule."""
    g = helpers.game(
        scores=[[0, 0, 17, 0, 0, 0], [0] * 6],
        racks=[["RB", "RG", "OO"], ["YY"]],
        first="--",
        turn=1,
        bag={"YY": 4},
    )
    g.play("R3,0+B4,0")
    assert h.scores(g)[0] == [0, 0, 18, 0, 0, 0]
    assert g.current_player == 0 and g.bonus_plays == 1 and g.phase == "place"
    assert helpers.field(g, helpers.F_FIRST) == "B-"
    assert frozenset({(0, 0), (1, 0)}) in h.cell_pairs(g.legal_moves())
    g.play("R0,0+G1,0")
    assert g.board[(0, 0)] == R


def test_first_round_rule_lapses_when_it_cannot_be_met():
    """RULES §3.2 Decision: a seat still owing its first placement whose allowed placements are
    all gone (only in constructed positions: here every cell next to the five symbols no one has
    touched is covered) places anywhere; the game never sticks. Seat 0 has touched red; seat 1
    holds GB. Covered: the in-area neighbours of G, B, O, Y and P (blue halves), so no free pair
    touches an unused symbol, and the rule lapses: seat 1 may use every free pair of the area,
    both ways round (GB is not a double)."""
    covered = {}
    for c in (G, B, O, Y, P):
        (sym,) = [cell for cell, v in helpers.PRINTED.items() if v == c]
        for cell in helpers.neighbours(sym):
            if helpers.dist(cell) <= 5 and cell not in helpers.PRINTED:
                covered[cell] = B
    g = helpers.game(covered=covered, racks=[["RR"], ["GB"]], first="R-", bag=helpers.EMPTY_BAG)
    assert g.current_player == 0 and g.legal_moves()
    g.play(g.legal_moves()[0])  # seat 0 places RR anywhere (its first placement is made)
    assert g.current_player == 1
    legal = g.legal_moves()
    assert len(legal) == 2 * g.free_pairs > 0
    assert helpers.field(g, helpers.F_FIRST) == "R-"
    g.play(legal[0])
    # the lapsed first placement touched no unused symbol: recorded as '+', and read back
    assert helpers.field(g, helpers.F_FIRST)[1] == "+"
    assert genial.Game.from_text(g.to_text(), pair_tiles=False).to_text() == g.to_text()


def test_lapsed_first_placements_play_to_the_end():
    """RULES §3.2 Decision, RULES §3.6: from such a position every policy plays to the end, with
    the position text reading back after every move."""
    covered = {}
    for c in (G, B, O, Y, P):
        (sym,) = [cell for cell, v in helpers.PRINTED.items() if v == c]
        for cell in helpers.neighbours(sym):
            if helpers.dist(cell) <= 5 and cell not in helpers.PRINTED:
                covered[cell] = Y
    start = helpers.position(covered=covered, racks=[["RR", "GB"], ["GB", "OP"]], first="R-")
    for policy in ("random", "greedy"):
        g = genial.Game.from_text(start, seed=3, pair_tiles=False)
        while not g.is_over:
            g.play(g.choose(policy))
            assert genial.Game.from_text(g.to_text(), pair_tiles=False) == g

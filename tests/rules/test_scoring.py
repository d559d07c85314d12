"""Hand-computed rule tests for scoring: RULES §3.3 (rays, printed symbols, doubles, the cap).

Rays from a cell (q, r) go E (1,0), NE (1,-1), NW (0,-1), W (-1,0), SW (-1,1), SE (0,1)
(RULES §1.2); the direction into the partner half is skipped.  A placement text names the
row-major first half first, so game.gains() gives (that half, the other half); the helper
half_points() keys the two numbers by cell to make the expectation explicit.
"""


import pytest

import genial

from ..fixtures import load
from . import positions as helpers

h = helpers
R, G, B, O, Y, P = range(6)  # noqa: E741 (the colour letters of RULES §1.4)


def _play_scores(covered, text, tile_code, players=2, to_move=0, start=None):
    """Play `text` for `to_move` (rack: the tile and RR) and return the counters afterwards."""
    start = start or [[0] * 6 for _ in range(players)]
    racks = [["OO"] for _ in range(players)]
    racks[to_move] = [tile_code, "RR"]
    g = h.game(
        players=players, covered=covered, scores=start, racks=racks, to_move=to_move, bag={"YY": 5}
    )
    g.play(text)
    return h.scores(g)


# ---------------------------------------------------------------------------------------------
# single rays and their stops
# ---------------------------------------------------------------------------------------------


def test_single_ray():
    """RULES §3.3: B on (0,0): W ray (-1,0) B, (-2,0) B, (-3,0) empty -> 2; NE (1,-1),
    NW (0,-1), SW (-1,1), SE (0,1) empty -> 0; E is the partner.  R on (1,0): its five rays
    start on empty cells (2,0), (2,-1), (1,-1), (0,1), (1,1) -> 0."""
    covered = {(-1, 0): B, (-2, 0): B}
    g = h.game(covered=covered)
    assert h.half_points(g, "B0,0+R1,0") == {(0, 0): 2, (1, 0): 0}
    assert _play_scores(covered, "B0,0+R1,0", "RB")[0] == [0, 0, 2, 0, 0, 0]


def test_several_rays_add_up():
    """RULES §3.3: B on (0,0): W (-1,0),(-2,0) -> 2; NW (0,-1),(0,-2),(0,-3) then (0,-4)
    empty -> 3; SW (-1,1) then (-2,2) empty -> 1; NE, SE empty -> 0: total 6.  G on (1,0):
    no green anywhere -> 0."""
    covered = {(-1, 0): B, (-2, 0): B, (0, -1): B, (0, -2): B, (0, -3): B, (-1, 1): B}
    g = h.game(covered=covered)
    assert h.half_points(g, "B0,0+G1,0") == {(0, 0): 6, (1, 0): 0}
    assert _play_scores(covered, "B0,0+G1,0", "GB")[0] == [0, 0, 6, 0, 0, 0]


def test_ray_stopped_by_another_colour():
    """RULES §3.3: W of (0,0): (-1,0) B counts, (-2,0) R stops the ray, (-3,0) B is not
    reached -> 1.  The R half on (1,0) has no red neighbour -> 0."""
    g = h.game(covered={(-1, 0): B, (-2, 0): R, (-3, 0): B})
    assert h.half_points(g, "B0,0+R1,0") == {(0, 0): 1, (1, 0): 0}


def test_ray_stopped_by_an_empty_cell():
    """RULES §3.3: W of (0,0): (-1,0) B, (-2,0) empty stops, (-3,0) B not reached -> 1."""
    g = h.game(covered={(-1, 0): B, (-3, 0): B})
    assert h.half_points(g, "B0,0+R1,0") == {(0, 0): 1, (1, 0): 0}


@pytest.mark.parametrize(("players", "expected"), [(2, 2), (3, 3), (4, 4)])
def test_ray_stopped_by_the_area_edge(players, expected):
    """RULES §1.3, §3.3: B on (3,-2), ray E along row r=-2: (4,-2) and (5,-2) are B; (6,-2)
    (distance 6) is outside the 2-player area -> 2.  With 3 players (6,-2) is also B and
    (7,-2) is outside -> 3; with 4 players (7,-2) B too, then the board ends -> 4.  The other
    rays of (3,-2) ((4,-3), (3,-3), (2,-1), (3,-1)) and of R on (2,-2) meet empty cells."""
    line = [(4, -2), (5, -2), (6, -2), (7, -2)][:expected]
    g = h.game(players=players, covered={c: B for c in line})
    assert h.half_points(g, "R2,-2+B3,-2") == {(2, -2): 0, (3, -2): expected}


@pytest.mark.parametrize(("players", "expected"), [(2, 2), (3, 3), (4, 4)])
def test_ray_through_a_corner_symbol_stopped_by_the_area_edge(players, expected):
    """RULES §1.4, §3.3: R on (2,-5), ray W along row r=-5: (1,-5) R, the red symbol (0,-5),
    then (-1,-5) (distance 6) is outside the 2-player area -> 2.  3 players: (-1,-5) is R,
    (-2,-5) (distance 7) outside -> 3.  4 players: (-2,-5) R too, board edge -> 4.  The other
    rays of (2,-5) start on empty cells or leave the area; B on (3,-5) sees no blue."""
    line = [(1, -5), (-1, -5), (-2, -5)][: expected - 1]
    g = h.game(players=players, covered={c: R for c in line})
    assert h.half_points(g, "R2,-5+B3,-5") == {(2, -5): expected, (3, -5): 0}


# ---------------------------------------------------------------------------------------------
# printed symbols
# ---------------------------------------------------------------------------------------------


def test_printed_symbol_counts():
    """RULES §1.4, §3.3: R on (0,-4): NW is the red symbol (0,-5) -> 1 (then (0,-6) is outside
    the area); its other rays and those of B on (1,-4) meet empty cells -> (1, 0)."""
    g = h.game(racks=[["RB", "RR"], ["OO"]], first="--", turn=1, bag={"YY": 5})
    assert h.half_points(g, "R0,-4+B1,-4") == {(0, -4): 1, (1, -4): 0}
    g.play("R0,-4+B1,-4")
    assert h.scores(g)[0] == [1, 0, 0, 0, 0, 0]


def test_printed_symbol_and_tiles_add_up():
    """RULES §3.3: R on (0,-4): NW the symbol -> 1; SE (0,-3) R, (0,-2) R, (0,-1) empty -> 2;
    total 3.  B on (1,-4): SW (0,-3) is red -> 0, other rays empty -> 0."""
    covered = {(0, -3): R, (0, -2): R}
    g = h.game(covered=covered)
    assert h.half_points(g, "R0,-4+B1,-4") == {(0, -4): 3, (1, -4): 0}
    assert _play_scores(covered, "R0,-4+B1,-4", "RB")[0] == [3, 0, 0, 0, 0, 0]


def test_printed_symbol_inside_a_line():
    """RULES §1.4, §3.3, 3 players: B on (4,0), ray E: the blue symbol (5,0), (6,0) B, (7,0)
    outside the 3-player area -> 2.  R on (3,0) -> 0."""
    covered = {(6, 0): B}
    g = h.game(players=3, covered=covered)
    assert h.half_points(g, "R3,0+B4,0") == {(3, 0): 0, (4, 0): 2}
    assert _play_scores(covered, "R3,0+B4,0", "RB", players=3)[0] == [0, 0, 2, 0, 0, 0]


def test_printed_symbol_of_another_colour_stops_a_ray():
    """RULES §1.4, §3.3: next to the purple symbol (-5,0).  B on (-4,0): W is the purple
    symbol -> 0; NE (-3,-1), NW (-4,-1), SW (-5,1), SE (-4,1) empty -> 0.  P on (-4,0): W the
    purple symbol -> 1, then (-6,0) is outside the area.  R on (-3,0): all rays empty -> 0."""
    g = h.game()
    assert h.half_points(g, "B-4,0+R-3,0") == {(-4, 0): 0, (-3, 0): 0}
    assert h.half_points(g, "P-4,0+R-3,0") == {(-4, 0): 1, (-3, 0): 0}


# ---------------------------------------------------------------------------------------------
# doubles and the partner half
# ---------------------------------------------------------------------------------------------


def test_double_both_halves_see_the_same_cell():
    """RULES §3.3, spec decision 6: (1,-1) B is NE of (0,0) and NW of (1,0).  BB on (0,0)+(1,0):
    each half scores it: (1, 1); the blue counter gets 2."""
    covered = {(1, -1): B}
    g = h.game(covered=covered)
    assert h.half_points(g, "B0,0+B1,0") == {(0, 0): 1, (1, 0): 1}
    assert _play_scores(covered, "B0,0+B1,0", "BB")[0] == [0, 0, 2, 0, 0, 0]


def test_double_halves_score_on_their_own():
    """RULES §3.3: BB on (0,0)+(1,0) with (-1,0) B and (2,0), (3,0) B: the (0,0) half looks W
    -> 1; the (1,0) half looks E -> 2, then (4,0) empty; the blue counter gets 3."""
    covered = {(-1, 0): B, (2, 0): B, (3, 0): B}
    g = h.game(covered=covered)
    assert h.half_points(g, "B0,0+B1,0") == {(0, 0): 1, (1, 0): 2}
    assert _play_scores(covered, "B0,0+B1,0", "BB")[0] == [0, 0, 3, 0, 0, 0]


def test_partner_half_never_counts():
    """RULES §3.3: RR on (0,0)+(1,0) with (2,0), (3,0) R.  The (0,0) half skips E (its partner):
    its other rays are empty -> 0 (counting the partner would give 3).  The (1,0) half skips W
    and sees (2,0), (3,0) -> 2 (counting the partner would add 1).  Red counter +2."""
    covered = {(2, 0): R, (3, 0): R}
    g = h.game(covered=covered)
    assert h.half_points(g, "R0,0+R1,0") == {(0, 0): 0, (1, 0): 2}
    assert _play_scores(covered, "R0,0+R1,0", "RR")[0] == [2, 0, 0, 0, 0, 0]


# ---------------------------------------------------------------------------------------------
# gains() conventions, scores per player
# ---------------------------------------------------------------------------------------------


def test_gains_follow_the_canonical_colour_order():
    """RULES §3.3 via the spec: a move written second-half-first is canonicalised (cells[0] is
    row-major first, colours swapped along), and gains() follows move.colours.  B on (0,0) with
    (-1,0), (-2,0) B -> 2; R on (1,0) -> 0."""
    g = h.game(covered={(-1, 0): B, (-2, 0): B})
    m = genial.Move.parse("R1,0+B0,0")
    assert tuple(map(tuple, m.cells)) == ((0, 0), (1, 0))
    assert tuple(m.colours) == (B, R)
    assert m == genial.Move.place(((1, 0), (0, 0)), (R, B))
    assert tuple(int(x) for x in g.gains(m)) == (2, 0)
    assert tuple(int(x) for x in g.gains(genial.Move.parse("B0,0+R1,0"))) == (2, 0)


def test_gains_order_across_rows():
    """RULES §3.3, spec canonical order (row-major by (r, q)): B on (0,1), R on (1,0) - (1,0)
    is in row 0 and comes first, so the move is R1,0+B0,1 and gains are (R, B) = (0, 2): B on
    (0,1) looks W: (-1,1), (-2,1) B, (-3,1) empty -> 2; NE is its partner (1,0); E (1,1),
    NW (0,0), SW (-1,2), SE (0,2) empty."""
    g = h.game(covered={(-1, 1): B, (-2, 1): B})
    m = genial.Move.parse("B0,1+R1,0")
    assert str(m) == "R1,0+B0,1"
    assert tuple(int(x) for x in g.gains(m)) == (0, 2)


def test_gains_leave_the_game_unchanged_and_ignore_the_rack():
    """RULES §3.3, spec (gains: on the current board, not played): gains for a tile nobody
    holds, the position text unchanged."""
    g = h.game(covered={(-1, 0): B, (-2, 0): B}, racks=[["OO"], ["OO"]])
    before = g.to_text()
    assert h.half_points(g, "B0,0+G1,0") == {(0, 0): 2, (1, 0): 0}
    assert g.to_text() == before


def test_points_go_to_the_player_who_placed():
    """RULES §2.3, §3.3: player 1 (B at 5) places B on (0,0) next to (-1,0), (-2,0) B: +2 ->
    7; player 0's counters are unchanged."""
    covered = {(-1, 0): B, (-2, 0): B}
    start = [[1, 2, 3, 4, 5, 6], [0, 0, 5, 0, 0, 0]]
    after = _play_scores(covered, "B0,0+R1,0", "RB", to_move=1, start=start)
    assert after == [[1, 2, 3, 4, 5, 6], [0, 0, 7, 0, 0, 0]]


def test_two_colours_scored_by_one_tile():
    """RULES §3.3: B on (0,0) with (-1,0) B -> 1 (W); G on (1,0) with (2,0), (3,0) G -> 2 (E)."""
    covered = {(-1, 0): B, (2, 0): G, (3, 0): G}
    g = h.game(covered=covered)
    assert h.half_points(g, "B0,0+G1,0") == {(0, 0): 1, (1, 0): 2}
    assert _play_scores(covered, "B0,0+G1,0", "GB")[0] == [0, 2, 1, 0, 0, 0]


# ---------------------------------------------------------------------------------------------
# the cap at 18
# ---------------------------------------------------------------------------------------------


def test_cap_at_18_points_beyond_are_lost():
    """RULES §3.3: W of (0,0): (-1,0) .. (-4,0) B, then the purple symbol (-5,0) -> 4.  gains()
    reports 4 (no cap); blue 16 + 4 = 20 is capped at 18."""
    covered = {(-1, 0): B, (-2, 0): B, (-3, 0): B, (-4, 0): B}
    g = h.game(covered=covered)
    assert h.half_points(g, "B0,0+R1,0") == {(0, 0): 4, (1, 0): 0}
    after = _play_scores(covered, "B0,0+R1,0", "RB", start=[[0, 0, 16, 0, 0, 0], [0] * 6])
    assert after[0] == [0, 0, 18, 0, 0, 0]


def test_cap_on_a_full_counter():
    """RULES §3.3: blue already 18, +4 -> still 18."""
    covered = {(-1, 0): B, (-2, 0): B, (-3, 0): B, (-4, 0): B}
    after = _play_scores(covered, "B0,0+R1,0", "RB", start=[[0, 0, 18, 0, 0, 0], [0] * 6])
    assert after[0] == [0, 0, 18, 0, 0, 0]


def test_cap_on_a_double():
    """RULES §3.3, spec decision 6: BB with (1,-1) B scores 1 + 1; blue 17 + 2 -> 18."""
    after = _play_scores({(1, -1): B}, "B0,0+B1,0", "BB", start=[[0, 0, 17, 0, 0, 0], [0] * 6])
    assert after[0] == [0, 0, 18, 0, 0, 0]


# ---------------------------------------------------------------------------------------------
# the scoring fixtures (tests/fixtures/scoring.json)
# ---------------------------------------------------------------------------------------------


_CASES = load("scoring.json")["cases"]


@pytest.mark.parametrize("case", _CASES, ids=[c["name"] for c in _CASES])
def test_scoring_fixture(case):
    """RULES §3.3 (and §1.5 free pairs): every query of tests/fixtures/scoring.json."""
    players = case["players"]
    covered = {(q, r): c for q, r, c in case["covered"]}
    g = h.game(players=players, covered=covered)  # no racks: an analysis position, over
    if "free_pairs" in case:
        assert g.free_pairs == case["free_pairs"]
    for query in case["queries"]:
        cells = tuple(tuple(c) for c in query["cells"])
        m = genial.Move.place(cells, tuple(query["colours"]))
        got = g.gains(m)
        got_by_cell = {tuple(m.cells[0]): int(got[0]), tuple(m.cells[1]): int(got[1])}
        expected = {cells[0]: query["points"][0], cells[1]: query["points"][1]}
        assert got_by_cell == expected, query

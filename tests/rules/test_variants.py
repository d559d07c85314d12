"""Hand-computed rule tests for the variants: solo (RULES §4.1), teams (§4.2), tournament rules
(§4.3), the travel set (§2.2), and the genial.Rules objects that name them (README "Variants").

Colour indices R G B O Y P = 0..5; tiles (lo, hi).  Every expected number is worked out by hand
from docs/rules.md; the derivation is in a comment or docstring next to
it.  Placements on an otherwise empty region of the board score only what is derived: a ray
stops at the first empty cell (RULES §3.3), and the printed symbols are 5 from the centre.
"""

import json

import pytest

import genial

from . import positions as helpers

h = helpers
R, G, B, O, Y, P = range(6)  # noqa: E741 (the colour letters of RULES §1.4)
RR, RO, GG, BB = (0, 0), (0, 3), (1, 1), (2, 2)
OY, OP, YY, YP, PP = (3, 4), (3, 5), (4, 4), (4, 5), (5, 5)

# R on (0,0), partner on (1,0) (east): the W ray sees (-1,0) (-2,0) (-3,0) then (-4,0) empty -> 3.
RED_THREE = {(-1, 0): R, (-2, 0): R, (-3, 0): R}
# ... plus the NW ray (0,-1) (0,-2), then (0,-3) empty -> 2: 5 in all.
RED_FIVE = {**RED_THREE, (0, -1): R, (0, -2): R}
# The O half on (1,0) sees (2,0) (2,-1) (1,-1) (0,1) (1,1): all empty in these positions -> 0.
RED_MOVE = "R0,0+O1,0"

# Zero-scoring fillers (nothing of their colours nearby, see test_rules_turns.py):
FILL_RR = "R0,3+R1,3"  # (0,3),(1,3): neighbours (-1,3) (0,2) (1,2) (-1,4) (0,4) (2,3) (2,2) (1,4)
FILL_RO = "R0,-3+O1,-3"  # (0,-4) between (0,-3) and the red symbol is empty: NW ray 0
FILL_GG = "G2,-3+G3,-3"  # no G within reach: 0 + 0

# The full travel set in bag-field order (RULES §2.2): doubles 2, pairs 3.
#   RR RG RB RO RY RP | GG GB GO GY GP | BB BO BY BP | OO OY OP | YY YP | PP
TRAVEL_BAG = "2" + "33333" + "2" + "3333" + "2" + "333" + "2" + "33" + "2" + "3" + "2"

TOKENS = ["1", "1v", "2", "2T", "2v", "2Tv", "3", "4", "4t"]


def _bag_counts(g):
    return [int(ch) for ch in h.field(g, h.F_BAG)]


def _bag_minus(bag, *codes):
    counts = [int(ch) for ch in bag]
    for code in codes:
        counts[h.TILE_TYPES.index(h.tile(code))] -= 1
    return "".join(str(n) for n in counts)


def _assert_turn_passed(g, to):
    assert g.current_player == to
    assert g.phase == "place"
    assert g.bonus_plays == 0


def _assert_still_bonus(g, owed, player):
    assert g.current_player == player
    assert g.phase == "place"
    assert g.bonus_plays == owed
    assert h.field(g, h.F_PHASE) == "p"
    assert h.field(g, h.F_BONUS) == str(owed)


def _assert_over(g):
    assert g.is_over
    assert g.phase == "over"
    assert h.field(g, h.F_PHASE) == "x"
    assert g.legal_moves() == []
    before = g.to_text()
    for move in ("keep", "swap", "R4,2+R4,3"):
        with pytest.raises(genial.IllegalMoveError):
            g.play(move)
        assert g.to_text() == before


def _nearly_full(players, override=None):
    """Every free cell of the area covered except the pair (0,0)-(1,0) and the single cell
    (-3,-1) (its six neighbours are covered): exactly one free pair.  Colours: O, Y, P by
    (q - r) mod 3, or, with ``override``, a 6-colour pattern (q - r) mod 6 with the given cells
    forced (the 4-player area is too big for three colours: 160 halves > 3 x 40)."""
    keep_empty = {(0, 0), (1, 0), (-3, -1)}
    cells = [c for c in h.area_cells(players) if c not in h.PRINTED and c not in keep_empty]
    if override is None:
        return {c: O + (c[0] - c[1]) % 3 for c in cells}
    covered = {c: (c[0] - c[1]) % 6 for c in cells}
    covered.update(override)
    return covered


# =============================================================================================
# RULES §4.1: solo
# =============================================================================================


def _solo(**kw):
    return h.game(rules="1", **kw)


@pytest.mark.parametrize(
    ("before", "covered", "points", "after"),
    [
        # 16 + 5 = 21 crosses 18: stops at 18, the excess 3 is lost
        (16, RED_FIVE, 5, 18),
        # 17 + 3 = 20 -> 18 (excess 2 lost)
        (17, RED_THREE, 3, 18),
        # 15 + 3 = 18 exactly
        (15, RED_THREE, 3, 18),
        # from 18 the counter runs on: 18 + 3 = 21
        (18, RED_THREE, 3, 21),
        # 20 + 5 = 25 (above the crossing nothing is lost)
        (20, RED_FIVE, 5, 25),
        # 34 + 5 = 39 -> cap 36
        (34, RED_FIVE, 5, 36),
        # 36 + 3 -> 36
        (36, RED_THREE, 3, 36),
        # below the crossing: 0 + 5 = 5
        (0, RED_FIVE, 5, 5),
    ],
)
def test_solo_double_length_counter(before, covered, points, after):
    """RULES §4.1: a counter that reaches or passes 18 from below stops at 18 (excess lost),
    then runs on to 36, its cap.  R on (0,0) scores ``points`` (W ray 3, NW ray 2 with
    RED_FIVE; gains() is uncapped), O on (1,0) scores 0.  Then one tile (GG, the only type in
    the bag) is drawn: rack [GG], bag 2 - 1 = 1."""
    g = _solo(covered=covered, scores=[[before, 0, 0, 0, 0, 0]], racks=[["RO"]], bag={"GG": 2})
    assert h.half_points(g, RED_MOVE) == {(0, 0): points, (1, 0): 0}
    g.play(RED_MOVE)
    assert h.scores(g) == [[after, 0, 0, 0, 0, 0]]
    assert h.field(g, h.F_SCORES) == f"{after},0,0,0,0,0"
    assert h.rack(g, 0) == [GG]
    assert g.bag_size == 1
    _assert_turn_passed(g, 0)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # red and green reach 18 together (base game: two bonus plays, RULES §3.4)
        ([17, 17, 3, 4, 6, 7], [18, 18, 3, 4, 6, 7]),
        # red and green reach 36 together (teams would give two, RULES §4.2)
        ([35, 35, 3, 4, 6, 7], [36, 36, 3, 4, 6, 7]),
    ],
)
def test_solo_no_bonus_play_and_no_swap(before, after):
    """RULES §4.1: no bonus plays, no swap.  R on (0,0) sees (-1,0) R (W ray, 1), G on (1,0)
    sees (2,0) G (E ray, 1): both counters +1.  Afterwards the lowest colour is B (3) and the
    drawn tile OP shows no B: the base game would offer a swap (RULES §3.5).  Solo: same player,
    phase "place", bonus_plays 0, the new rack is the one drawn tile OP, bag 3 - 1 = 2."""
    g = _solo(covered={(-1, 0): R, (2, 0): G}, scores=[before], racks=[["RG"]], bag={"OP": 3})
    assert h.half_points(g, "R0,0+G1,0") == {(0, 0): 1, (1, 0): 1}
    g.play("R0,0+G1,0")
    assert h.scores(g) == [after]
    _assert_turn_passed(g, 0)
    assert h.field(g, h.F_PHASE) == "p"
    assert h.field(g, h.F_BONUS) == "0"
    assert h.rack(g, 0) == [OP]
    assert h.field(g, h.F_RACKS) == "OP"
    assert g.bag_size == 2
    moves = g.legal_moves()
    assert moves and all(m.kind == "place" for m in moves)
    for text in ("swap", "keep"):
        with pytest.raises(genial.IllegalMoveError):
            g.play(text)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_solo_new_game(seed):
    """RULES §4.1, §2.1, spec Variants: one player, the 2-player area (85 free cells), the
    standard set of 120 tiles; one tile on the rack, 119 in the bag; rules field "1".  The first
    placement must touch a printed symbol: 54 cell pairs (RULES §1.5, 2-player area), each in
    both orientations unless the tile is a double."""
    g = genial.Game(1, seed=seed)
    assert g.players == 1
    assert g.rules == genial.Rules(players=1)
    assert h.field(g, h.F_RULES) == "1"
    assert h.field(g, h.F_BOARD).count("-") == 85
    assert h.field(g, h.F_FIRST) == "-"
    assert len(h.rack(g, 0)) == 1
    assert len(h.field(g, h.F_RACKS)) == 2
    assert g.bag_size == 119
    counts = _bag_counts(g)
    counts[h.TILE_TYPES.index(h.rack(g, 0)[0])] += 1
    assert counts == [int(ch) for ch in h.FULL_BAG]
    assert g.current_player == 0
    assert g.phase == "place"
    assert g.bonus_plays == 0
    assert list(g.ranks()) == [0]
    moves = g.legal_moves()
    pairs = h.cell_pairs(moves)
    assert len(pairs) == 54
    assert all(h.touches_symbol(pair) for pair in pairs)
    lo, hi = h.rack(g, 0)[0]
    assert len(moves) == 54 * (1 if lo == hi else 2)


def test_solo_first_placement_must_touch_a_symbol():
    """RULES §4.1 (§3.2 with a single player): away from the symbols is illegal.  R on (0,-4)
    touches the red symbol (0,-5) (NW neighbour): legal; its NW ray sees the printed R -> red 1
    (the other rays of (0,-4) are empty, B on (1,-4) -> 0).  First-round field "R".  The next
    placement may go anywhere: GG on (0,0)+(1,0)."""
    g = _solo(racks=[["RB"]], bag={"GG": 2}, first="-", turn=1)
    before = g.to_text()
    with pytest.raises(genial.IllegalMoveError):
        g.play("R0,0+B1,0")
    assert g.to_text() == before
    assert all(h.touches_symbol(pair) for pair in h.cell_pairs(g.legal_moves()))
    g.play("R0,-4+B1,-4")
    assert h.scores(g) == [[1, 0, 0, 0, 0, 0]]
    assert h.field(g, h.F_FIRST) == "R"
    assert h.rack(g, 0) == [GG]
    # from the second placement on: every free pair is available (RULES §3.2)
    assert len(h.cell_pairs(g.legal_moves())) == g.free_pairs
    g.play("G0,0+G1,0")
    assert h.scores(g) == [[1, 0, 0, 0, 0, 0]]
    assert h.rack(g, 0) == [GG]
    assert g.bag_size == 0


def test_solo_ends_with_no_free_pair():
    """RULES §4.1 (ends when no placement is possible), spec decision 1: RG on the last free
    pair scores 0 (every neighbour is O, Y or P); the single cell (-3,-1) does not make a pair:
    over at once, no tile drawn (bag stays 5).  The result is the lowest counter (green,
    5); a single player: ranks() == [0], winner() == 0 once over (None before)."""
    g = _solo(
        covered=_nearly_full(1),
        scores=[[20, 5, 36, 18, 7, 9]],
        racks=[["RG"]],
        bag={"RG": 5},
    )
    assert g.free_pairs == 1
    assert not g.is_over
    assert g.winner() is None
    g.play("R0,0+G1,0")
    assert h.scores(g) == [[20, 5, 36, 18, 7, 9]]
    assert g.free_pairs == 0
    _assert_over(g)
    assert g.bag_size == 5
    assert list(g.ranks()) == [0]
    assert g.winner() == 0


def test_solo_ends_when_bag_and_rack_are_empty():
    """RULES §4.1, §3.6 Decision, spec Variants (ends when the rack is empty): rack RO, bag 1
    GG.  The first placement draws the last tile (rack [GG], bag 0, game on); the second leaves
    rack and bag empty: over, racks field "-", free pairs remain.  GG on (2,2)+(3,2) scores 0."""
    g = _solo(racks=[["RO"]], bag={"GG": 1})
    g.play(RED_MOVE)
    assert h.rack(g, 0) == [GG]
    assert g.bag_size == 0
    assert not g.is_over
    g.play("G2,2+G3,2")
    assert h.rack(g, 0) == []
    assert h.field(g, h.F_RACKS) == "-"
    assert g.bag_size == 0
    assert g.free_pairs > 0
    _assert_over(g)
    assert list(g.ranks()) == [0]
    assert g.winner() == 0
    assert genial.Game.from_text(g.to_text()).to_text() == g.to_text()


def test_solo_six_36s_end_the_game():
    """RULES §4.1 (cap 36), §3.6, spec Variants ("or at six 36s"), decision 1: purple 35; P on
    (0,0) sees (-1,0) P (W ray, 1) -> 36; R on (1,0) scores 0 (red stays at 36).  Six 36s: over
    at once, free pairs and bag (3) untouched, nothing drawn."""
    g = _solo(
        covered={(-1, 0): P},
        scores=[[36, 36, 36, 36, 36, 35]],
        racks=[["RP"]],
        bag={"GG": 3},
    )
    g.play("P0,0+R1,0")
    assert h.scores(g) == [[36] * 6]
    _assert_over(g)
    assert g.free_pairs > 0
    assert g.bag_size == 3
    assert g.winner() == 0


@pytest.mark.parametrize(
    ("rules", "value", "ok"),
    [
        ("1", 36, True),  # RULES §4.1: cap 36
        ("1", 37, False),
        ("2", 18, True),  # RULES §3.3: cap 18
        ("2", 19, False),
        ("4", 19, False),
        ("4t", 36, True),  # RULES §4.2: cap 36
        ("4t", 37, False),
    ],
)
def test_counter_range_in_position_text(rules, value, ok):
    """RULES §3.3, §4.1, §4.2, spec Variants (cap 36 for solo and teams, else 18): a position
    text with a counter above the cap is refused (PositionError)."""
    players = int(rules[0])
    scores = [[value, 0, 0, 0, 0, 0] for _ in range(players)]
    text = h.position(rules=rules, scores=scores, racks=[["OO"]] * players, bag={"YY": 2})
    if ok:
        assert h.scores(genial.Game.from_text(text))[0][0] == value
    else:
        with pytest.raises(genial.PositionError):
            genial.Game.from_text(text)


@pytest.mark.parametrize("rules", ["1", "4t"])
def test_six_18s_do_not_end_a_double_length_game(rules):
    """RULES §4.1, §4.2 (counters run on to 36; the instant win is six 36s), against §3.6 (six
    18s end the base game): six counters at 18 load as a running game, and R on (0,0) seeing
    RED_THREE takes red on to 21 - no bonus play (18 already passed), the game goes on.  Solo:
    the drawn GG is the new rack; teams: GG shows G (lowest, 18): no swap, seat 1 moves."""
    players = int(rules[0])
    scores = [[18] * 6 if p % 2 == 0 else [0] * 6 for p in range(players)]
    racks = [["RO", "GG"] if players > 1 else ["RO"]] + [["YY"]] * (players - 1)
    g = h.game(rules=rules, covered=RED_THREE, scores=scores, racks=racks, bag={"GG": 2})
    assert not g.is_over
    g.play(RED_MOVE)
    assert h.scores(g)[0] == [21, 18, 18, 18, 18, 18]
    assert not g.is_over
    _assert_turn_passed(g, 0 if players == 1 else 1)
    if players == 4:
        assert h.scores(g)[2] == [21, 18, 18, 18, 18, 18]


@pytest.mark.parametrize(
    ("rules", "scores", "racks"),
    [
        ("1", [[36] * 6], [["OO"]]),  # RULES §4.1: six 36s (spec Variants)
        ("4t", [[36] * 6, [0] * 6] * 2, [["OO"]] * 4),  # RULES §4.2: a team's six 36s
        ("1", [[0] * 6], [[]]),  # spec Variants: solo ends when the rack is empty
        ("2v", [[0] * 6] * 2, [[], []]),  # RULES §3.6 Decision: every rack empty
    ],
)
def test_loaded_end_positions_are_over_or_refused(rules, scores, racks):
    """RULES §3.6, §4.1, §4.2: a position text meeting an end condition but saying phase p is
    either refused (PositionError) or loads as a game that is over."""
    text = h.position(rules=rules, scores=scores, racks=racks, bag={"YY": 2}, phase="p")
    try:
        g = genial.Game.from_text(text)
    except genial.PositionError:
        return
    assert g.is_over
    assert g.legal_moves() == []


def test_solo_rack_holds_one_tile():
    """RULES §4.1 (no rack: one drawn tile), spec Variants (the racks field holds exactly the
    one drawn tile): a solo position with two tiles on the rack is refused."""
    with pytest.raises(genial.PositionError):
        genial.Game.from_text(h.position(rules="1", racks=[["RG", "BB"]], bag={"YY": 2}))
    assert h.rack(_solo(racks=[["RG"]], bag={"YY": 2}), 0) == [(R, G)]


# =============================================================================================
# RULES §4.2: teams
# =============================================================================================


def _teams(team0, team1, **kw):
    """A 4t position; seats 0 and 2 carry team0's counters, seats 1 and 3 team1's."""
    return h.game(rules="4t", scores=[team0, team1, team0, team1], **kw)


def test_teams_new_game():
    """RULES §4.2 (4 players, individual racks), §2.1, §2.3: four racks of 6, bag 120 - 24 =
    96, four score rows (spec: per seat), rules field "4t", seat 0 to move."""
    g = genial.Game(4, teams=True, seed=17)
    assert g.rules == genial.Rules(players=4, teams=True)
    assert h.field(g, h.F_RULES) == "4t"
    assert [len(h.rack(g, p)) for p in range(4)] == [6] * 4
    assert g.bag_size == 96
    assert h.scores(g) == [[0] * 6] * 4
    assert g.current_player == 0


def test_teams_partners_share_counters():
    """RULES §4.2: one set of counters per team.  Seat 0: R on (0,0) sees RED_THREE (W ray 3),
    O on (1,0) 0: team 0 red 2 + 3 = 5, rows 0 and 2.  Team 0's lowest are now G B O Y P (0)
    and the rack GG shows G: no swap, refill 1 + 5 PP (bag 5 -> 0), seat 1 to move.  Seat 1: Y
    on (0,3) sees (-1,3) Y (W ray, 1), B on (1,3) 0: team 1 yellow 1 + 1 = 2, rows 1 and 3;
    team 1's lowest (R G B O P at 1) shows on RR: no swap; the bag is empty: rack RR."""
    t0, t1 = [2, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1]
    g = _teams(
        t0,
        t1,
        covered={**RED_THREE, (-1, 3): Y},
        racks=[["RO", "GG"], ["BY", "RR"], ["YY"], ["YY"]],
        bag={"PP": 5},
    )
    g.play(RED_MOVE)
    t0 = [5, 0, 0, 0, 0, 0]
    assert h.scores(g) == [t0, t1, t0, t1]
    assert h.field(g, h.F_SCORES) == "5,0,0,0,0,0/1,1,1,1,1,1/5,0,0,0,0,0/1,1,1,1,1,1"
    _assert_turn_passed(g, 1)
    assert h.rack(g, 0) == [GG] + [PP] * 5
    assert g.bag_size == 0
    g.play("Y0,3+B1,3")
    t1 = [1, 1, 1, 1, 2, 1]
    assert h.scores(g) == [t0, t1, t0, t1]
    _assert_turn_passed(g, 2)
    assert h.rack(g, 1) == [RR]
    assert g.bag_size == 0


@pytest.mark.parametrize(
    ("before", "covered", "after", "owed"),
    [
        (15, RED_THREE, 18, 1),  # 15 + 3 = 18: reaches 18 from below
        (16, RED_FIVE, 18, 1),  # 16 + 5 = 21 -> 18 (excess lost), reaches 18
        (33, RED_THREE, 36, 1),  # 33 + 3 = 36: reaches 36
        (34, RED_FIVE, 36, 1),  # 34 + 5 = 39 -> 36, reaches 36
        (18, RED_THREE, 21, 0),  # already at 18: nothing to reach
        (20, RED_FIVE, 25, 0),
        (12, RED_THREE, 15, 0),
        (36, RED_THREE, 36, 0),  # already at 36: never again
    ],
)
def test_teams_bonus_at_18_and_at_36(before, covered, after, owed):
    """RULES §4.2: a bonus play when a team counter reaches 18 and again when it reaches 36;
    it is the placing seat's (here seat 2, the partner of seat 0).  R on (0,0): 3 (RED_THREE)
    or 5 (RED_FIVE); O on (1,0): 0.  With a bonus owed, seat 2 keeps moving and the rack is
    not refilled (GG PP, bag 4); else team 0's lowest colours (G..P at 0) show on GG: no swap,
    refill 2 + 4 PP, seat 3 to move."""
    t0, t1 = [before, 0, 0, 0, 0, 0], [1] * 6
    g = _teams(
        t0,
        t1,
        covered=covered,
        racks=[["YY"], ["YY"], ["RO", "GG", "PP"], ["YY"]],
        to_move=2,
        bag={"PP": 4},
    )
    g.play(RED_MOVE)
    t0 = [after, 0, 0, 0, 0, 0]
    assert h.scores(g) == [t0, t1, t0, t1]
    if owed:
        _assert_still_bonus(g, owed, 2)
        assert h.rack(g, 2) == [GG, PP]
        assert g.bag_size == 4
    else:
        _assert_turn_passed(g, 3)
        assert h.rack(g, 2) == [GG] + [PP] * 5
        assert g.bag_size == 0


def test_teams_two_bonus_plays_18_and_36_at_once():
    """RULES §4.2, spec Variants (one per team counter reaching 18, one per reaching 36): seat 1,
    team 1 red 17 and green 35.  R on (0,0) sees (-1,0) R -> 18; G on (1,0) sees (2,0) G -> 36:
    two bonus plays for seat 1."""
    t0, t1 = [0] * 6, [17, 35, 0, 0, 0, 0]
    g = _teams(
        t0,
        t1,
        covered={(-1, 0): R, (2, 0): G},
        racks=[["YY"], ["RG", "RR", "RO", "OY"], ["YY"], ["YY"]],
        to_move=1,
        bag={"PP": 4},
    )
    g.play("R0,0+G1,0")
    t1 = [18, 36, 0, 0, 0, 0]
    assert h.scores(g) == [t0, t1, t0, t1]
    _assert_still_bonus(g, 2, 1)
    g.play(FILL_RR)
    _assert_still_bonus(g, 1, 1)
    g.play(FILL_RO)
    # team 1's lowest (B O Y P at 0) show on OY: no swap; refill 1 + 4 PP
    _assert_turn_passed(g, 2)
    assert h.rack(g, 1) == [OY] + [PP] * 4


def test_teams_bonus_chain():
    """RULES §4.2, §3.4 (bonus plays chain): seat 2, team 0 red 17 and blue 35.  R on (0,0)
    sees (-1,0) R -> 18: one bonus play.  The bonus placement B on (0,3) sees (-1,3) B (W ray,
    1) -> 36: another (owed 1 - 1 + 1 = 1); O on (1,3) scores 0.  The third placement (GG)
    earns nothing.  Team 0 is then (18, 0, 36, 0, 0, 0); its lowest G O Y P show on YY: no
    swap, refill 1 + 5 PP, seat 3 to move.  Team 1's rows never move."""
    t0, t1 = [17, 0, 35, 0, 0, 0], [4] * 6
    g = _teams(
        t0,
        t1,
        covered={(-1, 0): R, (-1, 3): B},
        racks=[["OO"], ["OO"], ["RO", "BO", "GG", "YY"], ["OO"]],
        to_move=2,
        bag={"PP": 5},
    )
    g.play(RED_MOVE)
    _assert_still_bonus(g, 1, 2)
    assert h.scores(g)[0] == h.scores(g)[2] == [18, 0, 35, 0, 0, 0]
    g.play("B0,3+O1,3")
    _assert_still_bonus(g, 1, 2)
    t0 = [18, 0, 36, 0, 0, 0]
    assert h.scores(g) == [t0, t1, t0, t1]
    g.play(FILL_GG)
    assert h.scores(g) == [t0, t1, t0, t1]
    _assert_turn_passed(g, 3)
    assert h.rack(g, 2) == [YY] + [PP] * 5
    assert g.bag_size == 0


TEAM_SWAP_T0 = [5, 3, 3, 4, 6, 7]  # team 0: lowest G and B (tied at 3)
TEAM_SWAP_T1 = [0, 9, 9, 9, 9, 9]  # team 1: lowest R


def _team_swap_position(last):
    # GB on (0,0)+(1,0) of an empty board scores 0 + 0.  Seat 0's rack after it:
    # RR RO OY PP + last.  Seat 2 (the partner) holds G and B tiles: it does not matter.
    return _teams(
        TEAM_SWAP_T0,
        TEAM_SWAP_T1,
        racks=[["GB", "RR", "RO", "OY", "PP", last], ["YY"], ["GG", "BB"], ["YY"]],
        bag={"OP": 6},
    )


def test_teams_swap_on_the_team_lowest_colours():
    """RULES §4.2 (the swap rule looks at the team's lowest colours), §3.5: after GB seat 0's
    rack RR RO OY PP YP shows neither G nor B (team 0's lowest) - it shows R, the other team's
    lowest, and the partner's rack shows G and B: the swap is offered.  Swap: 6 OP drawn, the 5
    old tiles back in the bag, seat 1 to move."""
    g = _team_swap_position("YP")
    g.play("G0,0+B1,0")
    assert h.scores(g) == [TEAM_SWAP_T0, TEAM_SWAP_T1, TEAM_SWAP_T0, TEAM_SWAP_T1]
    assert g.phase == "swap"
    assert h.field(g, h.F_PHASE) == "s"
    assert g.current_player == 0
    assert g.legal_moves() == [genial.Move.swap(), genial.Move.keep()]
    g.play("swap")
    assert h.rack(g, 0) == [OP] * 6
    assert h.field(g, h.F_BAG) == h.bag_text({"RR": 1, "RO": 1, "OY": 1, "PP": 1, "YP": 1})
    assert h.rack(g, 2) == [GG, BB]
    _assert_turn_passed(g, 1)


@pytest.mark.parametrize("shows", ["RB", "RG", "BY", "GP"])
def test_teams_swap_refused_by_a_team_lowest_colour(shows):
    """RULES §4.2, §3.5: one tile showing G or B (team 0's tied lowest) refuses the swap: the
    rack is refilled (5 + 1 OP, bag 5) and seat 1 moves."""
    g = _team_swap_position(shows)
    g.play("G0,0+B1,0")
    _assert_turn_passed(g, 1)
    assert len(h.rack(g, 0)) == 6
    assert g.bag_size == 5


@pytest.mark.parametrize(
    ("team0", "team1", "better"),
    [
        # lowest 10 beats lowest 9 (RULES §3.7 on team counters)
        ([10] * 6, [9, 36, 36, 36, 36, 36], 0),
        # sorted (20 21 22 23 24 25) < (20 21 22 23 24 26): the last colour decides
        ([25, 24, 23, 22, 21, 20], [20, 21, 22, 23, 24, 26], 1),
        # identical sorted vectors: shared
        ([3, 4, 5, 6, 7, 8], [8, 7, 6, 5, 4, 3], None),
    ],
)
def test_teams_ranking(team0, team1, better):
    """RULES §4.2 (teams ranked by §3.7 on team counters), spec (ranks() per seat, partners
    share): partners have equal ranks, the better team 0; a shared place gives 0 to all.
    winner() is None while the game runs."""
    g = _teams(team0, team1, racks=[["OO"]] * 4, bag={"YY": 5})
    ranks = [int(x) for x in g.ranks()]
    assert ranks[0] == ranks[2]
    assert ranks[1] == ranks[3]
    if better is None:
        assert ranks == [0, 0, 0, 0]
    else:
        assert ranks[better] == 0
        # the worse team: 1 by team (RULES §4.2) or 2 by seats (spec competition ranking)
        assert ranks[1 - better] in (1, 2)
    assert g.winner() is None


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_teams_instant_win_six_36s(seat):
    """RULES §4.2 (a team with all six at 36 wins at once), spec decision 1: the seat's team
    has five 36s and purple 35; P on (0,0) sees (-1,0) P (W ray, 1) -> 36 (R on (1,0): 0, red
    stays 36).  Over at once: no bonus play for reaching 36, no refill (rack GG, bag 5), free
    pairs remain; winner() is the team (seat % 2), whose seats rank 0."""
    team = seat % 2
    near = [36, 36, 36, 36, 36, 35]
    other = [1] * 6
    t0, t1 = (near, other) if team == 0 else (other, near)
    g = _teams(
        t0,
        t1,
        covered={(-1, 0): P},
        racks=[["RP", "GG"] if s == seat else ["OO"] for s in range(4)],
        to_move=seat,
        bag={"YY": 5},
    )
    g.play("P0,0+R1,0")
    rows = h.scores(g)
    assert rows[team] == rows[team + 2] == [36] * 6
    assert rows[1 - team] == rows[3 - team] == [1] * 6
    _assert_over(g)
    assert g.bonus_plays == 0
    assert g.free_pairs > 0
    assert h.rack(g, seat) == [GG]
    assert g.bag_size == 5
    assert g.winner() == team
    ranks = [int(x) for x in g.ranks()]
    assert ranks[team] == ranks[team + 2] == 0
    assert ranks[1 - team] == ranks[3 - team] > 0


@pytest.mark.parametrize(
    ("team0", "team1", "winner"),
    [([10] * 6, [11] * 6, 1), ([11] * 6, [10] * 6, 0), ([10] * 6, [10] * 6, None)],
)
def test_teams_winner_at_the_end_of_the_board(team0, team1, winner):
    """RULES §4.2, §3.6, §3.7, spec (winner() returns the winning TEAM): the 4-player board
    full but for (0,0)-(1,0) and the single cell (-3,-1); the eight other neighbours of the
    pair are O, so RG there scores 0 + 0.  The board is then full: over.  11 x 6 beats
    10 x 6: winner() is that team, whose seats rank 0; equal teams share: None, all rank 0."""
    ring = [(1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1), (2, 0), (2, -1), (1, 1)]
    covered = _nearly_full(4, override={c: O for c in ring})
    # material (RULES §2.1: 40 halves per colour): the pattern's cells per colour, plus the
    # racks' RG + 3 x YY and the bag's 3 x PP, stay within 40 (helper arithmetic, no engine)
    halves = [list(covered.values()).count(c) for c in range(6)]
    for c, extra in ((R, 1), (G, 1), (Y, 6), (P, 6)):
        halves[c] += extra
    assert max(halves) <= 40
    g = _teams(
        team0,
        team1,
        covered=covered,
        racks=[["RG"], ["YY"], ["YY"], ["YY"]],
        bag={"PP": 3},
    )
    assert g.free_pairs == 1
    g.play("R0,0+G1,0")
    assert h.scores(g) == [team0, team1, team0, team1]
    _assert_over(g)
    assert g.winner() == winner
    ranks = [int(x) for x in g.ranks()]
    if winner is None:
        assert ranks == [0, 0, 0, 0]
    else:
        assert ranks[winner] == ranks[winner + 2] == 0
        assert ranks[1 - winner] == ranks[3 - winner] > 0


def test_teams_partners_rows_must_match_in_a_position_text():
    """RULES §4.2 (one set of counters per team), spec Variants: partners' rows must be equal in
    the scores field (else PositionError); the same rows in the 4-player base game are fine."""
    scores = [[1, 0, 0, 0, 0, 0], [0] * 6, [2, 0, 0, 0, 0, 0], [0] * 6]
    kw = dict(scores=scores, racks=[["OO"]] * 4, bag={"YY": 2})
    with pytest.raises(genial.PositionError):
        genial.Game.from_text(h.position(rules="4t", **kw))
    assert h.scores(genial.Game.from_text(h.position(rules="4", **kw))) == scores


# =============================================================================================
# RULES §4.3: tournament rules
# =============================================================================================


@pytest.mark.parametrize(("rules", "owed"), [("2", 2), ("2T", 1)])
def test_tournament_one_bonus_play_for_two_colours(rules, owed):
    """RULES §4.3 (at most one bonus play per placement) against §3.4 (one per counter): green
    and blue 17; B on (0,0) sees (-1,0) B (W ray, 1), G on (1,0) sees (2,0) G (E ray, 1): both
    reach 18.  Base game: 2 bonus plays; tournament: 1.  After the owed zero-scoring fillers
    the rack shows R or O (lowest, 0): no swap, player 1 to move."""
    g = h.game(
        rules=rules,
        scores=[[0, 17, 17, 0, 0, 0], [0] * 6],
        covered={(-1, 0): B, (2, 0): G},
        racks=[["GB", "RR", "RO", "OY"], ["YY"]],
        bag={"PP": 5},
    )
    g.play("B0,0+G1,0")
    assert h.scores(g)[0] == [0, 18, 18, 0, 0, 0]
    _assert_still_bonus(g, owed, 0)
    for filler in [FILL_RR, FILL_RO][:owed]:
        g.play(filler)
    _assert_turn_passed(g, 1)


def test_tournament_bonus_plays_still_chain():
    """RULES §4.3 (at most one per placement), §3.4 (chains): blue and green 17.  B on (0,0)
    sees (-1,0) B -> 18: one bonus play.  The bonus placement G on (0,3) sees (-1,3) G -> 18:
    one more (a new placement).  The third (RR) earns nothing; the rack OY shows O, a lowest
    colour: no swap."""
    g = h.game(
        rules="2T",
        scores=[[0, 17, 17, 0, 0, 0], [0] * 6],
        covered={(-1, 0): B, (-1, 3): G},
        racks=[["RB", "RG", "RR", "OY"], ["YY"]],
        bag={"PP": 5},
    )
    g.play("B0,0+R1,0")
    _assert_still_bonus(g, 1, 0)
    g.play("G0,3+R1,3")
    _assert_still_bonus(g, 1, 0)
    g.play("R0,-3+R1,-3")
    assert h.scores(g)[0] == [0, 18, 18, 0, 0, 0]
    _assert_turn_passed(g, 1)


def _second_first_placement(rules):
    """Player 0's first tile: R on (1,-5) (touching the red symbol (0,-5), its W neighbour), B
    on (2,-5); first-round field "R-"; player 1 makes their first placement (turn 2)."""
    return h.game(
        rules=rules,
        covered={(1, -5): R, (2, -5): B},
        racks=[["RR"], ["GO", "YY"]],
        to_move=1,
        first="R-",
        turn=2,
        bag={"PP": 5},
    )


@pytest.mark.parametrize(
    ("move", "rules", "first"),
    [
        # (2,-4) touches the tile half (2,-5) (its NW neighbour); no symbol next to (2,-4) or
        # (3,-4) (G (5,-5) is two away): tile only -> '+' under 2T, illegal in the base game
        ("G2,-4+O3,-4", "2T", "R+"),
        ("G2,-4+O3,-4", "2", None),
        # (-1,-4) touches the red symbol (its NE neighbour (0,-5)), no tile (the tile is 2 away):
        # the same symbol as player 0 -> legal under 2T, illegal in the base game (RULES §3.2)
        ("G-1,-4+O-1,-3", "2T", "RR"),
        ("G-1,-4+O-1,-3", "2", None),
        # (0,-4) touches the red symbol (NW) and the tile (1,-5) (NE): the symbol's letter
        ("G0,-4+O-1,-3", "2T", "RR"),
        ("G0,-4+O-1,-3", "2", None),
        # (4,-4) touches the green symbol (5,-5) (NE): a new symbol, legal under both
        ("G4,-4+O4,-3", "2T", "RG"),
        ("G4,-4+O4,-3", "2", "RG"),
        # (0,0)+(1,0) touches nothing: illegal under both
        ("G0,0+O1,0", "2T", None),
        ("G0,0+O1,0", "2", None),
    ],
)
def test_tournament_first_round(move, rules, first):
    """RULES §4.3 Decision (a first placement must touch a symbol or a tile, no
    different-symbol requirement) against §3.2; spec Variants (a first placement touching only
    a tile is written '+').  A legal first placement records its letter and passes the turn
    (player 1's counters are all 0, YY shows Y: no swap)."""
    g = _second_first_placement(rules)
    before = g.to_text()
    if first is None:
        with pytest.raises(genial.IllegalMoveError):
            g.play(move)
        assert g.to_text() == before
        assert h.mv(move) not in g.legal_moves()
        return
    assert h.mv(move) in g.legal_moves()
    g.play(move)
    assert h.field(g, h.F_FIRST) == first
    _assert_turn_passed(g, 0)
    assert genial.Game.from_text(g.to_text()).to_text() == g.to_text()


def test_tournament_first_placement_on_an_empty_board():
    """RULES §4.3 Decision: with no tile on the board a first placement must touch a symbol:
    the 54 cell pairs of RULES §1.5, as in the base game."""
    g = genial.Game(2, tournament=True, seed=8)
    assert h.field(g, h.F_RULES) == "2T"
    pairs = h.cell_pairs(g.legal_moves())
    assert len(pairs) == 54
    assert all(h.touches_symbol(pair) for pair in pairs)


def test_tournament_plus_field_round_trip():
    """Spec Variants, position text: '+' in the first-round field loads and is written back;
    player 1 (who touched only a tile) has placed, so their next placement is free, and player
    0's turn is a later-round one: any free pair (here (0,0)+(1,0), touching nothing)."""
    text = h.position(
        rules="2T",
        covered={(1, -5): R, (2, -5): B, (2, -4): G, (3, -4): O},
        racks=[["RR"], ["YY"]],
        first="R+",
        turn=3,
        bag={"PP": 5},
    )
    g = genial.Game.from_text(text)
    assert g.to_text() == text
    assert h.field(g, h.F_FIRST) == "R+"
    g.play("R0,0+R1,0")
    assert h.field(g, h.F_FIRST) == "R+"
    g.play("Y0,2+Y1,2")
    assert h.field(g, h.F_FIRST) == "R+"


def test_plus_first_round_mark():
    """RULES §4.3 (a tournament first placement may touch only a tile: '+') and the RULES §3.2
    Decision (a first-round rule that can no longer be met lapses; such a placement is '+' too):
    the mark reads back under both rules."""
    kw = dict(racks=[["OO"], ["YY"]], bag={"GG": 2}, first="R+", turn=3)
    for rules in ("2", "2T"):
        assert h.field(genial.Game.from_text(h.position(rules=rules, **kw)), h.F_FIRST) == "R+"


# =============================================================================================
# RULES §2.2: the travel set
# =============================================================================================


@pytest.mark.parametrize(("players", "rack_size", "token"), [(1, 1, "1v"), (2, 6, "2v")])
def test_travel_new_game_material(players, rack_size, token):
    """RULES §2.2: 3 of each of the 15 pairs and 2 of each of the 6 doubles = 45 + 12 = 57
    tiles in racks + bag; bag = 57 - 6 x 2 = 45 (2 players), 57 - 1 = 56 (solo: one drawn
    tile, RULES §4.1)."""
    g = genial.Game(players, tiles="travel", seed=21)
    assert h.field(g, h.F_RULES) == token
    assert g.rules.halves_per_colour == 19
    counts = _bag_counts(g)
    assert g.bag_size == sum(counts) == 57 - rack_size * players
    for p in range(players):
        rack = h.rack(g, p)
        assert len(rack) == rack_size
        for t in rack:
            counts[h.TILE_TYPES.index(t)] += 1
    assert sum(counts) == 57
    for (lo, hi), n in zip(h.TILE_TYPES, counts, strict=True):
        assert n == (2 if lo == hi else 3), (lo, hi)
    assert "".join(str(n) for n in counts) == TRAVEL_BAG


@pytest.mark.parametrize(
    ("rules", "extra_red", "ok"),
    [
        # red halves: RR 2 x 2 + (RG RB RO RY RP) 5 x 3 = 19 = the whole travel set
        ("2v", False, True),
        # a red double more on the board: 21 > 19
        ("2v", True, False),
        # the standard set allows 40
        ("2", True, True),
        ("1v", False, True),
        ("1v", True, False),
        ("1", True, True),
    ],
)
def test_travel_material_check(rules, extra_red, ok):
    """RULES §2.2, spec (from_text checks the material per colour): the travel set has 19
    halves of each colour.  The position holds the whole travel set (RG and OO on the racks,
    the rest in the bag) and, with extra_red, a red double more on the board."""
    players = int(rules[0])
    racks = [["RG"], ["OO"]][:players]
    bag = _bag_minus(TRAVEL_BAG, *[r[0] for r in racks])
    covered = {(0, 0): R, (1, 0): R} if extra_red else {}
    text = h.position(rules=rules, covered=covered, racks=racks, bag=bag)
    if ok:
        g = genial.Game.from_text(text)
        assert g.to_text() == text
    else:
        with pytest.raises(genial.PositionError):
            genial.Game.from_text(text)


def test_travel_refill_gets_what_is_left():
    """RULES §2.2, §3.6 Decision (refills draw what is left), spec decision 5: 2 tiles left in
    the bag; after RB (0 + 0 on an empty board; all counters 0, RR shows a lowest colour: no
    swap) the rack RR OY takes both PP: 4 tiles, bag 0."""
    g = h.game(rules="2v", racks=[["RB", "RR", "OY"], ["YY"]], bag={"PP": 2})
    g.play("R0,0+B1,0")
    assert h.rack(g, 0) == [RR, OY, PP, PP]
    assert g.bag_size == 0
    assert h.field(g, h.F_BAG) == h.EMPTY_BAG
    _assert_turn_passed(g, 1)


def test_travel_empty_rack_is_skipped_then_game_over():
    """RULES §3.6 Decision (a player whose rack is empty passes; if every rack is empty, the
    game ends), spec Variants: bag empty, player 1's rack empty.  Player 0 plays RB (0 + 0; GG
    shows G, a lowest colour: no swap): player 1 is skipped, player 0 moves again; GG (0 + 0)
    empties the last rack: over, although free pairs remain.  All counters 0: shared first
    place, ranks [0, 0], winner() None."""
    g = h.game(rules="2v", racks=[["RB", "GG"], []], bag=None, phase="p")
    g.play("R0,0+B1,0")
    _assert_turn_passed(g, 0)
    assert not g.is_over
    assert h.rack(g, 0) == [GG]
    g.play("G2,2+G3,2")
    assert h.rack(g, 0) == []
    assert h.field(g, h.F_RACKS) == "-/-"
    assert g.free_pairs > 0
    _assert_over(g)
    assert [int(x) for x in g.ranks()] == [0, 0]
    assert g.winner() is None


def test_travel_game_over_when_every_rack_is_empty():
    """RULES §3.6 Decision: player 0 places the last tile of both racks (bag empty): over at
    once.  R on (0,0) sees RED_THREE -> 3: player 0 (3,0,0,0,0,0) beats player 1 (all 0)."""
    g = h.game(rules="2v", covered=RED_THREE, racks=[["RO"], []], bag=None, phase="p")
    g.play(RED_MOVE)
    assert h.scores(g) == [[3, 0, 0, 0, 0, 0], [0] * 6]
    _assert_over(g)
    assert [int(x) for x in g.ranks()] == [0, 1]
    assert g.winner() == 0


SWAP_SCORES = [[5, 3, 3, 4, 6, 7], [0] * 6]  # player 0: lowest G and B (tied at 3)


def test_travel_swap_with_a_short_bag():
    """RULES §2.2, §3.5, spec Variants (the swap draws min(6, bag) before returning the old
    tiles): after GB (0 + 0) the rack RR RO OY PP YP shows neither G nor B: swap offered.  Bag
    2 OP: the swap draws both, then the 5 old tiles go back: rack OP OP, bag 5."""
    g = h.game(
        rules="2v",
        scores=SWAP_SCORES,
        racks=[["GB", "RR", "RO", "OY", "PP", "YP"], ["YY"]],
        bag={"OP": 2},
    )
    g.play("G0,0+B1,0")
    assert g.phase == "swap"
    assert g.legal_moves() == [genial.Move.swap(), genial.Move.keep()]
    g.play("swap")
    assert h.rack(g, 0) == [OP, OP]
    assert g.bag_size == 5
    assert h.field(g, h.F_BAG) == h.bag_text({"RR": 1, "RO": 1, "OY": 1, "PP": 1, "YP": 1})
    _assert_turn_passed(g, 1)


def test_travel_keep_with_a_short_bag():
    """RULES §2.2, §3.5, spec decision 4/5: as above but keep: the 5-tile rack takes 1 OP (6),
    bag 2 - 1 = 1."""
    g = h.game(
        rules="2v",
        scores=SWAP_SCORES,
        racks=[["GB", "RR", "RO", "OY", "PP", "YP"], ["YY"]],
        bag={"OP": 2},
    )
    g.play("G0,0+B1,0")
    g.play("keep")
    assert h.rack(g, 0) == sorted([RR, RO, OY, PP, YP, OP])
    assert g.bag_size == 1
    _assert_turn_passed(g, 1)


def test_travel_swap_with_an_empty_bag():
    """RULES §2.2, §3.5 and the decision that the swap needs a non-empty bag (it could only
    throw the rack away): after GB the rack RR RO OY PP YP shows neither G nor B, but the bag
    is empty: no swap is offered, nothing is drawn and the turn passes."""
    g = h.game(
        rules="2v",
        scores=SWAP_SCORES,
        racks=[["GB", "RR", "RO", "OY", "PP", "YP"], ["YY"]],
        bag=None,
    )
    g.play("G0,0+B1,0")
    assert g.phase == "place"
    assert h.rack(g, 0) == sorted([RR, RO, OY, PP, YP])
    assert g.bag_size == 0
    _assert_turn_passed(g, 1)


# =============================================================================================
# spec Variants: genial.Rules
# =============================================================================================

# token -> (players, teams, tournament, tiles), from the spec's letters t T v
KEYWORDS = {
    "1": (1, False, False, "standard"),
    "1v": (1, False, False, "travel"),
    "2": (2, False, False, "standard"),
    "2T": (2, False, True, "standard"),
    "2v": (2, False, False, "travel"),
    "2Tv": (2, False, True, "travel"),
    "3": (3, False, False, "standard"),
    "4": (4, False, False, "standard"),
    "4t": (4, True, False, "standard"),
}

STANDARD_COUNTS = [5 if lo == hi else 6 for lo, hi in h.TILE_TYPES]
TRAVEL_COUNTS = [2 if lo == hi else 3 for lo, hi in h.TILE_TYPES]


def _kw(token):
    players, teams, tournament, tiles = KEYWORDS[token]
    return dict(players=players, teams=teams, tournament=tournament, tiles=tiles)


@pytest.mark.parametrize("token", TOKENS)
def test_rules_parse_and_str(token):
    """Spec Variants: str(rules) is the rules field; parse(str) round trips and equals the
    keyword form (Rules is frozen: equal values compare equal)."""
    rules = genial.Rules.parse(token)
    assert str(rules) == token
    assert rules == genial.Rules(**_kw(token))
    assert genial.Rules.parse(str(rules)) == rules
    players, teams, tournament, tiles = KEYWORDS[token]
    assert (rules.players, rules.teams, rules.tournament, rules.tiles) == (
        players,
        teams,
        tournament,
        tiles,
    )


@pytest.mark.parametrize("token", TOKENS)
def test_rules_properties(token):
    """RULES §1.3 (radius 5/5/6/7; solo: the 2-player area, §4.1), §2.3 (rack 6; solo none),
    §3.3/§4.1/§4.2 (cap 18; 36 for solo and teams; crossing 18), §3.4/§4.1/§4.3 (bonus each /
    none / one), §3.2/§4.3 (first round), §3.5/§4.1 (no swap in solo), §2.1/§2.2 (tiles:
    standard 5/6 = 40 halves per colour: 2 x 5 + 5 x 6; travel 2/3 = 2 x 2 + 5 x 3 = 19)."""
    rules = genial.Rules.parse(token)
    players, teams, tournament, tiles = KEYWORDS[token]
    assert rules.radius == {1: 5, 2: 5, 3: 6, 4: 7}[players]
    assert rules.rack_size == (1 if players == 1 else 6)  # solo: the tile just drawn
    assert rules.cap == (36 if players == 1 or teams else 18)
    assert rules.crossing == 18
    assert rules.bonus == ("none" if players == 1 else "one" if tournament else "each")
    assert rules.first_round == ("symbol-or-tile" if tournament else "new-symbol")
    assert bool(rules.swap) == (players != 1)
    assert rules.counter_sets == (2 if teams else players)
    assert list(rules.tile_counts) == (TRAVEL_COUNTS if tiles == "travel" else STANDARD_COUNTS)
    assert rules.halves_per_colour == (19 if tiles == "travel" else 40)
    if teams:
        assert [rules.team_of(s) for s in range(4)] == [0, 1, 0, 1]


@pytest.mark.parametrize(
    ("kw", "word"),
    [
        (dict(players=2, teams=True), "team"),
        (dict(players=3, teams=True), "team"),
        (dict(players=1, teams=True), "team"),
        (dict(players=1, tournament=True), "tournament"),
        (dict(players=3, tournament=True), "tournament"),
        (dict(players=4, tournament=True), "tournament"),
        (dict(players=3, tiles="travel"), "travel"),
        (dict(players=4, tiles="travel"), "travel"),
    ],
)
def test_rules_invalid_combinations(kw, word):
    """RULES §4.2 (teams: 4 players), §4.3 (tournament: 2 players), §2.2 (travel: 1-2
    players), spec Variants: RulesError, a ValueError, with a message naming the rule; the same
    through Game(...) keywords."""
    assert issubclass(genial.RulesError, ValueError)
    with pytest.raises(genial.RulesError) as info:
        genial.Rules(**kw)
    assert word in str(info.value).lower()
    with pytest.raises(genial.RulesError):
        genial.Game(**kw)


@pytest.mark.parametrize(
    "token", ["1t", "2t", "3t", "1T", "3T", "4T", "3v", "4v", "4tv", "4tT", "1Tv"]
)
def test_rules_parse_invalid_combinations(token):
    """RULES §2.2, §4.2, §4.3, spec Variants: an invalid combination is a RulesError."""
    with pytest.raises(genial.RulesError):
        genial.Rules.parse(token)


@pytest.mark.parametrize("token", ["", "0", "5", "2x", "T2", "22", "t"])
def test_rules_parse_garbage(token):
    """Spec Variants: text that names no rules is refused with a ValueError."""
    with pytest.raises(ValueError):  # noqa: PT011 (the spec names RulesError only for combinations)
        genial.Rules.parse(token)


def test_rules_bad_values():
    """Spec Variants: players outside 1..4 and an unknown tile set are refused (ValueError)."""
    for kw in (dict(players=0), dict(players=5), dict(players=2, tiles="huge")):
        with pytest.raises(ValueError):  # noqa: PT011 (the API promises a ValueError here)
            genial.Rules(**kw)


@pytest.mark.parametrize("token", TOKENS)
def test_game_rules_keyword_equals_rules_object(token):
    """Spec Variants: Game(rules=Rules(...)) is the same game as the keyword form (same seed,
    same deal), and game.rules is that Rules; the position text starts with the token."""
    rules = genial.Rules.parse(token)
    a = genial.Game(rules=rules, seed=13)
    b = genial.Game(**_kw(token), seed=13)
    assert a.rules == b.rules == rules
    assert a.to_text() == b.to_text()
    assert a == b
    assert h.field(a, h.F_RULES) == token
    assert a.players == rules.players


@pytest.mark.parametrize("token", TOKENS)
def test_record_and_text_round_trip(token):
    """Spec position text and record, for every variant (RULES §2.2, §4): after a few greedy
    moves (bonus plays and swaps included when they come), from_text(to_text()) writes the same
    text, from_record(to_record()) equals the game (also through JSON), and replaying the
    record's moves from its start reproduces the text."""
    g = genial.Game(rules=genial.Rules.parse(token), seed=31)
    for _ in range(12):
        if g.is_over:
            break
        g.play(g.choose("greedy"))
        text = g.to_text()
        assert genial.Game.from_text(text).to_text() == text
        assert h.field(g, h.F_RULES) == token
    record = g.to_record()
    assert record["format"] == "genial-record"
    assert genial.Game.from_text(record["start"]).rules == g.rules
    assert genial.Game.from_record(record) == g
    again = genial.Game.from_record(json.loads(json.dumps(record)))
    assert again == g
    assert again.to_text() == g.to_text()


# =============================================================================================
# whole games per variant: the rules of §2.2 and §4 at every step
# =============================================================================================


def _material(g):
    """Tiles in the bag, on the racks and on the board (two halves a tile)."""
    return g.bag_size + sum(len(g.rack(p)) for p in range(g.players)) + len(g.board) // 2


@pytest.mark.parametrize("token", TOKENS)
@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_whole_games(token, policy):
    """RULES §2.1/§2.2 (120 or 57 tiles, always), §4.1 (solo: one tile on the rack, no bonus
    play, never a swap, counters in 0..36), §4.2 (partners' rows equal, counters in 0..36),
    §4.3 (at most one bonus play owed after a placement: a chain owes one at a time), §3.3
    (cap 18 otherwise), §3.6 (the end: no free pair, or every rack empty, or a set of six
    counters at the cap).  Records and position texts round-trip at the end."""
    rules = genial.Rules.parse(token)
    total = 57 if rules.tiles == "travel" else 120
    cap = 36 if token in ("1", "1v", "4t") else 18
    g = genial.Game(rules=rules, seed=7)
    steps = 0
    while not g.is_over:
        g.play(g.choose(policy))
        steps += 1
        assert steps < 400
        assert _material(g) == total
        rows = h.scores(g)
        assert all(0 <= v <= cap for row in rows for v in row)
        if token in ("1", "1v"):
            assert len(h.rack(g, 0)) <= 1
            assert g.bonus_plays == 0
            assert g.phase != "swap"
        if token == "4t":
            assert rows[0] == rows[2] and rows[1] == rows[3]
        if token in ("2T", "2Tv"):
            assert g.bonus_plays <= 1
    assert g.legal_moves() == []
    every_rack_empty = all(not g.rack(p) for p in range(g.players))
    six_at_cap = any(row == [cap] * 6 for row in h.scores(g))
    assert g.free_pairs == 0 or every_rack_empty or six_at_cap
    if rules.tiles == "standard" and token != "1":
        # RULES §3.6: the standard bag cannot run out before the board is full
        assert g.free_pairs == 0 or six_at_cap
    assert genial.Game.from_text(g.to_text()).to_text() == g.to_text()
    assert genial.Game.from_record(g.to_record()) == g

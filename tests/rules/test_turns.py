"""Hand-computed rule tests for the turn flow: bonus plays (RULES §3.4), the rack swap (§3.5),
the end of the game (§3.6) and the ranking (§3.7).

Colour indices R G B O Y P = 0..5; tiles (lo, hi).  Placements on an otherwise empty region of
the 2-player board score only what the docstring derives.
"""

import pytest

import genial

from . import positions as helpers

h = helpers
R, G, B, O, Y, P = range(6)  # noqa: E741 (the colour letters of RULES §1.4)
RR, RG, RB, RO, RY, RP = (0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5)
GG, GO, OY, OP, YP, PP = (1, 1), (1, 3), (3, 4), (3, 5), (4, 5), (5, 5)

# Zero-scoring placements used as filler (2-player board, nothing of their colours nearby):
#   R0,3+R1,3: neighbours (-1,3),(1,2),(0,2),(-1,4),(0,4),(2,3),(2,2),(1,4) all empty -> 0, 0
#   R0,-3+?1,-3: (0,-4) (between (0,-3) and the red symbol) is empty, the rest too -> 0, 0
FILL_RR = "R0,3+R1,3"
FILL_RO = "R0,-3+O1,-3"
FILL_RR_2 = "R0,-3+R1,-3"


def _assert_still_bonus(g, owed, player=0):
    assert g.current_player == player
    assert g.phase == "place"
    assert g.bonus_plays == owed
    assert h.field(g, h.F_PHASE) == "p"
    assert h.field(g, h.F_BONUS) == str(owed)


def _assert_turn_passed(g, to=1):
    assert g.current_player == to
    assert g.phase == "place"
    assert g.bonus_plays == 0


# ---------------------------------------------------------------------------------------------
# RULES §3.4: bonus plays
# ---------------------------------------------------------------------------------------------


def test_one_bonus_play():
    """RULES §3.4: blue 17; B on (0,0) next to (-1,0) B scores 1 (W ray; the rest empty) ->
    18: one bonus play, same player, phase "place", bonus_plays 1, no refill yet (rack RR, OY;
    bag 5).  After the bonus placement (RR, scores 0) the rack OY shows O, a lowest colour
    (R, G, O, Y, P are 0), so no swap: refill 1 + 5 PP, bag 5 - 5 = 0, turn to player 1."""
    g = h.game(
        scores=[[0, 0, 17, 0, 0, 0], [0] * 6],
        covered={(-1, 0): B},
        racks=[["RB", "RR", "OY"], ["YY"]],
        bag={"PP": 5},
    )
    g.play("B0,0+R1,0")
    assert h.scores(g)[0] == [0, 0, 18, 0, 0, 0]
    _assert_still_bonus(g, 1)
    assert h.rack(g, 0) == [RR, OY]
    assert g.bag_size == 5
    before = g.to_text()
    for text in ("keep", "swap"):
        with pytest.raises(genial.IllegalMoveError):
            g.play(text)
        assert g.to_text() == before
    g.play(FILL_RR)
    assert h.scores(g)[0] == [0, 0, 18, 0, 0, 0]
    _assert_turn_passed(g)
    assert h.rack(g, 0) == [OY] + [PP] * 5
    assert g.bag_size == 0


def test_two_bonus_plays_from_one_tile():
    """RULES §3.4, spec decision 6: green and blue 17; B on (0,0) (W: (-1,0) B -> 1) and G on
    (1,0) (E: (2,0) G -> 1): both reach 18 -> two bonus plays, taken one after the other."""
    g = h.game(
        scores=[[0, 17, 17, 0, 0, 0], [0] * 6],
        covered={(-1, 0): B, (2, 0): G},
        racks=[["GB", "RR", "RO", "OY"], ["YY"]],
        bag={"PP": 5},
    )
    assert h.half_points(g, "B0,0+G1,0") == {(0, 0): 1, (1, 0): 1}
    g.play("B0,0+G1,0")
    assert h.scores(g)[0] == [0, 18, 18, 0, 0, 0]
    _assert_still_bonus(g, 2)
    g.play(FILL_RR)
    _assert_still_bonus(g, 1)
    g.play(FILL_RO)
    assert h.scores(g)[0] == [0, 18, 18, 0, 0, 0]
    _assert_turn_passed(g)


def test_double_reaching_18_earns_one_bonus_play():
    """RULES §3.4, spec decision 6: blue 17; BB on (0,0)+(1,0) with (1,-1) B scores 1 + 1 ->
    18 (19 capped): one counter reached 18 -> one bonus play."""
    g = h.game(
        scores=[[0, 0, 17, 0, 0, 0], [0] * 6],
        covered={(1, -1): B},
        racks=[["BB", "RR", "OY"], ["YY"]],
        bag={"PP": 5},
    )
    g.play("B0,0+B1,0")
    assert h.scores(g)[0] == [0, 0, 18, 0, 0, 0]
    _assert_still_bonus(g, 1)


def test_bonus_plays_chain():
    """RULES §3.4: blue and green 17.  B on (0,0) (W (-1,0) B -> 1): blue 18, one bonus.  The
    bonus placement G on (0,3) (W (-1,3) G -> 1; R on (1,3) -> 0) takes green to 18: another
    bonus play (owed: 1 - 1 + 1 = 1).  The third placement earns nothing; the turn passes."""
    g = h.game(
        scores=[[0, 17, 17, 0, 0, 0], [0] * 6],
        covered={(-1, 0): B, (-1, 3): G},
        racks=[["RB", "RG", "RR", "OY"], ["YY"]],
        bag={"PP": 5},
    )
    g.play("B0,0+R1,0")
    _assert_still_bonus(g, 1)
    g.play("G0,3+R1,3")
    assert h.scores(g)[0] == [0, 18, 18, 0, 0, 0]
    _assert_still_bonus(g, 1)
    g.play(FILL_RR_2)
    assert h.scores(g)[0] == [0, 18, 18, 0, 0, 0]
    _assert_turn_passed(g)


def test_counter_already_at_18_never_triggers_again():
    """RULES §3.4: blue already 18, B on (0,0) next to (-1,0) B: no bonus play; the rack RR, OY
    shows lowest colours (R, O, Y, P at 0), so the turn passes."""
    g = h.game(
        scores=[[0, 0, 18, 0, 0, 0], [0] * 6],
        covered={(-1, 0): B},
        racks=[["RB", "RR", "OY"], ["YY"]],
        bag={"PP": 5},
    )
    g.play("B0,0+R1,0")
    assert h.scores(g)[0] == [0, 0, 18, 0, 0, 0]
    _assert_turn_passed(g)


def test_only_the_counter_reaching_18_triggers():
    """RULES §3.4: green already 18, blue 17; GB scoring 1 + 1 (as in
    test_two_bonus_plays_from_one_tile): only blue reaches 18 -> one bonus play."""
    g = h.game(
        scores=[[0, 18, 17, 0, 0, 0], [0] * 6],
        covered={(-1, 0): B, (2, 0): G},
        racks=[["GB", "RR", "OY"], ["YY"]],
        bag={"PP": 5},
    )
    g.play("B0,0+G1,0")
    assert h.scores(g)[0] == [0, 18, 18, 0, 0, 0]
    _assert_still_bonus(g, 1)


def test_bonus_plays_lapse_with_an_empty_rack():
    """RULES §3.4 Decision, spec decisions 2 and 4: the only tile RB takes blue to 18; the rack
    is empty, so the bonus play lapses; no swap (empty rack); refill 6 GO of 6, bag 0."""
    g = h.game(
        scores=[[0, 0, 17, 0, 0, 0], [0] * 6],
        covered={(-1, 0): B},
        racks=[["RB"], ["YY"]],
        bag={"GO": 6},
    )
    g.play("B0,0+R1,0")
    assert h.scores(g)[0] == [0, 0, 18, 0, 0, 0]
    _assert_turn_passed(g)
    assert h.rack(g, 0) == [GO] * 6
    assert g.bag_size == 0


def test_chained_bonus_play_lapses_when_the_rack_runs_out():
    """RULES §3.4 Decision: blue and green 17, rack RB RG.  RB (B on (0,0), W (-1,0) B -> 1)
    earns a bonus play; RG (G on (0,3), W (-1,3) G -> 1) earns another, but the rack is now
    empty: it lapses, no swap (empty rack), refill 5 PP, the turn passes."""
    g = h.game(
        scores=[[0, 17, 17, 0, 0, 0], [0] * 6],
        covered={(-1, 0): B, (-1, 3): G},
        racks=[["RB", "RG"], ["YY"]],
        bag={"PP": 5},
    )
    g.play("B0,0+R1,0")
    _assert_still_bonus(g, 1)
    g.play("G0,3+R1,3")
    assert h.scores(g)[0] == [0, 18, 18, 0, 0, 0]
    _assert_turn_passed(g)
    assert h.rack(g, 0) == [PP] * 5


def test_bonus_plays_owed_in_a_position_text():
    """RULES §3.4, spec position text (bonus field): a position with 2 bonus placements owed;
    each zero-scoring placement uses one, the same player keeps moving, then the turn passes
    (rack OY shows O, a lowest colour: no swap)."""
    g = h.game(
        scores=[[0, 18, 18, 0, 0, 0], [0] * 6],
        racks=[["RR", "RO", "OY"], ["YY"]],
        bag={"PP": 5},
        bonus=2,
    )
    assert g.bonus_plays == 2
    g.play(FILL_RR)
    _assert_still_bonus(g, 1)
    g.play(FILL_RO)
    _assert_turn_passed(g)


def test_turn_counter_and_bonus_plays():
    """RULES §3.2 (c): bonus placements belong to the same turn.  Spec position text, turn
    field (turns started so far): it moves on only when the turn passes (here from 5)."""
    g = h.game(
        scores=[[0, 0, 17, 0, 0, 0], [0] * 6],
        covered={(-1, 0): B},
        racks=[["RB", "RR", "OY"], ["YY"]],
        bag={"PP": 5},
    )
    assert h.field(g, h.F_TURN) == "5"
    g.play("B0,0+R1,0")
    assert h.field(g, h.F_TURN) == "5"
    g.play(FILL_RR)
    assert h.field(g, h.F_TURN) == "6"


# ---------------------------------------------------------------------------------------------
# RULES §3.5: the rack swap
# ---------------------------------------------------------------------------------------------

SWAP_SCORES = [[5, 3, 3, 4, 6, 7], [0] * 6]  # player 0: lowest colours G and B (tied at 3)
OLD_RACK = ["RR", "RO", "OY", "PP", "YP"]  # shows neither G nor B


def _swap_position(bag, rack_extra=None):
    # GB on (0,0)+(1,0) of an empty board scores 0 + 0: the counters stay as they are.
    rack = ["GB"] + (rack_extra if rack_extra is not None else OLD_RACK)
    return h.game(scores=SWAP_SCORES, racks=[rack, ["YY"]], bag=bag)


def _bag_counts(g):
    return [int(ch) for ch in h.field(g, h.F_BAG)]


def _rack_counts(g, p):
    counts = [0] * 21
    for t in h.rack(g, p):
        counts[h.TILE_TYPES.index(t)] += 1
    return counts


def test_swap_offered_with_tied_lowest_colours():
    """RULES §3.5, spec turn flow: after GB the rack RR RO OY PP YP shows neither G nor B (the
    tied lowest colours): phase "swap", same player, legal moves exactly [swap, keep]."""
    g = _swap_position({"OP": 6})
    g.play("G0,0+B1,0")
    assert h.scores(g)[0] == [5, 3, 3, 4, 6, 7]
    assert g.phase == "swap"
    assert h.field(g, h.F_PHASE) == "s"
    assert g.current_player == 0
    assert g.bonus_plays == 0
    assert g.legal_moves() == [genial.Move.swap(), genial.Move.keep()]
    assert h.rack(g, 0) == [RR, RO, OY, YP, PP]
    assert g.bag_size == 6
    before = g.to_text()
    with pytest.raises(genial.IllegalMoveError):
        g.play("R2,2+R3,2")
    assert g.to_text() == before


def test_swap_phase_in_a_position_text():
    """RULES §3.5, spec position text (phase s): loading a swap decision offers exactly
    [swap, keep]; keep refills 5 -> 6 from the bag."""
    g = h.game(scores=SWAP_SCORES, racks=[OLD_RACK, ["YY"]], bag={"OP": 6}, phase="s")
    assert g.phase == "swap"
    assert g.legal_moves() == [genial.Move.swap(), genial.Move.keep()]
    g.play("keep")
    assert h.rack(g, 0) == sorted([RR, RO, OY, YP, PP, OP])
    _assert_turn_passed(g)


def test_swap_draws_six_and_returns_the_old_tiles():
    """RULES §3.5, spec decision 4: bag 6 OP; the swap draws the 6 OP, then the 5 old tiles go
    back: bag = RR + RO + OY + YP + PP (5); the turn passes."""
    g = _swap_position({"OP": 6})
    g.play("G0,0+B1,0")
    g.play(genial.Move.swap())
    assert h.rack(g, 0) == [OP] * 6
    assert g.bag_size == 5
    assert h.field(g, h.F_BAG) == h.bag_text({"RR": 1, "RO": 1, "OY": 1, "YP": 1, "PP": 1})
    _assert_turn_passed(g)


def test_swap_bag_accounting():
    """RULES §3.5, spec decision 4: bag 7 (6 OP + 1 GG): the swap draws 6 of them, then the 5
    old tiles go back: bag 7 - 6 + 5 = 6; new rack + bag = old rack + old bag, per tile type."""
    g = _swap_position({"OP": 6, "GG": 1})
    g.play("G0,0+B1,0")
    old = [a + b for a, b in zip(_bag_counts(g), _rack_counts(g, 0), strict=False)]
    g.play("swap")
    assert len(h.rack(g, 0)) == 6
    assert g.bag_size == 6
    assert [a + b for a, b in zip(_bag_counts(g), _rack_counts(g, 0), strict=False)] == old
    # the drawn tiles came from the old bag: none of the returned ones can be in the rack
    # unless it was there before (it was not: the old bag had only OP and GG)
    assert set(h.rack(g, 0)) <= {OP, GG}
    _assert_turn_passed(g)


def test_swap_with_a_short_bag():
    """RULES §3.5, spec decision 4: only 3 tiles in the bag: the swap draws those 3, then puts
    the 5 old ones back: rack 3 OP, bag 5."""
    g = _swap_position({"OP": 3})
    g.play("G0,0+B1,0")
    g.play("swap")
    assert h.rack(g, 0) == [OP] * 3
    assert g.bag_size == 5
    assert h.field(g, h.F_BAG) == h.bag_text({"RR": 1, "RO": 1, "OY": 1, "YP": 1, "PP": 1})
    _assert_turn_passed(g)


def test_keep_refills_to_six():
    """RULES §3.2 (d), §3.5: keep refills the 5-tile rack with 1 OP: bag 6 - 1 = 5."""
    g = _swap_position({"OP": 6})
    g.play("G0,0+B1,0")
    g.play(genial.Move.keep())
    assert h.rack(g, 0) == sorted([RR, RO, OY, YP, PP, OP])
    assert g.bag_size == 5
    assert h.field(g, h.F_BAG) == h.bag_text({"OP": 5})
    _assert_turn_passed(g)


@pytest.mark.parametrize("shows", ["RB", "RG", "BY"])
def test_swap_refused_when_a_tile_shows_a_tied_lowest_colour(shows):
    """RULES §3.5: one tile showing G or B (either of the tied lowest colours) is enough: no
    swap decision, the rack is refilled (5 + 1 OP) and the turn passes."""
    g = _swap_position({"OP": 6}, rack_extra=["RR", "RO", "OY", "PP", shows])
    g.play("G0,0+B1,0")
    _assert_turn_passed(g)
    assert len(h.rack(g, 0)) == 6
    assert g.bag_size == 5


def test_swap_check_uses_the_counters_after_the_placement():
    """RULES §3.5 ("after the placements"), spec decision 4: red 4 is the only lowest colour
    before the turn.  RR on (0,0)+(1,0) with (-1,0), (-2,0) R scores 2 + 0 -> red 6; now G, B,
    O, Y, P (5) are lowest and the rack GB GO BO YP GY shows them: no swap (the rack shows no
    red, so checking before the placement would wrongly offer one)."""
    g = h.game(
        scores=[[4, 5, 5, 5, 5, 5], [0] * 6],
        covered={(-1, 0): R, (-2, 0): R},
        racks=[["RR", "GB", "GO", "BO", "YP", "GY"], ["YY"]],
        bag={"PP": 5},
    )
    g.play("R0,0+R1,0")
    assert h.scores(g)[0] == [6, 5, 5, 5, 5, 5]
    _assert_turn_passed(g)


def test_swap_not_offered_with_an_empty_rack():
    """RULES §3.5, spec decision 4: the last tile GB leaves the rack empty: no swap decision;
    refill 6 OP of 6."""
    g = _swap_position({"OP": 6}, rack_extra=[])
    g.play("G0,0+B1,0")
    _assert_turn_passed(g)
    assert h.rack(g, 0) == [OP] * 6
    assert g.bag_size == 0


# ---------------------------------------------------------------------------------------------
# RULES §3.6: the end
# ---------------------------------------------------------------------------------------------


def _nearly_full_board():
    """Every free cell of the 2-player area covered (with O, Y, P by (q - r) mod 3) except the
    pair (0,0)-(1,0) and the single cell (-3,-1), which is not adjacent to either: exactly one
    free pair."""
    keep_empty = {(0, 0), (1, 0), (-3, -1)}
    return {
        c: O + (c[0] - c[1]) % 3
        for c in h.area_cells(2)
        if c not in h.PRINTED and c not in keep_empty
    }


def test_game_ends_when_no_free_pair_remains():
    """RULES §3.6, spec decision 1: RG on the last free pair scores 0 (all neighbours are O, Y,
    P); no two adjacent empty cells remain (the single cell (-3,-1) does not count): the game
    is over at once, without refill (rack RR GG, bag still 5); every move is illegal."""
    g = h.game(
        covered=_nearly_full_board(),
        scores=[[3] * 6, [2, 9, 9, 9, 9, 9]],
        racks=[["RG", "RR", "GG"], ["OY"]],
        bag={"RG": 5},
    )
    assert g.free_pairs == 1
    assert not g.is_over
    assert h.cell_pairs(g.legal_moves()) == {frozenset({(0, 0), (1, 0)})}
    g.play("R0,0+G1,0")
    assert g.is_over
    assert g.phase == "over"
    assert h.field(g, h.F_PHASE) == "x"
    assert g.free_pairs == 0
    assert g.legal_moves() == []
    assert h.scores(g) == [[3] * 6, [2, 9, 9, 9, 9, 9]]
    assert h.rack(g, 0) == [RR, GG]
    assert g.bag_size == 5
    assert list(g.ranks()) == [0, 1]  # (3,3,3,3,3,3) beats (2,9,9,9,9,9): RULES §3.7
    before = g.to_text()
    for move in ("keep", "swap", "R-3,-1+G-2,-1", "R0,0+G1,0", genial.Move.keep()):
        with pytest.raises(genial.IllegalMoveError):
            g.play(move)
        assert g.to_text() == before


def test_game_ends_on_a_placement_that_earns_a_bonus_play():
    """RULES §3.4, §3.6, spec decision 1: as above, but (-1,0) is B and blue is 17: B on (0,0)
    scores 1 (W: (-1,0) B, then (-2,0) is Y; every other neighbour is O, Y or P) -> 18.  The
    board has no free pair left: the game is over, the bonus play is not taken, no refill."""
    covered = _nearly_full_board()
    covered[(-1, 0)] = B
    g = h.game(
        covered=covered,
        scores=[[0, 0, 17, 0, 0, 0], [1] * 6],
        racks=[["RB", "RR", "GG"], ["OY"]],
        bag={"RG": 5},
    )
    g.play("B0,0+R1,0")
    assert h.scores(g)[0] == [0, 0, 18, 0, 0, 0]
    assert g.is_over
    assert g.phase == "over"
    assert g.bonus_plays == 0
    assert g.legal_moves() == []
    assert h.rack(g, 0) == [RR, GG]
    assert g.bag_size == 5


def test_instant_win_with_six_18s():
    """RULES §3.6, §3.7, spec decision 1, 3 players: player 1 has five 18s and purple 17; P on
    (0,0) next to (-1,0) P (W ray -> 1) makes six 18s: the game ends at once (no bonus play,
    no refill) although free pairs remain, and player 1 ranks first.  Players 0 and 2:
    (17 x 6) beats (0 x 6)."""
    g = h.game(
        players=3,
        covered={(-1, 0): P},
        scores=[[17] * 6, [18, 18, 18, 18, 18, 17], [0] * 6],
        racks=[["OO"], ["RP", "GG"], ["OO"]],
        to_move=1,
        bag={"YY": 5},
    )
    g.play("P0,0+R1,0")
    assert h.scores(g)[1] == [18] * 6
    assert g.is_over
    assert g.phase == "over"
    assert g.free_pairs > 0
    assert g.legal_moves() == []
    assert g.bonus_plays == 0
    assert h.rack(g, 1) == [GG]
    assert g.bag_size == 5
    assert list(g.ranks()) == [1, 0, 2]
    before = g.to_text()
    with pytest.raises(genial.IllegalMoveError):
        g.play("G2,2+G3,2")
    assert g.to_text() == before


def _over_or_rejected(text):
    """A loaded position that meets an end condition is either refused or over."""
    try:
        g = genial.Game.from_text(text)
    except genial.PositionError:
        return
    assert g.is_over
    assert g.phase == "over"
    assert g.legal_moves() == []


def test_loaded_full_board_is_over():
    """RULES §3.6: the game ends as soon as no two adjacent empty cells remain - a board
    condition.  A position text with every free cell covered but phase p (racks RG, OO) must
    not give a live game without legal moves: PositionError, or a game that is over."""
    covered = {c: O + (c[0] - c[1]) % 3 for c in h.area_cells(2) if c not in h.PRINTED}
    _over_or_rejected(h.position(covered=covered, racks=[["RG"], ["OO"]], phase="p"))


def test_loaded_six_18s_is_over():
    """RULES §3.6: the game ends at once when a player's six counters are all at 18.  A
    position text with player 1 at six 18s and phase p: PositionError, or a game that is over
    (then player 1 ranks first, RULES §3.7)."""
    text = h.position(scores=[[0] * 6, [18] * 6], racks=[["RG"], ["OO"]], phase="p")
    _over_or_rejected(text)


# ---------------------------------------------------------------------------------------------
# RULES §3.7: ranking
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scores", "ranks"),
    [
        # lowest 10 beats lowest 9 (sorted: 10 11 12 13 14 15 vs 9 18 18 18 18 18)
        ([[15, 10, 14, 11, 13, 12], [18, 18, 9, 18, 18, 18]], [0, 1]),
        # (9, 12, 14, ...) beats (9, 12, 13, ...)
        ([[9, 12, 13, 18, 18, 18], [14, 9, 12, 15, 15, 15]], [1, 0]),
        # identical sorted vectors share the place
        ([[1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1]], [0, 0]),
        # competition ranking, 3 players: two tied best, the third has 2 strictly better players
        ([[5] * 6, [5] * 6, [4, 18, 18, 18, 18, 18]], [0, 0, 2]),
        # 4 players: p1 best; p0 and p2 share 3 4 5 6 7 8 (one better); p3 lowest 1: three better
        ([[3, 4, 5, 6, 7, 8], [7] * 6, [8, 7, 6, 5, 4, 3], [1, 18, 18, 18, 18, 18]], [1, 0, 1, 3]),
        # 4 players, two ties
        ([[6] * 6, [6] * 6, [5] * 6, [5, 5, 5, 5, 5, 5]], [0, 0, 2, 2]),
        # 4 players: last colour decides
        ([[2, 2, 2, 2, 2, 3], [2, 2, 2, 2, 2, 4], [2] * 6, [2, 2, 2, 2, 2, 5]], [2, 1, 3, 0]),
    ],
)
def test_ranking(scores, ranks):
    """RULES §3.7: sort each player's counters ascending, compare lexicographically, higher is
    better; rank = number of players strictly better (spec: competition ranking)."""
    g = h.game(players=len(scores), scores=scores, racks=[["OO"] for _ in scores], bag={"YY": 5})
    assert [int(x) for x in g.ranks()] == ranks

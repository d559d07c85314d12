"""Tests of the reference implementation's variants (tests/reference.py) against docs/rules.md.

Solo (RULES §4.1), teams (RULES §4.2), tournament rules (RULES §4.3) and the travel set
(RULES §2.2), with the decisions of the spec: hand-computed situations, then random games per
variant.
"""

from __future__ import annotations

import collections
import copy
import random

import pytest

from .board import (
    CAP,
    DIRECTIONS,
    KEEP,
    LONG_CAP,
    PRINTED,
    SWAP,
    TOUCHED_TILE,
    Reference,
    neighbour,
    placement,
    standard_set,
    tile_of,
    tile_set,
    travel_set,
)

R, G, B, O, Y, P = range(6)  # noqa: E741 (the colour letters of RULES §1.4)

# Five red cells seen from (0, 0): three to the west, two to the north-west (RULES §3.3).
RED_FIVE = {(-1, 0): R, (-2, 0): R, (-3, 0): R, (0, -1): R, (0, -2): R}
# Five green cells seen from (1, 0): two to the east, three to the north-east.
GREEN_FIVE = {(2, 0): G, (3, 0): G, (2, -1): G, (3, -2): G, (4, -3): G}
# Three purple cells seen from (0, 0), to the west.
PURPLE_THREE = {(-1, 0): P, (-2, 0): P, (-3, 0): P}

SWAP_RACK = [(B, O), (B, B), (O, Y), (Y, P), (P, P), (B, P)]  # no red, no green


def position(racks, *, covered=None, scores=None, first_round_done=True, **options):
    """A hand-built position: seat 0 to move with the given racks, covered cells and scores."""
    players = len(racks)
    ref = Reference(players, racks, **options)
    ref.covered.update(covered or {})
    for seat, vector in (scores or {}).items():
        ref.scores[seat] = list(vector)
    if first_round_done:
        # pretend every player has made their first placement (each touched a different symbol)
        ref.first_touched = list(range(players))
    return ref


def team_scores(team0, team1=(0,) * 6):
    """RULES §4.2: a seat's row is its team's counters (seats 0, 2 and seats 1, 3)."""
    return {0: team0, 2: team0, 1: team1, 3: team1}


def placed_pairs(moves):
    return {(move[1][0], move[2][0]) for move in moves if move[0] == "place"}


def quiet_spot(ref, colour_a, colour_b):
    """A placement on the first empty pair with no colour around it: it scores nothing (§3.3)."""
    empty = ref.empty_cells()
    for a, b in sorted(ref.empty_pairs()):
        around = {neighbour(cell, d) for cell in (a, b) for d in DIRECTIONS} - {a, b}
        if all(cell not in ref.covered and cell not in PRINTED for cell in around):
            assert a in empty and b in empty
            move = placement(a, colour_a, b, colour_b)
            assert ref.gains(move) == (0, 0)
            return move
    raise AssertionError("no quiet spot left")


# --------------------------------------------------------------------- RULES §2.2 travel set


def test_rules_2_2_travel_set_57_tiles_19_halves_per_colour():
    """RULES §2.2: 3 of each pair, 2 of each double: 57 tiles, 19 halves of each colour."""
    tiles = travel_set()
    assert tile_set("travel") == tiles
    assert tile_set("standard") == standard_set()
    assert len(tiles) == 21
    assert tiles.total() == 15 * 3 + 6 * 2 == 57
    assert all(count == (2 if lo == hi else 3) for (lo, hi), count in tiles.items())
    halves = collections.Counter()
    for (lo, hi), count in tiles.items():
        halves[lo] += count
        halves[hi] += count
    # each colour: 5 pairs x 3 tiles + 1 double x 2 tiles x 2 halves = 19
    assert halves == {colour: 19 for colour in range(6)}
    assert Reference(2, [[(R, G)] * 3, [(B, B)] * 2], tiles="travel").bag.total() == 57 - 5
    assert Reference(1, [[(R, G)]], tiles="travel").bag.total() == 56
    with pytest.raises(AssertionError):
        Reference(2, [[(R, R)] * 3, []], tiles="travel")  # only 2 red doubles in the travel set


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (3, {"tiles": "travel"}),  # RULES §2.2: 1-2 players
        (4, {"tiles": "travel"}),
        (4, {"tiles": "travel", "teams": True}),
        (2, {"tiles": "pocket"}),  # unknown set
        (1, {"teams": True}),  # RULES §4.2: 4 players
        (2, {"teams": True}),
        (3, {"teams": True}),
        (1, {"tournament": True}),  # RULES §4.3: 2 players
        (3, {"tournament": True}),
        (4, {"tournament": True}),
        (4, {"tournament": True, "teams": True}),
        (0, {}),
        (5, {}),
    ],
)
def test_bad_options_raise_value_error(players, options):
    """RULES §2.2, §4.2, §4.3: the options only combine with their player counts."""
    with pytest.raises(ValueError, match=r"players|tile set"):
        Reference(players, [[] for _ in range(players)], **options)
    with pytest.raises(ValueError, match=r"players|tile set"):
        Reference.from_covered(players, [], **options)


@pytest.mark.parametrize(
    ("players", "options"),
    [
        (1, {"tiles": "travel"}),
        (2, {"tiles": "travel"}),
        (2, {"tiles": "travel", "tournament": True}),
        (4, {"teams": True, "tiles": "standard"}),
    ],
)
def test_good_options_combine(players, options):
    """RULES §2.2: the travel set goes with solo, the 2-player game and tournament rules."""
    ref = Reference.from_covered(players, [(0, 0, R), (1, 0, G)], **options)
    assert ref.covered == {(0, 0): R, (1, 0): G}
    assert ref.bag == tile_set(options.get("tiles", "standard"))


def test_rules_3_6_travel_bag_runs_out_refills_draw_what_is_left_and_empty_racks_pass():
    """RULES §3.6 decision with the travel set (§2.2): refills take what is left, a player with an
    empty rack passes, and the game ends when every rack is empty."""
    racks = [[(R, G), (R, G)], [(B, O), (B, O), (B, O), (O, P)]]
    ref = position(racks, tiles="travel")
    ref.bag = collections.Counter({(Y, Y): 1})  # late in the game: one tile left in the bag

    # turn 1: player 0 places, the refill to 6 gets the last tile
    move = quiet_spot(ref, R, G)
    assert ref.draws_needed(move) == 1
    with pytest.raises(AssertionError):
        ref.play(move, [(Y, Y), (Y, Y)])
    ref.play(move, [(Y, Y)])
    assert ref.racks[0] == collections.Counter({(R, G): 1, (Y, Y): 1})
    assert ref.bag.total() == 0
    assert (ref.current_player, ref.turn) == (1, 2)

    # turns 2-5: nothing left to draw
    for player, tile, left in [(1, (B, O), 3), (0, (R, G), 1), (1, (B, O), 2), (0, (Y, Y), 0)]:
        assert ref.current_player == player
        move = quiet_spot(ref, *tile)
        assert ref.draws_needed(move) == 0
        ref.play(move, [])
        assert ref.racks[player].total() == left
        assert ref.phase == "place"
    assert ref.racks[0].total() == 0
    assert (ref.current_player, ref.turn) == (1, 6)

    # turn 6: player 1 places; player 0 has no tile and passes, so player 1 plays again
    ref.play(quiet_spot(ref, B, O), [])
    assert (ref.current_player, ref.turn) == (1, 7)
    assert ref.racks[1] == collections.Counter({(O, P): 1})
    assert not ref.is_over()

    # turn 7: the last tile: every rack is empty, the game ends with free pairs left
    ref.play(quiet_spot(ref, O, P), [])
    assert ref.is_over()
    assert ref.free_pairs() > 0
    assert ref.legal_moves() == set()
    assert ref.instant_winner() is None
    assert ref.ranks() == [0, 0]  # nobody scored


def test_rules_3_5_travel_swap_draws_what_is_left_then_returns_the_old_tiles():
    """RULES §3.5 with a short bag (§2.2, §3.6 decision): draw min(6, bag), then return the rack."""
    ref = position([SWAP_RACK, [(G, Y)] * 3], tiles="travel", scores={0: [3, 3, 5, 5, 5, 5]})
    ref.bag = collections.Counter({(R, R): 2})
    ref.play(placement((0, 0), B, (1, 0), O), [])
    assert ref.phase == "swap"
    assert ref.draws_needed(SWAP) == 2
    assert ref.draws_needed(KEEP) == 1
    with pytest.raises(AssertionError):
        ref.play(SWAP, [(R, R)])
    ref.play(SWAP, [(R, R), (R, R)])
    assert ref.racks[0] == collections.Counter({(R, R): 2})
    assert ref.bag == collections.Counter(SWAP_RACK[1:])
    assert ref.current_player == 1


def test_rules_3_5_travel_no_swap_with_an_empty_bag():
    """Decision: with the bag empty the swap is not offered (it could only throw the rack away):
    the turn passes with nothing drawn."""
    ref = position([SWAP_RACK, [(G, Y)] * 3], tiles="travel", scores={0: [3, 3, 5, 5, 5, 5]})
    ref.bag = collections.Counter()
    ref.play(placement((0, 0), B, (1, 0), O), [])
    assert ref.phase == "place"
    assert ref.racks[0] == collections.Counter(SWAP_RACK[1:])
    assert ref.current_player == 1


def test_rules_3_5_no_swap_offered_on_an_empty_rack():
    """RULES §3.5 / §3.6 decision: with the bag out, the last tile leaves an empty rack: no swap."""
    ref = position([[(B, O)], [(G, Y)] * 3], tiles="travel", scores={0: [3, 3, 5, 5, 5, 5]})
    ref.bag = collections.Counter()
    move = placement((0, 0), B, (1, 0), O)
    assert ref.draws_needed(move) == 0
    ref.play(move, [])
    assert ref.phase == "place"
    assert ref.current_player == 1


# --------------------------------------------------------------------- RULES §4.1 solo


def test_rules_4_1_solo_setup():
    """RULES §4.1: 2-player area, one tile in hand, the first placement touches a symbol."""
    ref = Reference(1, [[(R, G)]])
    assert ref.cap == LONG_CAP == 36
    assert len(ref.area()) == 91
    assert len(ref.empty_cells()) == 85
    assert ref.free_pairs() == 222
    assert ref.racks == [collections.Counter({(R, G): 1})]
    assert ref.bag.total() == 119
    moves = ref.legal_moves()
    assert len(placed_pairs(moves)) == 54  # RULES §1.5
    assert len(moves) == 108
    assert all(ref.touched_symbol(m[1][0], m[2][0]) is not None for m in moves)
    with pytest.raises(AssertionError):
        Reference(1, [[(R, G), (B, O)]])  # no rack: a single tile


def test_rules_4_1_solo_one_tile_one_draw_per_placement():
    """RULES §4.1: each turn draw one tile and place it; the first touches a symbol (§3.2)."""
    ref = Reference(1, [[(R, G)]])
    move = placement((0, -4), R, (1, -4), G)  # touches the red symbol (0, -5)
    assert ref.gains(move) == (1, 0)  # the printed red cell north-west of (0, -4)
    assert ref.draws_needed(move) == 1
    before = copy.deepcopy(ref.__dict__)
    with pytest.raises(AssertionError):
        ref.play(move, [])
    with pytest.raises(AssertionError):
        ref.play(move, [(B, B), (B, B)])
    assert ref.__dict__ == before
    ref.play(move, [(B, B)])
    assert ref.scores == [[1, 0, 0, 0, 0, 0]]
    assert ref.racks == [collections.Counter({(B, B): 1})]
    assert ref.bag.total() == 118
    assert ref.first_touched == [R]
    assert (ref.current_player, ref.phase, ref.turn) == (0, "place", 2)
    # from the second placement on, any free pair; a double gives one move per pair
    assert len(ref.legal_moves()) == ref.free_pairs()


def test_rules_4_1_crossing_at_18_excess_lost_no_bonus():
    """RULES §4.1: 16 + 5 stops at 18 (excess lost), no bonus play; then 18 + 3 = 21."""
    ref = position([[(R, B)]], covered=RED_FIVE, scores={0: [16, 0, 0, 0, 0, 0]})
    move = placement((0, 0), R, (1, 0), B)
    assert ref.gains(move) == (5, 0)
    assert ref.draws_needed(move) == 1
    ref.play(move, [(R, G)])
    assert ref.scores == [[18, 0, 0, 0, 0, 0]]
    assert ref.bonus_pending == 0  # RULES §4.1: no bonus plays
    assert (ref.current_player, ref.phase, ref.turn) == (0, "place", 2)
    # red at (0, 1) sees (0, 0), (0, -1), (0, -2) to the north-west: 3 more
    move = placement((0, 1), R, (1, 1), G)
    assert ref.gains(move) == (3, 0)
    ref.play(move, [(Y, Y)])
    assert ref.scores == [[21, 0, 0, 0, 0, 0]]
    assert ref.bonus_pending == 0


def test_rules_4_1_second_board_stops_at_36():
    """RULES §4.1: 34 + 5 stops at 36, the cap; a counter at 36 gains nothing more."""
    ref = position([[(R, B)]], covered=RED_FIVE, scores={0: [34, 0, 0, 0, 0, 0]})
    ref.play(placement((0, 0), R, (1, 0), B), [(R, G)])
    assert ref.scores == [[36, 0, 0, 0, 0, 0]]
    move = placement((0, 1), R, (1, 1), G)
    assert ref.gains(move) == (3, 0)
    ref.play(move, [(Y, Y)])
    assert ref.scores == [[36, 0, 0, 0, 0, 0]]
    assert not ref.is_over()


def test_rules_4_1_advance_counter():
    """RULES §3.3 and §4.1: the counter arithmetic on its own."""
    base = Reference(2, [[], []])
    assert [base.advance(16, 5), base.advance(18, 3), base.advance(0, 40)] == [18, 18, 18]
    solo = Reference(1, [[]])
    assert solo.advance(16, 5) == 18  # reaches and passes 18: stops there
    assert solo.advance(13, 5) == 18  # reaches 18 exactly
    assert solo.advance(17, 0) == 17
    assert solo.advance(0, 40) == 18  # never crosses in one go
    assert solo.advance(18, 3) == 21
    assert solo.advance(34, 5) == 36
    assert solo.advance(18, 40) == 36
    assert solo.advance(36, 4) == 36


def test_rules_4_1_a_double_adds_both_halves_at_once():
    """RULES §4.1 with a double (decision): the placement's points for a colour go in together, so
    16 + (3 + 2) stops at 18; half by half would give 16 + 3 -> 18, then 18 + 2 = 20."""
    covered = {(-1, 0): R, (-2, 0): R, (0, -1): R, (2, 0): R, (3, 0): R}
    ref = position([[(R, R)]], covered=covered, scores={0: [16, 0, 0, 0, 0, 0]})
    move = placement((0, 0), R, (1, 0), R)
    assert ref.gains(move) == (3, 2)
    ref.play(move, [(G, G)])
    assert ref.scores == [[18, 0, 0, 0, 0, 0]]


def test_rules_4_1_solo_no_swap():
    """RULES §4.1: no swap, even when the lowest colours are not in hand."""
    ref = position([[(B, O)]], scores={0: [3, 3, 5, 5, 5, 5]})
    move = placement((0, 0), B, (1, 0), O)
    assert ref.draws_needed(move) == 1
    ref.play(move, [(Y, P)])  # the new tile shows neither red nor green
    assert ref.phase == "place"
    assert SWAP not in ref.legal_moves()
    assert KEEP not in ref.legal_moves()
    with pytest.raises(AssertionError):
        ref.play(SWAP, [(R, R)])


def test_rules_4_1_solo_ends_when_the_bag_runs_out():
    """RULES §4.1 / §3.6 decision: no tile to draw leaves the hand empty and the game ends."""
    ref = position([[(R, G)]], tiles="travel")
    ref.bag = collections.Counter({(B, O): 1})
    move = quiet_spot(ref, R, G)
    assert ref.draws_needed(move) == 1
    ref.play(move, [(B, O)])
    move = quiet_spot(ref, B, O)
    assert ref.draws_needed(move) == 0
    ref.play(move, [])
    assert ref.is_over()
    assert ref.free_pairs() > 0
    assert ref.racks == [collections.Counter()]
    assert ref.instant_winner() is None
    assert ref.ranks() == [0]


def test_rules_4_1_solo_ends_when_no_placement_is_possible():
    """RULES §4.1: the last free pair filled ends the game, with no draw."""
    solo = Reference(1, [[]])
    keep_empty = {(0, 0), (1, 0), (4, -4)}
    covered = {cell: Y for cell in solo.empty_cells() if cell not in keep_empty}
    ref = position([[(R, G)]], covered=covered)
    assert ref.free_pairs() == 1
    move = placement((0, 0), R, (1, 0), G)
    assert ref.draws_needed(move) == 0
    bag = ref.bag.total()
    ref.play(move, [])
    assert ref.is_over()
    assert ref.bag.total() == bag
    assert ref.ranks() == [0]


def test_rules_4_1_solo_six_36s_end_the_game():
    """Decision (RULES §3.6 applied to §4.1): six counters at 36 end the solo game at once."""
    ref = position([[(R, P)]], covered=PURPLE_THREE, scores={0: [36, 36, 36, 36, 36, 33]})
    move = placement((0, 0), P, (1, 0), R)
    assert ref.gains(move) == (3, 0)
    assert ref.draws_needed(move) == 0
    ref.play(move, [])
    assert ref.scores == [[36] * 6]
    assert ref.is_over()
    assert ref.instant_winner() == 0
    assert ref.ranks() == [0]


# --------------------------------------------------------------------- RULES §4.2 teams

TEAM_RACKS = [[(R, G)] * 6, [(B, O)] * 6, [(R, Y)] * 6, [(B, P)] * 6]


def test_rules_4_2_team_setup():
    """RULES §4.2: whole board, racks of 6, teams {0, 2} and {1, 3}, counters to 36."""
    ref = Reference(4, TEAM_RACKS, teams=True)
    assert ref.cap == 36
    assert len(ref.area()) == 169
    assert ref.free_pairs() == 426
    assert [ref.team_of(seat) for seat in range(4)] == [0, 1, 0, 1]
    assert ref.seats_sharing_counters(2) == [0, 2]
    assert ref.seats_sharing_counters(1) == [1, 3]
    assert ref.bag.total() == 120 - 24
    # RULES §3.2 first round for each seat: 144 pairs touch a symbol on the 4-player board
    assert len(placed_pairs(ref.legal_moves())) == 144
    ref.play(placement((0, -4), R, (1, -4), G), [(O, O)])
    symbols = {ref.touched_symbol(m[1][0], m[2][0]) for m in ref.legal_moves()}
    assert symbols == {G, B, O, Y, P}


def test_rules_4_2_partners_share_counters():
    """RULES §4.2: a seat scores into its team's counters; the partner's row moves with it."""
    covered = {(-1, 0): R, (-2, 0): R, (-3, 0): R, (-1, -3): B, (-2, -3): B}
    ref = position(TEAM_RACKS, covered=covered, teams=True)
    ref.play(placement((0, 0), R, (1, 0), G), [(O, O)])  # red 3 for team 0
    assert ref.scores == [[3, 0, 0, 0, 0, 0], [0] * 6, [3, 0, 0, 0, 0, 0], [0] * 6]
    ref.play(placement((0, -3), B, (1, -3), O), [(O, O)])  # blue 2 for team 1
    assert ref.scores[1] == ref.scores[3] == [0, 0, 2, 0, 0, 0]
    # seat 2: red at (0, 1) sees (0, 0) to the north-west (and (0, -1) is empty): 1 more
    move = placement((0, 1), R, (1, 1), Y)
    assert ref.gains(move) == (1, 0)
    ref.play(move, [(O, O)])
    assert ref.scores[0] == ref.scores[2] == [4, 0, 0, 0, 0, 0]
    assert ref.scores[1] == ref.scores[3] == [0, 0, 2, 0, 0, 0]
    assert ref.current_player == 3


def test_rules_4_2_bonus_at_18_and_at_36_for_the_placing_seat():
    """RULES §4.2: red 16 + 5 -> 18 and green 34 + 5 -> 36 earn two bonus plays for seat 2."""
    rack = [(R, G), (R, G), (R, G), (B, O), (B, O), (Y, P)]
    racks = [[(O, P)] * 6, [(G, Y)] * 6, rack, [(B, P)] * 6]
    ref = position(
        racks,
        covered={**RED_FIVE, **GREEN_FIVE},
        scores=team_scores([16, 34, 5, 5, 5, 5]),
        teams=True,
    )
    ref.current_player = 2
    move = placement((0, 0), R, (1, 0), G)
    assert ref.gains(move) == (5, 5)
    assert ref.draws_needed(move) == 0
    ref.play(move, [])
    assert ref.scores[0] == ref.scores[2] == [18, 36, 5, 5, 5, 5]
    assert ref.scores[1] == ref.scores[3] == [0] * 6
    assert ref.bonus_pending == 2
    assert (ref.current_player, ref.phase, ref.turn) == (2, "place", 1)
    # the two bonus plays, by seat 2 from its own rack
    ref.play(quiet_spot(ref, R, G), [])
    assert (ref.current_player, ref.bonus_pending) == (2, 1)
    move = quiet_spot(ref, R, G)
    assert ref.draws_needed(move) == 3  # blue is lowest and in the rack: no swap
    ref.play(move, [(O, O)] * 3)
    assert ref.racks[2] == collections.Counter({(B, O): 2, (Y, P): 1, (O, O): 3})
    assert (ref.current_player, ref.bonus_pending, ref.turn) == (3, 0, 2)


def test_rules_4_2_bonus_only_when_a_mark_is_reached_from_below():
    """RULES §4.2 / §3.4: 18 + 5 -> 23 earns nothing; 35 + 5 -> 36 earns one bonus play."""
    racks = [[(R, G)] * 6, [(B, O)] * 6, [(Y, P)] * 6, [(B, P)] * 6]
    ref = position(
        racks,
        covered={**RED_FIVE, **GREEN_FIVE},
        scores=team_scores([18, 35, 5, 5, 5, 5]),
        teams=True,
    )
    ref.play(placement((0, 0), R, (1, 0), G), [])
    assert ref.scores[0] == ref.scores[2] == [23, 36, 5, 5, 5, 5]
    assert ref.bonus_pending == 1
    assert ref.current_player == 0


def test_rules_4_2_bonus_chain_up_the_second_board():
    """RULES §4.2 / §3.4: a bonus placement that takes a team counter to 36 earns another."""
    covered = {(-1, 0): R, (2, 0): B, (-1, 3): G}
    rack = [(R, B), (G, G), (R, B), (R, B), (O, P), (Y, Y)]
    racks = [rack, [(B, O)] * 6, [(Y, P)] * 6, [(B, P)] * 6]
    ref = position(racks, covered=covered, scores=team_scores([17, 35, 35, 0, 0, 0]), teams=True)
    ref.play(placement((0, 0), R, (1, 0), B), [])
    assert ref.scores[0] == [18, 35, 36, 0, 0, 0]
    assert ref.bonus_pending == 2
    green = placement((0, 3), G, (1, 3), G)
    assert ref.gains(green) == (1, 0)
    ref.play(green, [])
    assert ref.scores[2] == [18, 36, 36, 0, 0, 0]
    assert ref.bonus_pending == 2


def test_rules_4_2_swap_looks_at_the_team_counters():
    """RULES §4.2 / §3.5: seat 0's rack lacks the team's lowest colours (red, green tied)."""
    racks = [SWAP_RACK, [*SWAP_RACK[:-1], (B, Y)], [(R, G)] * 6, [(R, Y)] * 6]
    scores = team_scores([3, 3, 5, 5, 5, 5], [5, 5, 3, 3, 5, 5])
    ref = position(racks, scores=scores, teams=True)
    ref.play(placement((0, 0), B, (1, 0), O), [])
    # the partner's red-green tiles do not count: only the player's own rack
    assert ref.phase == "swap"
    assert ref.legal_moves() == {SWAP, KEEP}
    ref.play(KEEP, [(G, G)])
    # seat 1: the same kind of rack, but its team's lowest colours are blue and orange
    assert ref.current_player == 1
    move = placement((0, 2), B, (1, 2), O)
    assert ref.gains(move) == (0, 0)
    assert ref.draws_needed(move) == 1
    ref.play(move, [(G, G)])
    assert ref.current_player == 2


def test_rules_4_2_team_ranking():
    """RULES §4.2 / §3.7: teams compared on team counters; partners share the rank."""
    ref = Reference.from_covered(4, [], teams=True)
    for team0, team1, ranks in [
        ([10, 11, 11, 11, 11, 11], [9, 36, 36, 36, 36, 36], [0, 2, 0, 2]),
        ([9, 12, 13, 36, 36, 36], [9, 12, 14, 15, 16, 17], [2, 0, 2, 0]),
        ([20, 19, 18, 21, 22, 23], [23, 22, 21, 20, 19, 18], [0, 0, 0, 0]),
    ]:
        ref.scores = [list(team0), list(team1), list(team0), list(team1)]
        assert ref.ranks() == ranks


def test_rules_4_2_team_instant_win_at_six_36s():
    """RULES §4.2: seat 2 takes its team's last counter to 36: the game ends, seat 2 wins."""
    racks = [[(R, G)] * 6, [(B, O)] * 6, [(R, P)] * 6, [(B, P)] * 6]
    scores = team_scores([36, 36, 36, 36, 36, 33], [36, 36, 36, 36, 36, 35])
    ref = position(racks, covered=PURPLE_THREE, scores=scores, teams=True)
    ref.current_player = 2
    move = placement((0, 0), P, (1, 0), R)
    assert ref.gains(move) == (3, 0)
    assert ref.draws_needed(move) == 0
    ref.play(move, [])
    assert ref.scores[0] == ref.scores[2] == [36] * 6
    assert ref.is_over()
    assert ref.instant_winner() == 2
    assert ref.bonus_pending == 0  # the bonus for reaching 36 never comes
    assert ref.free_pairs() > 0
    assert ref.legal_moves() == set()
    assert ref.ranks() == [0, 2, 0, 2]


# --------------------------------------------------------------------- RULES §4.3 tournament


def test_rules_4_3_one_bonus_for_two_colours():
    """RULES §4.3: red and blue reach 18 together: one bonus play (two in the base game)."""
    covered = {(-1, 0): R, (2, 0): B, (-1, 3): G}
    rack = [(R, B), (G, G), (R, B), (R, B), (O, P), (Y, Y)]
    scores = {0: [17, 17, 17, 0, 0, 0]}
    base = position([rack, [(B, O)] * 6], covered=covered, scores=scores)
    base.play(placement((0, 0), R, (1, 0), B), [])
    assert base.bonus_pending == 2

    ref = position([rack, [(B, O)] * 6], covered=covered, scores=scores, tournament=True)
    ref.play(placement((0, 0), R, (1, 0), B), [])
    assert ref.scores[0] == [18, 17, 18, 0, 0, 0]
    assert ref.bonus_pending == 1
    assert ref.current_player == 0
    # the bonus play takes green to 18: it earns one more (bonus plays still chain)
    ref.play(placement((0, 3), G, (1, 3), G), [])
    assert ref.scores[0] == [18, 18, 18, 0, 0, 0]
    assert ref.bonus_pending == 1
    move = quiet_spot(ref, R, B)
    assert ref.draws_needed(move) == 3
    ref.play(move, [(Y, P)] * 3)
    assert (ref.current_player, ref.bonus_pending, ref.turn) == (1, 0, 2)


def test_rules_4_3_first_round_touching_a_tile_is_enough():
    """RULES §4.3 decision: a first placement may touch a tile instead of a symbol.

    By hand: the 8 cells around a domino in the centre form a ring with 8 edges and 22 edges to the
    cells further out: 30 pairs touch it, none of them near a symbol; with the 54 of RULES §1.5, 84.
    """
    racks = [[(R, G)] * 6, [(B, O)] * 6]
    centre = {(0, 0): Y, (1, 0): P}
    base = position(racks, covered=centre, first_round_done=False)
    assert len(placed_pairs(base.legal_moves())) == 54
    ref = position(racks, covered=centre, first_round_done=False, tournament=True)
    assert len(placed_pairs(ref.legal_moves())) == 54 + 30
    empty = position(racks, first_round_done=False, tournament=True)
    assert len(placed_pairs(empty.legal_moves())) == 54


def test_rules_4_3_same_symbol_twice_and_a_tile_only_first_placement():
    """RULES §4.3 decision: no "different symbol" requirement; touching a tile suffices."""
    racks = [[(R, G)] * 6, [(B, O)] * 6]
    ref = position(racks, first_round_done=False, tournament=True)
    base = position(racks, first_round_done=False)
    first = placement((1, -5), R, (2, -5), G)  # (1, -5) touches the red symbol (0, -5)
    ref.play(first, [(Y, Y)])
    base.play(first, [(Y, Y)])
    assert ref.first_touched == base.first_touched == [R, None]
    same_symbol = placement((-1, -4), B, (-2, -3), O)  # touches (0, -5), not the tile
    tile_only = placement((2, -4), B, (3, -4), O)  # touches the tile at (2, -5), no symbol
    nothing = placement((0, 0), B, (1, 0), O)
    assert ref.touched_symbol((-1, -4), (-2, -3)) == R
    assert ref.touched_symbol((2, -4), (3, -4)) is None
    tournament_moves, base_moves = ref.legal_moves(), base.legal_moves()
    assert same_symbol in tournament_moves and same_symbol not in base_moves
    assert tile_only in tournament_moves and tile_only not in base_moves
    assert nothing not in tournament_moves and nothing not in base_moves
    ref.play(tile_only, [(Y, Y)])
    assert ref.first_touched == [R, TOUCHED_TILE]
    # second round: any pair
    assert len(placed_pairs(ref.legal_moves())) == ref.free_pairs()


# --------------------------------------------------------------------- random games per variant

VARIANTS = {
    "solo": {"players": 1},
    "solo-travel": {"players": 1, "tiles": "travel"},
    "travel": {"players": 2, "tiles": "travel"},
    "tournament": {"players": 2, "tournament": True},
    "tournament-travel": {"players": 2, "tournament": True, "tiles": "travel"},
    "teams": {"players": 4, "teams": True},
}


def _check_invariants(ref, placed, aside):
    assert ref.phase in ("place", "swap", "over")
    for vector in ref.scores:
        assert len(vector) == 6
        assert all(0 <= score <= ref.cap for score in vector)
    if ref.teams:
        assert ref.scores[0] == ref.scores[2]
        assert ref.scores[1] == ref.scores[3]
    assert all(rack.total() <= ref.rack_size for rack in ref.racks)
    if ref.players == 1:
        assert ref.phase != "swap"
        assert ref.bonus_pending == 0
    if ref.tournament:
        assert ref.bonus_pending <= 1
    # material (RULES §2.1, §2.2): racks + bag + placed (+ set aside) tiles are the whole set
    total = collections.Counter(placed) + aside
    for rack in ref.racks:
        total += rack
    total += ref.bag
    assert total == ref.tile_set()
    assert len(ref.covered) == 2 * placed.total()
    assert not set(ref.covered) & set(PRINTED)
    assert set(ref.covered) <= ref.area()
    if ref.phase != "over":
        assert ref.racks[ref.current_player].total() > 0  # empty racks pass (RULES §3.6)


def _choose(ref, rng, greedy):
    moves = sorted(ref.legal_moves())
    if ref.phase == "swap" or not greedy or rng.random() < 0.2:
        return rng.choice(moves)
    # score-seeking: reach caps, crossings and bonus plays more often than random play does
    return max(moves, key=lambda move: (sum(ref.gains(move)), rng.random()))


def _new_game(variant, rng):
    options = dict(VARIANTS[variant])
    players = options.pop("players")
    bag = list(tile_set(options.get("tiles", "standard")).elements())
    rng.shuffle(bag)
    size = 1 if players == 1 else 6
    return Reference(players, [bag[size * p : size * p + size] for p in range(players)], **options)


def _play_to_the_end(ref, rng, *, greedy, aside=None):
    """Play random legal moves with random draws, checking the invariants; return the moves."""
    aside = aside or collections.Counter()
    placed = collections.Counter()
    _check_invariants(ref, placed, aside)
    players = ref.players
    steps = 0
    while not ref.is_over():
        move = _choose(ref, rng, greedy)
        player = ref.current_player
        need = ref.draws_needed(move)
        bag_before = ref.bag.total()
        ref.play(move, rng.sample(list(ref.bag.elements()), need))
        steps += 1
        if move[0] == "place":
            placed[tile_of(move[1][1], move[2][1])] += 1
            if players == 1 and not ref.is_over():
                # RULES §4.1: one placement, one draw, one tile in hand
                assert need == 1
                assert ref.racks[0].total() == 1
            if players == 1 and ref.is_over():
                assert need == 0
                assert ref.free_pairs() == 0 or bag_before == 0 or ref.instant_winner() == 0
        if ref.teams and not ref.is_over() and ref.current_player != player:
            assert ref.current_player == (player + 1) % 4  # the standard bag never runs out
        _check_invariants(ref, placed, aside)
        assert steps < 1000
    assert ref.legal_moves() == set()
    assert ref.bonus_pending == 0
    assert (
        ref.free_pairs() == 0
        or ref.instant_winner() is not None
        or all(rack.total() == 0 for rack in ref.racks)
    )
    ranks = ref.ranks()
    assert min(ranks) == 0
    if players == 1:
        assert ranks == [0]
    if ref.teams:
        assert ranks[0] == ranks[2] and ranks[1] == ranks[3]
    return steps


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_random_games_per_variant(variant, seed):
    """RULES §2.2, §4: random legal moves and random draws, invariants at every step, games end."""
    rng = random.Random(f"{variant}-{seed}")
    ref = _new_game(variant, rng)
    _play_to_the_end(ref, rng, greedy=seed % 2 == 1)
    if ref.tiles == "standard" and ref.players > 1:
        # RULES §3.6: the standard bag cannot run out, so the board decides the end
        assert ref.free_pairs() == 0 or ref.instant_winner() is not None


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("variant", ["solo-travel", "tournament-travel", "travel"])
def test_random_games_with_a_short_bag(variant, seed):
    """RULES §2.2 / §3.6 decision: with most of the bag set aside (as if used up), the bag runs
    out: refills take what is left, empty racks pass, and the game ends when every rack is empty."""
    rng = random.Random(f"short-{variant}-{seed}")
    ref = _new_game(variant, rng)
    keep = collections.Counter(rng.sample(list(ref.bag.elements()), 3 * seed))
    aside = ref.bag - keep
    ref.bag = keep
    _play_to_the_end(ref, rng, greedy=seed % 2 == 1, aside=aside)
    assert ref.free_pairs() > 0
    assert all(rack.total() == 0 for rack in ref.racks)
    assert ref.bag.total() == 0 or ref.players > 1  # a swap may return tiles to the bag


def test_base_cap_constant_unchanged():
    """RULES §3.3: the base game keeps its cap of 18 (the variants' cap is per game)."""
    assert CAP == 18
    assert Reference(2, [[], []]).cap == 18
    assert Reference(2, [[], []], tournament=True).cap == 18
    assert Reference(1, [[]], tiles="travel").cap == 36

"""Tests of the pure-Python reference implementation (tests/reference.py) against docs/rules.md.

The reference is the oracle of the differential tests, so it is checked here on its own: the derived
figures of RULES §1.5, the tile set of RULES §2.1, the shared scoring fixtures (RULES §3.3), and
hand-computed situations for the turn flow (RULES §3.2-§3.7 and the spec's decisions).
"""

from __future__ import annotations

import collections
import copy
import random

import pytest

from ..fixtures import load
from .board import (
    CAP,
    KEEP,
    PRINTED,
    SWAP,
    SYMBOL_CELLS,
    Reference,
    placement,
    standard_set,
    tile_of,
)

R, G, B, O, Y, P = range(6)  # noqa: E741 (the colour letters of RULES §1.4)

FULL_RACKS = {
    2: [[(R, G)] * 6, [(B, O)] * 6],
    3: [[(R, G)] * 6, [(B, O)] * 6, [(Y, P)] * 6],
    4: [[(R, G)] * 6, [(B, O)] * 6, [(Y, P)] * 6, [(R, P)] * 6],
}


def position(racks, *, players=2, covered=None, scores=None, first_round_done=True):
    """A hand-built position: player 0 to move with the given racks, covered cells and scores."""
    ref = Reference(players, racks)
    ref.covered.update(covered or {})
    for player, vector in (scores or {}).items():
        ref.scores[player] = list(vector)
    if first_round_done:
        # pretend every player has made their first placement (each touched a different symbol)
        ref.first_touched = list(range(players))
    return ref


def placed_pairs(moves):
    return {(move[1][0], move[2][0]) for move in moves if move[0] == "place"}


# --------------------------------------------------------------------------- RULES §1 geometry


@pytest.mark.parametrize(
    ("players", "cells", "free_cells", "free_pairs"),
    [(2, 91, 85, 222), (3, 127, 121, 306), (4, 169, 163, 426)],
)
def test_rules_1_3_and_1_5_area_free_cells_and_free_pairs(players, cells, free_cells, free_pairs):
    """RULES §1.3 area sizes; RULES §1.5 free cells 85/121/163 and free pairs 222/306/426."""
    ref = Reference(players, FULL_RACKS[players])
    assert len(ref.area()) == cells
    assert set(PRINTED) <= ref.area()
    assert len(ref.empty_cells()) == free_cells
    assert ref.free_pairs() == free_pairs


def test_rules_1_4_printed_cells_at_distance_5():
    """RULES §1.4: the six symbols are the corners of the 2-player area, R G B O Y P."""
    assert SYMBOL_CELLS == {R: (0, -5), G: (5, -5), B: (5, 0), O: (0, 5), Y: (-5, 5), P: (-5, 0)}


@pytest.mark.parametrize(("players", "pairs"), [(2, 54), (3, 102), (4, 144)])
def test_rules_1_5_first_round_pairs(players, pairs):
    """RULES §1.5 / §3.2: cell pairs touching a printed symbol on an empty board.

    54 for 2 players is stated in RULES §1.5. By hand for the others: the 6 neighbours of a symbol
    form a ring with 6 edges inside it and 18 edges to the 12 cells at distance 2 from the symbol.
    With 4 players all of them are in the area: 24 pairs per symbol, 144 in all. With 3 players
    (radius 6) the cells at distance 7 from the centre drop out: 3 corner cells and 4 side cells of
    the distance-2 ring remain (3 + 4 * 2 = 11 edges) plus the 6 ring edges: 17 per symbol, 102.
    (The 2-player count: 3 neighbours in the area, 2 ring edges + 7 outer edges = 9, 6 * 9 = 54.)
    """
    ref = Reference(players, FULL_RACKS[players])
    moves = ref.legal_moves()
    assert len(placed_pairs(moves)) == pairs
    assert len(moves) == 2 * pairs  # one two-colour tile type, both orientations
    # a double gives one move per pair
    doubles = Reference(players, [[(G, G)] * 5, *FULL_RACKS[players][1:]])
    assert len(doubles.legal_moves()) == pairs


# --------------------------------------------------------------------------- RULES §2 material


def test_rules_2_1_standard_set():
    """RULES §2.1: 21 tile types, 6 of each pair and 5 of each double, 120 tiles."""
    tiles = standard_set()
    assert len(tiles) == 21
    assert tiles.total() == 120
    assert all(count == (5 if lo == hi else 6) for (lo, hi), count in tiles.items())
    assert sum(1 for lo, hi in tiles if lo == hi) == 6
    halves = collections.Counter()
    for (lo, hi), count in tiles.items():
        halves[lo] += count
        halves[hi] += count
    assert halves == {colour: 40 for colour in range(6)}


def test_rules_2_3_bag_is_set_minus_racks():
    """RULES §2.3 / §3.1: the bag holds everything not in the racks."""
    ref = Reference(3, FULL_RACKS[3])
    assert ref.bag.total() == 120 - 18
    assert ref.bag[(R, G)] == 0
    assert ref.bag[(B, O)] == 0
    assert ref.bag[(Y, P)] == 0
    assert ref.current_player == 0
    assert ref.phase == "place"
    assert ref.turn == 1
    assert ref.scores == [[0] * 6 for _ in range(3)]


# --------------------------------------------------------------------------- RULES §3.3 fixtures


def _scoring_cases():
    return [pytest.param(case, id=case["name"]) for case in load("scoring.json")["cases"]]


@pytest.mark.parametrize("case", _scoring_cases())
def test_rules_3_3_scoring_fixtures(case):
    """RULES §3.3: every query of tests/fixtures/scoring.json, and free_pairs where given."""
    ref = Reference.from_covered(case["players"], [tuple(cell) for cell in case["covered"]])
    if "free_pairs" in case:
        assert ref.free_pairs() == case["free_pairs"]
    for query in case["queries"]:
        (a, b), (ca, cb) = [tuple(cell) for cell in query["cells"]], query["colours"]
        move = placement(a, ca, b, cb)
        points = ref.gains(move)
        if move[1][0] != a:  # the canonical move lists the halves the other way round
            points = points[::-1]
        assert list(points) == query["points"], query


def test_rules_3_3_gains_order_follows_the_move():
    """RULES §3.3: gains() gives the points of move[1] then move[2]; the partner never counts."""
    ref = Reference.from_covered(2, [(-1, 0, R), (-2, 0, R), (2, 0, B)])
    move = placement((0, 0), R, (1, 0), B)
    assert move == ("place", ((0, 0), R), ((1, 0), B))
    assert ref.gains(move) == (2, 1)
    # a red double: the east half looks west into its partner, which does not count
    assert ref.gains(placement((0, 0), R, (1, 0), R)) == (2, 0)


# --------------------------------------------------------------------------- RULES §3.2 first round


def test_rules_3_2_first_round_different_symbols():
    """RULES §3.2: each first placement touches a symbol no earlier first placement touched."""
    ref = Reference(3, FULL_RACKS[3])
    moves = ref.legal_moves()
    assert all(ref.touched_symbol(m[1][0], m[2][0]) is not None for m in moves)
    red_move = placement((0, -4), R, (1, -4), G)
    assert red_move in moves
    ref.play(red_move, [(R, R)])
    assert ref.first_touched == [R, None, None]
    moves = ref.legal_moves()
    symbols = {ref.touched_symbol(m[1][0], m[2][0]) for m in moves}
    assert symbols == {G, B, O, Y, P}
    assert len(placed_pairs(moves)) == 102 - 17
    blue_move = placement((4, 0), B, (4, 1), O)
    ref.play(blue_move, [(R, R)])
    symbols = {ref.touched_symbol(m[1][0], m[2][0]) for m in ref.legal_moves()}
    assert symbols == {G, O, Y, P}
    ref.play(placement((-4, 4), Y, (-4, 3), P), [(R, R)])
    # second round: any pair of adjacent empty cells
    assert ref.current_player == 0
    assert ref.turn == 4
    assert len(placed_pairs(ref.legal_moves())) == ref.free_pairs()


def test_rules_3_2_illegal_moves_rejected():
    """RULES §3.2: tile from the rack, adjacent empty cells of the area."""
    ref = position([[(R, G)] * 6, [(B, O)] * 6])
    before = copy.deepcopy(ref.__dict__)
    for move in [
        placement((0, 0), B, (1, 0), O),  # not in the rack
        placement((0, 0), R, (2, 0), G),  # not adjacent
        placement((0, -5), R, (1, -5), G),  # printed cell
        placement((0, 6), R, (1, 5), G),  # outside the 2-player area
        ("place", ((1, 0), R), ((0, 0), G)),  # not canonical
        SWAP,
    ]:
        with pytest.raises(AssertionError):
            ref.play(move, [])
    assert ref.__dict__ == before


# ----------------------------------------------------------------------- RULES §3.3-§3.4 cap, bonus


def test_rules_3_3_cap_at_18_and_bonus_play():
    """RULES §3.3: counters stop at 18, points beyond are lost; §3.4: reaching 18 earns a bonus."""
    red_line = {(-1, 0): R, (-2, 0): R, (-3, 0): R}
    ref = position([[(R, B)] * 6, [(B, O)] * 6], covered=red_line, scores={0: [16, 0, 0, 0, 0, 0]})
    move = placement((0, 0), R, (1, 0), B)
    assert ref.gains(move) == (3, 0)  # before the cap
    assert ref.draws_needed(move) == 0
    ref.play(move, [])
    assert ref.scores[0] == [18, 0, 0, 0, 0, 0]
    assert ref.bonus_pending == 1
    assert ref.phase == "place"
    assert ref.current_player == 0
    assert ref.turn == 1


def test_rules_3_4_counter_at_18_never_triggers_again():
    """RULES §3.4: a counter already at 18 earns no bonus play; the turn ends with a refill."""
    red_line = {(-1, 0): R, (-2, 0): R, (-3, 0): R}
    ref = position([[(R, B)] * 6, [(B, O)] * 6], covered=red_line, scores={0: [18, 0, 0, 0, 0, 0]})
    move = placement((0, 0), R, (1, 0), B)
    assert ref.draws_needed(move) == 1
    before = copy.deepcopy(ref.__dict__)
    with pytest.raises(AssertionError):
        ref.play(move, [])  # one tile must be drawn
    with pytest.raises(AssertionError):
        ref.play(move, [(G, G), (G, G)])
    with pytest.raises(AssertionError):
        ref.play(move, [(B, O)])  # not in the bag: all six are in player 1's rack
    assert ref.__dict__ == before
    ref.play(move, [(G, G)])
    assert ref.scores[0] == [18, 0, 0, 0, 0, 0]
    assert ref.bonus_pending == 0
    assert ref.racks[0] == collections.Counter({(R, B): 5, (G, G): 1})
    assert ref.current_player == 1
    assert ref.phase == "place"
    assert ref.turn == 2


def test_rules_3_4_two_colours_to_18_and_a_chain_of_bonus_plays():
    """RULES §3.4: two colours reaching 18 at once earn two bonus plays; bonus plays chain."""
    covered = {(-1, 0): R, (2, 0): B, (-1, 3): G}
    rack = [(R, B), (G, G), (R, B), (R, B), (O, P), (Y, Y)]
    ref = position([rack, [(B, O)] * 6], covered=covered, scores={0: [17, 17, 17, 0, 0, 0]})
    ref.play(placement((0, 0), R, (1, 0), B), [])
    assert ref.scores[0] == [18, 17, 18, 0, 0, 0]
    assert ref.bonus_pending == 2
    assert ref.current_player == 0
    assert ref.phase == "place"
    # first bonus play: the green double takes green to 18, earning a third
    green = placement((0, 3), G, (1, 3), G)
    assert ref.gains(green) == (1, 0)
    ref.play(green, [])
    assert ref.scores[0] == [18, 18, 18, 0, 0, 0]
    assert ref.bonus_pending == 2
    assert ref.current_player == 0
    # two more bonus plays that score nothing
    quiet = placement((3, -3), R, (3, -2), B)
    assert ref.gains(quiet) == (0, 0)
    ref.play(quiet, [])
    assert ref.bonus_pending == 1
    assert ref.current_player == 0
    quiet = placement((-3, -1), R, (-3, -2), B)
    assert ref.gains(quiet) == (0, 0)
    assert ref.draws_needed(quiet) == 4  # the rack keeps OP and YY (orange is lowest: no swap)
    ref.play(quiet, [(R, R)] * 4)
    assert ref.bonus_pending == 0
    assert ref.racks[0] == collections.Counter({(O, P): 1, (Y, Y): 1, (R, R): 4})
    assert ref.current_player == 1
    assert ref.turn == 2


def test_rules_3_4_bonus_lapses_with_an_empty_rack():
    """RULES §3.4 decision: with an empty rack the remaining bonus plays lapse; refill to 6."""
    covered = {(-1, 0): R, (2, 0): B}
    ref = position([[(R, B)], [(B, O)] * 6], covered=covered, scores={0: [17, 0, 17, 0, 0, 0]})
    move = placement((0, 0), R, (1, 0), B)
    assert ref.draws_needed(move) == 6
    ref.play(move, [(G, G)] * 3 + [(Y, Y)] * 3)
    assert ref.scores[0] == [18, 0, 18, 0, 0, 0]
    assert ref.bonus_pending == 0
    assert ref.current_player == 1
    assert ref.racks[0] == collections.Counter({(G, G): 3, (Y, Y): 3})


# --------------------------------------------------------------------------- RULES §3.5 swap

SWAP_RACK = [(B, O), (B, B), (O, Y), (Y, P), (P, P), (B, P)]


def test_rules_3_5_swap_offered_with_tied_lowest_colours():
    """RULES §3.5: no tile shows red or green (tied lowest): swap is offered; draw, then return."""
    ref = position([SWAP_RACK, [(G, Y)] * 6], scores={0: [3, 3, 5, 5, 5, 5]})
    move = placement((0, 0), B, (1, 0), O)
    assert ref.gains(move) == (0, 0)
    assert ref.draws_needed(move) == 0
    ref.play(move, [])
    assert ref.phase == "swap"
    assert ref.current_player == 0
    assert ref.turn == 1
    assert ref.legal_moves() == {SWAP, KEEP}
    assert ref.draws_needed(SWAP) == 6
    assert ref.draws_needed(KEEP) == 1
    # new tiles are drawn before the old ones go back: a tile only in the old rack can't be drawn
    del ref.bag[(Y, P)]
    bag_size = ref.bag.total()
    with pytest.raises(AssertionError):
        ref.play(SWAP, [(Y, P)] + [(R, R)] * 5)
    with pytest.raises(AssertionError):
        ref.play(SWAP, [(R, R)] * 5)
    new = [(R, R)] * 3 + [(R, Y)] * 3
    ref.play(SWAP, new)
    assert ref.racks[0] == collections.Counter(new)
    assert ref.bag[(Y, P)] == 1
    assert ref.bag[(R, R)] == 2
    assert ref.bag[(R, Y)] == 3
    assert ref.bag.total() == bag_size - 6 + 5
    assert ref.current_player == 1
    assert ref.phase == "place"
    assert ref.turn == 2


def test_rules_3_5_swap_refused_keeps_and_refills():
    """RULES §3.5: the swap is a choice; keep refills the rack to 6."""
    ref = position([SWAP_RACK, [(G, Y)] * 6], scores={0: [3, 3, 5, 5, 5, 5]})
    ref.play(placement((0, 0), B, (1, 0), O), [])
    assert ref.phase == "swap"
    ref.play(KEEP, [(G, G)])
    assert ref.racks[0] == collections.Counter([*SWAP_RACK[1:], (G, G)])
    assert ref.current_player == 1
    assert ref.phase == "place"


def test_rules_3_5_no_swap_when_a_tied_lowest_colour_is_in_the_rack():
    """RULES §3.5: every tied lowest colour counts: a green tile forbids the swap."""
    rack = [*SWAP_RACK[:-1], (G, P)]
    ref = position([rack, [(G, Y)] * 6], scores={0: [3, 3, 5, 5, 5, 5]})
    move = placement((0, 0), B, (1, 0), O)
    assert ref.draws_needed(move) == 1
    ref.play(move, [(R, R)])
    assert ref.current_player == 1
    assert ref.phase == "place"


def test_rules_3_5_lowest_colours_are_taken_after_scoring():
    """Spec decision 4: the check is made after the placements (here red rises off the bottom)."""
    # red and green lowest at 3 before; the red half scores 3, leaving green alone lowest
    covered = {(-1, 0): R, (-2, 0): R, (-3, 0): R}
    rack = [(R, O), *SWAP_RACK[1:]]
    ref = position([rack, [(G, Y)] * 6], covered=covered, scores={0: [3, 3, 5, 5, 5, 5]})
    ref.play(placement((0, 0), R, (1, 0), O), [])
    assert ref.scores[0] == [6, 3, 5, 5, 5, 5]
    assert ref.phase == "swap"


# --------------------------------------------------------------------------- RULES §3.6 end


def _full_board_but(players, empty, colour):
    ref = Reference(players, [[] for _ in range(players)])
    return {cell: colour for cell in ref.empty_cells() if cell not in empty}


def test_rules_3_6_game_ends_when_no_free_pair_remains():
    """RULES §3.6 / spec decision 1: the last pair filled ends the game; no bonus, no refill."""
    covered = _full_board_but(2, {(0, 0), (1, 0), (4, -4)}, P)  # (4, -4) stays a single empty cell
    ref = position([[(P, P)] * 5, [(B, O)] * 6], covered=covered)
    assert ref.free_pairs() == 1
    move = placement((0, 0), P, (1, 0), P)
    assert sum(ref.gains(move)) > CAP  # purple reaches 18: a bonus that never comes
    assert ref.draws_needed(move) == 0
    with pytest.raises(AssertionError):
        ref.play(move, [(R, R)])
    ref.play(move, [])
    assert ref.free_pairs() == 0
    assert ref.is_over()
    assert ref.phase == "over"
    assert ref.bonus_pending == 0
    assert ref.legal_moves() == set()
    assert ref.instant_winner() is None
    assert ref.scores[0][P] == 18
    assert ref.ranks() == [0, 1]
    assert ref.racks[0].total() == 4
    with pytest.raises(AssertionError):
        ref.play(KEEP, [])


def test_rules_3_6_instant_win_at_six_18s():
    """RULES §3.6: all six counters at 18 ends the game at once; that player ranks first (§3.7)."""
    ref = position(
        [[(R, P)] * 6, [(B, O)] * 6],
        covered={(-1, 0): P},
        scores={0: [18, 18, 18, 18, 18, 17], 1: [18, 18, 18, 18, 18, 16]},
    )
    move = placement((0, 0), P, (1, 0), R)
    assert ref.draws_needed(move) == 0
    ref.play(move, [])
    assert ref.scores[0] == [18] * 6
    assert ref.is_over()
    assert ref.instant_winner() == 0
    assert ref.bonus_pending == 0
    assert ref.free_pairs() > 0
    assert ref.legal_moves() == set()
    assert ref.ranks() == [0, 1]


def test_from_covered_full_board_is_over():
    """RULES §3.6: an analysis position with no free pair is over."""
    covered = [(q, r, colour) for (q, r), colour in _full_board_but(2, set(), R).items()]
    ref = Reference.from_covered(2, covered)
    assert ref.free_pairs() == 0
    assert ref.is_over()


# --------------------------------------------------------------------------- RULES §3.7 ranking


def _ranks(*score_vectors):
    ref = Reference.from_covered(len(score_vectors), [])
    ref.scores = [list(vector) for vector in score_vectors]
    return ref.ranks()


def test_rules_3_7_lowest_10_beats_lowest_9():
    """RULES §3.7 example: lowest 10 beats lowest 9, whatever the other colours."""
    assert _ranks([10, 11, 11, 11, 11, 11], [9, 18, 18, 18, 18, 18]) == [0, 1]
    assert _ranks([9, 18, 18, 18, 18, 18], [11, 10, 11, 11, 11, 11]) == [1, 0]


def test_rules_3_7_ties_broken_by_next_lowest():
    """RULES §3.7 example: (9, 12, 14, ...) beats (9, 12, 13, ...); counters are sorted first."""
    assert _ranks([9, 12, 14, 15, 16, 17], [9, 12, 13, 18, 18, 18]) == [0, 1]
    assert _ranks([18, 18, 12, 13, 9, 18], [17, 16, 15, 14, 12, 9]) == [1, 0]


def test_rules_3_7_identical_vectors_share_the_place():
    """RULES §3.7: identical sorted vectors share a place; competition ranking (1, 1, 3 style)."""
    assert _ranks([5] * 6, [5] * 6, [4] + [18] * 5) == [0, 0, 2]
    assert _ranks([1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1], [7] * 6, [0] * 6) == [1, 1, 0, 3]


# --------------------------------------------------------------------------- random games


def _placed_tile(move):
    return tile_of(move[1][1], move[2][1])


def _check_invariants(ref, placed):
    assert ref.phase in ("place", "swap", "over")
    for vector in ref.scores:
        assert len(vector) == 6
        assert all(0 <= score <= CAP for score in vector)
    assert all(rack.total() <= 6 for rack in ref.racks)
    assert ref.bonus_pending >= 0
    # tile conservation (RULES §2.1): racks + bag + placed tiles are the standard set
    total = collections.Counter(placed)
    for rack in ref.racks:
        total += rack
    total += ref.bag
    assert total == standard_set()
    assert len(ref.covered) == 2 * placed.total()
    halves = collections.Counter(ref.covered.values())
    placed_halves = collections.Counter()
    for (lo, hi), count in placed.items():
        placed_halves[lo] += count
        placed_halves[hi] += count
    assert halves == placed_halves
    assert not set(ref.covered) & set(PRINTED)
    assert set(ref.covered) <= ref.area()


@pytest.mark.parametrize("seed", range(50))
def test_random_games_to_the_end(seed):
    """RULES §3: random legal moves and random draws from the bag, invariants at every step."""
    rng = random.Random(seed)
    players = 2 + seed % 3
    bag = list(standard_set().elements())
    rng.shuffle(bag)
    racks = [bag[6 * p : 6 * p + 6] for p in range(players)]
    ref = Reference(players, racks)
    placed = collections.Counter()
    _check_invariants(ref, placed)
    steps = 0
    while not ref.is_over():
        moves = ref.legal_moves()
        assert moves, "a live position always has a legal move"
        if ref.phase == "swap":
            assert moves == {SWAP, KEEP}
        move = rng.choice(sorted(moves))
        player, turn = ref.current_player, ref.turn
        need = ref.draws_needed(move)
        draws = rng.sample(list(ref.bag.elements()), need)
        if need and steps % 7 == 0:
            before = copy.deepcopy(ref.__dict__)
            with pytest.raises(AssertionError):
                ref.play(move, draws[:-1])
            assert ref.__dict__ == before
        ref.play(move, draws)
        steps += 1
        if move[0] == "place":
            placed[_placed_tile(move)] += 1
        if need or move in (SWAP, KEEP):
            # the turn ended with a draw: next player, next turn
            if not ref.is_over():
                assert ref.current_player == (player + 1) % players
                assert ref.turn == turn + 1
            assert ref.racks[player].total() == 6
        elif not ref.is_over():
            # a bonus play is owed or the swap decision is pending: same player, same turn
            assert ref.current_player == player
            assert ref.turn == turn
            assert ref.phase == "swap" or ref.bonus_pending > 0
        _check_invariants(ref, placed)
        assert steps < 1000
    assert ref.free_pairs() == 0 or ref.instant_winner() is not None
    assert ref.legal_moves() == set()
    assert ref.bonus_pending == 0
    ranks = ref.ranks()
    assert min(ranks) == 0
    for p in range(players):
        better = [q for q in range(players) if sorted(ref.scores[q]) > sorted(ref.scores[p])]
        assert ranks[p] == len(better) or ref.instant_winner() is not None

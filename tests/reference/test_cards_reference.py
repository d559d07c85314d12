"""Hand-computed tests of the card-game reference (``tests/reference/cards.py``), RULES §5 / §3.7.

Every expected value below is worked out by hand in the test's docstring or comments. Colours:
R=0 G=1 B=2 O=3 Y=4 P=5; cards are written as colour pairs such as RG. Unless a test says
otherwise the game has 3 players. ``make`` builds a legal 60-card setup: the hands given
explicitly, the other hands filled from the leftover material, the rest is the deck.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.reference.cards import (
    Card,
    CardReference,
    advance_limit,
    colour_count,
    full_material,
    match_ranks,
    match_victory_points,
    rank_markers,
)

R, G, B, O, Y, P = range(6)  # noqa: E741 (O is orange, as in RULES' R G B O Y P)


def c(x: int, y: int) -> Card:
    """The card showing colours ``x`` and ``y``."""
    return (min(x, y), max(x, y))


RG, RB, RO, RY, RP = c(R, G), c(R, B), c(R, O), c(R, Y), c(R, P)
GB, GO, GY, GP = c(G, B), c(G, O), c(G, Y), c(G, P)
BO, BY, BP = c(B, O), c(B, Y), c(B, P)
OY, OP, YP = c(O, Y), c(O, P), c(Y, P)


def make(
    hands: list[list[Card] | None],
    displays: list[list[Card]],
    *,
    markers: list[list[int]] | None = None,
    turn_cap: int = 1000,
) -> CardReference:
    """A game whose explicit hands/displays are as given; ``None`` hands are filled."""
    used: Counter[Card] = Counter()
    for hand in hands:
        if hand is not None:
            used.update(hand)
    for display in displays:
        used.update(display)
    rest = full_material()
    rest.subtract(used)
    assert all(n >= 0 for n in rest.values()), "test setup uses a type more than 4 times"
    filled: list[list[Card]] = []
    for hand in hands:
        if hand is None:
            hand = []
            for card in sorted(rest, reverse=True):
                while rest[card] > 0 and len(hand) < 6:
                    hand.append(card)
                    rest[card] -= 1
        filled.append(hand)
    deck = list(rest.elements())
    return CardReference(len(hands), filled, displays, deck, turn_cap=turn_cap, markers=markers)


def zeros(n: int) -> list[list[int]]:
    return [[0] * 6 for _ in range(n)]


def any_draws(ref: CardReference, move: tuple[object, ...]) -> list[Card]:
    """Enough deck cards for ``move`` when no reshuffle is involved (smallest types first)."""
    need = ref.draws_needed(move)
    cards = sorted(ref.deck.elements())[:need]
    assert len(cards) == need
    return cards


def total_cards(ref: CardReference) -> Counter[Card]:
    total: Counter[Card] = Counter()
    for hand in ref.hands:
        total.update(hand)
    for display in ref.displays:
        total.update(display)
    total.update(ref.deck)
    total.update(ref.discard)
    return total


# --------------------------------------------------------------------------- §5.1 / §5.2 setup


def test_setup_state_rules_5_1_5_2() -> None:
    """RULES §5.2: player 0 moves first, discard empty, all markers in column 0 (§5.1),
    turns = 1, 3 players: 60 - 3*6 - 3 = 39 cards in the deck."""
    ref = make([None, None, None], [[RG], [RB], [GB]])
    assert ref.players == 3
    assert ref.current == 0
    assert ref.phase == "play"
    assert ref.bonus == 0
    assert ref.turns == 1
    assert not ref.truncated
    assert ref.winner_instant is None
    assert ref.markers == zeros(3)
    assert ref.discard == Counter()
    assert sum(ref.deck.values()) == 39
    assert all(sum(h.values()) == 6 for h in ref.hands)
    assert total_cards(ref) == full_material()


def test_material_validation_rules_5_1() -> None:
    """RULES §5.1 / §5.2 / §5.8: wrong material, hand size or display size raises ValueError."""
    good = make([None, None, None], [[RG], [RB], [GB]])
    hands = [sorted(h.elements()) for h in good.hands]
    displays = [list(d) for d in good.displays]
    deck = sorted(good.deck.elements())
    CardReference(3, hands, displays, deck)  # the good one is accepted
    with pytest.raises(ValueError, match="material"):  # 59 cards
        CardReference(3, hands, displays, deck[1:])
    assert deck[0] != deck[-1]
    # 60 cards, but 3 of one type and 5 of another:
    with pytest.raises(ValueError, match="material"):
        CardReference(3, hands, displays, [*deck[1:], deck[-1]])
    with pytest.raises(ValueError, match="hand"):  # a hand of 5 cards (one card moved to the deck)
        CardReference(3, [hands[0][1:], hands[1], hands[2]], displays, [*deck, hands[0][0]])
    with pytest.raises(ValueError, match="display"):  # a 3-player game needs one display card each
        CardReference(3, hands, [[RG, deck[0]], [RB], [GB]], deck[1:])
    with pytest.raises(ValueError, match="not a card"):  # a card must be (a, b) with a < b
        CardReference(3, hands, [[(1, 0)], [RB], [GB]], deck)
    with pytest.raises(ValueError, match="not a card"):  # two different colours
        CardReference(3, hands, [[(2, 2)], [RB], [GB]], deck)
    with pytest.raises(ValueError, match="players"):  # 5 players
        CardReference(5, hands, displays, deck)
    # 2 players need two display cards each (RULES §5.8):
    with pytest.raises(ValueError, match="display"):
        CardReference(2, hands[:2], [[RG], [RB]], [*deck, GB, *hands[2]])
    # markers violating §5.4 (G at 4 while R is at 0):
    with pytest.raises(ValueError, match="area restriction"):
        CardReference(3, hands, displays, deck, markers=[[0, 4, 0, 0, 0, 0], [0] * 6, [0] * 6])


def test_legal_moves_rules_5_3() -> None:
    """RULES §5.3: one move per distinct card and first colour. Hand RG RG BO BO BO YP has three
    distinct types -> 3 * 2 = 6 moves (identical cards are one move)."""
    ref = make([[RG, RG, BO, BO, BO, YP], None, None], [[RB], [GB], [OP]])
    assert ref.legal_moves() == {
        ("play", RG, R),
        ("play", RG, G),
        ("play", BO, B),
        ("play", BO, O),
        ("play", YP, Y),
        ("play", YP, P),
    }
    with pytest.raises(ValueError, match="illegal move"):  # a card not in the hand
        ref.play(("play", GP, G), [])
    with pytest.raises(ValueError, match="illegal move"):  # a colour the card does not show
        ref.draws_needed(("play", RG, B))
    with pytest.raises(ValueError, match="illegal move"):  # no swap decision in the play phase
        ref.play(("swap",), [])


# --------------------------------------------------------------------------- §5.3 scoring


def test_scoring_counts_all_displays_not_played_card_rules_5_3() -> None:
    """RULES §5.3. Displays: p0 RG, p1 RB, p2 GB. p0 plays RG scoring G first.
    G occurs on RG (own display) and GB -> 2: G 0 -> 2 (limit 3, §5.4). R occurs on RG, RB -> 2:
    R 0 -> 2. Had the played RG counted, each would be 3. Then the old display RG is discarded,
    the played RG becomes the display, the hand (5 cards) is refilled with 1 card; lowest
    colours {B, O, Y, P} are shown by OY, so no swap; p1 moves, turn 2."""
    ref = make([[RG, OY, OY, YP, YP, OP], None, None], [[RG], [RB], [GB]])
    assert colour_count(ref.displays, G) == 2
    move = ("play", RG, G)
    assert ref.draws_needed(move) == 1
    drawn = min(ref.deck)
    ref.play(move, [drawn])
    assert ref.markers[0] == [2, 2, 0, 0, 0, 0]
    assert ref.markers[1] == [0] * 6
    assert ref.displays == [[RG], [RB], [GB]]
    assert ref.discard == Counter({RG: 1})
    assert ref.hands[0] == Counter({OY: 2, YP: 2, OP: 1, drawn: 1})
    assert (ref.current, ref.turns, ref.phase, ref.bonus) == (1, 2, "play", 0)
    assert total_cards(ref) == full_material()


def test_scoring_order_second_colour_and_zero_count_rules_5_3() -> None:
    """RULES §5.3: a colour absent from all displays scores 0. Displays p0 RG, p1 RB, p2 RO;
    p0 plays YP (Y first): Y count 0, P count 0 -> markers unchanged, turn still ends."""
    ref = make([[YP, GB, GB, GB, GO, GO], None, None], [[RG], [RB], [RO]])
    ref.play(("play", YP, Y), any_draws(ref, ("play", YP, Y)))
    assert ref.markers[0] == [0] * 6
    assert ref.displays[0] == [YP]
    assert ref.current == 1


# --------------------------------------------------------------------------- §5.4 areas


def test_area_limit_table_rules_5_4() -> None:
    """RULES §5.4 reading: allowed areas are the lowest marker's area and the next one up, so the
    highest reachable column is 3 (lowest in A0), 6 (A1), 10 (A2), 10 (A3)."""
    assert advance_limit([0, 3, 3, 3, 3, 3]) == 3
    assert advance_limit([1, 6, 6, 6, 6, 6]) == 6
    assert advance_limit([3, 3, 3, 3, 3, 3]) == 6
    assert advance_limit([4, 4, 4, 4, 4, 4]) == 10
    assert advance_limit([6, 9, 9, 9, 9, 9]) == 10
    assert advance_limit([7, 7, 7, 7, 7, 7]) == 10


def test_rulebook_example_purple_stops_at_6_rules_5_4() -> None:
    """RULES §5.4 example: markers R2 G3 B1 O3 Y3 P5; lowest is B=1 in A1, so A3 (column 7+) is
    not adjacent: limit 6. Displays p0 RP, p1 RP, p2 GB; p0 plays RP. R: count 2 -> 2+2 = 4.
    P: count 2 -> 5+2 = 7 > 6 -> stops at 6. Same result in either order (R does not change the
    lowest marker)."""
    for first in (R, P):
        ref = make(
            [[RP, GB, GB, BO, BY, OY], None, None],
            [[RP], [RP], [GB]],
            markers=[[2, 3, 1, 3, 3, 5], [0] * 6, [0] * 6],
        )
        ref.play(("play", RP, first), any_draws(ref, ("play", RP, first)))
        assert ref.markers[0] == [4, 3, 1, 3, 3, 6]


def test_area_zero_cap_at_3_rules_5_4() -> None:
    """RULES §5.4 with the lowest marker in A0 = {0}: the areas adjacent to A0 are A0 itself and
    A1 = {1,2,3} only, so no marker may pass column 3. 4 players, every display shows R
    (RG, RB, RO, RY); p0 plays RP R first: count 4 -> 0+4 = 4 > 3 -> R stops at 3; P count 0."""
    ref = make([[RP, GB, GB, BO, BO, OY], None, None, None], [[RG], [RB], [RO], [RY]])
    ref.play(("play", RP, R), any_draws(ref, ("play", RP, R)))
    assert ref.markers[0] == [3, 0, 0, 0, 0, 0]


def test_area_zero_cap_from_column_2_rules_5_4() -> None:
    """RULES §5.4: G at 2, everything else at 0. Displays RG, GB, GO, GY (4 players): G count 4
    -> 2+4 = 6, but the lowest marker is in A0, limit 3 -> G = 3."""
    ref = make(
        [[GP, RB, RB, BO, BO, OY], None, None, None],
        [[RG], [GB], [GO], [GY]],
        markers=[[0, 2, 0, 0, 0, 0], [0] * 6, [0] * 6, [0] * 6],
    )
    ref.play(("play", GP, G), any_draws(ref, ("play", GP, G)))
    assert ref.markers[0] == [0, 3, 0, 0, 0, 0]


def test_limit_recomputed_before_each_colour_rules_5_4() -> None:
    """RULES §5.3/§5.4: the limit is recomputed before each colour from the lowest marker.
    Markers R0 G3 B1 O1 Y1 P1; displays p0 RG, p1 RG, p2 GB -> R count 2, G count 3.
    R first: limit 3 (R in A0), R 0 -> 2; now the lowest is 1 (A1), limit 6: G 3+3 = 6.
    G first: limit 3 (R still 0), G stays 3; then R 0 -> 2. So the order matters."""
    expected = {R: [2, 6, 1, 1, 1, 1], G: [2, 3, 1, 1, 1, 1]}
    for first, markers in expected.items():
        ref = make(
            [[RG, BO, BO, BY, BY, OY], None, None],
            [[RG], [RG], [GB]],
            markers=[[0, 3, 1, 1, 1, 1], [0] * 6, [0] * 6],
        )
        ref.play(("play", RG, first), any_draws(ref, ("play", RG, first)))
        assert ref.markers[0] == markers


def test_cap_at_10_and_bonus_turn_rules_5_3_5_6() -> None:
    """RULES §5.3 cap and §5.6 bonus. Markers R6 G6 B6 O6 Y6 P8 (lowest in A2, limit 10).
    Displays p0 GP, p1 BP, p2 OP. p0 plays RP, P first: P count 3 -> 8+3 = 11 -> capped at 10;
    R count 0 -> 6. P went 8 -> 10: one bonus turn. The display rotates at once: GP discarded,
    RP is p0's display. No refill yet (0 draws), still p0's turn 1 with bonus = 1.
    Bonus card RO, R first: R count 1 (RP, now on display; with the old GP it would be 0) -> 7;
    O count 1 (OP) -> 7. No new bonus: rotation (RP discarded, RO displayed); lowest 6 is
    {G, B, Y} and the hand shows GB, so refill 6 - 4 = 2 cards; then p1, turn 2."""
    ref = make(
        [[RP, RO, GB, GB, BY, BY], None, None],
        [[GP], [BP], [OP]],
        markers=[[6, 6, 6, 6, 6, 8], [0] * 6, [0] * 6],
    )
    first = ("play", RP, P)
    assert ref.draws_needed(first) == 0
    ref.play(first, [])
    assert ref.markers[0] == [6, 6, 6, 6, 6, 10]
    assert (ref.phase, ref.current, ref.bonus, ref.turns) == ("play", 0, 1, 1)
    assert ref.displays[0] == [RP]
    assert ref.discard == Counter({GP: 1})
    assert sum(ref.hands[0].values()) == 5
    second = ("play", RO, R)
    assert ref.draws_needed(second) == 2
    ref.play(second, any_draws(ref, second))
    assert ref.markers[0] == [7, 6, 6, 7, 6, 10]
    assert ref.displays[0] == [RO]
    assert ref.discard == Counter({GP: 1, RP: 1})
    assert sum(ref.hands[0].values()) == 6
    assert (ref.phase, ref.current, ref.bonus, ref.turns) == ("play", 1, 0, 2)


def test_bonus_chain_with_display_rotation_rules_5_6() -> None:
    """RULES §5.6 chains. Markers R6 G6 B6 O6 Y9 P9; displays p0 GP, p1 BO, p2 RO.
    1) YP, P first: P count 1 (GP) -> 10 (bonus); Y count 0 -> 9. bonus 1. Rotate: GP out, YP in.
    2) BY (bonus card, bonus 1 -> 0), Y first: Y count 1 (YP just rotated in) -> 10: bonus 1 again;
       B count 1 (BO) -> 7. Rotate: YP out, BY in.
    3) RG (bonus 1 -> 0): R count 1 (RO) -> 7; G count 0 -> 6. Markers R7 G6 B7 O6 Y10 P10.
       Rotate: BY out, RG in. Lowest 6 = {G, O}, hand GO GO OY shows them: refill 3."""
    ref = make(
        [[YP, BY, RG, GO, GO, OY], None, None],
        [[GP], [BO], [RO]],
        markers=[[6, 6, 6, 6, 9, 9], [0] * 6, [0] * 6],
    )
    ref.play(("play", YP, P), [])
    assert ref.markers[0] == [6, 6, 6, 6, 9, 10]
    assert (ref.bonus, ref.displays[0]) == (1, [YP])
    ref.play(("play", BY, Y), [])
    assert ref.markers[0] == [6, 6, 7, 6, 10, 10]
    assert (ref.bonus, ref.displays[0], ref.current, ref.turns) == (1, [BY], 0, 1)
    move = ("play", RG, R)
    assert ref.draws_needed(move) == 3
    ref.play(move, any_draws(ref, move))
    assert ref.markers[0] == [7, 6, 7, 6, 10, 10]
    assert ref.displays[0] == [RG]
    assert ref.discard == Counter({GP: 1, YP: 1, BY: 1})
    assert (ref.bonus, ref.current, ref.turns) == (0, 1, 2)


def test_two_bonus_turns_from_one_card_rules_5_6() -> None:
    """RULES §5.6 Decision: one bonus turn per marker reaching 10. Markers R6 G6 B6 O6 Y9 P9;
    displays p0 RY, p1 GP, p2 BO. YP: Y count 1 (RY) -> 10, P count 1 (GP) -> 10: bonus 2.
    RB (bonus 2 -> 1): R count 0 (YP, GP, BO), B count 1 (BO) -> 7; still p0, bonus 1.
    GO (bonus 1 -> 0): G count 1 (GP) -> 7, O count 1 (BO) -> 7. Markers 6 7 7 7 10 10; lowest
    {R}, hand RG RG RG shows R: refill 3 (three cards were played)."""
    ref = make(
        [[YP, RB, GO, RG, RG, RG], None, None],
        [[RY], [GP], [BO]],
        markers=[[6, 6, 6, 6, 9, 9], [0] * 6, [0] * 6],
    )
    ref.play(("play", YP, Y), [])
    assert ref.markers[0] == [6, 6, 6, 6, 10, 10]
    assert (ref.phase, ref.current, ref.bonus) == ("play", 0, 2)
    ref.play(("play", RB, R), [])
    assert ref.markers[0] == [6, 6, 7, 6, 10, 10]
    assert (ref.phase, ref.current, ref.bonus) == ("play", 0, 1)
    assert ref.displays[0] == [RB]
    move = ("play", GO, G)
    assert ref.draws_needed(move) == 3
    ref.play(move, any_draws(ref, move))
    assert ref.markers[0] == [6, 7, 7, 7, 10, 10]
    assert ref.discard == Counter({RY: 1, YP: 1, RB: 1})
    assert (ref.current, ref.bonus, ref.turns) == (1, 0, 2)


def test_marker_already_at_10_earns_nothing_rules_5_6() -> None:
    """RULES §5.6: "reaches" means below 10 before, 10 after. P already at 10 gains nothing and
    earns no bonus: markers 6 6 6 6 6 10, displays GP BP OY, RP with P first -> P stays 10,
    R count 0; the turn ends normally (refill 1, p1 to move)."""
    ref = make(
        [[RP, GB, GB, BO, BO, BY], None, None],
        [[GP], [BP], [OY]],
        markers=[[6, 6, 6, 6, 6, 10], [0] * 6, [0] * 6],
    )
    ref.play(("play", RP, P), any_draws(ref, ("play", RP, P)))
    assert ref.markers[0] == [6, 6, 6, 6, 6, 10]
    assert (ref.bonus, ref.current, ref.turns) == (0, 1, 2)


def test_bonus_lapses_with_empty_hand_and_vacuous_swap_rules_5_6_5_5() -> None:
    """RULES §5.6 Decision (empty hand: the bonus lapses) and §5.5 read literally (no card of an
    empty hand shows a lowest colour, so the swap is offered; both choices draw 6).
    Unreachable from a legal start, so the hand is shrunk by hand to the single card RP (the
    other five go back to the deck). Markers 6 6 6 6 6 9, displays GP BP OY: P count 2 -> 10,
    a bonus is earned but the hand is empty: bonus 0, rotation, phase "swap"."""
    ref = make(
        [[RP, GB, GB, BY, BY, RO], None, None],
        [[GP], [BP], [OY]],
        markers=[[6, 6, 6, 6, 6, 9], [0] * 6, [0] * 6],
    )
    ref.hands[0] = Counter({RP: 1})
    ref.deck.update([GB, GB, BY, BY, RO])
    ref.play(("play", RP, P), [])
    assert ref.markers[0] == [6, 6, 6, 6, 6, 10]
    assert (ref.phase, ref.bonus, ref.current) == ("swap", 0, 0)
    assert ref.displays[0] == [RP]
    assert ref.draws_needed(("swap",)) == 6
    assert ref.draws_needed(("keep",)) == 6


def test_bonus_turns_in_two_player_game_rules_5_8_5_6() -> None:
    """RULES §5.8 + §5.6: the rotation before a bonus turn drops the oldest of the two display
    cards. Markers p0 6 6 6 6 6 9; displays p0 [RP, GB], p1 [OY, BY].
    OP, P first: P count 1 (RP) -> 10, bonus; O count 1 (OY) -> 7. Rotate: p0 [GB, OP], RP out.
    GO, G first: G count 1 (GB) -> 7; O count 2 (OP, OY) -> 9. Rotate: p0 [OP, GO], GB out.
    Markers 6 7 6 9 6 10; lowest {R, B, Y} shown by RB: refill 2."""
    ref = make(
        [[OP, GO, RB, RB, RY, RY], None],
        [[RP, GB], [OY, BY]],
        markers=[[6, 6, 6, 6, 6, 9], [0] * 6],
    )
    ref.play(("play", OP, P), [])
    assert ref.markers[0] == [6, 6, 6, 7, 6, 10]
    assert ref.displays[0] == [GB, OP]
    assert (ref.bonus, ref.current) == (1, 0)
    move = ("play", GO, G)
    assert ref.draws_needed(move) == 2
    ref.play(move, any_draws(ref, move))
    assert ref.markers[0] == [6, 7, 6, 9, 6, 10]
    assert ref.displays == [[OP, GO], [OY, BY]]
    assert ref.discard == Counter({RP: 1, GB: 1})
    assert ref.current == 1


# --------------------------------------------------------------------------- §5.5 swap


def swap_setup(last: Card, **kw: int) -> CardReference:
    """Markers p0 R1 G1 B2 O3 Y3 P3 (lowest {R, G}, limit 6); displays p0 OY, p1 BP, p2 YP.
    p0 plays BO, B first: B count 1 (BP) -> 3; O count 1 (OY) -> 4."""
    return make(
        [[BO, BY, OY, OP, YP, last], None, None],
        [[OY], [BP], [YP]],
        markers=[[1, 1, 2, 3, 3, 3], [0] * 6, [0] * 6],
        **kw,
    )


def test_swap_offered_and_taken_rules_5_5() -> None:
    """RULES §5.5: after BO the hand BY OY OP YP BP shows neither R nor G (the tied lowest), so
    the swap is offered. The turn's rotation happened first (BO displayed, OY discarded).
    Swap: the 5 hand cards go to the discard pile, 6 new cards are drawn; p1 moves next."""
    ref = swap_setup(BP)
    move = ("play", BO, B)
    assert ref.draws_needed(move) == 0
    ref.play(move, [])
    assert ref.markers[0] == [1, 1, 3, 4, 3, 3]
    assert ref.phase == "swap"
    assert ref.legal_moves() == {("swap",), ("keep",)}
    assert (ref.current, ref.turns, ref.bonus) == (0, 1, 0)
    assert ref.displays[0] == [BO]
    assert ref.discard == Counter({OY: 1})
    assert ref.draws_needed(("swap",)) == 6
    new = any_draws(ref, ("swap",))
    ref.play(("swap",), new)
    assert ref.hands[0] == Counter(new)
    assert ref.discard == Counter({OY: 2, BY: 1, OP: 1, YP: 1, BP: 1})
    assert (ref.phase, ref.current, ref.turns) == ("play", 1, 2)
    assert total_cards(ref) == full_material()


def test_swap_declined_keeps_hand_rules_5_5() -> None:
    """RULES §5.5: "keep" is the ordinary refill: 6 - 5 = 1 card drawn, hand kept."""
    ref = swap_setup(BP)
    ref.play(("play", BO, B), [])
    assert ref.draws_needed(("keep",)) == 1
    drawn = any_draws(ref, ("keep",))
    ref.play(("keep",), drawn)
    assert ref.hands[0] == Counter([BY, OY, OP, YP, BP, *drawn])
    assert ref.discard == Counter({OY: 1})
    assert (ref.phase, ref.current, ref.turns) == ("play", 1, 2)


def test_swap_not_offered_when_one_lowest_colour_shown_rules_5_5() -> None:
    """RULES §5.5 with tied lowest {R, G}: the hand keeps GP, which shows G, so no swap: the hand
    is refilled at once and p1 moves."""
    ref = swap_setup(GP)
    ref.play(("play", BO, B), any_draws(ref, ("play", BO, B)))
    assert ref.markers[0] == [1, 1, 3, 4, 3, 3]
    assert (ref.phase, ref.current) == ("play", 1)
    assert sum(ref.hands[0].values()) == 6


def test_swap_never_offered_on_first_turn_rules_5_5() -> None:
    """RULES §5.5: from all-zero markers one card moves at most 2 colours, so >= 4 colours stay
    tied lowest at 0; a remaining card avoiding all of them would have to be the played pair, and
    the hand RG x4 + BO + YP keeps BO and YP after any play. So no first move offers a swap."""
    base = make([[RG, RG, RG, RG, BO, YP], None, None], [[RB], [GB], [OP]])
    for move in base.legal_moves():
        ref = base.copy()
        ref.play(move, any_draws(ref, move))
        assert ref.phase == "play"
        assert ref.current == 1


def test_swap_and_truncation_order_rules_5_5_5_7() -> None:
    """RULES §5.7 Decision: with turn_cap 1 the first turn is complete only after the swap
    decision, so the game is not over in the "swap" phase, and is over (truncated) after it."""
    ref = swap_setup(BP, turn_cap=1)
    ref.play(("play", BO, B), [])
    assert ref.phase == "swap"
    ref.play(("keep",), any_draws(ref, ("keep",)))
    assert (ref.phase, ref.truncated, ref.turns, ref.current) == ("over", True, 1, 0)


# --------------------------------------------------------------------------- §5.3 reshuffle


def test_lazy_reshuffle_of_discard_pile_rules_5_3() -> None:
    """RULES §5.3: the discard pile becomes the deck when a card must be drawn from an empty
    deck. Setup: every deck card but one is moved to the discard pile (by hand).
    p0 plays and draws the last deck card: the deck is now empty and is NOT refilled yet; the
    discard pile holds the moved cards plus p0's old display RB.
    p1 plays: rotation first (p1's old display GB joins the discard pile), then the refill must
    draw from an empty deck, so the whole discard pile (including GB) becomes the deck; p1 draws
    GB back. Afterwards the discard pile is empty."""
    ref = make([[RG, RG, RG, BO, BO, YP], [GO, GO, GO, BY, BY, BY], None], [[RB], [GB], [OP]])
    last = min(ref.deck)
    moved = ref.deck.copy()
    moved[last] -= 1
    moved += Counter()
    ref.deck = Counter({last: 1})
    ref.discard = moved
    ref.play(("play", RG, R), [last])
    assert ref.deck == Counter()
    assert ref.discard == moved + Counter({RB: 1})
    move = ("play", GO, G)
    assert ref.draws_needed(move) == 1
    before = ref.copy()
    with pytest.raises(ValueError, match="too few"):  # too few draws
        ref.play(move, [])
    assert ref.__dict__ == before.__dict__
    ref.play(move, [GB])
    assert ref.discard == Counter()
    assert ref.deck == moved + Counter({RB: 1})
    assert ref.hands[1] == Counter({GO: 2, BY: 3, GB: 1})
    assert ref.displays[1] == [GO]
    assert total_cards(ref) == full_material()


def test_draw_must_come_from_deck_rules_5_3() -> None:
    """RULES §5.3: while the deck is not empty, a card only in the discard pile cannot be drawn;
    a wrong card or too many cards raise ValueError and leave the state unchanged."""
    ref = make([[RG, RG, RG, BO, BO, YP], None, None], [[RB], [GB], [OP]])
    ref.discard = Counter({RG: 1})  # pretend an RG is in the discard pile (material moved by hand)
    ref.deck[RG] -= 1
    ref.deck += Counter()
    before = ref.copy()
    move = ("play", BO, B)
    wrong = [card for card in full_material() if ref.deck[card] == 0]
    with pytest.raises(ValueError, match="not in the deck"):
        ref.play(move, [wrong[0]])
    with pytest.raises(ValueError, match="too many"):
        ref.play(move, any_draws(ref, move) * 2)
    assert ref.__dict__ == before.__dict__


def test_reshuffle_during_swap_includes_swapped_hand_rules_5_3_5_5() -> None:
    """RULES §5.5 + §5.3: the swapped-out hand is discarded before the 6 draws. With only 2 cards
    left in the deck (the rest moved by hand to the discard pile), the swap draws those 2, then the
    discard pile (now holding the old hand BY OY OP YP BP and the display OY) becomes the deck and
    4 more are drawn from it, here BY OY OP YP from the old hand."""
    ref = swap_setup(BP)
    ref.play(("play", BO, B), [])
    two = sorted(ref.deck.elements())[:2]
    rest = ref.deck.copy()
    rest.subtract(two)
    rest += Counter()
    ref.deck = Counter(two)
    ref.discard.update(rest)
    assert ref.draws_needed(("swap",)) == 6
    ref.play(("swap",), [*two, BY, OY, OP, YP])
    assert ref.hands[0] == Counter([*two, BY, OY, OP, YP])
    assert ref.discard == Counter()
    assert ref.deck == rest + Counter({OY: 1, BP: 1})
    assert total_cards(ref) == full_material()


# --------------------------------------------------------------------------- §5.7 end


def test_instant_win_rules_5_7() -> None:
    """RULES §5.7: markers p0 7 7 7 7 7 6; displays GP BO RY. RP, P first: P count 1 -> 7,
    R count 1 -> 8: all six >= 7, p0 wins at once: no discard, no refill (0 draws), the played
    card lies in front of p0 beside the old display; p0 ranks 0, p1 (all 1) 1, p2 (all 0) 2."""
    ref = make(
        [[RP, GB, GB, BO, BY, OY], None, None],
        [[GP], [BO], [RY]],
        markers=[[7, 7, 7, 7, 7, 6], [1] * 6, [0] * 6],
    )
    move = ("play", RP, P)
    assert ref.draws_needed(move) == 0
    ref.play(move, [])
    assert ref.markers[0] == [8, 7, 7, 7, 7, 7]
    assert (ref.phase, ref.winner_instant, ref.truncated) == ("over", 0, False)
    assert ref.legal_moves() == set()
    assert ref.ranks() == [0, 1, 2]
    assert ref.displays[0] == [GP, RP]
    assert ref.discard == Counter()
    assert sum(ref.hands[0].values()) == 5
    assert (ref.turns, ref.current, ref.bonus) == (1, 0, 0)
    assert total_cards(ref) == full_material()
    with pytest.raises(ValueError, match="illegal move"):
        ref.play(("play", GB, G), [])


def test_instant_win_preempts_bonus_and_scores_whole_card_rules_5_7() -> None:
    """RULES §5.7 "at once", read as: after the card is scored. Markers 7 7 7 7 6 9; displays
    GY BP RO. YP, Y first: Y count 1 -> 7 (all >= 7 already), the second colour is still scored:
    P count 1 -> 10. The game is over: the bonus P earned is not taken (bonus 0)."""
    ref = make(
        [[YP, GB, GB, BO, BO, RG], None, None],
        [[GY], [BP], [RO]],
        markers=[[7, 7, 7, 7, 6, 9], [0] * 6, [0] * 6],
    )
    ref.play(("play", YP, Y), [])
    assert ref.markers[0] == [7, 7, 7, 7, 7, 10]
    assert (ref.phase, ref.winner_instant, ref.bonus) == ("over", 0, 0)


def test_ranking_rules_3_7() -> None:
    """RULES §3.7: sort ascending, compare lexicographically, rank = players strictly better.
    p0 (3,5,6,6,6,6), p1 sorted (3,5,5,6,6,6), p2 sorted (3,5,6,6,6,6) = p0, p3 sorted
    (1,1,1,1,1,4). p0 = p2 best -> 0, 0; p1 below both -> 2; p3 last -> 3.
    Lowest 4 beats lowest 3 whatever the rest: [4]*6 vs (3,10,...) -> 0, 1."""
    assert rank_markers(
        [[3, 5, 6, 6, 6, 6], [6, 6, 6, 5, 5, 3], [6, 6, 6, 6, 5, 3], [4, 1, 1, 1, 1, 1]]
    ) == [0, 2, 0, 3]
    assert rank_markers([[4] * 6, [3, 10, 10, 10, 10, 10]]) == [0, 1]
    assert rank_markers([[2] * 6, [2] * 6, [2] * 6]) == [0, 0, 0]
    # An instant winner ranks 0; the others by §3.7 among themselves, below the winner.
    assert rank_markers([[1] * 6, [7] * 6, [1] * 6], winner=1) == [1, 0, 1]


def test_ranks_method_uses_markers_rules_3_7() -> None:
    """RULES §5.7 / §3.7 on a game's markers: p0 (1,2,2,2,2,2) vs p1 (1,1,3,3,3,3) vs p2 the
    same as p0 after sorting: the second-lowest 2 beats 1 -> ranks 0, 2, 0."""
    ref = make(
        [None, None, None],
        [[RG], [RB], [GB]],
        markers=[[1, 2, 2, 2, 2, 2], [3, 3, 1, 3, 1, 3], [2, 2, 2, 2, 2, 1]],
    )
    assert ref.ranks() == [0, 2, 0]


def test_truncation_after_turn_cap_rules_5_7() -> None:
    """RULES §5.7 Decision: with turn_cap 2, after p0's and p1's turns (both refilled) the game is
    over and truncated; turns stays 2, current stays p1, no legal moves, ranks by §3.7."""
    ref = make(
        [[RG, RG, RG, BO, BO, YP], [GO, GO, GO, BY, BY, BY], None],
        [[RB], [GB], [OP]],
        turn_cap=2,
    )
    ref.play(("play", RG, R), any_draws(ref, ("play", RG, R)))
    # p0: R count 1 (RB) -> 1, G count 1 (GB) -> 1; p0's display is now RG.
    assert (ref.phase, ref.turns, ref.current) == ("play", 2, 1)
    ref.play(("play", GO, O), any_draws(ref, ("play", GO, O)))
    # p1: O count 1 (OP) -> 1, G count 2 (p0's RG and p1's own GB) -> 2.
    assert sum(ref.hands[1].values()) == 6
    assert (ref.phase, ref.truncated, ref.turns, ref.current) == ("over", True, 2, 1)
    assert ref.winner_instant is None
    assert ref.legal_moves() == set()
    assert ref.markers == [[1, 1, 0, 0, 0, 0], [0, 2, 0, 1, 0, 0], [0] * 6]
    # sorted: p1 (0,0,0,0,1,2) > p0 (0,0,0,0,1,1) > p2 zeros -> ranks 1, 0, 2
    assert ref.ranks() == [1, 0, 2]


# --------------------------------------------------------------------------- §5.8 two players


def test_two_player_four_display_cards_rules_5_8() -> None:
    """RULES §5.8: displays p0 [RG, RB], p1 [RO, GY]; markers all 4 (limit 10).
    p0 plays RP, R first: R on RG, RB, RO -> 3 -> 7; P on none -> 4. Then the top (oldest) card
    RG is discarded: p0 [RB, RP]. p1 plays GP, G first: G on GY only (p0 no longer shows RG)
    -> 5; P on RP -> 5. p1 [GY, GP], RO discarded. 60 - 12 - 4 = 44 cards in the deck."""
    ref = make(
        [[RP, GB, GB, BO, BO, OY], [GP, BY, BY, OY, OY, RB]],
        [[RG, RB], [RO, GY]],
        markers=[[4] * 6, [4] * 6],
    )
    assert sum(ref.deck.values()) == 44
    ref.play(("play", RP, R), any_draws(ref, ("play", RP, R)))
    assert ref.markers[0] == [7, 4, 4, 4, 4, 4]
    assert ref.displays == [[RB, RP], [RO, GY]]
    assert ref.discard == Counter({RG: 1})
    assert ref.current == 1
    ref.play(("play", GP, G), any_draws(ref, ("play", GP, G)))
    assert ref.markers[1] == [4, 5, 4, 4, 4, 5]
    assert ref.displays == [[RB, RP], [GY, GP]]
    assert ref.discard == Counter({RG: 1, RO: 1})
    assert (ref.current, ref.turns) == (0, 3)


# --------------------------------------------------------------------------- §5.7 matches


def test_match_victory_points_rules_5_7() -> None:
    """RULES §5.7 multi-round: VP = lowest marker per round, summed. Round 1 lows 1, 0, 3; round 2
    lows 7, 2, 4 -> 8, 2, 7 -> ranks 0, 2, 1. Equal totals share: (5, 7, 5) -> 1, 0, 1."""
    rounds = [
        [[1, 2, 3, 4, 5, 6], [0, 9, 9, 9, 9, 9], [3, 3, 3, 3, 3, 3]],
        [[7, 7, 7, 7, 7, 7], [2, 5, 5, 5, 5, 5], [4, 6, 6, 6, 6, 6]],
    ]
    vp = match_victory_points(rounds)
    assert vp == [8, 2, 7]
    assert match_ranks(vp) == [0, 2, 1]
    assert match_ranks([5, 7, 5]) == [1, 0, 1]
    assert match_ranks([3, 3]) == [0, 0]


# --------------------------------------------------------------------------- misc


def test_copy_is_independent() -> None:
    """``copy()`` is deep: playing on the copy leaves the original unchanged."""
    ref = make([[RG, RG, RG, BO, BO, YP], None, None], [[RB], [GB], [OP]])
    before = ref.copy()
    clone = ref.copy()
    clone.play(("play", RG, R), any_draws(clone, ("play", RG, R)))
    assert ref.__dict__ == before.__dict__
    assert clone.markers[0] != ref.markers[0]


def test_seeded_playthrough_invariants_rules_5() -> None:
    """Whole games with random legal moves and draws: the 60 cards are conserved (§5.1), markers
    respect §5.4 and the cap, hands never exceed 6, and every game ends (win or truncation)."""
    rng = random.Random(2024)
    for players in (2, 3, 4):
        for _ in range(5):
            cards = sorted(full_material().elements())
            rng.shuffle(cards)
            hands = [cards[6 * p : 6 * p + 6] for p in range(players)]
            k = 2 if players == 2 else 1
            start = 6 * players
            displays = [cards[start + k * p : start + k * p + k] for p in range(players)]
            deck = cards[start + k * players :]
            ref = CardReference(players, hands, displays, deck, turn_cap=300)
            while ref.phase != "over":
                move = rng.choice(sorted(ref.legal_moves()))
                need = ref.draws_needed(move)
                draws: list[Card] = []

                def pick(deck: Counter[Card], draws: list[Card] = draws) -> Card:
                    card = rng.choice(sorted(deck.elements()))
                    draws.append(card)
                    return card

                ref.copy()._apply(move, pick)  # choose each draw from the deck at that moment
                assert len(draws) == need
                ref.play(move, draws)
                assert total_cards(ref) == full_material()
                for row in ref.markers:
                    assert max(row) <= advance_limit(row) <= 10
                assert all(sum(h.values()) <= 6 for h in ref.hands)
            assert ref.truncated or ref.winner_instant is not None

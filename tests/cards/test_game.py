"""The card game's Python API (``genial.cards``): rules, moves, the game, its notations, copies
and errors. The rule tests build hand-computed positions (``CardPosition.build``: the given
hands, displays and discard pile, every other card in the deck) and cite docs/rules.md §5; each
derives its expected numbers in a comment. Colours: R G B O Y P = 0..5."""

from __future__ import annotations

import copy
import json
import pickle
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genial import GenialError, IllegalMoveError, PositionError, RecordError, RulesError
from genial.cards import (
    ACTION_SIZE,
    CARDS,
    CardGame,
    CardMove,
    CardPosition,
    CardRules,
    CardView,
)

R, G, B, O, Y, P = range(6)  # noqa: E741 (the colour letters)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def game_at(
    players: int = 3,
    *,
    hands: Sequence[Sequence[str]],
    displays: Sequence[Sequence[str]],
    markers: Mapping[int, Sequence[int]] | None = None,
    discard: Sequence[str] = (),
    turn_cap: int = 1000,
    seed: int = 0,
    **fields: Any,
) -> CardGame:
    """A game at a hand-built position: the given hands, displays and discard pile, every other
    card in the deck; ``markers`` by seat (the others at 0)."""
    rows = [list((markers or {}).get(p, [0] * 6)) for p in range(players)]
    position = CardPosition.build(
        CardRules(players, turn_cap=turn_cap),
        hands=hands,
        displays=displays,
        markers=rows,
        discard=discard,
        **fields,
    )
    return CardGame.from_position(position, seed=seed)


def card(text: str) -> tuple[int, int]:
    a, b = ("RGBOYP".index(ch) for ch in text)
    return (min(a, b), max(a, b))


def material(game: CardGame) -> Counter[tuple[int, int]]:
    """Every card of the game, wherever it is (RULES §5.1: 4 of each of the 15 types)."""
    total: Counter[tuple[int, int]] = Counter(game.deck()) + Counter(game.discard())
    for p in range(game.players):
        total.update(game.hand(p))
        total.update(game.display(p))
    return total


FULL = Counter({c: 4 for c in CARDS})


# -- CardRules -----------------------------------------------------------------------------------


def test_rules_tokens_and_repr() -> None:
    """RULES §5.2, §5.7, §5.8: players 2-4, a turn cap, two display cards with two players."""
    assert CardRules() == CardRules(3, 1000)
    assert [CardRules(n).display_size for n in (2, 3, 4)] == [2, 1, 1]
    assert str(CardRules(3)) == "c3"
    assert str(CardRules(2, turn_cap=50)) == "c2:50"
    for rules in (CardRules(2), CardRules(4, turn_cap=7), CardRules(3, turn_cap=32000)):
        assert CardRules.parse(str(rules)) == rules
        assert CardRules.of(str(rules)) == rules == CardRules.of(rules) == CardRules.of(rules=rules)
        assert eval(repr(rules), {"CardRules": CardRules}) == rules
        assert pickle.loads(pickle.dumps(rules)) == rules
    assert repr(CardRules(4, turn_cap=7)) == "CardRules(players=4, turn_cap=7)"
    assert CardRules.of(2, turn_cap=9) == CardRules(2, 9)
    assert CardRules(np.int64(2)).players == 2  # numpy ints are ints
    core = CardRules(2, turn_cap=9).core()
    assert (core.players, core.turn_cap) == (2, 9)


@pytest.mark.parametrize(
    "call",
    [
        lambda: CardRules(1),
        lambda: CardRules(5),
        lambda: CardRules(True),
        lambda: CardRules(2.0),  # type: ignore[arg-type]
        lambda: CardRules(3, turn_cap=0),
        lambda: CardRules(3, turn_cap=32001),
        lambda: CardRules(3, turn_cap=True),
        lambda: CardRules.parse("c5"),
        lambda: CardRules.parse("3"),
        lambda: CardRules.parse("c3:"),
        lambda: CardRules.parse("c3:05"),
        lambda: CardRules.parse("c3:٣"),
        lambda: CardRules.parse("c3" + "0" * 100),
        lambda: CardRules.parse(3),  # type: ignore[arg-type]
        lambda: CardRules.of("c3", turn_cap=5),
        lambda: CardRules.of(2, rules="c3"),
        lambda: CardRules.of(None),  # type: ignore[arg-type]
        lambda: CardGame(5),
        lambda: CardGame("c3:50", turn_cap=20),
        lambda: CardGame(seed=-1),
        lambda: CardGame(seed=True),
    ],
)
def test_bad_rules_are_rejected(call: Any) -> None:
    with pytest.raises(GenialError):
        call()
    assert issubclass(RulesError, ValueError)


def test_game_takes_rules_in_every_form() -> None:
    assert CardGame(seed=1).rules == CardRules(3)
    assert CardGame(2, turn_cap=50, seed=1).rules == CardRules(2, 50)
    assert CardGame("c4:9", seed=1).rules == CardRules(4, 9)
    assert CardGame(rules=CardRules(2), seed=1).rules == CardRules(2)
    assert CardGame(rules="c2", seed=1) == CardGame(2, seed=1)


# -- CardMove ------------------------------------------------------------------------------------


def test_move_text_and_actions() -> None:
    """The text of a play is its colours in scoring order (RULES §5.3); ids 2t and 2t+1."""
    rg, gr = CardMove.parse("RG"), CardMove.parse("GR")
    assert (rg.kind, rg.card, rg.colours, rg.action) == ("play", (R, G), (R, G), 0)
    assert (gr.kind, gr.card, gr.colours, gr.action) == ("play", (R, G), (G, R), 1)
    assert rg != gr and rg.card == gr.card
    assert CardMove.parse("YP").action == 28 and CardMove.parse("PY").action == 29
    swap, keep = CardMove.parse("swap"), CardMove.parse(" KEEP ")
    assert (swap.kind, swap.card, swap.colours, swap.action) == ("swap", None, None, 30)
    assert (keep.kind, keep.action) == ("keep", 31)
    assert swap == CardMove.swap() and keep == CardMove.keep()
    assert CardMove.parse("gr") is gr and CardMove.parse(" gR ") is gr
    assert CardMove.play((G, R)) is gr and CardMove.play([np.int64(0), 1]) is rg
    assert ACTION_SIZE == 32
    assert CARDS[0] == (R, G) and CARDS[14] == (Y, P) and len(CARDS) == 15
    seen = set()
    for a in range(ACTION_SIZE):
        m = CardMove.from_action(a)
        assert m.action == a
        assert CardMove.parse(str(m)) is m
        assert eval(repr(m), {"CardMove": CardMove}) is m
        assert pickle.loads(pickle.dumps(m)) is m
        assert copy.deepcopy(m) is m
        if m.card is not None:
            assert m.card_type == a // 2 and CARDS[a // 2] == m.card
            assert m.colours == (m.card if a % 2 == 0 else m.card[::-1])
        seen.add(hash(m))
    assert len(seen) == ACTION_SIZE
    assert repr(gr) == "CardMove.parse('GR')"


def test_moves_are_immutable() -> None:
    m = CardMove.parse("RG")
    with pytest.raises(AttributeError):
        m.kind = "swap"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del m.card
    with pytest.raises(TypeError):
        CardMove()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "cannot read"),
        ("RR", "two different colours"),
        ("R", "cannot read"),
        ("RGB", "cannot read"),
        ("RX", "cannot read"),
        ("R G", "cannot read"),
        ("ßR", "cannot read"),
        ("ＲＧ", "cannot read"),
        ("swap!", "cannot read"),
        ("x" * 1000, "too long"),
    ],
)
def test_move_parse_errors(text: str, message: str) -> None:
    with pytest.raises(IllegalMoveError, match=message):
        CardMove.parse(text)


@pytest.mark.parametrize("bad", [-1, 32, 2**70, 1.0, True, None, "0", np.bool_(True)])
def test_from_action_errors(bad: Any) -> None:
    with pytest.raises(IllegalMoveError):
        CardMove.from_action(bad)


@pytest.mark.parametrize("bad", [(R, R), (0, 6), (R,), "RG", None, (0.0, 1.0), (True, 2)])
def test_play_errors(bad: Any) -> None:
    with pytest.raises(IllegalMoveError):
        CardMove.play(bad)


# -- the deal ------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_deal(players: int) -> None:
    """RULES §5.2, §5.8: six cards each, then one display card each (two with two players); the
    rest is the deck, the discard pile is empty, player 0 starts on turn 1."""
    game = CardGame(players, seed=players)
    size = 2 if players == 2 else 1
    assert [len(game.hand(p)) for p in range(players)] == [6] * players
    assert [len(game.display(p)) for p in range(players)] == [size] * players
    assert game.deck_size == 60 - players * (6 + size) and game.discard_size == 0
    assert (game.current_player, game.phase, game.turn, game.bonus_turns) == (0, "play", 1, 0)
    assert game.scores.shape == (players, 6) and game.scores.dtype == np.int64
    assert not game.scores.any()
    assert material(game) == FULL
    assert all(game.hand(p) == sorted(game.hand(p)) for p in range(players))
    # the legal moves: each card type in the hand, scored either way round (RULES §5.3)
    types = sorted({CARDS.index(c) for c in game.hand(0)})
    assert game.legal_actions().tolist() == [a for t in types for a in (2 * t, 2 * t + 1)]
    assert game.legal_actions().dtype == np.int32
    mask = game.action_mask()
    assert mask.shape == (ACTION_SIZE,) and mask.dtype == np.bool_
    assert np.flatnonzero(mask).tolist() == game.legal_actions().tolist()
    assert [m.action for m in game.legal_moves()] == game.legal_actions().tolist()
    assert game.winner() is None and game.ranks().tolist() == [0] * players
    assert not game.truncated and not game.is_over


# -- scoring (RULES §5.3, §5.4) -----------------------------------------------------------------


def test_the_area_restriction_example() -> None:
    """RULES §5.4's example: lowest marker in A1, purple at 5 gaining 2 stops at 6."""
    # markers R1 G2 B3 O4 Y4 P5: the lowest (red, 1) is in A1 = {1, 2, 3}; A3 = {7..10} is not
    # adjacent to A1, so no marker passes column 6. Purple shows on BP and YP: count 2, and
    # 5 + 2 = 7 stops at 6. Green shows on no display card: 0.
    game = game_at(
        hands=[["GP", "RB", "OY"], ["RG"], ["RG"]],
        displays=[["BP"], ["YP"], ["RO"]],
        markers={0: [1, 2, 3, 4, 4, 5]},
    )
    assert game.gains("PG") == (1, 0)
    game.play("PG")
    assert game.scores[0].tolist() == [1, 2, 3, 4, 4, 6]
    # the same play with the lowest marker in A2 (all at 4 or more): A3 is adjacent, 5 + 2 = 7
    game = game_at(
        hands=[["GP", "RB", "OY"], ["RG"], ["RG"]],
        displays=[["BP"], ["YP"], ["RO"]],
        markers={0: [4, 4, 4, 4, 4, 5]},
    )
    assert game.gains("PG") == (2, 0)
    game.play("PG")
    assert game.scores[0].tolist() == [4, 4, 4, 4, 4, 7]


def test_a_marker_in_area_0_stops_every_marker_at_3() -> None:
    """RULES §5.4: with a marker still in A0 = {0}, only A0 and A1 are allowed: column 3 at
    most. RULES §5.8: with two players all four display cards count."""
    # green shows on GB, GO (player 0's column) and GP, RG (player 1's): count 4; green at 1
    # would reach 5 but stops at 3 because red is still at 0. Yellow shows nowhere: 0.
    game = game_at(
        2,
        hands=[["GY", "RB"], ["OY"]],
        displays=[["GB", "GO"], ["GP", "RG"]],
        markers={0: [0, 1, 0, 0, 0, 0]},
    )
    assert game.gains("GY") == (2, 0)
    game.play("GY")
    assert game.scores[0].tolist() == [0, 3, 0, 0, 0, 0]


def test_the_scoring_order_is_part_of_the_move() -> None:
    """RULES §5.3, §5.4: the limit is recomputed before each colour, so the order matters."""

    # red shows on RG and RO: 2; green on RG, GB and GY: 3. Markers R0 and the rest at 2.
    # "RG": red 0 + 2 = 2 first; now the lowest is 2 (A1), the limit 6, and green 2 + 3 = 5.
    # "GR": green first while red is at 0 (limit 3): 2 + 3 stops at 3; then red 0 + 2 = 2.
    def fresh() -> CardGame:
        return game_at(
            2,
            hands=[["RG", "BO"], ["YP"]],
            displays=[["RG", "GB"], ["RO", "GY"]],
            markers={0: [0, 2, 2, 2, 2, 2]},
        )

    game = fresh()
    assert (game.gains("RG"), game.gains("GR")) == ((2, 3), (1, 2))
    game.play("RG")
    assert game.scores[0].tolist() == [2, 5, 2, 2, 2, 2]
    game = fresh()
    game.play("GR")
    assert game.scores[0].tolist() == [2, 3, 2, 2, 2, 2]


def test_the_cap_at_10() -> None:
    """RULES §5.3: the cap is 10 and points beyond are lost; RULES §5.6: reaching 10 earns a
    bonus turn, a marker already at 10 earns none."""
    # lowest 5 (A2): no area limit. Green shows on GB, GO and GY: 9 + 3 = 12 stops at 10, and
    # reaching 10 earns a bonus turn. Red shows nowhere: 0.
    game = game_at(
        hands=[["RG", "RB"], ["RG"], ["RG"]],
        displays=[["GB"], ["GO"], ["GY"]],
        markers={0: [5, 9, 5, 5, 5, 5]},
    )
    assert game.gains("GR") == (1, 0)
    game.play("GR")
    assert game.scores[0].tolist() == [5, 10, 5, 5, 5, 5]
    assert (game.bonus_turns, game.current_player, game.turn) == (1, 0, 1)
    # purple already at 10 with purple on BP and OP (count 2): it stays at 10, no bonus turn;
    # the turn passes (red, green, blue, orange and yellow tie lowest at 5, and RB shows red,
    # so no swap, RULES §5.5)
    game = game_at(
        hands=[["YP", "RB"], ["RG"], ["RG"]],
        displays=[["BP"], ["OP"], ["RG"]],
        markers={0: [5, 5, 5, 5, 5, 10]},
    )
    assert game.gains("PY") == (0, 0)
    game.play("PY")
    assert game.scores[0].tolist() == [5, 5, 5, 5, 5, 10]
    assert (game.bonus_turns, game.current_player, game.turn) == (0, 1, 2)


# -- bonus turns (RULES §5.6) -------------------------------------------------------------------


def test_a_chain_of_bonus_turns_with_display_rotation() -> None:
    """RULES §5.6: a marker reaching 10 earns a bonus turn, taken before the refill: the display
    card is discarded and the card just played joins the display; bonus turns chain."""
    game = game_at(
        hands=[["RG", "BY", "BO", "RP", "OP", "GB"], ["RG"], ["RG"]],
        displays=[["YP"], ["GY"], ["OY"]],
        markers={0: [4, 9, 4, 4, 8, 4]},
    )
    # 1. "GR": green shows on GY: 9 + 1 = 10, a bonus turn; red nowhere. YP (player 0's
    #    display) goes to the discard pile and RG is the new display card; no refill yet.
    game.play("GR")
    assert game.scores[0].tolist() == [4, 10, 4, 4, 8, 4]
    assert (game.current_player, game.turn, game.phase, game.bonus_turns) == (0, 1, "play", 1)
    assert game.display(0) == [card("RG")] and game.discard() == {card("YP"): 1}
    assert len(game.hand(0)) == 5
    # 2. "YB", a bonus card, scored against RG, GY, OY: yellow 8 + 2 = 10 (with YP still shown
    #    it would have been 3), another bonus turn: the chain goes on. Blue shows nowhere.
    assert game.gains("YB") == (2, 0)
    game.play("YB")
    assert game.scores[0].tolist() == [4, 10, 4, 4, 10, 4]
    assert (game.current_player, game.turn, game.bonus_turns) == (0, 1, 1)
    assert game.display(0) == [card("BY")]
    # 3. "BO": blue shows on BY, the card played just before and now on display: 4 + 1 = 5;
    #    orange on OY: 4 + 1 = 5. No marker reaches 10: the turn ends. The lowest colours are
    #    red and purple (4) and RP shows both, so no swap: the hand (3 left) is refilled to 6.
    assert game.gains("BO") == (1, 1)
    game.play("BO")
    assert game.scores[0].tolist() == [4, 10, 5, 5, 10, 4]
    assert (game.current_player, game.turn, game.bonus_turns) == (1, 2, 0)
    assert game.display(0) == [card("BO")]
    assert game.discard() == {card("YP"): 1, card("RG"): 1, card("BY"): 1}
    assert len(game.hand(0)) == 6 and material(game) == FULL
    assert game.stats()["plays"] == [3, 0, 0] and game.stats()["bonus"] == [2, 0, 0]


def test_two_bonus_turns_from_one_card() -> None:
    """RULES §5.6 Decision: one bonus turn per marker reaching 10, so a card can earn two."""
    game = game_at(
        hands=[["RG", "BY", "OP", "YP"], ["RG"], ["RG"]],
        displays=[["BO"], ["RB"], ["GO"]],
        markers={0: [9, 9, 5, 5, 5, 5]},
    )
    # "RG": red shows on RB, green on GO: 9 + 1 = 10 twice, two bonus turns
    game.play("RG")
    assert game.scores[0].tolist() == [10, 10, 5, 5, 5, 5]
    assert (game.bonus_turns, game.current_player) == (2, 0)
    # "BY" against RG, RB, GO: blue 5 + 1 = 6, yellow 0; one bonus turn left
    game.play("BY")
    assert game.scores[0].tolist() == [10, 10, 6, 5, 5, 5]
    assert (game.bonus_turns, game.current_player) == (1, 0)
    # "OP" against BY, RB, GO: orange 5 + 1 = 6, purple 0; the turn ends (YP, showing the
    # lowest yellow and purple, is kept: no swap) and passes to player 1
    game.play("OP")
    assert game.scores[0].tolist() == [10, 10, 6, 6, 5, 5]
    assert (game.bonus_turns, game.current_player, game.turn) == (0, 1, 2)
    assert game.stats()["bonus"] == [2, 0, 0]


# -- the swap (RULES §5.5) ----------------------------------------------------------------------


def _swap_game(markers: list[int]) -> CardGame:
    # player 0 holds no red card; "BO" scores blue on BY (+1) and orange on OP (+1) and touches
    # neither red nor green
    return game_at(
        hands=[["BO", "GY", "BP", "OY", "OP", "YP"], ["RG"], ["RG"]],
        displays=[["BY"], ["OP"], ["YP"]],
        markers={0: markers},
    )


def test_the_swap_is_offered_when_no_card_shows_a_lowest_colour() -> None:
    """RULES §5.5: red alone is lowest (3) and no card left shows red: the swap is offered."""
    game = _swap_game([3, 4, 5, 5, 5, 5])
    game.play("BO")
    assert game.scores[0].tolist() == [3, 4, 6, 6, 5, 5]
    assert (game.phase, game.current_player, game.turn) == ("swap", 0, 1)
    assert game.legal_moves() == [CardMove.swap(), CardMove.keep()]
    assert game.legal_actions().tolist() == [30, 31]
    with pytest.raises(IllegalMoveError, match="must first decide on the swap"):
        game.play("GY")
    deck = game.deck_size
    game.play("swap")  # the 5 cards go to the discard pile (with BY), then 6 are drawn
    assert (game.phase, game.current_player, game.turn) == ("play", 1, 2)
    assert len(game.hand(0)) == 6 and game.discard_size == 1 + 5 and game.deck_size == deck - 6
    assert game.stats()["swaps"] == [1, 0, 0] and material(game) == FULL
    game.undo()
    game.play("keep")  # the hand is refilled as usual: one card drawn
    assert len(game.hand(0)) == 6 and game.discard_size == 1 and game.deck_size == deck - 1


def test_tied_lowest_colours_all_count() -> None:
    """RULES §5.5: the lowest colours are all those tied for the minimum: with red and green
    tied at 3, GY shows one of them and the swap is not offered."""
    game = _swap_game([3, 3, 5, 5, 5, 5])
    game.play("BO")
    assert game.scores[0].tolist() == [3, 3, 6, 6, 5, 5]
    assert (game.phase, game.current_player, game.turn) == ("play", 1, 2)
    with pytest.raises(IllegalMoveError, match="must play a card now"):
        game.play("swap")


def test_tied_lowest_colours_none_shown_offer_the_swap() -> None:
    """RULES §5.5: red and green tie lowest at 3 and no card left shows either: offered."""
    game = game_at(
        hands=[["BO", "BY", "BP", "OY", "OP", "YP"], ["RG"], ["RG"]],
        displays=[["BY"], ["OP"], ["YP"]],
        markers={0: [3, 3, 5, 5, 5, 5]},
    )
    game.play("BO")  # blue +1 (BY), orange +1 (OP): [3, 3, 6, 6, 5, 5]
    assert game.scores[0].tolist() == [3, 3, 6, 6, 5, 5]
    assert (game.phase, game.current_player) == ("swap", 0)


# -- policies ------------------------------------------------------------------------------------


def test_greedy_plays_a_best_move_and_swaps() -> None:
    """``'greedy'`` maximises sum over colours of -(10 - marker)^2 after the play."""
    for seed in range(20):
        game = CardGame(3, seed=seed)
        for _ in range(seed):
            game.play(game.choose("random"))
        if game.is_over:
            continue
        if game.phase == "swap":
            assert game.choose("greedy") == CardMove.swap()
            continue
        markers = game.scores[game.current_player].tolist()

        def value(move: CardMove, markers: list[int] = markers, game: CardGame = game) -> int:
            assert move.colours is not None
            after = list(markers)
            for c, gain in zip(move.colours, game.gains(move), strict=True):
                after[c] += gain
            return -sum((10 - v) ** 2 for v in after)

        best = max(value(m) for m in game.legal_moves())
        for _ in range(5):
            assert value(game.choose("greedy")) == best
            assert game.choose("epsilon-greedy:0") in game.legal_moves()
        assert game.choose("random") in game.legal_moves()


def test_epsilon_greedy_explores_with_probability_epsilon() -> None:
    """``'epsilon-greedy:EPS'`` (the kernel's policy): with probability EPS a uniformly random
    legal play (the swap on a fair coin), else greedy's. Epsilon 0 is always a best play,
    epsilon 1 is uniform over the legal plays, and in between the share of plays that are not
    best is EPS times the share of legal plays that are not best (about 4 standard errors)."""
    game = CardGame(3, seed=11)
    while len(game.legal_moves()) < 8 or game.phase != "play":
        game.play(game.choose("random"))
    moves = game.legal_moves()
    markers = game.scores[game.current_player].tolist()

    def value(move: CardMove) -> int:
        assert move.colours is not None
        after = list(markers)
        for c, gain in zip(move.colours, game.gains(move), strict=True):
            after[c] += gain
        return -sum((10 - v) ** 2 for v in after)

    best = {m for m in moves if value(m) == max(value(m) for m in moves)}
    assert len(best) < len(moves)
    draws = 6000
    for epsilon in (0.0, 0.3, 1.0):
        counts = Counter(game.choose(f"epsilon-greedy:{epsilon}") for _ in range(draws))
        assert set(counts) <= set(moves)
        other = sum(n for m, n in counts.items() if m not in best) / draws
        expected = epsilon * (1 - len(best) / len(moves))
        sd = (expected * (1 - expected) / draws) ** 0.5
        assert abs(other - expected) <= 4 * sd + 1e-12, (epsilon, other, expected)
        if epsilon == 1.0:  # uniform: every legal play about draws / len(moves) times
            share = draws / len(moves)
            assert all(abs(counts[m] - share) < 5 * share**0.5 for m in moves), counts
    assert game.legal_moves() == moves  # choosing plays nothing


# -- the deck (RULES §5.3) ----------------------------------------------------------------------


def test_the_discard_pile_becomes_the_deck_when_a_card_is_needed() -> None:
    """RULES §5.3: when the deck is empty, the discard pile is shuffled into a new deck, lazily:
    only when a card must be drawn."""
    hands = [["RG", "RB", "RO", "RY", "RP", "GB"], ["GO", "GY", "GP", "BO", "BY", "BP"]]
    hands.append(["OY", "OP", "YP", "RG", "RB", "RO"])
    start = game_at(hands=hands, displays=[["GB"], ["OY"], ["YP"]]).position
    # one YP left in the deck, the other 38 cards (60 - 18 in hands - 3 displayed) discarded
    deck = tuple(int(t == CARDS.index(card("YP"))) for t in range(15))
    discard = tuple(k - d for k, d in zip(start.deck, deck, strict=True))
    game = CardGame.from_position(start.replace(deck=deck, discard=discard), seed=3)
    assert (game.deck_size, game.discard_size) == (1, 38)
    # player 0 plays RG (all markers at 0: every colour is lowest, no swap): GB is discarded,
    # the refill draws the last deck card, YP. The deck is empty, the discard pile not yet used.
    game.play("RG")
    assert (game.deck_size, game.discard_size) == (0, 39)
    assert card("YP") in game.hand(0) and game.stats()["reshuffles"] == 0
    assert CardGame.from_text(game.to_text()) == game
    # player 1 plays GO: OY is discarded (40), the refill needs a card: the 40 discarded cards
    # become the deck and one is drawn (39 left)
    game.play("GO")
    assert (game.deck_size, game.discard_size) == (39, 0)
    assert game.stats()["reshuffles"] == 1 and material(game) == FULL
    assert CardGame.from_record(game.to_record()) == game


# -- the end (RULES §5.7) -----------------------------------------------------------------------


def test_the_instant_win() -> None:
    """RULES §5.7: six markers at 7 or more win at once: no bonus turn, no discard, no refill;
    the winner ranks first, the others by §3.7."""
    game = game_at(
        hands=[["OP", "RG", "RB", "GB", "GO", "BO"], ["RG"], ["RG"]],
        displays=[["RO"], ["GP"], ["BY"]],
        markers={0: [7, 7, 7, 9, 7, 6], 1: [5, 5, 5, 5, 5, 5], 2: [4, 6, 6, 6, 6, 6]},
    )
    # "PO": purple shows on GP: 6 + 1 = 7; orange on RO: 9 + 1 = 10 (which would earn a bonus
    # turn). All six markers are now at 7 or more: player 0 wins at once.
    game.play("PO")
    assert game.scores[0].tolist() == [7, 7, 7, 10, 7, 7]
    assert (game.phase, game.is_over, game.winner(), game.truncated) == ("over", True, 0, False)
    assert (game.bonus_turns, game.current_player, game.turn) == (0, 0, 1)
    # the card played stays in front of the winner; nothing is discarded or drawn
    assert game.display(0) == [card("RO"), card("OP")]
    assert game.discard_size == 0 and len(game.hand(0)) == 5 and material(game) == FULL
    # ranks: the winner 0; then (5, 5, 5, 5, 5, 5) beats (4, 6, 6, 6, 6, 6) on the lowest marker
    assert game.ranks().tolist() == [0, 1, 2]
    assert game.legal_moves() == [] and not game.action_mask().any()
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.play("RG")
    with pytest.raises(IllegalMoveError, match="over"):
        game.choose()
    assert game.to_text().endswith(" x 0 1 1000 0")
    assert CardGame.from_text(game.to_text()) == game
    assert "wins" in str(game)


def test_ranking_ties() -> None:
    """RULES §3.7 (by §5.7): markers sorted ascending, compared lexicographically, higher is
    better; identical vectors share a place; ranks count the seats strictly ahead."""
    markers = {0: [1, 2, 3, 3, 3, 3], 1: [3, 3, 3, 3, 2, 1], 2: [1, 2, 3, 3, 3, 4]}
    markers[3] = [2, 2, 2, 2, 2, 2]
    game = game_at(4, hands=[["RG"]] * 4, displays=[["RB"]] * 4, markers=markers)
    # sorted: p0 and p1 (1, 2, 3, 3, 3, 3), p2 (1, 2, 3, 3, 3, 4), p3 (2, 2, 2, 2, 2, 2):
    # p3 best (lowest 2 beats 1), then p2 (4 beats 3 at the end), then p0 and p1 together
    assert game.ranks().tolist() == [2, 2, 1, 0]
    assert game.winner() is None  # not over
    # over at the turn cap: p0 and p1 share first place (4, 4, 4, 4, 4, 5): no winner
    over = {0: [4, 4, 4, 4, 4, 5], 1: [5, 4, 4, 4, 4, 4], 2: [3, 4, 4, 4, 4, 4]}
    kwargs: dict[str, Any] = {"turn_cap": 5, "turn": 5, "phase": "over"}
    game = game_at(hands=[["RG"]] * 3, displays=[["RB"]] * 3, markers=over, **kwargs)
    assert game.ranks().tolist() == [0, 0, 2]
    assert (game.is_over, game.truncated, game.winner()) == (True, True, None)
    over[1] = [4, 4, 4, 4, 4, 4]  # now p0 is first alone: (4, 4, 4, 4, 4, 5) > (4, 4, ...)
    game = game_at(hands=[["RG"]] * 3, displays=[["RB"]] * 3, markers=over, **kwargs)
    assert game.ranks().tolist() == [0, 1, 2] and game.winner() == 0


def test_truncation_at_a_small_turn_cap() -> None:
    """RULES §5.7 Decision: a game stops after ``turn_cap`` turns and is reported truncated."""
    # turns 1, 2, 3, 4 are played by seats 0, 1, 2, 0; nobody can win that fast (while a
    # marker is at 0 no marker passes 3), so the game stops after the fourth turn, with seat 0
    # (the last to move) as the current player
    game = CardGame(3, seed=5, turn_cap=4)
    turns = []
    while not game.is_over:
        turns.append((game.turn, game.current_player))
        game.play(game.choose("greedy"))
    assert sorted(set(turns)) == [(1, 0), (2, 1), (3, 2), (4, 0)]
    assert (game.turn, game.truncated, game.current_player, game.phase) == (4, True, 0, "over")
    fields = game.to_text().split()
    assert fields[0] == "c3" and fields[-5:] == ["x", "0", "4", "4", "-"]
    assert str(game.rules) == "c3:4"
    ranks = game.ranks()
    best = np.flatnonzero(ranks == 0)
    assert game.winner() == (int(best[0]) if len(best) == 1 else None)
    assert CardGame.from_text(game.to_text()) == game
    assert CardGame.from_record(game.to_record()) == game
    assert "truncated" in str(game)
    one = CardGame(2, seed=1, turn_cap=1)
    one.play(one.legal_moves()[0])
    assert one.is_over and one.truncated and one.turn == 1


# -- two players (RULES §5.8) -------------------------------------------------------------------


def test_the_two_player_display_column() -> None:
    """RULES §5.8: two display cards each; a played card goes below them, all four count, and
    the top (oldest) card of the mover's column is discarded."""
    game = game_at(2, hands=[["GY", "RB"], ["RO", "RP"]], displays=[["RG", "BO"], ["YP", "GB"]])
    # "GY": green shows on RG and GB (the opponent's column counts): 2; yellow on YP: 1
    assert game.gains("GY") == (2, 1)
    game.play("GY")
    assert game.scores[0].tolist() == [0, 2, 0, 0, 1, 0]
    assert game.display(0) == [card("BO"), card("GY")]  # RG, the oldest, was discarded
    assert game.display(1) == [card("YP"), card("GB")]
    assert game.discard() == {card("RG"): 1}
    # player 1's "OR": orange shows on BO (player 0's column): 1; red on none of BO, GY, YP, GB
    assert game.gains("OR") == (1, 0)
    game.play("OR")
    assert game.scores[1].tolist() == [0, 0, 0, 1, 0, 0]
    assert game.display(1) == [card("GB"), card("RO")]
    assert game.discard() == {card("RG"): 1, card("YP"): 1}


# -- the view ------------------------------------------------------------------------------------


def test_the_view_shows_only_what_a_seat_can_see() -> None:
    game = CardGame(3, seed=8)
    game.play(game.choose("greedy"))
    view = game.view(2)
    assert isinstance(view, CardView)
    assert view.player == 2 and view.players == 3
    assert view.hand == tuple(game.hand(2))
    assert view.hand_sizes == (6, 6, 6)
    assert view.displays == tuple(tuple(game.display(p)) for p in range(3))
    assert view.markers == tuple(map(tuple, game.scores.tolist()))
    assert (view.deck_size, view.discard_size) == (game.deck_size, game.discard_size)
    assert (view.current_player, view.phase, view.bonus_turns, view.turn) == (1, "play", 0, 2)
    # nothing else: no other hand, nothing of the deck's or the discard pile's contents
    assert set(vars(view)) == {
        "player",
        "players",
        "hand",
        "hand_sizes",
        "displays",
        "markers",
        "deck_size",
        "discard_size",
        "current_player",
        "phase",
        "bonus_turns",
        "turn",
    }
    with pytest.raises(AttributeError):
        view.hand = ()  # type: ignore[misc]
    assert hash(view) == hash(game.view(2))
    with pytest.raises(GenialError):
        game.view(3)


# -- wrong input ---------------------------------------------------------------------------------


def test_illegal_moves_say_why_and_change_nothing() -> None:
    game = game_at(hands=[["RG", "RB"], ["OY"], ["OY"]], displays=[["GB"], ["GO"], ["GY"]])
    text, record = game.to_text(), game.to_record()
    cases: list[tuple[Any, str]] = [
        ("YP", r"player 0 has no YP card \(hand: RG RB\)"),
        ("PY", "has no YP card"),
        (28, "has no YP card"),
        ("swap", "must play a card now"),
        ("keep", "must play a card now"),
        ("RR", "two different colours"),
        ("R0,-4+B1,-4", "cannot read"),
        (32, "outside 0..31"),
        (-1, "outside"),
        (np.int64(40), "outside"),
        (True, "expected a CardMove"),
        (None, "expected a CardMove"),
        (1.0, "expected a CardMove"),
        (b"RG", "expected a CardMove"),
        (("R", "G"), "expected a CardMove"),
    ]
    for bad, message in cases:
        assert game.is_legal(bad) is False
        with pytest.raises(IllegalMoveError, match=message):
            game.play(bad)
        assert game.to_text() == text and game.to_record() == record
    with pytest.raises(IllegalMoveError, match="no move to undo"):
        game.undo()
    for bad in (3, -1, True, "0", None, 1.5):
        with pytest.raises(GenialError):
            game.hand(bad)  # type: ignore[arg-type]
        with pytest.raises(GenialError):
            game.display(bad)  # type: ignore[arg-type]
    for bad in ("best", "greedy:0.5", "epsilon-greedy:2", 7, "x" * 100):
        with pytest.raises(GenialError):
            game.choose(bad)  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="not a play"):
        game.gains("swap")
    assert game.to_text() == text and game.to_record() == record
    assert game.is_legal("RG") and game.is_legal("GR") and game.is_legal(CardMove.parse("BR"))
    assert game.is_legal(np.int32(2)) and not game.is_legal(np.float64(0.0))


BASE = CardGame(3, seed=2)


def _text(**changes: Any) -> str:
    """BASE's position text with some fields replaced (by name)."""
    names = "rules markers hands displays deck discard to_move phase bonus turn cap winner"
    fields = dict(zip(names.split(), BASE.to_text().split(), strict=True))
    fields.update(changes)
    return " ".join(fields.values())


def _markers(*rows: str) -> str:
    return "/".join([*rows, *["0,0,0,0,0,0"] * (3 - len(rows))])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "12 fields"),
        (_text(winner="- junk"), "12 fields"),
        ("x" * 500, "at most 400 characters"),
        (_text(rules="c5"), "rules"),
        (_text(rules="3"), "rules"),
        (_text(rules="c3:50"), "rules"),
        (_text(markers="0,0,0,0,0,0/0,0,0,0,0,0"), "markers: 2 players"),
        (_text(markers=_markers("0,0,0,0,0")), "six ints"),
        (_text(markers=_markers("0,0,0,0,0,٣")), "six ints"),
        (_text(markers=_markers("0,0,0,0,0,100")), "six ints"),
        (_text(markers=_markers("1,1,1,1,1,11")), "0..10"),
        (_text(markers=_markers("0,0,0,0,0,4")), r"beyond column 3.*§5.4"),
        (_text(markers=_markers("1,1,1,1,1,7")), r"beyond column 6.*§5.4"),
        (_text(hands="RGRGRGRGRGRGRG/-/-"), "at most 6 cards"),
        (_text(hands="RR/-/-"), "hand of player 0"),
        (_text(hands="RGX/-/-"), "hand of player 0"),
        (_text(displays="RG/RG"), "displays: 2 players"),
        (_text(deck="4" * 15), r"cards over hands, displays, deck and discard pile.*§5.1"),
        (_text(deck="5" * 15), "digits 0..4"),
        (_text(deck="4" * 14), "15 digits"),
        (_text(discard="1" + "0" * 14), "cards over hands"),
        (_text(to_move="3"), "to-move"),
        (_text(to_move="٠"), "to-move"),
        (_text(phase="q"), "phase"),
        (_text(phase="x"), "has not|below the turn cap"),
        (_text(phase="s"), "shows one of its lowest colours"),
        (_text(bonus="1"), r"bonus: 1 owed, but only 0 .* §5.6"),
        (_text(bonus="9"), "bonus"),
        (_text(turn="0"), "turn"),
        (_text(turn="1001"), r"turn: 1001 is not in 1..1000"),
        (_text(cap="0"), "turn-cap"),
        (_text(cap="40000"), "turn-cap"),
        (_text(winner="0"), "not over"),
        (_text(winner="3"), "winner"),
    ],
)
def test_bad_position_texts(text: str, message: str) -> None:
    with pytest.raises(PositionError, match=message):
        CardGame.from_text(text)


def test_a_base_text_is_valid() -> None:
    assert CardGame.from_text(_text()) == BASE


def test_positions_must_agree_with_the_end_and_the_displays() -> None:
    """RULES §5.7, §5.8, §5.2: what a position may say about the end, the displays and hands."""
    hands = [["RG"], ["RG"], ["RG"]]
    displays = [["RB"], ["RB"], ["RB"]]
    won = {0: [7, 7, 7, 7, 7, 7]}
    with pytest.raises(PositionError, match="the game is over"):
        game_at(hands=hands, displays=displays, markers=won)
    with pytest.raises(PositionError, match="player 0 has six markers at 7 or more and won"):
        game_at(hands=hands, displays=displays, markers=won, phase="over")
    with pytest.raises(PositionError, match="winning card stays in front of the winner"):
        game_at(hands=hands, displays=displays, markers=won, phase="over", winner=0)
    winner_displays = [["RB", "GO"], ["RB"], ["RB"]]
    game = game_at(hands=hands, displays=winner_displays, markers=won, phase="over", winner=0)
    assert game.winner() == 0 and game.is_over and not game.truncated
    with pytest.raises(PositionError, match="made the last move"):
        game_at(
            hands=hands, displays=winner_displays, markers=won, phase="over", winner=0, to_move=1
        )
    with pytest.raises(PositionError, match="does not have six markers"):
        game_at(
            hands=hands,
            displays=[["RB"], ["RB", "GO"], ["RB"]],
            markers=won,
            phase="over",
            winner=1,
            to_move=1,
        )
    with pytest.raises(PositionError, match="both have six markers"):
        game_at(hands=hands, displays=displays, markers={0: [7] * 6, 1: [8] * 6}, phase="over")
    with pytest.raises(PositionError, match="expected 2 with 2 players"):
        game_at(2, hands=[["RG"], ["RG"]], displays=[["RB"], ["RB", "GO"]])
    with pytest.raises(PositionError, match="expected 1 with 3 players"):
        game_at(hands=hands, displays=[[], ["RB"], ["RB"]])
    with pytest.raises(PositionError, match="player 1 holds no card"):
        game_at(hands=[["RG"], [], ["RG"]], displays=displays)
    with pytest.raises(PositionError, match="player 0 to play holds no card"):
        game_at(hands=[[], ["RG"], ["RG"]], displays=displays)
    with pytest.raises(PositionError, match="owed only while a card is to be played"):
        game_at(
            hands=[["BO"], ["RG"], ["RG"]],
            displays=displays,
            phase="swap",
            bonus=1,
            markers={0: [10, 10, 10, 10, 4, 4]},
        )
    with pytest.raises(PositionError, match="7 RG cards given, the game has 4"):
        game_at(hands=[["RG"] * 5, ["RG"], ["RG"]], displays=displays)
    # a swap decision with an empty hand is possible (after six plays in one turn, §5.5)
    swap = game_at(hands=[[], ["RG"], ["RG"]], displays=displays, phase="swap")
    assert swap.legal_actions().tolist() == [30, 31]
    # bonus turns owed need markers at 10 (RULES §5.6): two at 10, two owed is possible
    owed = game_at(
        hands=[["BO"], ["RG"], ["RG"]],
        displays=displays,
        bonus=2,
        markers={0: [10, 10, 4, 4, 4, 4]},
    )
    assert owed.bonus_turns == 2
    with pytest.raises(PositionError, match="bonus: 3 owed, but only 2"):
        game_at(
            hands=[["BO"], ["RG"], ["RG"]],
            displays=displays,
            bonus=3,
            markers={0: [10, 10, 4, 4, 4, 4]},
        )
    with pytest.raises(PositionError):
        CardGame.from_position("c3")  # type: ignore[arg-type]
    with pytest.raises(PositionError, match="not a card"):
        CardPosition.build(CardRules(3), hands=[["RR"], [], []], displays=[[], [], []])


def test_bad_records() -> None:
    game = CardGame(3, seed=4)
    for _ in range(5):
        game.play(game.choose("random"))
    record = game.to_record()
    assert record["format"] == "genial-cards-record"
    assert type(record["version"]) is int and record["version"] == 1
    assert record["start"] == CardGame(3, seed=4).to_text()

    def changed(**top: Any) -> dict[str, Any]:
        out: dict[str, Any] = json.loads(json.dumps(record))
        out.update(top)
        return out

    def move_changed(i: int, **entry: Any) -> dict[str, Any]:
        out = changed()
        out["moves"][i].update(entry)
        return out

    refill = next(i for i, m in enumerate(record["moves"]) if m["draws"])
    drawn = record["moves"][refill]["draws"]
    cases: list[tuple[Any, str]] = [
        (None, "a record is a dict"),
        (changed(format="genial-record"), "not a genial card-game record"),
        (changed(version=True), "unsupported record version True"),
        (changed(version=2), "unsupported record version"),
        (changed(version=1.0), "unsupported record version"),
        (changed(start=7), "no 'start'"),
        (changed(start="c3 junk"), "bad start position"),
        (changed(moves={}), "not a list"),
        (move_changed(0, move="RR"), "move 0"),
        (move_changed(0, move="swap"), "move 0"),
        (move_changed(refill, draws=[*drawn, "RG"]), f"move {refill}"),
        (move_changed(refill, draws=drawn[:-1]), "draws run out"),
        (move_changed(refill, draws=["RX"]), "not a card"),
        (move_changed(refill, draws=["RG"] * 7), "at most 6 cards"),
    ]
    for bad, message in cases:
        with pytest.raises(RecordError, match=message):
            CardGame.from_record(bad)
    assert CardGame.from_record(record) == game
    # a card that is not in the deck (player 0 holds all four RG) cannot be drawn
    start = game_at(
        hands=[["RG", "RG", "RG", "RG", "RB", "RO"], ["OY"], ["OY"]],
        displays=[["GB"], ["GO"], ["GY"]],
    ).to_text()
    bad = {"format": "genial-cards-record", "version": 1, "start": start}
    with pytest.raises(RecordError, match="not in the deck"):
        CardGame.from_record({**bad, "moves": [{"move": "RB", "draws": ["RG"]}]})
    good = CardGame.from_record({**bad, "moves": [{"move": "RB", "draws": ["YP"]}]})
    assert card("YP") in good.hand(0) and good.current_player == 1


# -- copies, pickling, streams -----------------------------------------------------------------


def _future(game: CardGame, steps: int, policy: str = "random") -> list[str]:
    out = []
    for _ in range(steps):
        if game.is_over:
            break
        move = game.choose(policy)
        game.play(move)
        out.append(f"{move} {game.to_text()}")
    return out


@pytest.mark.parametrize("how", ["pickle", "copy", "copy.copy", "copy.deepcopy"])
def test_copies_and_pickles_keep_the_future(how: str) -> None:
    """The clone has the same position, history, undo stack and both random streams."""
    game = CardGame(4, seed=12)
    _future(game, 9, "greedy")
    clone = {
        "pickle": lambda g: pickle.loads(pickle.dumps(g)),
        "copy": lambda g: g.copy(),
        "copy.copy": copy.copy,
        "copy.deepcopy": copy.deepcopy,
    }[how](game)
    assert clone is not game and clone == game
    assert clone.to_record() == game.to_record() and clone.moves == game.moves
    assert clone.stats() == game.stats()
    assert _future(clone, 30) == _future(game, 30)
    for _ in range(len(game.moves)):
        assert clone.undo() == game.undo()
        assert clone == game
    assert clone.to_text() == CardGame(4, seed=12).to_text()


def test_a_pickle_at_every_protocol_and_of_a_finished_game() -> None:
    game = CardGame(2, seed=6)
    _future(game, 500)
    assert game.is_over
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        clone = pickle.loads(pickle.dumps(game, protocol=protocol))
        assert clone == game and clone.to_record() == game.to_record()
        assert clone.ranks().tolist() == game.ranks().tolist()
        assert clone.winner() == game.winner()
    fresh = CardGame.from_text(game.to_text(), seed=1)
    assert pickle.loads(pickle.dumps(fresh)) == fresh


def test_copies_are_independent() -> None:
    game = CardGame(3, seed=13)
    other = game.copy()
    game.play(game.legal_moves()[0])
    assert other != game and other.moves == [] and len(game.moves) == 1


def test_chance_and_choice_are_apart() -> None:
    """The same seed and the same moves give the same draws, whoever chose the moves: asking a
    policy draws from the policy stream, never from the deck's chance stream."""
    chooser = CardGame(3, seed=21)
    follower = CardGame(3, seed=21)
    while not chooser.is_over:
        move = chooser.choose("epsilon-greedy:0.3")
        for _ in range(3):  # the follower asks its own policies and ignores them
            follower.choose("random")
        text = chooser.to_text()
        assert chooser.to_text() == text  # choosing changes nothing
        chooser.play(move)
        follower.play(str(move))
        assert follower.to_text() == chooser.to_text()
    assert follower.to_record() == chooser.to_record()
    # and the policy stream is reproducible from the seed
    a, b = CardGame(3, seed=22), CardGame(3, seed=22)
    assert _future(a, 50, "random") == _future(b, 50, "random")


def test_undo_restores_the_draws() -> None:
    game = CardGame(3, seed=30)
    _future(game, 10)
    before = game.to_text()
    move = game.choose()
    game.play(move)
    after = game.to_text()
    assert game.undo() == move and game.to_text() == before
    game.play(move)
    assert game.to_text() == after


def test_a_game_shared_by_threads_stays_consistent() -> None:
    """play, undo and choose are atomic: threads racing on one game lose no move."""
    for seed in range(4):
        game = CardGame(3, seed=seed)
        errors: list[BaseException] = []

        def worker(game: CardGame = game, errors: list[BaseException] = errors) -> None:
            while True:
                try:
                    game.play(game.choose("random"))
                except IllegalMoveError:
                    if game.is_over:
                        return
                    # another thread moved between choose and play: choose again
                except BaseException as exc:  # pragma: no cover - the test fails on it
                    errors.append(exc)
                    return

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and game.is_over
        assert CardGame.from_record(game.to_record()) == game


def test_str_and_repr() -> None:
    game = CardGame(2, seed=3)
    shown = str(game)
    assert "R  G  B  O  Y  P" in shown and "player 0 to play (turn 1)" in shown
    hand = " ".join("RGBOYP"[a] + "RGBOYP"[b] for a, b in game.hand(0))
    assert hand in shown and "A0 = 0, A1 = 1-3, A2 = 4-6, A3 = 7-10" in shown
    assert eval(repr(game), {"CardGame": CardGame}) == game
    assert game != game.to_text() and game != CardGame(2, seed=4)
    with pytest.raises(TypeError):
        hash(game)


# -- properties (hypothesis) ---------------------------------------------------------------------


@st.composite
def games(draw: st.DrawFn) -> CardGame:
    """A game after a random number of random legal moves (possibly over)."""
    players = draw(st.sampled_from([2, 3, 4]))
    seed = draw(st.integers(0, 2**32 - 1))
    steps = draw(st.integers(0, 150))
    game = CardGame(players, seed=seed, turn_cap=draw(st.sampled_from([1000, 1000, 7])))
    pick = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over:
            break
        moves = game.legal_moves()
        game.play(moves[pick.integers(len(moves))])
    return game


@SETTINGS
@given(games())
def test_text_round_trip(game: CardGame) -> None:
    text = game.to_text()
    again = CardGame.from_text(text)
    assert again.to_text() == text and again == game
    assert again.legal_actions().tolist() == game.legal_actions().tolist()
    assert again.ranks().tolist() == game.ranks().tolist()
    assert again.winner() == game.winner() and again.truncated == game.truncated
    assert CardPosition.parse(text) == game.position
    assert eval(repr(game), {"CardGame": CardGame}) == game
    assert material(game) == FULL


@SETTINGS
@given(games())
def test_record_round_trip(game: CardGame) -> None:
    record = json.loads(json.dumps(game.to_record()))
    again = CardGame.from_record(record)
    assert again.to_text() == game.to_text()
    assert again.to_record() == record
    assert again.stats() == game.stats()


@st.composite
def positions(draw: st.DrawFn) -> CardPosition:
    """A random position of a running game: the 60 cards dealt at random into hands (1 to 6
    cards), displays, deck and discard pile; markers within the area restriction."""
    players = draw(st.sampled_from([2, 3, 4]))
    rules = CardRules(players)
    cards = [c for c in CARDS for _ in range(4)]
    order = draw(st.permutations(cards))
    sizes = [draw(st.integers(1, 6)) for _ in range(players)]
    at = 0
    hands = []
    for n in sizes:
        hands.append(order[at : at + n])
        at += n
    displays = []
    for _ in range(players):
        displays.append(order[at : at + rules.display_size])
        at += rules.display_size
    split = draw(st.integers(at, 60))
    markers = []
    for _ in range(players):
        low = draw(st.integers(0, 6))
        top = 3 if low == 0 else 6 if low <= 3 else 10
        row = [draw(st.integers(low, top)) for _ in range(6)]
        row[draw(st.integers(0, 5))] = low
        markers.append(row)
    return CardPosition.build(
        rules,
        hands=hands,
        displays=displays,
        markers=markers,
        discard=order[split:],
        to_move=draw(st.integers(0, players - 1)),
        turn=draw(st.integers(1, 1000)),
    )


@SETTINGS
@given(positions(), st.integers(0, 2**32 - 1))
def test_every_position_accepted_plays_on_to_its_end(position: CardPosition, seed: int) -> None:
    game = CardGame.from_position(position, seed=seed)
    assert CardPosition.parse(game.to_text()) == position
    steps = 0
    while not game.is_over:
        assert game.legal_moves()
        game.play(game.choose("random"))
        steps += 1
        assert material(game) == FULL
        for row in game.scores.tolist():  # RULES §5.4 holds all along
            assert max(row) <= (3 if min(row) == 0 else 6 if min(row) <= 3 else 10)
    assert steps > 0 and (game.winner() is not None or game.truncated)
    assert CardGame.from_record(game.to_record()) == game


_ALPHABET = "0123456789,/- RGBOYPcpsx٣"


@SETTINGS
@given(games(), st.data())
def test_mutated_texts_are_read_or_rejected(game: CardGame, data: st.DataObject) -> None:
    """A text with a character changed either reads to a position that writes back the same,
    or is rejected with a PositionError; never another error."""
    text = game.to_text()
    i = data.draw(st.integers(0, len(text) - 1))
    ch = data.draw(st.sampled_from(_ALPHABET))
    mutated = text[:i] + ch + text[i + 1 :]
    try:
        again = CardGame.from_text(mutated)
    except PositionError:
        return
    assert CardGame.from_text(again.to_text()) == again
    assert material(again) == FULL


def test_gains_are_what_the_play_scores() -> None:
    """``gains(move)`` (RULES §5.3, §5.4) is exactly how far the play moves the two markers, in
    its scoring order, over many positions of random games; for a card not in the hand too
    (checked on a copy given that card by text)."""
    checked = 0
    for seed in range(40):
        game = CardGame(2 + seed % 3, seed=seed)
        while not game.is_over:
            if game.phase == "play":
                for move in game.legal_moves():
                    after = game.copy()
                    p = after.current_player
                    before = after.scores[p].copy()
                    gains = game.gains(move)
                    after.play(move)
                    assert move.colours is not None
                    got = tuple(int(after.scores[p][c] - before[c]) for c in move.colours)
                    assert gains == got, (seed, str(move))
                    checked += 1
            game.play(game.choose("random"))
    assert checked > 5000
    with pytest.raises(IllegalMoveError, match="not a play"):
        CardGame(3, seed=1).gains("swap")

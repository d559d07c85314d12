"""Hand-computed card-game positions through the public API (``CardPosition.build`` then
``CardGame.play``), for the rules that were hand-tested on the reference only
(``tests/reference/test_cards_reference.py``): a bonus turn lapsing with an empty hand and the
vacuous swap, the two-player bonus rotation, a reshuffle during a swap, an instant win on a
bonus card, a swap followed by the turn cap; and the victory points of small matches (RULES
§5.7). Every expected number is derived in the test's docstring or comments.

Colours: R G B O Y P = 0..5; a card is written by its two letters (``"RP"``). A position built
by ``at`` holds the given hands, displays and discard pile, and every other card of the 60 in
the deck (RULES §5.1: 4 of each of the 15 pairs).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

import genial
import genial.cards.matches
from genial import RecordError
from genial.batch import Playouts
from genial.cards import CARDS, CardGame, CardMove, CardPosition, CardRules

R, G, B, O, Y, P = range(6)  # noqa: E741 (the colour letters)
FULL = Counter({c: 4 for c in CARDS})


def card(text: str) -> tuple[int, int]:
    a, b = ("RGBOYP".index(ch) for ch in text)
    return (min(a, b), max(a, b))


def at(
    players: int = 3,
    *,
    hands: Sequence[Sequence[str]],
    displays: Sequence[Sequence[str]],
    markers: Mapping[int, Sequence[int]] | None = None,
    discard: Sequence[str] = (),
    turn_cap: int = 1000,
    seed: int = 0,
) -> CardGame:
    """A game at a hand-built position, player 0 to play on turn 1; ``markers`` by seat, the
    others at 0."""
    rows = [list((markers or {}).get(p, [0] * 6)) for p in range(players)]
    position = CardPosition.build(
        CardRules(players, turn_cap=turn_cap),
        hands=hands,
        displays=displays,
        markers=rows,
        discard=discard,
    )
    return CardGame.from_position(position, seed=seed)


def material(game: CardGame) -> Counter[tuple[int, int]]:
    total: Counter[tuple[int, int]] = Counter(game.deck()) + Counter(game.discard())
    for p in range(game.players):
        total.update(game.hand(p))
        total.update(game.display(p))
    return total


def cards_of(*texts: str) -> list[tuple[int, int]]:
    return sorted(card(t) for t in texts)


# -- RULES §5.6 + §5.5: a bonus turn lapses with an empty hand; the vacuous swap ------------------


def _lapse() -> CardGame:
    # player 0 holds the single card RP (six plays in one turn would empty a hand; here it is
    # built directly); the others hold one card each: 60 - 3 - 3 displayed = 54 in the deck
    return at(
        hands=[["RP"], ["RG"], ["RG"]],
        displays=[["GP"], ["BP"], ["OY"]],
        markers={0: [6, 6, 6, 6, 6, 9]},
    )


def test_a_bonus_turn_lapses_with_an_empty_hand_and_the_swap_is_offered() -> None:
    """RULES §5.6 Decision: with an empty hand the remaining bonus turns lapse. RULES §5.5
    Decision: the swap is decided on the hand as it is then, and an empty hand shows none of the
    lowest colours, so the swap is offered; swap and keep both draw six cards.

    "PR": purple shows on GP and BP: 9 + 2 = 11, capped at 10 (§5.3): P reaches 10, a bonus
    turn is earned; red shows on none of GP BP OY: 0. The hand is now empty: the bonus lapses
    (none owed, none counted as taken). The rotation still happens: GP to the discard pile, RP
    on display. The lowest colours are R G B O Y (6): the swap decision follows."""
    game = _lapse()
    assert (game.deck_size, game.discard_size) == (54, 0)
    assert game.gains("PR") == (1, 0)
    game.play("PR")
    assert game.scores[0].tolist() == [6, 6, 6, 6, 6, 10]
    assert (game.phase, game.bonus_turns, game.current_player, game.turn) == ("swap", 0, 0, 1)
    assert game.hand(0) == [] and game.display(0) == [card("RP")]
    assert game.discard() == {card("GP"): 1} and game.deck_size == 54
    assert game.legal_moves() == [CardMove.swap(), CardMove.keep()]
    assert game.stats()["bonus"] == [0, 0, 0] and game.stats()["plays"] == [1, 0, 0]
    assert game.position.bonus == 0 and game.to_text().split()[7:9] == ["s", "0"]
    # the swap: nothing to discard, six drawn (54 - 6 = 48); then player 1's turn 2
    game.play("swap")
    assert len(game.hand(0)) == 6 and (game.deck_size, game.discard_size) == (48, 1)
    assert (game.phase, game.current_player, game.turn) == ("play", 1, 2)
    assert game.stats()["swaps"] == [1, 0, 0] and material(game) == FULL
    # keep instead: the ordinary refill of an empty hand also draws six
    game.undo()
    game.play("keep")
    assert len(game.hand(0)) == 6 and (game.deck_size, game.discard_size) == (48, 1)
    assert (game.phase, game.current_player, game.turn) == ("play", 1, 2)
    assert game.stats()["swaps"] == [0, 0, 0]
    assert game.scores[0].tolist() == [6, 6, 6, 6, 6, 10]


# -- RULES §5.8 + §5.6: the two-player bonus rotation ---------------------------------------------


def test_the_two_player_bonus_turn_drops_the_oldest_display_card() -> None:
    """RULES §5.8: two display cards each, all four count, the oldest of the mover's column is
    discarded after each card; RULES §5.6: the rotation comes before the bonus card, which is
    scored against the new column. Deck: 60 - 7 in hands - 4 displayed = 49.

    1. "PO" against p0 [RP, GB] and p1 [OY, BY]: purple on RP: 9 + 1 = 10, a bonus turn;
       orange on OY: 6 + 1 = 7. RP (the oldest) is discarded: p0 [GB, OP].
    2. "GO" against [GB, OP] and [OY, BY]: green on GB: 6 + 1 = 7; orange on OP and OY:
       7 + 2 = 9. GB is discarded: p0 [OP, GO]. Markers R6 G7 B6 O9 Y6 P10: the lowest are R,
       B and Y, which RB shows: no swap; the hand RB RB RY RY is refilled with 2 (49 - 2)."""
    game = at(
        2,
        hands=[["OP", "GO", "RB", "RB", "RY", "RY"], ["RG"]],
        displays=[["RP", "GB"], ["OY", "BY"]],
        markers={0: [6, 6, 6, 6, 6, 9]},
    )
    assert game.deck_size == 49
    assert game.gains("PO") == (1, 1)
    game.play("PO")
    assert game.scores[0].tolist() == [6, 6, 6, 7, 6, 10]
    assert game.display(0) == [card("GB"), card("OP")]
    assert game.display(1) == [card("OY"), card("BY")]
    assert game.discard() == {card("RP"): 1}
    assert (game.phase, game.current_player, game.bonus_turns, game.turn) == ("play", 0, 1, 1)
    assert game.hand(0) == cards_of("GO", "RB", "RB", "RY", "RY") and game.deck_size == 49
    assert game.gains("GO") == (1, 2)
    game.play("GO")
    assert game.scores[0].tolist() == [6, 7, 6, 9, 6, 10]
    assert game.display(0) == [card("OP"), card("GO")]
    assert game.display(1) == [card("OY"), card("BY")]
    assert game.discard() == {card("RP"): 1, card("GB"): 1}
    assert (game.phase, game.current_player, game.bonus_turns, game.turn) == ("play", 1, 0, 2)
    assert len(game.hand(0)) == 6 and Counter(game.hand(0))[card("RB")] >= 2
    assert (game.deck_size, game.discard_size) == (47, 2)
    assert game.stats()["plays"] == [2, 0] and game.stats()["bonus"] == [1, 0]
    assert game.scores[1].tolist() == [0] * 6 and material(game) == FULL


# -- RULES §5.5 + §5.3: a reshuffle during a swap -------------------------------------------------

SWAP_HANDS = [["BO", "BY", "OY", "OP", "YP", "BP"], ["OP", "OP", "OP", "BY", "BY", "BY"], ["RG"]]
SWAP_DISPLAYS = [["OY"], ["BP"], ["YP"]]
SWAP_MARKERS = {0: [1, 1, 2, 3, 3, 3]}


def _swap_start(deck: Sequence[str] | None = None, turn_cap: int = 1000) -> CardGame:
    """Player 0 (markers R1 G1 B2 O3 Y3 P3, lowest R and G, limit 6) plays "BO": blue shows on
    BP: 2 + 1 = 3; orange on OY: 3 + 1 = 4. The rest of the hand, BY OY OP YP BP, shows neither
    R nor G: the swap is offered (RULES §5.5). Player 1 holds the other three BY and OP, so the
    only BY and OP the deck can ever hold are player 0's. ``deck``: the only cards left in the
    deck, every other one on the discard pile."""
    discard: list[str] = []
    if deck is not None:
        used = Counter(card(c) for rows in (SWAP_HANDS, SWAP_DISPLAYS) for r in rows for c in r)
        rest = FULL - used - Counter(card(c) for c in deck)
        discard = ["RGBOYP"[a] + "RGBOYP"[b] for a, b in sorted(rest.elements())]
    game = at(
        hands=SWAP_HANDS,
        displays=SWAP_DISPLAYS,
        markers=SWAP_MARKERS,
        discard=discard,
        turn_cap=turn_cap,
    )
    game.play("BO")
    assert game.scores[0].tolist() == [1, 1, 3, 4, 3, 3]
    assert (game.phase, game.current_player, game.turn) == ("swap", 0, 1)
    assert game.display(0) == [card("BO")]
    return game


def test_a_reshuffle_during_a_swap() -> None:
    """RULES §5.5 Decision: swapping puts the hand on the discard pile first, then draws 6;
    RULES §5.3: an empty deck is replaced by the discard pile when a card must be drawn.

    16 cards are in hands and displays; of the other 44, two (RB, RO) are in the deck and 42
    on the discard pile. After "BO" the discard pile has 43 (OY from the display). The swap
    discards the five cards left (48), draws RB and RO (the deck is empty), then the 48
    discarded cards become the deck and four more are drawn: deck 44, discard pile 0."""
    game = _swap_start(deck=["RB", "RO"])
    assert (game.deck_size, game.discard_size) == (2, 43)
    assert game.stats()["reshuffles"] == 0
    game.play("swap")
    assert (game.deck_size, game.discard_size) == (44, 0)
    hand = game.hand(0)
    assert len(hand) == 6 and card("RB") in hand and card("RO") in hand
    assert game.stats()["reshuffles"] == 1 and game.stats()["swaps"] == [1, 0, 0]
    assert (game.phase, game.current_player, game.turn) == ("play", 1, 2)
    assert material(game) == FULL


def test_the_swapped_cards_can_come_back_after_the_reshuffle() -> None:
    """The same swap replayed from a record with scripted draws: RB and RO from the old deck,
    then BY, OP, OY and YP, which after the reshuffle only the swapped hand can have brought
    into the deck (player 1 holds the other BY and OP). Drawing BY first, before the deck runs
    out, is refused: it is not in the deck."""
    start = _swap_start(deck=["RB", "RO"])
    start.undo()
    text = start.to_text()

    def record(draws: list[str]) -> dict[str, Any]:
        moves = [{"move": "BO", "draws": []}, {"move": "swap", "draws": draws}]
        return {"format": "genial-cards-record", "version": 1, "start": text, "moves": moves}

    game = CardGame.from_record(record(["RB", "RO", "BY", "OP", "OY", "YP"]))
    assert game.hand(0) == cards_of("RB", "RO", "BY", "OP", "OY", "YP")
    assert (game.deck_size, game.discard_size) == (44, 0)
    # the four OY: two began on the discard pile, the display's and the hand's joined them, all
    # four became the deck, one was drawn back; no BY or OP is left anywhere but in hands
    assert game.deck()[card("OY")] == 3
    assert card("BY") not in game.deck() and card("OP") not in game.deck()
    assert game.stats()["reshuffles"] == 1 and material(game) == FULL
    with pytest.raises(RecordError, match="not in the deck"):
        CardGame.from_record(record(["BY", "RB", "RO", "OP", "OY", "YP"]))


# -- RULES §5.5 + §5.7: a swap, then the turn cap -------------------------------------------------


@pytest.mark.parametrize("decision", ["swap", "keep"])
def test_the_turn_cap_takes_effect_after_the_swap_decision(decision: str) -> None:
    """RULES §5.7 Decision: the cap takes effect when the turn's refill or swap is done. With a
    cap of 1, after "BO" the game waits for player 0's swap decision (not over yet); after it
    the game is over, truncated, on turn 1 with player 0 (the last to move) current. "swap"
    discards the five cards (1 + 5 on the pile) and draws six; "keep" draws one. Ranks (RULES
    §3.7): p0 sorted (1, 1, 3, 3, 3, 4) beats the zeros of p1 and p2, who share rank 1."""
    game = _swap_start(turn_cap=1)
    deck = game.deck_size
    assert not game.is_over and game.rules == CardRules(3, turn_cap=1)
    game.play(decision)
    assert (game.phase, game.is_over, game.truncated) == ("over", True, True)
    assert (game.turn, game.current_player, game.bonus_turns) == (1, 0, 0)
    assert len(game.hand(0)) == 6 and game.legal_moves() == []
    drawn = 6 if decision == "swap" else 1
    assert game.deck_size == deck - drawn
    assert game.discard_size == (6 if decision == "swap" else 1)
    assert game.stats()["swaps"] == [int(decision == "swap"), 0, 0]
    assert game.ranks().tolist() == [0, 1, 1] and game.winner() == 0
    assert game.to_text().endswith(" 0 x 0 1 1 -")
    # with a cap of 2 the same decision passes the turn to player 1 instead
    longer = _swap_start(turn_cap=2)
    longer.play(decision)
    assert (longer.phase, longer.current_player, longer.turn) == ("play", 1, 2)


# -- RULES §5.6 + §5.7: an instant win on a bonus card --------------------------------------------


def test_an_instant_win_on_a_bonus_card() -> None:
    """RULES §5.6: a marker reaching 10 earns a bonus card; RULES §5.7: six markers at 7 or more
    win at once, after the whole card is scored: no rotation, no bonus turn, no refill.

    1. "OR" against BO, YP, GP: orange on BO: 9 + 1 = 10, a bonus turn; red on none: 0.
       BO is discarded, RO is on display.
    2. The bonus card "PY" against RO, YP, GP: purple on YP and GP: 5 + 2 = 7; yellow on YP:
       9 + 1 = 10 (which would earn another bonus turn). Markers 8 8 8 10 10 7: all at 7 or
       more, player 0 wins: YP stays in front of them beside RO, GB stays in the hand, nothing
       more is discarded or drawn. Ranks: the winner 0, then p1 (all 3) above p2 (all 2)."""
    game = at(
        hands=[["RO", "YP", "GB"], ["RG"], ["RG"]],
        displays=[["BO"], ["YP"], ["GP"]],
        markers={0: [8, 8, 8, 9, 9, 5], 1: [3] * 6, 2: [2] * 6},
    )
    deck = game.deck_size
    assert deck == 60 - 5 - 3
    assert game.gains("OR") == (1, 0)
    game.play("OR")
    assert game.scores[0].tolist() == [8, 8, 8, 10, 9, 5]
    assert (game.phase, game.current_player, game.bonus_turns, game.turn) == ("play", 0, 1, 1)
    assert game.display(0) == [card("RO")] and game.discard() == {card("BO"): 1}
    assert game.gains("PY") == (2, 1)
    game.play("PY")
    assert game.scores[0].tolist() == [8, 8, 8, 10, 10, 7]
    assert (game.phase, game.is_over, game.truncated, game.winner()) == ("over", True, False, 0)
    assert (game.current_player, game.bonus_turns, game.turn) == (0, 0, 1)
    assert game.display(0) == [card("RO"), card("YP")]
    assert game.hand(0) == [card("GB")]
    assert game.discard() == {card("BO"): 1} and game.deck_size == deck
    assert game.stats()["plays"] == [2, 0, 0] and game.stats()["bonus"] == [1, 0, 0]
    assert game.ranks().tolist() == [0, 1, 2]
    assert game.to_text().endswith(" 0 x 0 1 1000 0")
    assert material(game) == FULL
    assert CardGame.from_text(game.to_text()) == game


# -- RULES §5.7: victory points of matches --------------------------------------------------------

# 4 matches of 2 rounds, 3 players; row m * 2 + r is round r of match m
MATCH_MARKERS = [
    # match 0: lowest 1, 0, 3 then 7, 2, 4: victory points 8, 2, 7 -> ranks 0, 2, 1, winner 0
    [[1, 2, 3, 4, 5, 6], [0, 9, 9, 9, 9, 9], [3, 3, 3, 3, 3, 3]],
    [[7, 7, 7, 7, 7, 7], [2, 5, 5, 5, 5, 5], [4, 6, 6, 6, 6, 6]],
    # match 1: lowest 5, 6, 4 then 3, 2, 4: 8, 8, 8 -> all share first place: no winner
    [[5, 9, 9, 9, 9, 9], [6, 6, 6, 6, 6, 6], [4, 10, 10, 10, 10, 10]],
    [[3, 3, 3, 3, 3, 3], [2, 3, 3, 3, 3, 3], [4, 4, 4, 4, 4, 4]],
    # match 2: lowest 7, 1, 1 then 0, 3, 3: 7, 4, 4 -> ranks 0, 1, 1, winner 0
    [[7, 7, 7, 7, 7, 8], [1, 1, 1, 1, 1, 1], [1, 2, 2, 2, 2, 2]],
    [[0, 3, 3, 3, 3, 3], [3, 3, 3, 3, 3, 3], [3, 6, 6, 6, 6, 6]],
    # match 3: lowest 2, 5, 5 then 1, 0, 0: 3, 5, 5 -> ranks 2, 0, 0, first shared: no winner
    [[2, 2, 2, 2, 2, 2], [5, 5, 5, 5, 5, 5], [5, 6, 6, 6, 6, 6]],
    [[1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0]],
]


def test_victory_points_of_hand_made_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """RULES §5.7 multi-round play: each round a player earns victory points equal to their
    lowest marker; the most victory points win (ties share the place, ranks count the seats
    strictly ahead, RULES §3.7 Decision). ``genial.match`` is fed the rounds above (its batch
    replaced by one whose markers are set by hand) and must give the hand-computed points."""
    real = genial.simulate(8, game="cards", rules="c3", seed=0)
    rows = real.rows.copy()
    rows["scores"][:, :3] = np.array(MATCH_MARKERS, dtype=np.uint8)
    fake = Playouts(real.spec, rows, real.game)
    calls: list[tuple[int, dict[str, Any]]] = []

    def simulate(n: int, rules: Any = None, **options: Any) -> Playouts:
        calls.append((n, {"rules": rules, **options}))
        return fake

    monkeypatch.setattr(genial.cards.matches, "simulate", simulate)
    result = genial.match(4, rounds=2, players=3, policy="greedy", seed=5)
    assert calls[0][0] == 8 and calls[0][1]["options"] == {"epsilon": 0.1}
    assert calls[0][1]["rules"] == CardRules(3) and calls[0][1]["policy"] == "greedy"
    assert result.rounds == 2 and len(result) == 4
    assert result.round_points.tolist() == [
        [[1, 0, 3], [7, 2, 4]],
        [[5, 6, 4], [3, 2, 4]],
        [[7, 1, 1], [0, 3, 3]],
        [[2, 5, 5], [1, 0, 0]],
    ]
    assert result.victory_points.tolist() == [[8, 2, 7], [8, 8, 8], [7, 4, 4], [3, 5, 5]]
    assert result.ranks.tolist() == [[0, 2, 1], [0, 0, 0], [0, 1, 1], [2, 0, 0]]
    assert result.winner.tolist() == [0, -1, 0, -1]
    # seat 0 won 2 of 4 matches outright, seats 1 and 2 none
    assert [w.rate for w in result.win_rates()] == [0.5, 0.0, 0.0]


def test_victory_points_of_real_matches_recounted() -> None:
    """Real 2-round matches: each round's lowest markers read off the match's own games (row
    ``m * 2 + r``), summed and ranked here by hand."""
    result = genial.match(6, rounds=2, players=3, policy=["greedy", "random", "greedy"], seed=9)
    games = result.games
    assert len(games) == 12 and games.rules == CardRules(3)
    winners = []
    for m in range(6):
        points = [0, 0, 0]
        for r in range(2):
            markers = games.scores[m * 2 + r].tolist()
            for seat in range(3):
                points[seat] += min(markers[seat])
        assert result.victory_points[m].tolist() == points
        ranks = [sum(other > mine for other in points) for mine in points]
        assert result.ranks[m].tolist() == ranks
        best = [s for s in range(3) if ranks[s] == 0]
        winners.append(best[0] if len(best) == 1 else -1)
    assert result.winner.tolist() == winners
    # the rounds are separate games: every one of them ended (RULES §5.7)
    assert (games.truncated | games.column("instant").astype(bool)).all()

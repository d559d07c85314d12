"""Independent pure-Python reference of the card game *Einfach Genial: Das Kartenspiel* (RULES §5).

Written from ``docs/rules.md`` §5 and §3.7 (and the original rulebook for context) only, for
differential testing of the compiled engine. It is deliberately plain and slow: every derived
quantity (lowest marker, area limit, colour counts, legality, ranks) is recomputed from scratch.

Conventions
-----------
Colours are ints ``0..5`` (R G B O Y P). A card is a tuple ``(a, b)`` with ``a < b``. Markers are
ints ``0..10``. Hands, deck and discard pile are ``collections.Counter`` multisets of cards (zero
entries are never stored). ``displays[p]`` is player ``p``'s face-up display, oldest first.

Readings of the rules taken here (each one is also cited next to the code that implements it)
--------------------------------------------------------------------------------------------
* RULES §5.3 scoring: for each colour of the played card, the count is the number of display
  cards, over **all** players (the mover's own included), that show that colour. A card shows two
  different colours (§5.1), so each display card contributes 0 or 1. The card just played is not
  on any display while it is scored, so it never counts for itself.
* RULES §5.4 area restriction: "adjacent" areas of area ``k`` are ``k-1``, ``k`` and ``k+1``.
  No marker can be below the lowest marker, so a marker may go at most to the last column of area
  ``k+1`` where ``k`` is the area of the player's lowest marker: lowest in A0 -> column 3, in A1
  -> column 6, in A2 or A3 -> column 10. In particular while any marker is still in column 0, no
  marker can pass column 3. The limit is recomputed before **each** of the two colours, from the
  markers as they are at that moment (so scoring the sole lowest colour first can raise the limit
  for the second colour); it is not recomputed while one marker moves. A marker never moves
  backwards (``new = max(old, min(old + count, limit))``; with legal histories ``old <= limit``
  always holds because the limit never decreases).
* RULES §5.3 cap: the limit above never exceeds 10; points beyond are lost.
* RULES §5.6 bonus turn: a marker "reaches column 10" with a play when it was below 10 before that
  card's scoring and is at 10 after it; each such marker earns one bonus turn (so one card can earn
  0, 1 or 2). A marker already at 10 never triggers again.
* RULES §5.6 / §5.3 display rotation: every played card is followed by exactly one rotation
  (discard the oldest display card face down, the played card joins the display at the newest
  end). For a bonus turn the text puts the rotation at the start of the bonus turn, i.e. before the
  bonus card is played and scored; for the last card of a turn it is the end-of-turn rotation of
  §5.3. Both happen immediately after the card is scored, which is what this module does, so a
  bonus card is scored against a display that already contains the previous card and no longer
  the discarded one.
* RULES §5.5 / §5.3 order at the end of the plays: rotation first, then the swap test, then the
  refill (or the swap). The swap test only looks at markers and hand, so the rotation order is
  visible only through ``displays``/``discard`` in the "swap" phase and through which cards a
  reshuffle may bring back (the just discarded display card is in the discard pile when the swap
  or refill draws).
* RULES §5.5 swap test: the lowest colours are all colours tied for the minimum marker; the swap
  is offered iff no card in the hand shows any of them. With an empty hand (only after a turn of
  six plays) this holds vacuously and the swap is offered (both choices then draw 6 cards).
* RULES §5.5 swap: the whole hand goes to the discard pile **first**, then 6 cards are drawn (so
  the hand holds 6 afterwards even if bonus plays had shrunk it). If the deck runs out during
  these 6 draws, the discard pile, which then contains the swapped-out hand, becomes the new deck.
  "keep" refills the hand to 6 as usual.
* RULES §5.3 reshuffle (lazy): the discard pile becomes the new deck only when a card must be
  drawn and the deck is empty; then the draw continues from it and the discard pile is empty.
  Emptying the deck with the last draw of a refill does not reshuffle yet.
* Exhaustion: if a card must be drawn while both deck and discard pile are empty, the draw stops
  and the hand stays short (``draws_needed`` counts only the cards actually available). With the
  validated 60-card material this is unreachable: outside deck and discard there are at most
  4 * 6 hand cards + 8 display cards + 1 card in play, so at least 27 cards are available whenever
  a draw happens.
* RULES §5.6 bonus count: ``bonus`` is the number of bonus turns earned in the current turn and
  not yet played, **including** the one whose card is awaited now; it is decremented when a bonus
  card is played. So in the "play" phase ``bonus > 0`` means the awaited card is a bonus play.
  Decision of §5.6: with an empty hand the remaining bonus turns lapse (``bonus`` becomes 0).
  (With 6-card hands and at most five markers able to reach 10 without an instant win, this lapse
  is in fact unreachable from a legal start.)
* Bonus turns are part of the turn: they do not start new turns and do not count for ``turns``
  or for the turn cap; ``current`` does not change during them.
* RULES §5.7 instant win: checked after each card is scored (both colours; the card is scored as
  one step of §5.3). When the mover has all six markers at 7 or more, the game is over at once:
  no bonus turn is taken (``bonus`` is set to 0), no display card is discarded, no refill happens.
  The played card has been laid in front of the player, so it is appended to their display (which
  then holds one card more than usual); the card total stays 60.
* RULES §5.7 ranking: by §3.7 (sort each player's markers ascending, compare lexicographically,
  higher is better; a player's rank = number of players strictly better, so ties share the
  place). The instant winner ranks 0; every other player ranks 1 + the number of *other
  non-winners* strictly better. (The winner's sorted vector is in fact always strictly the best,
  since every other player has a marker below 7.)
* RULES §5.7 truncation: ``turns`` counts turns started (1 at the start). When turn number
  ``turn_cap`` completes (after its refill or swap decision) without an instant win, the game is
  over with ``truncated = True``; ``turns`` stays at ``turn_cap`` and ``current`` stays at the
  seat that played that turn. On any game end ``current`` is not advanced.
* RULES §5.8 two players: each player has two display cards (oldest first); the played card is
  scored against all four display cards (it is not one of them while it is scored); then the
  oldest card of the mover's column is discarded and the played card becomes the newest, so the
  column holds two cards again. The same rotation is used before each bonus turn.
* RULES §5.7 multi-round play: a round gives each player victory points equal to their lowest
  marker; totals are compared by competition ranks (higher is better, equal totals share the
  place; the text gives no further tie-break).
* ``copy()`` is a deep copy. ``play`` is atomic: on ``ValueError`` the state is unchanged.
"""

from __future__ import annotations

import copy as _copy
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

Card = tuple[int, int]
Move = tuple[Any, ...]

COLOURS: tuple[int, ...] = (0, 1, 2, 3, 4, 5)
COLOUR_NAMES: str = "RGBOYP"
HAND_SIZE = 6
MAX_COLUMN = 10
WIN_COLUMN = 7
# RULES §5.1: areas A0 = {0}, A1 = {1, 2, 3}, A2 = {4, 5, 6}, A3 = {7, 8, 9, 10}.
AREAS: tuple[tuple[int, ...], ...] = ((0,), (1, 2, 3), (4, 5, 6), (7, 8, 9, 10))


def card_types() -> list[Card]:
    """The 15 card types of RULES §5.1: every pair of two different colours, ``a < b``."""
    return [(a, b) for a in COLOURS for b in COLOURS if a < b]


def full_material() -> Counter[Card]:
    """RULES §5.1: 4 copies of each of the 15 types, 60 cards."""
    return Counter({t: 4 for t in card_types()})


def area_of(column: int) -> int:
    """RULES §5.1: the index of the area containing ``column``."""
    for index, columns in enumerate(AREAS):
        if column in columns:
            return index
    raise ValueError(f"column {column} is not on the board")


def advance_limit(markers: Sequence[int]) -> int:
    """RULES §5.4: the highest column any marker may reach now.

    Reading: the areas adjacent to area ``k`` are ``k-1``, ``k`` and ``k+1``; nothing is below the
    lowest marker, so the limit is the last column of area ``k+1`` (capped at A3, i.e. column 10).
    Lowest in A0 -> 3, in A1 -> 6, in A2 or A3 -> 10.
    """
    lowest_area = area_of(min(markers))
    allowed_area = min(lowest_area + 1, len(AREAS) - 1)
    return max(AREAS[allowed_area])


def shows(card: Card, colour: int) -> bool:
    """Whether ``card`` shows ``colour`` (a card shows two different colours, RULES §5.1)."""
    return colour in card


def colour_count(displays: Sequence[Sequence[Card]], colour: int) -> int:
    """RULES §5.3 (and §5.8): occurrences of ``colour`` on all players' display cards."""
    total = 0
    for display in displays:
        for card in display:
            if shows(card, colour):
                total += 1
    return total


def lowest_colours(markers: Sequence[int]) -> set[int]:
    """RULES §5.5: every colour tied for the lowest marker."""
    low = min(markers)
    return {c for c in COLOURS if markers[c] == low}


def ranking_key(markers: Sequence[int]) -> tuple[int, ...]:
    """RULES §3.7: the markers sorted ascending; lexicographically higher is better."""
    return tuple(sorted(markers))


def competition_ranks(keys: Sequence[Any]) -> list[int]:
    """Rank of each entry = number of entries strictly better (strictly greater key)."""
    return [sum(1 for other in keys if other > mine) for mine in keys]


def rank_markers(markers: Sequence[Sequence[int]], winner: int | None = None) -> list[int]:
    """RULES §5.7 + §3.7: ranks from the players' markers (0 = best, ties share the place).

    An instant winner (``winner``) ranks 0; the others rank 1 + the number of other non-winners
    with a strictly better §3.7 vector.
    """
    keys = [ranking_key(m) for m in markers]
    if winner is None:
        return competition_ranks(keys)
    ranks: list[int] = []
    for p, mine in enumerate(keys):
        if p == winner:
            ranks.append(0)
            continue
        better = sum(1 for q, other in enumerate(keys) if q != winner and other > mine)
        ranks.append(1 + better)
    return ranks


def match_victory_points(rounds_markers: list[list[list[int]]]) -> list[int]:
    """RULES §5.7 multi-round play: each player's lowest marker, summed over the rounds.

    ``rounds_markers[r][p]`` is player ``p``'s six markers at the end of round ``r``.
    """
    if not rounds_markers:
        raise ValueError("no rounds")
    players = len(rounds_markers[0])
    vp = [0] * players
    for round_markers in rounds_markers:
        if len(round_markers) != players:
            raise ValueError("every round must have the same number of players")
        for p, markers in enumerate(round_markers):
            if len(markers) != len(COLOURS):
                raise ValueError("each player has six markers")
            vp[p] += min(markers)
    return vp


def match_ranks(vp: Sequence[int]) -> list[int]:
    """RULES §5.7: the most victory points win; competition ranks, equal totals share the place."""
    return competition_ranks(list(vp))


def _as_card(raw: Any) -> Card:
    """Validate one card (RULES §5.1: two different colours, written ``(a, b)`` with ``a < b``)."""
    try:
        a, b = raw
    except (TypeError, ValueError):
        raise ValueError(f"not a card: {raw!r}") from None
    if (
        not (isinstance(a, int) and isinstance(b, int))
        or isinstance(a, bool)
        or isinstance(b, bool)
    ):
        raise ValueError(f"not a card: {raw!r}")
    if not (0 <= a < b <= 5):
        raise ValueError(f"not a card (need 0 <= a < b <= 5): {raw!r}")
    return (a, b)


def _remove(multiset: Counter[Card], card: Card) -> None:
    """Remove one copy of ``card``; keep the Counter free of zero entries."""
    if multiset[card] <= 0:
        raise ValueError(f"card {card} not present")
    multiset[card] -= 1
    if multiset[card] == 0:
        del multiset[card]


class CardReference:
    """The state of one game of the card game (RULES §5), driven move by move.

    ``CardReference(players, hands, displays, deck, *, turn_cap=1000, markers=None)``.
    ``markers`` (an extension for tests, keyword-only, default all zero) sets the starting markers;
    they must respect the area restriction (RULES §5.4) and must not already be an instant win.
    """

    def __init__(
        self,
        players: int,
        hands: list[list[Card]],
        displays: list[list[Card]],
        deck: list[Card],
        *,
        turn_cap: int = 1000,
        markers: list[list[int]] | None = None,
    ) -> None:
        if not isinstance(players, int) or not 2 <= players <= 4:
            raise ValueError("players must be 2, 3 or 4")
        if not isinstance(turn_cap, int) or turn_cap < 1:
            raise ValueError("turn_cap must be a positive int")
        if len(hands) != players or len(displays) != players:
            raise ValueError("one hand and one display per player")
        # RULES §5.8: two display cards each with 2 players; §5.2: one with 3-4 players.
        display_size = 2 if players == 2 else 1
        total: Counter[Card] = Counter()
        self.hands: list[Counter[Card]] = []
        self.displays: list[list[Card]] = []
        for hand in hands:
            cards = [_as_card(c) for c in hand]
            if len(cards) != HAND_SIZE:
                raise ValueError("each hand must hold 6 cards (RULES §5.2)")
            self.hands.append(Counter(cards))
            total.update(cards)
        for display in displays:
            cards = [_as_card(c) for c in display]
            if len(cards) != display_size:
                raise ValueError(
                    f"each display must hold {display_size} card(s) with {players} players"
                )
            self.displays.append(cards)
            total.update(cards)
        deck_cards = [_as_card(c) for c in deck]
        total.update(deck_cards)
        if total != full_material():
            raise ValueError("the material must be exactly 4 cards of each of the 15 types")
        self.deck: Counter[Card] = Counter(deck_cards)
        self.discard: Counter[Card] = Counter()  # RULES §5.2: the discard pile starts empty.
        if markers is None:
            self.markers: list[list[int]] = [[0] * len(COLOURS) for _ in range(players)]
        else:
            if len(markers) != players:
                raise ValueError("one marker row per player")
            self.markers = []
            for row in markers:
                if len(row) != len(COLOURS) or not all(
                    isinstance(m, int) and 0 <= m <= MAX_COLUMN for m in row
                ):
                    raise ValueError("six markers in 0..10 per player")
                if max(row) > advance_limit(row):
                    raise ValueError("markers violate the area restriction (RULES §5.4)")
                if min(row) >= WIN_COLUMN:
                    raise ValueError("markers are already an instant win (RULES §5.7)")
                self.markers.append(list(row))
        self.players: int = players
        self.turn_cap: int = turn_cap
        self.current: int = 0  # RULES §5.2: player 0 starts.
        self.phase: str = "play"
        self.bonus: int = 0
        self.turns: int = 1
        self.truncated: bool = False
        self.winner_instant: int | None = None

    # ------------------------------------------------------------------ queries

    def copy(self) -> CardReference:
        """An independent deep copy."""
        return _copy.deepcopy(self)

    def legal_moves(self) -> set[Move]:
        """The moves legal now (RULES §5.3 / §5.5); empty when the game is over.

        In the "play" phase: ``("play", card, first_colour)`` for each distinct card in the hand and
        each of its two colours (identical cards are one move). In the "swap" phase: ``("swap",)``
        and ``("keep",)``.
        """
        if self.phase == "over":
            return set()
        if self.phase == "swap":
            return {("swap",), ("keep",)}
        moves: set[Move] = set()
        for card in self.hands[self.current]:
            for first in card:
                moves.add(("play", card, first))
        return moves

    def ranks(self) -> list[int]:
        """RULES §5.7 / §3.7 ranks on the current markers (0 = best)."""
        return rank_markers(self.markers, self.winner_instant)

    def draws_needed(self, move: Move) -> int:
        """How many cards ``play(move, draws)`` will draw from the deck (after reshuffles)."""
        trial = self.copy()
        counter = [0]

        def any_card(deck: Counter[Card]) -> Card:
            counter[0] += 1
            return min(deck)

        trial._apply(move, any_card)
        return counter[0]

    # ------------------------------------------------------------------ moves

    def play(self, move: Move, draws: list[Card]) -> None:
        """Apply ``move``; ``draws`` are exactly the cards it draws, in order.

        Raises ``ValueError`` (leaving the state unchanged) for an illegal move, a drawn card that
        is not in the deck at that moment, or a wrong number of drawn cards.
        """
        scripted = [_as_card(c) for c in draws]
        position = [0]

        def scripted_card(deck: Counter[Card]) -> Card:
            if position[0] >= len(scripted):
                raise ValueError("too few cards in draws")
            card = scripted[position[0]]
            position[0] += 1
            if deck[card] <= 0:
                raise ValueError(f"drawn card {card} is not in the deck")
            return card

        trial = self.copy()
        trial._apply(move, scripted_card)
        if position[0] != len(scripted):
            raise ValueError(f"too many cards in draws: {len(scripted)} given, {position[0]} used")
        self.__dict__.update(trial.__dict__)

    # ------------------------------------------------------------------ internals

    def _normalise(self, move: Move) -> Move:
        if not isinstance(move, tuple) or not move:
            raise ValueError(f"not a move: {move!r}")
        if move[0] == "play":
            if len(move) != 3:
                raise ValueError(f"not a move: {move!r}")
            return ("play", _as_card(move[1]), move[2])
        return move

    def _apply(self, move: Move, pick: Callable[[Counter[Card]], Card]) -> None:
        move = self._normalise(move)
        if move not in self.legal_moves():
            raise ValueError(f"illegal move {move!r} in phase {self.phase!r}")
        if move[0] == "play":
            self._play_card(move[1], move[2], pick)
        elif move[0] == "swap":
            # RULES §5.5: discard the whole hand, then draw 6 new cards.
            hand = self.hands[self.current]
            self.discard.update(hand)
            hand.clear()
            self._draw(HAND_SIZE, pick)
            self._finish_turn()
        else:  # "keep": the ordinary refill of RULES §5.3.
            self._refill(pick)
            self._finish_turn()

    def _play_card(self, card: Card, first: int, pick: Callable[[Counter[Card]], Card]) -> None:
        p = self.current
        hand = self.hands[p]
        _remove(hand, card)
        if self.bonus > 0:
            # RULES §5.6: this card is a bonus play; one owed bonus turn is used up.
            self.bonus -= 1
        before = list(self.markers[p])
        second = card[1] if first == card[0] else card[0]
        for colour in (first, second):  # RULES §5.3: the chosen order is part of the move.
            # RULES §5.3: count the colour on all players' display cards; the played card is not
            # on any display yet, so it does not count.
            count = colour_count(self.displays, colour)
            # RULES §5.4: limit recomputed before each colour from the current lowest marker;
            # it never exceeds 10 (RULES §5.3 cap).
            limit = advance_limit(self.markers[p])
            old = self.markers[p][colour]
            self.markers[p][colour] = max(old, min(old + count, limit, MAX_COLUMN))
        after = self.markers[p]
        # RULES §5.7: instant win, checked once the card is scored; the game ends at once.
        if min(after) >= WIN_COLUMN:
            self.displays[p].append(card)  # laid in front of the player; nothing discarded
            self.winner_instant = p
            self.bonus = 0
            self.phase = "over"
            return
        # RULES §5.6: each marker of this card that went from below 10 to 10 earns a bonus turn.
        earned = sum(1 for c in card if before[c] < MAX_COLUMN and after[c] == MAX_COLUMN)
        self.bonus += earned
        # RULES §5.3 / §5.6 / §5.8: the oldest display card is discarded face down and the played
        # card joins the display (before a bonus turn, or at the end of the turn).
        self.discard[self.displays[p].pop(0)] += 1
        self.displays[p].append(card)
        if self.bonus > 0:
            if sum(hand.values()) > 0:
                self.phase = "play"  # RULES §5.6: the bonus card is awaited from the same player.
                return
            self.bonus = 0  # RULES §5.6 Decision: with an empty hand the bonus turns lapse.
        # RULES §5.5: swap offered iff no card in the hand shows any of the lowest colours.
        low = lowest_colours(after)
        if not any(shows(c, colour) for c in hand for colour in low):
            self.phase = "swap"
            return
        self._refill(pick)
        self._finish_turn()

    def _refill(self, pick: Callable[[Counter[Card]], Card]) -> None:
        """RULES §5.3: refill the current hand to 6."""
        missing = HAND_SIZE - sum(self.hands[self.current].values())
        self._draw(missing, pick)

    def _draw(self, n: int, pick: Callable[[Counter[Card]], Card]) -> None:
        """Draw ``n`` cards into the current hand.

        RULES §5.3: when a card must be drawn and the deck is empty, the discard pile becomes the
        new deck first. If both are empty the draw stops (unreachable with 60 cards).
        """
        hand = self.hands[self.current]
        for _ in range(n):
            if sum(self.deck.values()) == 0:
                self.deck, self.discard = self.discard, Counter()
            if sum(self.deck.values()) == 0:
                return
            card = pick(self.deck)
            _remove(self.deck, card)
            hand[card] += 1

    def _finish_turn(self) -> None:
        """End the turn: truncation check (RULES §5.7 Decision), else pass to the next player."""
        self.bonus = 0
        if self.turns >= self.turn_cap:
            self.phase = "over"
            self.truncated = True
            return
        self.phase = "play"
        self.turns += 1
        self.current = (self.current + 1) % self.players  # RULES §5.2


def describe_card(card: Card) -> str:
    """A short name such as ``"RG"`` (debugging aid)."""
    return COLOUR_NAMES[card[0]] + COLOUR_NAMES[card[1]]


def cards_of(names: Iterable[str]) -> list[Card]:
    """Parse names such as ``["RG", "BP"]`` into cards (debugging and test aid)."""
    result: list[Card] = []
    for name in names:
        a, b = sorted(COLOUR_NAMES.index(ch) for ch in name)
        result.append(_as_card((a, b)))
    return result

"""Positions and records of the card game, both ways: the position text (one line), the
``CardPosition`` builder, and JSON game records.

A ``CardPosition`` is plain data; ``CardPosition.parse`` reads the text (syntax and ranges),
``load`` checks that the position can be and builds the kernel state, ``read`` turns a kernel
state back into a ``CardPosition``. ``CardPosition.build`` makes one from hands and displays,
with the rest of the 60 cards in the deck.

The position text has twelve space-separated fields::

    c3 0,0,0,0,0,0/0,0,0,0,0,0/0,0,0,0,0,0 RGRBGYGYBYOP/RYRYGBBPOYYP/RORYRPGBBOYP RG/OP/GP
    233132423333322 000000000000000 0 p 0 1 1000 -

(``CardGame(3, seed=1)``, one line in fact)

=============  ================================================================================
field          meaning
=============  ================================================================================
rules          ``c`` and the player count: ``c2``, ``c3``, ``c4``
markers        each player's six markers (R G B O Y P, columns 0..10) joined by ``,``, players
               joined by ``/``
hands          each player's cards as two letters (lower colour first), concatenated; players
               joined by ``/``; ``-`` for an empty hand
displays       each player's display cards, oldest first, written like the hands
deck           15 digits: the deck's count of each card type, in the order RG RB RO RY RP GB GO
               GY GP BO BY BP OY OP YP (the deck's order is not part of a position: draws are
               uniform over its contents)
discard        15 digits: the discard pile's count of each card type
to-move        the current player (the seat that moved last once the game is over)
phase          ``p`` a card is to be played, ``s`` the swap decision, ``x`` game over
bonus          bonus turns still owed this turn (RULES §5.6), the awaited card included
turn           turns started so far, 1 at the start
turn-cap       the turn after which the game stops, truncated (RULES §5.7 Decision)
winner         the instant winner (RULES §5.7), ``-`` if none
=============  ================================================================================

>>> pos = CardPosition.build(CardRules(2), hands=[["RG"], ["BO"]], displays=[["RB", "GO"],
...     ["YP", "RY"]])
>>> pos.deck[:3], sum(pos.deck)
((3, 3, 4), 54)
>>> CardPosition.parse(pos.to_text()) == pos
True
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .. import position_text as text_fields
from ..errors import PositionError, excerpt, is_int
from ..records import RecordFormat
from . import _kernel
from .moves import CARDS, COLOURS, Card, card_id, card_text, parse_card
from .rules import MAX_TURN_CAP, CardRules

__all__ = [
    "AREAS",
    "CAP",
    "COPIES",
    "HAND",
    "MAX_POSITION_TEXT",
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "WIN_COLUMN",
    "CardPhase",
    "CardPosition",
    "area_of",
    "limit_of",
    "load",
    "make_record",
    "read",
    "read_record",
]

CardPhase = Literal["play", "swap", "over"]
PHASES: tuple[CardPhase, ...] = ("play", "swap", "over")  # by the kernel's phase code
PHASE_LETTERS, _PHASE_OF = text_fields.phase_letters(PHASES)
RECORD_FORMAT = "genial-cards-record"
RECORD_VERSION = 1
HAND = 6
"""Cards a hand is refilled to (RULES §5.2, §5.3)."""
COPIES = 4
"""Cards of each of the 15 types (RULES §5.1)."""
CAP = 10
"""A marker's last column (RULES §5.1, §5.3)."""
WIN_COLUMN = 7
"""Six markers at this column or beyond win at once (RULES §5.7)."""
AREAS: tuple[range, ...] = (range(0, 1), range(1, 4), range(4, 7), range(7, 11))
"""The columns of the areas A0..A3 of the scoring board (RULES §5.1)."""
MAX_BONUS = 5
"""Bonus turns owed at most: one per marker reaching 10 (RULES §5.6), and six markers at 10
would have won (RULES §5.7)."""
MAX_DISPLAY = 3
"""Display cards a seat holds at most (two, and the card that won, with two players)."""
MAX_POSITION_TEXT = 400
"""The longest position text read (real ones have under 200 characters)."""
_FIELDS = (
    *("rules", "markers", "hands", "displays", "deck", "discard"),
    *("to-move", "phase", "bonus", "turn", "turn-cap", "winner"),
)
_RULES_FIELD = re.compile(r"c[2-4]")


def area_of(column: int) -> int:
    """The area (0..3) holding ``column`` (RULES §5.1)."""
    return 0 if column == 0 else 1 if column <= 3 else 2 if column <= 6 else 3


def limit_of(markers: Sequence[int]) -> int:
    """The last column any marker may reach, by the lowest marker (RULES §5.4): 3 while a
    marker is in A0, 6 while the lowest is in A1, else 10."""
    low = min(markers)
    return 3 if low == 0 else 6 if low <= 3 else CAP


def _listed(raw: object) -> object:
    return raw.tolist() if isinstance(raw, np.ndarray) else raw


def _card_of(raw: object, where: str) -> Card:
    """A card from ``(a, b)`` (either order) or its two letters; ``PositionError`` otherwise."""
    if isinstance(raw, str):
        try:
            return parse_card(raw)
        except ValueError as exc:
            raise PositionError(f"{where}: {exc}") from None
    pair: Any = _listed(raw)
    try:
        a, b = pair
    except (TypeError, ValueError):
        raise PositionError(f"{where}: {excerpt(raw)} is not a card (lo, hi)") from None
    if not (is_int(a) and is_int(b) and 0 <= a < 6 and 0 <= b < 6 and a != b):
        raise PositionError(
            f"{where}: {excerpt(raw)} is not a card (two different colours 0..5, docs/rules.md "
            "§5.1)"
        )
    return (int(min(a, b)), int(max(a, b)))


def _cards_of(raw: object, where: str, *, limit: int = 64) -> tuple[Card, ...]:
    raw = _listed(raw)
    if isinstance(raw, str) or not isinstance(raw, Sequence) or len(raw) > limit:
        raise PositionError(f"{where}: expected a sequence of cards, got {excerpt(raw)}")
    return tuple(_card_of(c, where) for c in raw)


def _ints_of(raw: object, where: str, size: int) -> tuple[int, ...]:
    raw = _listed(raw)
    if isinstance(raw, str) or not isinstance(raw, Sequence) or len(raw) != size:
        raise PositionError(f"{where}: expected {size} ints, got {excerpt(raw)}")
    if not all(is_int(v) for v in raw):
        raise PositionError(f"{where}: expected {size} ints, got {excerpt(raw)}")
    return tuple(int(v) for v in raw)


def _rows(raw: object, where: str, players: int) -> list[object]:
    raw = _listed(raw)
    if isinstance(raw, str) or not isinstance(raw, Sequence) or len(raw) != players:
        raise PositionError(f"{where}: expected one entry per seat ({players}), got {excerpt(raw)}")
    return list(raw)


@dataclass(frozen=True)
class CardPosition:
    """A whole position of the card game: what the twelve fields of the position text hold.

    ``markers`` holds six markers per seat (colours R G B O Y P); ``hands`` the cards per seat
    (kept sorted: a hand is a multiset); ``displays`` the display cards per seat, oldest first;
    ``deck`` and ``discard`` the count of each of the 15 card types; ``winner`` the instant
    winner (RULES §5.7) or ``None``. Cards are ``(lower colour, higher colour)``; the
    constructor also takes them in either order or as two letters (``"RG"``).
    """

    rules: CardRules
    markers: tuple[tuple[int, ...], ...]
    hands: tuple[tuple[Card, ...], ...]
    displays: tuple[tuple[Card, ...], ...]
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    to_move: int = 0
    phase: CardPhase = "play"
    bonus: int = 0
    turn: int = 1
    winner: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.rules, CardRules):
            raise PositionError(f"rules: expected a CardRules, got {excerpt(self.rules)}")
        n = self.rules.players
        markers = tuple(
            _ints_of(row, f"markers of player {p}", 6)
            for p, row in enumerate(_rows(self.markers, "markers", n))
        )
        hands = tuple(
            tuple(sorted(_cards_of(h, f"hand of player {p}")))
            for p, h in enumerate(_rows(self.hands, "hands", n))
        )
        displays = tuple(
            _cards_of(d, f"display of player {p}")
            for p, d in enumerate(_rows(self.displays, "displays", n))
        )
        object.__setattr__(self, "markers", markers)
        object.__setattr__(self, "hands", hands)
        object.__setattr__(self, "displays", displays)
        object.__setattr__(self, "deck", _ints_of(self.deck, "deck", len(CARDS)))
        object.__setattr__(self, "discard", _ints_of(self.discard, "discard", len(CARDS)))
        for name in ("to_move", "bonus", "turn"):
            value = getattr(self, name)
            if not is_int(value):
                raise PositionError(f"{name}: expected an int, got {excerpt(value)}")
            object.__setattr__(self, name, int(value))
        if not isinstance(self.phase, str) or self.phase not in PHASES:
            raise PositionError(f"phase: {excerpt(self.phase)}, expected 'play', 'swap' or 'over'")
        w = self.winner
        if w is not None:
            if not is_int(w):
                raise PositionError(f"winner: expected a seat or None, got {excerpt(w)}")
            object.__setattr__(self, "winner", int(w))

    @classmethod
    def build(
        cls,
        rules: CardRules | str | int,
        *,
        hands: Sequence[Sequence[Card | str]],
        displays: Sequence[Sequence[Card | str]],
        markers: Sequence[Sequence[int]] | None = None,
        discard: Sequence[Card | str] = (),
        to_move: int = 0,
        phase: CardPhase = "play",
        bonus: int = 0,
        turn: int = 1,
        winner: int | None = None,
    ) -> CardPosition:
        """A position from its hands, displays and discard pile (cards as ``(a, b)`` or two
        letters), with every other card of the 60 in the deck; markers default to 0. Raises
        ``PositionError`` if the cards given already exceed 4 of a type (RULES §5.1). ``rules``
        is a ``CardRules``, its token (``"c3"``) or the player count."""
        rules = CardRules.of(rules)
        n = rules.players
        used = [0] * len(CARDS)
        hand_rows = [
            _cards_of(h, f"hand of player {p}") for p, h in enumerate(_rows(hands, "hands", n))
        ]
        display_rows = [
            _cards_of(d, f"display of player {p}")
            for p, d in enumerate(_rows(displays, "displays", n))
        ]
        pile = _cards_of(discard, "discard")
        for cards in (*hand_rows, *display_rows, pile):
            for c in cards:
                used[card_id(c)] += 1
        for t, k in enumerate(used):
            if k > COPIES:
                raise PositionError(
                    f"{k} {card_text(CARDS[t])} cards given, the game has {COPIES} (docs/rules.md "
                    "§5.1)"
                )
        return cls(
            rules=rules,
            markers=(
                tuple(
                    _ints_of(m, f"markers of player {p}", 6)
                    for p, m in enumerate(_rows(markers, "markers", n))
                )
                if markers is not None
                else ((0,) * 6,) * n
            ),
            hands=tuple(hand_rows),
            displays=tuple(display_rows),
            deck=tuple(COPIES - k for k in used),
            discard=tuple(sum(card_id(c) == t for c in pile) for t in range(len(CARDS))),
            to_move=to_move,
            phase=phase,
            bonus=bonus,
            turn=turn,
            winner=winner,
        )

    @property
    def deck_size(self) -> int:
        """Cards in the deck."""
        return sum(self.deck)

    @property
    def discard_size(self) -> int:
        """Cards on the discard pile."""
        return sum(self.discard)

    def replace(self, **changes: Any) -> CardPosition:
        """A copy with some fields changed (``dataclasses.replace``)."""
        return dataclasses.replace(self, **changes)

    # -- the text ------------------------------------------------------------------------------
    def to_text(self) -> str:
        """The position text (the module docstring describes the twelve fields)."""
        return " ".join(
            [
                f"c{self.rules.players}",
                text_fields.numbers_text(self.markers),
                text_fields.items_text(self.hands, card_text),
                text_fields.items_text(self.displays, card_text),
                "".join(str(k) for k in self.deck),
                "".join(str(k) for k in self.discard),
                str(self.to_move),
                PHASE_LETTERS[self.phase],
                str(self.bonus),
                str(self.turn),
                str(self.rules.turn_cap),
                "-" if self.winner is None else str(self.winner),
            ]
        )

    def __str__(self) -> str:
        return self.to_text()

    @classmethod
    def parse(cls, text: str) -> CardPosition:
        """Read a position text; ``PositionError`` says which field is malformed. This checks
        the syntax and the ranges of the fields; ``load`` checks that the position can be."""
        fields = text_fields.split_fields(text, MAX_POSITION_TEXT, _FIELDS, "a card position")
        (
            rules_f,
            markers_f,
            hands_f,
            displays_f,
            deck_f,
            discard_f,
            move_f,
            phase_f,
            bonus_f,
            turn_f,
            cap_f,
            winner_f,
        ) = fields
        if not _RULES_FIELD.fullmatch(rules_f):
            raise PositionError(
                f"rules: {excerpt(rules_f)}, expected 'c' and the player count: c2, c3 or c4"
            )
        players = int(rules_f[1])
        rules = CardRules(players, text_fields.read_int(cap_f, "turn-cap", 1, MAX_TURN_CAP))
        markers = text_fields.read_numbers(markers_f, "markers", players, CAP)
        hands = _parse_cards(hands_f, "hand", players, HAND)
        displays = _parse_cards(displays_f, "display", players, MAX_DISPLAY)
        deck = _parse_counts(deck_f, "deck")
        discard = _parse_counts(discard_f, "discard")
        to_move = text_fields.read_seat(move_f, "to-move", players)
        if phase_f not in _PHASE_OF:
            raise PositionError(
                f"phase: {excerpt(phase_f)}, expected p (play), s (swap decision) or x (over)"
            )
        if not text_fields.DECIMAL.fullmatch(bonus_f) or int(bonus_f) > MAX_BONUS:
            raise PositionError(
                f"bonus: {excerpt(bonus_f)} is not a count of bonus turns 0..{MAX_BONUS}"
            )
        turn = text_fields.read_int(turn_f, "turn", 1, MAX_TURN_CAP)
        if winner_f != "-" and (
            not text_fields.DECIMAL.fullmatch(winner_f) or int(winner_f) >= players
        ):
            raise PositionError(
                f"winner: {excerpt(winner_f)} is not '-' or a seat 0..{players - 1}"
            )
        return cls(
            rules=rules,
            markers=markers,
            hands=hands,
            displays=displays,
            deck=deck,
            discard=discard,
            to_move=to_move,
            phase=_PHASE_OF[phase_f],
            bonus=int(bonus_f),
            turn=turn,
            winner=None if winner_f == "-" else int(winner_f),
        )


def _parse_cards(field: str, what: str, players: int, most: int) -> tuple[tuple[Card, ...], ...]:
    return text_fields.read_items(
        field, what, players, most, parse_card, "cards", " ('-' if empty)"
    )


def _parse_counts(field: str, what: str) -> tuple[int, ...]:
    if len(field) != len(CARDS) or not all("0" <= ch <= str(COPIES) for ch in field):
        raise PositionError(
            f"{what}: expected {len(CARDS)} digits 0..{COPIES} (count per card type "
            f"{' '.join(card_text(c) for c in CARDS)}), got {excerpt(field)}"
        )
    return tuple(int(ch) for ch in field)


# -- positions and the kernel ------------------------------------------------------------------


def _full(markers: Sequence[int]) -> bool:
    return min(markers) >= WIN_COLUMN


def load(position: CardPosition) -> _kernel.Cards:
    """Check that ``position`` can be (``PositionError`` says why not) and build its kernel
    state. Checked: six markers per seat in ``0..10`` within the area restriction of their
    lowest marker (RULES §5.4); hands of at most six cards; exactly 4 of each of the 15 card
    types over hands, displays, deck and discard pile (RULES §5.1); the display sizes (one card,
    two with two players, RULES §5.8; the instant winner's last card stays in front of them,
    one more); the seats, turn (at most the turn cap) and bonus turns owed (only while a card is
    to be played, never more than the mover's markers at 10, RULES §5.6); and that the phase
    agrees with the end of the game (RULES §5.7: over exactly when one player has six markers
    at 7 or more, who is then the winner and the seat that moved last, or when the turn cap is
    reached), with the swap decision (only when no card in the mover's hand shows one of its
    lowest colours, RULES §5.5), and that every seat yet to play holds a card. Every position
    accepted plays on to its end."""
    pos = position
    if not isinstance(pos, CardPosition):
        raise PositionError(f"expected a CardPosition, got {type(pos).__name__}")
    rules = pos.rules
    n = rules.players
    for p, row in enumerate(pos.markers):
        if not all(0 <= v <= CAP for v in row):
            raise PositionError(
                f"markers of player {p}: {excerpt(list(row))} must be six ints 0..{CAP}"
            )
        limit = limit_of(row)
        if max(row) > limit:
            top = row.index(max(row))
            raise PositionError(
                f"markers of player {p}: {COLOURS[top]} at {row[top]} is beyond column {limit}, "
                f"the last one allowed while the lowest marker is at {min(row)} (area "
                f"A{area_of(min(row))}; docs/rules.md §5.4)"
            )
    for p, hand in enumerate(pos.hands):
        if len(hand) > HAND:
            raise PositionError(f"hand of player {p}: {len(hand)} cards, at most {HAND}")
    for p, display in enumerate(pos.displays):
        if len(display) > MAX_DISPLAY:
            raise PositionError(
                f"display of player {p}: {len(display)} cards, at most {MAX_DISPLAY}"
            )
    for name, counts in (("deck", pos.deck), ("discard", pos.discard)):
        if not all(0 <= k <= COPIES for k in counts):
            raise PositionError(f"{name}: counts must be 0..{COPIES}, got {excerpt(list(counts))}")
    total = [d + k for d, k in zip(pos.deck, pos.discard, strict=True)]
    for cards in (*pos.hands, *pos.displays):
        for c in cards:
            total[card_id(c)] += 1
    for t, k in enumerate(total):
        if k != COPIES:
            raise PositionError(
                f"{k} {card_text(CARDS[t])} cards over hands, displays, deck and discard pile, "
                f"the game has {COPIES} of each type (docs/rules.md §5.1)"
            )
    if not 0 <= pos.to_move < n:
        raise PositionError(f"to-move: {excerpt(pos.to_move)} is not a seat 0..{n - 1}")
    if not 1 <= pos.turn <= rules.turn_cap:
        raise PositionError(
            f"turn: {excerpt(pos.turn)} is not in 1..{rules.turn_cap} (the turn cap, docs/rules.md "
            "§5.7)"
        )
    if not 0 <= pos.bonus <= MAX_BONUS:
        raise PositionError(
            f"bonus: {excerpt(pos.bonus)} is not a count of bonus turns 0..{MAX_BONUS}"
        )
    if pos.winner is not None and not 0 <= pos.winner < n:
        raise PositionError(f"winner: {excerpt(pos.winner)} is not a seat 0..{n - 1}")
    truncated = _check_phase(pos)
    core = rules.core()
    core.set_position(
        [list(m) for m in pos.markers],
        [[card_id(c) for c in hand] for hand in pos.hands],
        [[card_id(c) for c in d] for d in pos.displays],
        list(pos.deck),
        list(pos.discard),
        pos.to_move,
        PHASES.index(pos.phase),
        pos.bonus,
        pos.turn,
        pos.winner,
        truncated,
    )
    return core


def _check_displays(pos: CardPosition, winner: int | None) -> None:
    size = pos.rules.display_size
    for p, display in enumerate(pos.displays):
        want = size + (p == winner)
        if len(display) != want:
            why = (
                ", the winning card stays in front of the winner (docs/rules.md §5.7)"
                if p == winner
                else f" with {pos.rules.players} players (docs/rules.md §5.2, §5.8)"
            )
            raise PositionError(
                f"display of player {p}: {len(display)} cards, expected {want}{why}"
            )


def _check_phase(pos: CardPosition) -> bool:
    """The phase agrees with the end conditions (RULES §5.7) and the turn; True if the game
    stopped at the turn cap."""
    rules = pos.rules
    full = [p for p, row in enumerate(pos.markers) if _full(row)]
    if len(full) > 1:
        raise PositionError(
            f"markers: players {full[0]} and {full[1]} both have six markers at {WIN_COLUMN} or "
            "more, but the game ends at once when the first does (docs/rules.md §5.7)"
        )
    if pos.phase != "over" and pos.winner is not None:
        raise PositionError(f"winner: {pos.winner} is given, but the game is not over ('x')")
    if pos.phase != "play" and pos.bonus:
        raise PositionError(
            "bonus: bonus turns are owed only while a card is to be played (docs/rules.md §5.6)"
        )
    if pos.phase == "over":
        if pos.winner is not None:
            if full != [pos.winner]:
                raise PositionError(
                    f"winner: player {pos.winner} does not have six markers at {WIN_COLUMN} or "
                    "more (docs/rules.md §5.7)"
                )
            if pos.to_move != pos.winner:
                raise PositionError(
                    f"to-move: {pos.to_move}, but the winner {pos.winner} made the last move "
                    "(docs/rules.md §5.7)"
                )
            _check_displays(pos, pos.winner)
            return False
        if full:
            raise PositionError(
                f"winner: '-', but player {full[0]} has six markers at {WIN_COLUMN} or more and "
                "won (docs/rules.md §5.7)"
            )
        if pos.turn != rules.turn_cap:
            raise PositionError(
                f"phase: 'x' (over), but nobody has six markers at {WIN_COLUMN} or more and turn "
                f"{pos.turn} is below the turn cap {rules.turn_cap} (docs/rules.md §5.7)"
            )
        _check_displays(pos, None)
        return True
    if full:
        raise PositionError(
            f"phase: {pos.phase!r}, but player {full[0]} has six markers at {WIN_COLUMN} or more: "
            "the game is over (docs/rules.md §5.7)"
        )
    _check_displays(pos, None)
    mover = pos.to_move
    for p, hand in enumerate(pos.hands):
        if p != mover and not hand:
            raise PositionError(
                f"hands: player {p} holds no card and could not play on its turn (a hand is "
                "refilled to six at the end of each turn, docs/rules.md §5.3)"
            )
    markers = pos.markers[mover]
    hand = pos.hands[mover]
    if pos.phase == "play":
        if not hand:
            raise PositionError(f"phase: 'p', but player {mover} to play holds no card")
        at_cap = sum(v == CAP for v in markers)
        if pos.bonus > at_cap:
            raise PositionError(
                f"bonus: {pos.bonus} owed, but only {at_cap} of player {mover}'s markers are at "
                f"{CAP} (each bonus turn is earned by a marker reaching {CAP}, docs/rules.md "
                "§5.6)"
            )
        return False
    low = min(markers)
    shown = [c for c in hand if markers[c[0]] == low or markers[c[1]] == low]
    if shown:
        raise PositionError(
            f"phase: 's' (swap decision), but player {mover}'s card {card_text(shown[0])} shows "
            "one of its lowest colours (docs/rules.md §5.5)"
        )
    return False


def read(core: _kernel.Cards, rules: CardRules) -> CardPosition:
    """The ``CardPosition`` of a kernel state."""
    n = rules.players
    return CardPosition(
        rules=rules,
        markers=tuple(map(tuple, core.markers().tolist())),
        hands=tuple(tuple(CARDS[t] for t in core.hand(p)) for p in range(n)),
        displays=tuple(tuple(CARDS[t] for t in core.display(p)) for p in range(n)),
        deck=tuple(core.deck_counts()),
        discard=tuple(core.discard_counts()),
        to_move=int(core.current),
        phase=PHASES[core.phase],
        bonus=int(core.bonus),
        turn=int(core.turns),
        winner=core.winner,
    )


# -- records -----------------------------------------------------------------------------------


RECORDS = RecordFormat(
    RECORD_FORMAT,
    RECORD_VERSION,
    "genial card-game record",
    "card",
    HAND,
    lambda t: card_text(CARDS[t]),
    lambda text: card_id(parse_card(text)),
)
make_record = RECORDS.make
read_record = RECORDS.read

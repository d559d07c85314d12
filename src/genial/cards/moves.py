"""Moves of the card game and its action space: ``CardMove`` (play a card, swap the hand, or
keep it), cards, and the one codec between moves, their text and their integer action ids.

Cards are the 15 pairs of two different colours (RULES §5.1), ``(lower colour, higher colour)``,
type ``t`` in the order RG RB RO RY RP GB GO GY GP BO BY BP OY OP YP (``CARDS``). The action space
is the same for every player count, ``ACTION_SIZE == 32``: action ``2 t`` plays a card of type
``t`` scoring its lower colour first, ``2 t + 1`` scoring its higher colour first (the order is
part of the move, RULES §5.3); ``30`` swaps the hand and ``31`` keeps it (RULES §5.5).

The text of a play is the card's two colour letters in scoring order: ``'RG'`` plays the card RG
scoring red first, ``'GR'`` plays the same card scoring green first.

>>> m = CardMove.parse("GR")
>>> m.kind, m.card, m.colours, m.action
('play', (0, 1), (1, 0), 1)
>>> CardMove.from_action(1) == m, str(m), repr(CardMove.swap())
(True, 'GR', "CardMove.parse('swap')")
"""

from __future__ import annotations

from typing import Any, Literal

from ..errors import IllegalMoveError, excerpt, is_int
from ..movebase import MoveBase
from . import _kernel

__all__ = [
    "ACTION_KEEP",
    "ACTION_SIZE",
    "ACTION_SWAP",
    "CARDS",
    "COLOURS",
    "MAX_MOVE_TEXT",
    "MOVES",
    "Card",
    "CardMove",
    "card_id",
    "card_move_of",
    "card_text",
    "parse_card",
]

Card = tuple[int, int]
Kind = Literal["play", "swap", "keep"]

COLOURS = "RGBOYP"
"""The colour letters, colours 0..5 (red, green, blue, orange, yellow, purple)."""
ACTION_SIZE: int = _kernel.ACTION_SIZE
"""Size of the action space: 30 plays (15 card types x 2 scoring orders), then swap, then keep."""
ACTION_SWAP: int = _kernel.ACTION_SWAP
ACTION_KEEP: int = _kernel.ACTION_KEEP
CARDS: tuple[Card, ...] = _kernel.CARDS
"""The 15 card types, ``(lower colour, higher colour)``, in type order RG RB ... YP."""
_CARD_ID: dict[Card, int] = {c: i for i, c in enumerate(CARDS)}
MAX_MOVE_TEXT = 20
"""The longest move text read (``' keep '``, with spaces around the word)."""
# one entry per accepted letter, so no case mapping can turn one character into two
_LETTER: dict[str, int] = {
    **{ch: c for c, ch in enumerate(COLOURS)},
    **{ch.lower(): c for c, ch in enumerate(COLOURS)},
}


def card_text(card: Card) -> str:
    """Two letters, lower colour first: ``card_text((0, 2)) == 'RB'``."""
    return COLOURS[card[0]] + COLOURS[card[1]]


def _colour_pair(text: object) -> tuple[int, int] | None:
    """The two colours of a two-letter text, in its order; None unless it is two different
    colour letters."""
    if not isinstance(text, str) or len(text) != 2:
        return None
    a, b = _LETTER.get(text[0]), _LETTER.get(text[1])
    if a is None or b is None or a == b:
        return None
    return (a, b)


def parse_card(text: str) -> Card:
    """``'GR'`` or ``'RG'`` -> ``(0, 1)``; ``IllegalMoveError`` (a ``ValueError``) unless it is
    two different colour letters (a card shows two different colours, RULES §5.1)."""
    pair = _colour_pair(text)
    if pair is None:
        raise IllegalMoveError(
            f"{excerpt(text)} is not a card (two different letters of {COLOURS}, docs/rules.md "
            "§5.1)"
        )
    return (min(pair), max(pair))


def card_id(card: Card) -> int:
    """The type id (0..14) of a card ``(lo, hi)`` (either order)."""
    return _CARD_ID[(min(card), max(card))]


def card_move_of(action: int) -> CardMove:
    """The move of an action id (pickles use it)."""
    return CardMove.from_action(action)


class CardMove(MoveBase):
    """A decision of the card game: play a card from the hand scoring its colours in a chosen
    order (RULES §5.3), or, when the swap is offered (RULES §5.5), swap the hand or keep it.

    A play has ``card`` (``(lo, hi)``) and ``colours`` (the card's colours in scoring order);
    a swap or keep has neither (``None``). Moves are immutable, hashable and picklable; equal
    moves are the same object.

    >>> m = CardMove.parse('rg')
    >>> m, m.colours, m.card
    (CardMove.parse('RG'), (0, 1), (0, 1))
    >>> CardMove.play((1, 0)) == CardMove.parse('GR')
    True
    """

    __slots__ = ("card",)

    kind: Kind
    card: Card | None
    _constructors = ("play", "swap", "keep", "parse", "from_action")
    _rebuild = staticmethod(card_move_of)
    _action_size = ACTION_SIZE
    _max_text = MAX_MOVE_TEXT

    @classmethod
    def _make(
        cls, kind: Kind, card: Card | None, colours: tuple[int, int] | None, action: int
    ) -> CardMove:
        move = cls._new(kind, colours, action)
        object.__setattr__(move, "card", card)
        return move

    @classmethod
    def play(cls, colours: Any) -> CardMove:
        """Play the card of ``colours`` (two different colours 0..5), scoring ``colours[0]``
        first; ``IllegalMoveError`` otherwise."""
        try:
            a, b = colours
        except (TypeError, ValueError):
            a = b = None
        if not (is_int(a) and is_int(b) and 0 <= a < 6 and 0 <= b < 6 and a != b):
            raise IllegalMoveError(
                f"a play needs the card's two different colours 0..5 in scoring order, got "
                f"{excerpt(colours)}"
            )
        first, second = int(a), int(b)
        return _PLAYS[2 * card_id((first, second)) + (first > second)]

    @classmethod
    def parse(cls, text: str) -> CardMove:
        """Read ``'RG'`` (the card RG, red scored first), ``'GR'`` (green first), ``'swap'`` or
        ``'keep'``. Letters may be lower case and spaces may stand around the text; texts
        longer than ``MAX_MOVE_TEXT`` are refused at once."""
        word, decision = cls._read_word(text)
        if decision is not None:
            return decision  # type: ignore[no-any-return]
        pair = _colour_pair(word)
        if pair is None:
            same = len(word) == 2 and _LETTER.get(word[0], -1) == _LETTER.get(word[1], -2)
            why = " (a card shows two different colours, docs/rules.md §5.1)" if same else ""
            raise IllegalMoveError(
                f"cannot read move {excerpt(text)}: expected 'swap', 'keep' or a card's two "
                f"colour letters ({COLOURS}) in scoring order, like 'RG'{why}"
            )
        return cls.play(pair)

    @classmethod
    def from_action(cls, action: int) -> CardMove:
        """The move with integer id ``action`` (``0 <= action < ACTION_SIZE``)."""
        return MOVES[cls._action_id(action)]

    @property
    def card_type(self) -> int | None:
        """A play's card type id (0..14, the index in ``CARDS``)."""
        return None if self.card is None else self._action >> 1

    def __str__(self) -> str:
        if self.colours is None:
            return self.kind
        return COLOURS[self.colours[0]] + COLOURS[self.colours[1]]

    def __hash__(self) -> int:
        return hash(("card", self._action))


def _build_moves() -> tuple[list[CardMove], CardMove, CardMove]:
    plays = []
    for t, (lo, hi) in enumerate(CARDS):
        plays.append(CardMove._make("play", (lo, hi), (lo, hi), 2 * t))
        plays.append(CardMove._make("play", (lo, hi), (hi, lo), 2 * t + 1))
    return (
        plays,
        CardMove._make("swap", None, None, ACTION_SWAP),
        CardMove._make("keep", None, None, ACTION_KEEP),
    )


_PLAYS, _SWAP, _KEEP = _build_moves()
CardMove._swap, CardMove._keep = _SWAP, _KEEP
MOVES: tuple[CardMove, ...] = (*_PLAYS, _SWAP, _KEEP)
"""Every move, by action id."""
assert len(MOVES) == ACTION_SIZE and ACTION_SWAP == 30 and ACTION_KEEP == 31

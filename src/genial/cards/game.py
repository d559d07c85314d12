"""The card game: a position of the kernel with its history and its two random streams.

``CardGame`` is one game of *Einfach Genial: Das Kartenspiel* (RULES §5) with its history, the
card-game twin of ``genial.Game``: the chance stream draws the deck's cards, the policy stream
feeds ``choose``, so the same seed and the same moves give the same game whoever chose the moves.

>>> game = CardGame(3, seed=7)
>>> move = game.legal_moves()[0]
>>> game.play(move)
>>> game.undo() == move
True
>>> game.current_player
0
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..base import GameBase
from ..errors import IllegalMoveError
from . import _kernel
from .moves import CARDS, COLOURS, MOVES, Card, CardMove, card_text
from .notation import (
    AREAS,
    CAP,
    PHASES,
    RECORDS,
    CardPhase,
    CardPosition,
    limit_of,
    load,
    read,
)
from .rules import DEFAULT_TURN_CAP, CardRules

__all__ = ["CardGame", "CardView"]


@dataclass(frozen=True)
class CardView:
    """What seat ``player`` can see of a card game (``CardGame.view``): its own hand, the
    number of cards in every hand, every display (oldest card first), every marker, the sizes
    of the deck and the discard pile, and whose turn it is where. Never another seat's cards or
    the deck's or discard pile's contents."""

    player: int
    players: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    displays: tuple[tuple[Card, ...], ...]
    markers: tuple[tuple[int, ...], ...]
    deck_size: int
    discard_size: int
    current_player: int
    phase: CardPhase
    bonus_turns: int
    turn: int


class CardGame(GameBase[CardMove, CardPosition, CardRules]):
    """A game of the card game *Einfach Genial: Das Kartenspiel* (RULES §5), with its history.

    Parameters
    ----------
    players : int, str or CardRules
        2, 3 or 4; or the rules as a token (``"c3"``, ``"c2:50"``) or a ``CardRules``.
    seed : anything ``numpy.random.default_rng`` accepts
        The root of the game's randomness: the deck's draws come from it (the chance stream),
        and the policies of ``choose`` from a stream derived from it.
    turn_cap : int
        Turns after which the game stops and is reported as truncated (RULES §5.7 Decision).
    rules : CardRules or str
        The rules as one object or token, instead of ``players`` and ``turn_cap``.

    Examples
    --------
    >>> game = CardGame(players=3, seed=1)
    >>> game.players, game.current_player, game.phase, game.deck_size
    (3, 0, 'play', 39)
    >>> game.hand(0)
    [(0, 1), (0, 2), (1, 4), (1, 4), (2, 4), (3, 5)]
    >>> [game.display(p) for p in range(3)]
    [[(0, 1)], [(3, 5)], [(1, 5)]]
    >>> game.gains("RG")    # red on one display card, green on two (RULES §5.3)
    (1, 2)
    >>> game.play("RG")
    >>> game.scores[0].tolist(), game.current_player
    ([1, 2, 0, 0, 0, 0], 1)
    >>> CardGame.from_text(game.to_text()) == game
    True

    Once the game is over, ``current_player`` is the seat that moved last. The policies of
    ``choose``: ``'random'``, a uniformly random legal move (a card type of the hand and an
    order; the swap on a fair coin); ``'greedy'``, the play that maximises ``sum over colours
    of -(10 - marker)^2`` after it, ties at random, swapping whenever allowed;
    ``'epsilon-greedy'`` (``'epsilon-greedy:0.2'``, default 0.1), a random move with
    probability epsilon, else greedy.
    """

    __slots__ = ()
    _core_type = _kernel.Cards
    _move_type = CardMove
    _move_table = MOVES
    _position_type = CardPosition
    _position_name = "genial.cards.CardPosition"
    _read = staticmethod(read)
    _load = staticmethod(load)
    _records = RECORDS

    _rules: CardRules
    _core: _kernel.Cards

    def __init__(
        self,
        players: int | str | CardRules = 3,
        *,
        seed: Any = None,
        turn_cap: int = DEFAULT_TURN_CAP,
        rules: CardRules | str | None = None,
    ) -> None:
        self._deal(CardRules.of(players, turn_cap=turn_cap, rules=rules), seed)

    # -- reading the position ------------------------------------------------------------------
    @property
    def phase(self) -> CardPhase:
        """``'play'`` (a card is to be played), ``'swap'`` (the swap decision, RULES §5.5) or
        ``'over'``."""
        return PHASES[self._core.phase]

    @property
    def truncated(self) -> bool:
        """Whether the game stopped at the turn cap (RULES §5.7 Decision) rather than with an
        instant win; its ranks are then those of §3.7 on the markers."""
        return bool(self._core.truncated)

    @property
    def scores(self) -> npt.NDArray[np.int64]:
        """The markers, shape ``(players, 6)``, columns in colour order R G B O Y P (0..10)."""
        markers: npt.NDArray[np.int64] = self._core.markers()
        return markers

    def hand(self, player: int) -> list[Card]:
        """The cards in ``player``'s hand, each ``(lower colour, higher colour)``, sorted."""
        self._check_seat(player)
        return [CARDS[t] for t in self._core.hand(int(player))]

    def display(self, player: int) -> list[Card]:
        """``player``'s display cards, oldest first (RULES §5.2, §5.8)."""
        self._check_seat(player)
        return [CARDS[t] for t in self._core.display(int(player))]

    @property
    def deck_size(self) -> int:
        """Cards left in the draw deck."""
        return int(self._core.deck_n)

    @property
    def discard_size(self) -> int:
        """Cards on the discard pile."""
        return int(self._core.discard_n)

    def deck(self) -> dict[Card, int]:
        """The deck's contents: card -> count (cards with count 0 left out)."""
        return {CARDS[t]: n for t, n in enumerate(self._core.deck_counts()) if n}

    def discard(self) -> dict[Card, int]:
        """The discard pile's contents: card -> count (cards with count 0 left out)."""
        return {CARDS[t]: n for t, n in enumerate(self._core.discard_counts()) if n}

    @property
    def bonus_turns(self) -> int:
        """Bonus turns still owed to the current player this turn, the awaited card included
        (RULES §5.6)."""
        return int(self._core.bonus)

    @property
    def turn(self) -> int:
        """Turns started so far (1 on the first turn; bonus turns are part of their turn)."""
        return int(self._core.turns)

    def stats(self) -> dict[str, Any]:
        """Counts since the start of the record: cards played, bonus turns and swaps per seat,
        and discard piles turned into a new deck (``'reshuffles'``)."""
        stats: dict[str, Any] = self._core.stats()
        return stats

    def winner(self) -> int | None:
        """The instant winner (RULES §5.7), or once the game is over the player ranked first
        alone; ``None`` while the game runs or if first place is shared."""
        instant = self._core.winner
        return int(instant) if instant is not None else super().winner()

    def view(self, player: int) -> CardView:
        """What ``player`` can see (``CardView``): never another seat's cards or the deck."""
        self._check_seat(player)
        core = self._core
        n = self.players
        with self._lock:
            return self._view(core, int(player), n)

    @staticmethod
    def _view(core: Any, player: int, n: int) -> CardView:
        return CardView(
            player=player,
            players=n,
            hand=tuple(CARDS[t] for t in core.hand(player)),
            hand_sizes=tuple(len(core.hand(p)) for p in range(n)),
            displays=tuple(tuple(CARDS[t] for t in core.display(p)) for p in range(n)),
            markers=tuple(map(tuple, core.markers().tolist())),
            deck_size=int(core.deck_n),
            discard_size=int(core.discard_n),
            current_player=int(core.current),
            phase=PHASES[core.phase],
            bonus_turns=int(core.bonus),
            turn=int(core.turns),
        )

    # -- moves ---------------------------------------------------------------------------------
    def gains(self, move: CardMove | str) -> tuple[int, int]:
        """How far a play would advance the current player's two markers now, in its scoring
        order (RULES §5.3: the colour's count on all displays, within the area restriction of
        §5.4 and the cap 10). The card need not be in the hand."""
        m = self._as_move(move)
        if m.colours is None:
            raise IllegalMoveError(f"{m.kind!r} is not a play: it scores nothing")
        with self._lock:
            first, second = self._core.gains(m.action)
        return (int(first), int(second))

    def _check_legal(self, m: CardMove) -> None:
        """Raise an ``IllegalMoveError`` saying why ``m`` is not legal now."""
        if self._core.is_legal(m.action):
            return
        player = self.current_player
        phase = self.phase
        if phase == "over":
            how = (
                "stopped at the turn cap"
                if self.truncated
                else f"player {self._core.winner} won (docs/rules.md §5.7)"
            )
            raise IllegalMoveError(f"the game is over ({how}): no move is legal ({m})")
        if phase == "swap":
            raise IllegalMoveError(
                f"player {player} must first decide on the swap (docs/rules.md §5.5): play "
                f"'swap' or 'keep', not {m}"
            )
        if m.card is None:
            raise IllegalMoveError(
                f"player {player} must play a card now; {m} is a choice only when the swap is "
                "offered (docs/rules.md §5.5)"
            )
        hand = " ".join(card_text(c) for c in self.hand(player)) or "empty"
        raise IllegalMoveError(f"player {player} has no {card_text(m.card)} card (hand: {hand})")

    # -- pictures ------------------------------------------------------------------------------
    def __str__(self) -> str:
        return _table(self)

    def _repr_svg_(self) -> str:
        from .svg import cards_svg

        return cards_svg(self)

    # -- position text -------------------------------------------------------------------------
    @classmethod
    def from_text(cls, text: str, *, seed: Any = None) -> CardGame:
        """Read a position written by ``to_text()``; ``seed`` seeds the draws that follow.
        Raises ``PositionError`` saying what is wrong (``notation.load`` lists the checks)."""
        return cls._from_text(text, seed)

    @classmethod
    def from_position(cls, position: CardPosition, *, seed: Any = None) -> CardGame:
        """A game starting at ``position`` (checked: ``PositionError`` says what is wrong)."""
        return cls._from_position(position, seed)

    # -- records -------------------------------------------------------------------------------
    @classmethod
    def from_record(cls, record: Any, *, seed: Any = None) -> CardGame:
        """Replay a record made by ``to_record()``; raises ``RecordError`` saying what is wrong.

        ``seed`` seeds draws after the record's last move.
        """
        return cls._from_record(record, seed)


# -- str(game) ---------------------------------------------------------------------------------


def _table(game: CardGame) -> str:
    """A table for people: each seat's markers per colour, its lowest marker and the highest
    column its markers may advance to (RULES §5.4), its hand and display; then what those two
    columns mean, the deck, the discard pile and whose turn it is.

    >>> print(str(CardGame(2, seed=3)).splitlines()[0])
           R  G  B  O  Y  P  lowest  up to  hand ...
    """
    pos = game.position
    hands = [" ".join(card_text(c) for c in h) or "-" for h in pos.hands]
    width = max(len(h) for h in hands)
    lines = [
        "       "
        + " ".join(f"{c:>2}" for c in COLOURS)
        + "  lowest  up to  "
        + "hand".ljust(width)
        + "  display (oldest first)"
    ]
    for p, markers in enumerate(pos.markers):
        mark = "*" if p == pos.to_move and pos.phase != "over" else " "
        display = " ".join(card_text(c) for c in pos.displays[p]) or "-"
        lines.append(
            f"{mark} p{p}   "
            + " ".join(f"{v:>2}" for v in markers)
            + f"  {min(markers):>6}  {limit_of(markers):>5}  {hands[p].ljust(width)}  {display}"
        )
    areas = ", ".join(
        f"A{i} = {r.start}" + (f"-{r.stop - 1}" if len(r) > 1 else "") for i, r in enumerate(AREAS)
    )
    lines.append(
        "up to: the highest column a player's markers can advance to (3 while one is at 0, "
        f"6 while the lowest is at 1-3, else {CAP})"
    )
    lines.append(f"(markers stay within two adjacent areas {areas}; cap {CAP})")
    lines.append(f"deck {pos.deck_size} cards, discard pile {pos.discard_size}")
    if pos.phase == "over":
        ranks = game.ranks().tolist()
        if pos.winner is not None:
            lines.append(
                f"game over on turn {pos.turn}: player {pos.winner} has six markers at 7 or "
                f"more and wins; ranks {ranks}"
            )
        else:
            lines.append(f"game stopped at the turn cap {pos.turn} (truncated); ranks {ranks}")
    elif pos.phase == "swap":
        lines.append(f"player {pos.to_move} to decide on the swap (turn {pos.turn})")
    else:
        owed = f", bonus turns owed {pos.bonus}" if pos.bonus else ""
        lines.append(f"player {pos.to_move} to play (turn {pos.turn}{owed})")
    return "\n".join(lines)

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

from ..errors import GenialError, IllegalMoveError, PositionError, RecordError, excerpt
from ..history import History
from . import _kernel
from .moves import ACTION_SIZE, CARDS, COLOURS, MOVES, Card, CardMove, card_text
from .notation import (
    AREAS,
    CAP,
    PHASES,
    CardPhase,
    CardPosition,
    area_of,
    limit_of,
    load,
    make_record,
    read,
    read_record,
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


class CardGame(History):
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
    """

    __slots__ = ()
    _core_type = _kernel.Cards

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
        game_rules = CardRules.of(players, turn_cap=turn_cap, rules=rules)
        core = game_rules.core()
        self._init(game_rules, core, seed)
        core.deal(self._chance)
        self._start = self.to_text()

    # -- reading the position ------------------------------------------------------------------
    @property
    def rules(self) -> CardRules:
        """The rules of this game (players and turn cap)."""
        return self._rules

    @property
    def players(self) -> int:
        """Number of players (seats 0 .. players - 1)."""
        return int(self._core.players)

    @property
    def current_player(self) -> int:
        """The seat to move (0 moves first); once the game is over, the seat that moved last."""
        return int(self._core.current)

    @property
    def phase(self) -> CardPhase:
        """``'play'`` (a card is to be played), ``'swap'`` (the swap decision, RULES §5.5) or
        ``'over'``."""
        return PHASES[self._core.phase]

    @property
    def is_over(self) -> bool:
        """Whether the game has ended: an instant win or the turn cap (RULES §5.7)."""
        return bool(self._core.phase == 2)

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

    @property
    def position(self) -> CardPosition:
        """The position as data (``CardPosition``)."""
        with self._lock:
            return read(self._core, self._rules)

    def stats(self) -> dict[str, Any]:
        """Counts since the start of the record: cards played, bonus turns and swaps per seat,
        and discard piles turned into a new deck (``'reshuffles'``)."""
        stats: dict[str, Any] = self._core.stats()
        return stats

    def ranks(self) -> npt.NDArray[np.int64]:
        """Rank of each player, 0 = best (RULES §5.7, §3.7): an instant winner first, the
        others by their markers sorted ascending compared lexicographically; identical vectors
        share a rank, and a rank counts the players strictly ahead. Defined at any time, final
        when over."""
        ranks: npt.NDArray[np.int64] = self._core.ranks()
        return ranks

    def winner(self) -> int | None:
        """The instant winner (RULES §5.7), or once the game is over the player ranked first
        alone; ``None`` while the game runs or if first place is shared."""
        instant = self._core.winner
        if instant is not None:
            return int(instant)
        if not self.is_over:
            return None
        best = np.flatnonzero(self.ranks() == 0)
        return int(best[0]) if len(best) == 1 else None

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
    def legal_actions(self) -> npt.NDArray[np.int32]:
        """The legal moves' ids, sorted (see ``CardMove.action``)."""
        actions: npt.NDArray[np.int32] = self._core.legal_actions()
        return actions

    def action_mask(self) -> npt.NDArray[np.bool_]:
        """A bool array of length ``ACTION_SIZE`` (32), True at the legal moves' ids."""
        mask = np.zeros(ACTION_SIZE, dtype=np.bool_)
        mask[self._core.legal_actions()] = True
        return mask

    def legal_moves(self) -> list[CardMove]:
        """The legal moves for the current decision, in action order (empty when over): each
        card type in the hand scored either way round, or swap and keep."""
        return [MOVES[a] for a in self._core.legal_actions().tolist()]

    def is_legal(self, move: CardMove | str | int) -> bool:
        """Whether ``move`` (a CardMove, its text or its action id) is legal now; False for
        anything that is not a move."""
        try:
            return bool(self._core.is_legal(self._as_move(move).action))
        except GenialError:
            return False

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

    def play(self, move: CardMove | str | int) -> None:
        """Play a move (a ``CardMove``, its text, or its action id), checked.

        Raises ``IllegalMoveError``, saying why, and leaves the game unchanged if the move is
        malformed or not legal now.
        """
        self._play(move)

    def undo(self) -> CardMove:
        """Take back the last ``play()``: markers, hands, displays, deck, discard pile and the
        chance stream are exactly as before it (the policy stream, the chooser's, runs on).
        Returns the move taken back."""
        move: CardMove = self._undo()
        return move

    @property
    def moves(self) -> list[CardMove]:
        """The moves played since the start of the record (``to_record()['start']``)."""
        return [move for move, _ in self._moves]

    def _as_move(self, move: CardMove | str | int) -> CardMove:
        if isinstance(move, CardMove):
            return move
        if isinstance(move, str):
            return CardMove.parse(move)
        if isinstance(move, (int, np.integer)) and not isinstance(move, (bool, np.bool_)):
            return CardMove.from_action(int(move))
        raise IllegalMoveError(
            f"expected a CardMove, a move text or an action id, got {excerpt(move)}"
        )

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

    # -- copies and pickling -------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        """Games are equal when their positions are (``to_text()``), whatever their history."""
        return isinstance(other, CardGame) and other.to_text() == self.to_text()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"CardGame.from_text({self.to_text()!r})"

    def __str__(self) -> str:
        return _table(self)

    def _repr_svg_(self) -> str:
        from .svg import cards_svg

        return cards_svg(self)

    # -- position text -------------------------------------------------------------------------
    def to_text(self) -> str:
        """The whole position as one line (``genial.cards.notation`` describes the twelve
        fields).

        >>> CardGame(players=2, seed=3).to_text().split()[0]
        'c2'
        """
        with self._lock:
            return read(self._core, self._rules).to_text()

    @classmethod
    def from_text(cls, text: str, *, seed: Any = None) -> CardGame:
        """Read a position written by ``to_text()``; ``seed`` seeds the draws that follow.
        Raises ``PositionError`` saying what is wrong (``notation.load`` lists the checks)."""
        return cls.from_position(CardPosition.parse(text), seed=seed)

    @classmethod
    def from_position(cls, position: CardPosition, *, seed: Any = None) -> CardGame:
        """A game starting at ``position`` (checked: ``PositionError`` says what is wrong)."""
        if not isinstance(position, CardPosition):
            raise PositionError(
                f"expected a genial.cards.CardPosition, got {type(position).__name__}"
            )
        game = object.__new__(cls)
        game._init(position.rules, load(position), seed)
        game._start = game.to_text()
        return game

    # -- records -------------------------------------------------------------------------------
    def to_record(self) -> dict[str, Any]:
        """A JSON-serialisable record (format ``'genial-cards-record'``, version 1): the start
        position (hands, displays and deck included), then every move with the cards drawn
        right after it. ``CardGame.from_record`` replays it exactly."""
        return make_record(self._start, self._record_moves())

    @classmethod
    def from_record(cls, record: Any, *, seed: Any = None) -> CardGame:
        """Replay a record made by ``to_record()``; raises ``RecordError`` saying what is wrong.

        ``seed`` seeds draws after the record's last move.
        """
        start, moves = read_record(record)
        try:
            game = cls.from_text(start, seed=seed)
        except PositionError as exc:
            raise RecordError(f"bad start position: {exc}") from None
        game._replay(moves)
        return game

    # -- policies ------------------------------------------------------------------------------
    def choose(self, policy: str = "random", *, epsilon: float = 0.1) -> CardMove:
        """The move a built-in policy picks here, drawn from the game's policy stream (never
        from the deck's chance stream). ``'random'``: a uniformly random legal move (a card
        type of the hand and an order; the swap on a fair coin). ``'greedy'``: the play that
        maximises ``sum over colours of -(10 - marker)^2`` after it, ties at random; it swaps
        whenever allowed. ``'epsilon-greedy'`` (``'epsilon-greedy:0.2'``, default 0.1): a
        random move with probability epsilon, else greedy."""
        return MOVES[self._choose(policy, epsilon)]


# -- str(game) ---------------------------------------------------------------------------------


def _table(game: CardGame) -> str:
    """A table for people: each seat's markers per colour, the area of its lowest marker and the
    last column its markers may reach (RULES §5.4), its hand and display; then the deck, the
    discard pile and whose turn it is."""
    pos = game.position
    hands = [" ".join(card_text(c) for c in h) or "-" for h in pos.hands]
    width = max(len(h) for h in hands)
    lines = [
        "       "
        + " ".join(f"{c:>2}" for c in COLOURS)
        + "  low limit  "
        + "hand".ljust(width)
        + "  display (oldest first)"
    ]
    for p, markers in enumerate(pos.markers):
        mark = "*" if p == pos.to_move and pos.phase != "over" else " "
        low = min(markers)
        display = " ".join(card_text(c) for c in pos.displays[p]) or "-"
        lines.append(
            f"{mark} p{p}   "
            + " ".join(f"{v:>2}" for v in markers)
            + f"   A{area_of(low)}  {limit_of(markers):>4}  {hands[p].ljust(width)}  {display}"
        )
    areas = ", ".join(
        f"A{i} = {r.start}" + (f"-{r.stop - 1}" if len(r) > 1 else "") for i, r in enumerate(AREAS)
    )
    lines.append(f"areas {areas}; cap {CAP}")
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

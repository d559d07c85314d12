"""What an agent of the card game sees, as the flat int8 vector of the PettingZoo environment
(``genial.integrations.pettingzoo``, ``docs/rl.md``): the card game's part of the environment,
which itself knows no game. Needs numpy only.

>>> watch = CardObserver(3)
>>> game = watch.start(np.random.SeedSequence(1), None)
>>> watch.observation(game, 0)[:15].tolist()   # RG RB GY GY BY OP (CardGame(3, seed=1))
[1, 1, 0, 0, 0, 0, 0, 2, 0, 0, 1, 0, 0, 1, 0]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import GenialError, excerpt
from .game import CardGame
from .moves import ACTION_SIZE, CARDS
from .notation import PHASES, CardPosition
from .rules import DEFAULT_TURN_CAP, CardRules

__all__ = ["CardObserver"]

_CARD_INDEX = {card: i for i, card in enumerate(CARDS)}
_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}
_MAX_OWED = 12  # bonus turns owed at once: at most one per colour and crossing


class CardObserver:
    """The card game in an environment: how a game starts (``start``), what a seat sees
    (``observation``, its ``fields`` and their bounds ``high``), when the game is cut short
    (``truncated``) and its rewards (``final``). ``players``, ``rules`` and ``max_turns`` are
    ``CardEnv``'s."""

    name = "genial_cards_v0"
    action_size = ACTION_SIZE

    def __init__(
        self,
        players: int | str | CardRules = 3,
        *,
        rules: CardRules | str | None = None,
        max_turns: int | None = None,
    ) -> None:
        cap = DEFAULT_TURN_CAP if max_turns is None else max_turns
        self.rules = game_rules = CardRules.of(players, turn_cap=cap, rules=rules)
        self.max_turns: int | None = game_rules.turn_cap
        # display slots per seat: one more than the display, for the winning card (RULES §5.7)
        self._slots = slots = game_rules.display_size + 1
        n = game_rules.players
        self.fields: list[tuple[str, int]] = [  # the observation's fields and their widths
            ("hand", len(CARDS)),
            ("hand_sizes", n),
            ("displays", n * slots * len(CARDS)),
            ("markers", 6 * n),
            ("deck_size", 1),
            ("discard_size", 1),
            ("phase", 3),
            ("bonus_turns", 1),
            ("seat", n),
            ("to_move", n),
        ]

    def high(self, lay: dict[str, slice], size: int) -> npt.NDArray[np.int8]:
        """The observation's upper bounds (``lay``: the fields' slices)."""
        high = np.ones(size, dtype=np.int8)
        total = 4 * len(CARDS)  # 60 cards (RULES §5.1)
        high[lay["hand"]] = 6
        high[lay["hand_sizes"]] = 6
        high[lay["markers"]] = self.rules.cap
        high[lay["deck_size"]] = total
        high[lay["discard_size"]] = total
        high[lay["bonus_turns"]] = _MAX_OWED
        return high

    def start(self, seed: np.random.SeedSequence, position: Any) -> CardGame:
        """A new game of these rules, or from ``position`` (a text or a ``CardPosition``)."""
        if position is None:
            return CardGame(rules=self.rules, seed=seed)
        pos = CardPosition.parse(position) if isinstance(position, str) else position
        if not isinstance(pos, CardPosition):
            raise GenialError(
                f"options['position'] must be a position text or a genial.cards.CardPosition, "
                f"got {excerpt(position)}"
            )
        if pos.rules != self.rules:
            raise GenialError(
                f"the position is a {pos.rules} game, this environment plays {self.rules}"
            )
        return CardGame.from_position(pos, seed=seed)

    def played(self, game: CardGame, action: int) -> None:
        """Called after each action the environment plays (nothing to follow here)."""

    def follow(self, game: CardGame) -> None:
        """Nothing to follow here (``BoardObserver.follow`` sets its board planes)."""

    def truncated(self, game: CardGame) -> bool:
        """Whether the game stopped at the turn cap (checked after every action)."""
        return bool(game.truncated)

    def observation(self, game: CardGame, seat: int) -> npt.NDArray[np.int8]:
        """What ``seat`` sees (the fields in layout order)."""
        n = self.rules.players
        k = len(CARDS)
        slots = self._slots
        hands = [game.hand(q) for q in range(n)]
        hand = [0] * k
        for card in hands[seat]:
            hand[_CARD_INDEX[card]] += 1
        displays = [0] * (n * slots * k)
        for q in range(n):
            for j, card in enumerate(game.display(q)):
                displays[(q * slots + j) * k + _CARD_INDEX[card]] = 1
        phase = [0, 0, 0]
        phase[_PHASE_INDEX[game.phase]] = 1
        me = [0] * n
        me[seat] = 1
        to_move = [0] * n
        to_move[game.current_player] = 1
        out = bytearray(  # the fields in layout order, every value in 0..127
            hand
            + [len(h) for h in hands]
            + displays
            + game.scores.reshape(-1).tolist()
            + [game.deck_size, game.discard_size]
            + phase
            + [game.bonus_turns]
            + me
            + to_move
        )
        return np.frombuffer(out, dtype=np.int8)

    def final(self, game: CardGame, rewards: Any) -> list[float]:
        """The seats' rewards of a finished (or truncated) game; ``rewards(ranks)`` ranks the
        players (``genial.integrations.pettingzoo.ranking_rewards``)."""
        result: list[float] = rewards(game.ranks().tolist())
        return result

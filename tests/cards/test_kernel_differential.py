"""The card game's kernel (``genial.cards._kernel``, in progress for the card-game issue) against
the pure-Python reference of RULES §5 (``tests/reference/cards.py``, written from the rules alone):
random and greedy games for 2, 3 and 4 players, compared at every step (legal moves, markers,
hands, displays, deck and discard pile, phase, seat to move, bonus turns owed, turns), then the
final ranks. ``GENIAL_DIFF_GAMES`` sets the games per player count (default 30)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from genial.cards import _kernel

from ..depth import sized
from ..reference.cards import CardReference

GAMES = sized("GENIAL_DIFF_GAMES", full=30, quick=8)
CARDS = _kernel.CARDS
PHASES = ("play", "swap", "over")


def ref_move(action: int) -> tuple[object, ...]:
    if action == _kernel.ACTION_SWAP:
        return ("swap",)
    if action == _kernel.ACTION_KEEP:
        return ("keep",)
    card = CARDS[action >> 1]
    return ("play", card, card[action & 1])


def check(core: _kernel.Cards, ref: CardReference, where: str) -> None:
    players = core.players
    assert PHASES[core.phase] == ref.phase, where
    assert core.markers().tolist() == [list(m) for m in ref.markers], where
    if ref.phase == "over":
        return
    assert core.current == ref.current, where
    assert core.bonus == ref.bonus, where
    assert core.turns == ref.turns, where
    for p in range(players):
        assert Counter(CARDS[t] for t in core.hand(p)) == +ref.hands[p], where
        assert [CARDS[t] for t in core.display(p)] == list(ref.displays[p]), where
    deck = Counter({CARDS[t]: n for t, n in enumerate(core.deck_counts()) if n})
    discard = Counter({CARDS[t]: n for t, n in enumerate(core.discard_counts()) if n})
    assert deck == +ref.deck, where
    assert discard == +ref.discard, where
    assert {ref_move(int(a)) for a in core.legal_actions()} == ref.legal_moves(), where


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("policy", ["random", "greedy"])
def test_kernel_matches_reference(players: int, policy: str) -> None:
    """RULES §5.1-§5.8: every step of the kernel's games agrees with the reference."""
    seen: Counter[str] = Counter()
    for g in range(GAMES):
        bg = np.random.PCG64(1000 * players + g)
        core = _kernel.Cards(players=players, display_size=2 if players == 2 else 1, turn_cap=1000)
        core.deal(bg)
        deck = [CARDS[t] for t, n in enumerate(core.deck_counts()) for _ in range(n)]
        ref = CardReference(
            players,
            [[CARDS[t] for t in core.hand(p)] for p in range(players)],
            [[CARDS[t] for t in core.display(p)] for p in range(players)],
            deck,
        )
        step = 0
        while True:
            where = f"players={players} policy={policy} game={g} step={step}"
            check(core, ref, where)
            if PHASES[core.phase] == "over":
                break
            action = core.choose(policy, bg)
            before = core.stats()["reshuffles"]
            drawn = core.apply(action, bg)
            seen["swap" if action == _kernel.ACTION_SWAP else "move"] += 1
            seen["reshuffle"] += core.stats()["reshuffles"] - before
            seen["bonus owed"] += core.bonus > 0
            ref.play(ref_move(action), [CARDS[t] for t in drawn])
            step += 1
        assert core.ranks().tolist() == ref.ranks(), where
        seen["instant win"] += core.winner is not None
    assert seen["reshuffle"] > 0 and seen["bonus owed"] > 0 and seen["instant win"] > 0, seen
    if policy == "greedy":
        assert seen["swap"] > 0, seen

"""RULES §3.7 (and §5.7 for the card game's markers): both kernels rank seats by one shared key,
``genial._ranking.rank_key``, a sorting network. These check it against the rule written out in
Python (sort ascending, compare lexicographically, count the seats strictly ahead) on random
counter vectors, ties included, through each game's public ``ranks()``."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from genial.cards import CardGame, CardPosition, CardRules

from .rules import positions as h

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def by_the_rule(rows: list[list[int]]) -> list[int]:
    keys = [sorted(r) for r in rows]
    return [sum(other > mine for other in keys) for mine in keys]


def vectors(low: int, high: int) -> st.SearchStrategy[list[list[int]]]:
    # few distinct values, so that ties and equal prefixes are common
    value = st.integers(low, high)
    return st.integers(2, 4).flatmap(
        lambda n: st.lists(st.lists(value, min_size=6, max_size=6), min_size=n, max_size=n)
    )


@SETTINGS
@given(vectors(0, 3) | vectors(0, 17))
def test_board_ranks_follow_the_rule(rows: list[list[int]]) -> None:
    """RULES §3.7 on the board game's scores."""
    g = h.game(players=len(rows), scores=rows, racks=[["OO"] for _ in rows], bag={"YY": 5})
    assert [int(x) for x in g.ranks()] == by_the_rule(rows)


@SETTINGS
@given(vectors(0, 3) | vectors(4, 6))
def test_card_ranks_follow_the_rule(rows: list[list[int]]) -> None:
    """RULES §5.7: the markers ranked as §3.7 ranks counters (every vector within the §5.4 limit
    of its lowest marker, none at the end of the track)."""
    n = len(rows)
    position = CardPosition.build(
        CardRules(n), hands=[["RG"]] * n, displays=[["RB"] * (2 if n == 2 else 1)] * n, markers=rows
    )
    game = CardGame.from_position(position, seed=0)
    assert game.ranks().tolist() == by_the_rule(rows)

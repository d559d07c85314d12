"""The results' notebook views: short ``repr``s (under 5,000 characters, arrays summarised, not
dumped), HTML views with the caveats of their text form, labelled win rates."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import genial
from genial.analysis import evaluate
from genial.arena import ArenaResult, arena
from genial.cards import CardGame
from genial.cards.matches import MatchResult

LIMIT = 5000

EIGHT = [
    "random",
    "greedy",
    "epsilon-greedy:0.1",
    "epsilon-greedy:0.2",
    "epsilon-greedy:0.3",
    "epsilon-greedy:0.5",
    "epsilon-greedy:0.7",
    "epsilon-greedy:0.9",
]


def _cells(page: str) -> list[list[str]]:
    """The body rows of the first table of an HTML page, each a list of cell texts."""
    body = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [
        [re.sub("<[^>]+>", "", cell) for cell in re.findall(r"<td[^>]*>(.*?)</td>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", body)
    ]


def _unexplained_flat_intervals(result: ArenaResult) -> list[str]:
    """The ratings rows of the HTML view showing an interval ``[x, x]`` with no mark, but
    the anchor's (rated 0 by definition, said so in the row and the foot)."""
    out = []
    for row in _cells(result._repr_html_()):
        name, interval = row[0], row[2]
        flat = re.fullmatch(r"\[(-?[\d.]+), (-?[\d.]+)\]", interval)
        if flat and flat.group(1) == flat.group(2) and not name.endswith("(anchor)"):
            out.append(name)
    return out


# -- 1. the arena's HTML view carries the text's caveat -----------------------------------------


def test_arena_html_carries_the_prior_caveat_of_a_sweep() -> None:
    result = arena(["random", "greedy"], games=10, seed=1, workers=1)
    assert result.wins[0, 1] + result.ties[0, 1] == 0  # random never scored against greedy
    text, page = str(result), result._repr_html_()
    assert "never scored against greedy" in text
    assert "never scored against greedy" in page and "lower bound set by the prior" in page
    greedy = next(row for row in _cells(page) if row[0] == "greedy")
    assert greedy[1].startswith("≥ ") and greedy[2].endswith("†")  # the row is marked
    assert _unexplained_flat_intervals(result) == []
    assert page.count("<table") == 2
    assert len(repr(result)) < 400 and "array(" not in repr(result)
    # the text marks the row as the HTML view does, and explains the mark below
    row = next(line for line in text.splitlines() if line.startswith("greedy "))
    assert "≥" in row.split("[")[0] and "]†" in row
    assert any(line.startswith("† random never scored") for line in text.splitlines())


def test_arena_html_marks_the_bound_below_an_anchor_that_swept() -> None:
    result = arena(["random", "greedy"], games=10, seed=1, workers=1, anchor="greedy")
    random_row = next(row for row in _cells(result._repr_html_()) if row[0] == "random")
    assert random_row[1].startswith("≤ -") and random_row[2].endswith("†")


def test_no_zero_width_interval_without_a_caveat() -> None:
    """An interval the bootstrap left without width (here forced) is marked and explained in
    both views, even with no sweep to blame."""
    real = arena(["epsilon-greedy:0.9", "random"], games=12, seed=2, workers=1, bootstrap=20)
    assert (real.wins + real.ties)[0, 1] > 0 and (real.wins + real.ties)[1, 0] > 0
    flat = dataclasses.replace(real, elo_lo=real.elo.copy(), elo_hi=real.elo.copy())
    page = flat._repr_html_()
    assert "‡" in page and "no spread" in page
    assert "no spread" in str(flat) and "no spread" not in str(real)
    row = next(line for line in str(flat).splitlines() if line.startswith("random "))
    assert "]‡" in row  # the ratings' row (before the score matrix's)
    assert _unexplained_flat_intervals(flat) == []
    assert "‡" not in real._repr_html_()


# -- 2. the position analysis's repr -------------------------------------------------------------


def test_evaluation_repr_is_short_and_informative() -> None:
    game = genial.Game(2, seed=4)
    result = evaluate(game, playouts=2, seed=1, workers=1)
    assert len(result.rows) == len(game.legal_moves()) > 100
    text = repr(result)
    assert len(text) < LIMIT
    assert text.startswith("Evaluation(position=") and text.endswith(")")
    assert repr(game.to_text()) in text  # the position, whole
    assert f"moves={len(result.rows)}" in text and f"best={str(result.best)!r}" in text
    assert "'win_lo'" not in text  # no row dumped
    page = result._repr_html_()  # the rich view is still the table
    assert page.startswith("<table") and str(result.best) in page


def test_card_and_solo_evaluation_reprs_are_short() -> None:
    cards = evaluate(CardGame(3, seed=2), playouts=4, seed=1, workers=1)
    solo = evaluate(genial.Game(1, seed=4), playouts=2, seed=1, workers=1)
    for result in (cards, solo):
        text = repr(result)
        assert len(text) < LIMIT and text.startswith("Evaluation(")
        assert f"moves={len(result.rows)}" in text
    assert "win_rate=" in repr(cards) and "lowest=" in repr(solo)


# -- 3. card-game matches ------------------------------------------------------------------------


def test_match_result_repr_is_short() -> None:
    result = genial.match(300, rounds=3, players=3, policy=["greedy", "random", "random"], seed=1)
    assert isinstance(result, MatchResult)
    text = repr(result)
    assert len(text) < LIMIT and "array(" not in text
    assert text.startswith("MatchResult(matches=300, rounds=3, players=3")
    wins = [int((result.winner == s).sum()) for s in range(3)]
    assert f"wins={wins}" in text and "'greedy'" in text


def test_match_result_html_table() -> None:
    result = genial.match(30, rounds=2, players=3, policy=["greedy", "random", "random"], seed=2)
    page = result._repr_html_()
    assert page.startswith("<table") and page.count("<table") == 1
    rows = _cells(page)
    assert [row[:2] for row in rows] == [["0", "greedy"], ["1", "random"], ["2", "random"]]
    for row, rate in zip(rows, result.win_rates(), strict=True):
        assert row[2] == str(rate.wins) and row[4] == f"[{rate.lo:.1%}, {rate.hi:.1%}]"
    assert "shared first place" in page


def test_match_win_rates_are_labelled() -> None:
    result = genial.match(40, rounds=2, players=2, policy=["greedy", "random"], seed=3)
    from genial.cards.matches import WinRate

    rates = result.win_rates()
    assert [type(w) for w in rates] == [WinRate, WinRate]
    assert [(w.seat, w.policy) for w in rates] == [(0, "greedy"), (1, "random")]
    for w in rates:
        assert w.wins == int((result.winner == w.seat).sum())
        assert w.rate == pytest.approx(w.wins / len(result))
        assert w.lo <= w.rate <= w.hi
    assert rates[0]._asdict().keys() == {"seat", "policy", "wins", "rate", "lo", "hi"}


# -- 4. the arena's repr -------------------------------------------------------------------------


def test_arena_repr_is_short_for_eight_policies() -> None:
    result = arena(EIGHT, games=2, seed=1, workers=1, bootstrap=20)
    text = repr(result)
    assert len(text) < LIMIT and "array(" not in text
    assert text.startswith("ArenaResult(policies=(") and "deals=2" in text
    for name, elo in zip(result.policies, result.elo, strict=True):
        assert f"{name!r}: {round(float(elo), 1)!r}" in text
    assert _unexplained_flat_intervals(result) == []


def test_arena_repr_stays_short_with_very_long_names() -> None:
    result = arena(["random", "greedy"], games=2, seed=1, workers=1, bootstrap=0)
    long = tuple(f"{p}-{'x' * 3000}" for p in result.policies)
    renamed = dataclasses.replace(result, policies=long, anchor=long[0])
    assert len(repr(renamed)) < LIMIT and "<2 policies>" in repr(renamed)
    assert np.isnan(renamed.elo_lo).all()

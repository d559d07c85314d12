"""Three frictions users met, each pinned down: the replay page told the result at move 0; at a
1,000-pixel window its play button wrapped and the move list fell below the fold; the card
game's player blocks spoke jargon ("lowest 0 in A0, limit 3").

The layout's tests run the page in headless Chromium: tests/test_replay_browser.py."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest

from genial import Game
from genial.cards import CardGame
from genial.render.html import replay_html
from genial.render.svg import cards_svg

SVG = "{http://www.w3.org/2000/svg}"


def finished(game: Any) -> Any:
    while not game.is_over:
        game.play(game.choose("greedy"))
    return game


def reach(markers: list[int]) -> int:
    """RULES §5.4, written out again: the highest column any marker may reach is 3 while a
    marker is at 0 (area A0), 6 while the lowest is at 1-3 (A1), else 10."""
    low = min(markers)
    return 3 if low == 0 else 6 if low <= 3 else 10


# -- 1. no spoiler -------------------------------------------------------------------------------


def visible(page: str) -> str:
    """The page without its scripts (the steps' data): what shows before the script runs."""
    return re.sub(r"<script\b.*?</script>", "", page, flags=re.S)


GAMES = [(Game, 2, 4), (Game, 4, 7), (CardGame, 3, 4)]
"""Games to finish: (class, players, seed)."""


@pytest.mark.parametrize(("cls", "players", "seed"), GAMES)
def test_the_replay_page_keeps_the_result_for_the_last_move(
    cls: Any, players: int, seed: int
) -> None:
    game = finished(cls(players, seed=seed))
    record = game.to_record()
    page = replay_html(record)
    data = json.loads(re.search(r'id="genial-data">(.*?)</script>', page, re.S).group(1))
    final = data["steps"][-1]["status"]
    assert "wins" in final or "game over" in final  # the result is there, for the last step
    shown = visible(page)
    assert final not in shown
    assert "wins" not in shown and "game over" not in shown and "1st" not in shown
    title = re.search(r"<title>(.*?)</title>", page).group(1)
    noun = "board game" if cls is Game else "card game"
    assert title == f"genial replay: {noun}, rules {game.rules}, {len(game.moves)} moves"
    assert data["steps"][0]["status"] in shown  # the picture opens on the first step's status


# -- 3. the card game's words ---------------------------------------------------------------------


def labels(svg: str) -> list[str]:
    root = ET.fromstring(svg)
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text") if t.get("class") == "label"]


def test_card_blocks_say_how_far_the_markers_can_go() -> None:
    game = CardGame(3, seed=4)
    assert labels(cards_svg(game)) == [
        f"player {p}: lowest marker 0; markers can advance up to column 3" for p in range(3)
    ]
    seen = set()
    while not game.is_over:
        game.play(game.choose("greedy"))
        text = cards_svg(game)
        for p, label in enumerate(labels(text)):
            markers = [int(v) for v in game.scores[p]]
            who = f"player {p}"
            if game.is_over:
                place = int(game.ranks()[p]) + 1
                who += f" ({place}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(place, 'th') })"
            assert label == (
                f"{who}: lowest marker {min(markers)}; markers can advance up to column "
                f"{reach(markers)}"
            )
            seen.add(reach(markers))
        assert "limit" not in " ".join(labels(text)) and " in A" not in " ".join(labels(text))
    assert seen == {3, 6, 10}


def test_the_card_game_text_says_it_in_words_too() -> None:
    game = CardGame(2, seed=3)
    for _ in range(12):
        game.play(game.choose("greedy"))
    lines = str(game).splitlines()
    assert "lowest  up to" in lines[0] and "limit" not in str(game)
    for p, line in enumerate(lines[1:3]):
        markers = [int(v) for v in game.scores[p]]
        cells = line[1:].split()  # after the mark of the player to move
        assert cells[1:9] == [*map(str, markers), str(min(markers)), str(reach(markers))]
    assert "up to: the highest column a player's markers can advance to" in str(game)
    assert not any(re.search(r"\bA\d\b", line) for line in lines[1:3])  # no area names in rows


def test_the_card_replay_page_uses_the_same_words() -> None:
    game = finished(CardGame(2, seed=5))
    page = replay_html(game.to_record())
    data = json.loads(re.search(r'id="genial-data">(.*?)</script>', page, re.S).group(1))
    text = " ".join(re.sub(r"<[^>]+>", "", f) for f in data["fragments"])
    assert "markers can advance up to column 3" in text and "lowest marker" in text
    assert "limit" not in text and " in A" not in text
    assert "limit" not in re.sub(r"<[^>]+>", "", visible(page))


# -- 2. the layout, in a browser -----------------------------------------------------------------
